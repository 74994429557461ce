/** `tessera-pay/sandbox`: a faithful, stateful local copy of the provider. */

export { clientPrefix } from '../provider/urls.js';
export type { AccountsFixtures } from './accounts/fixtures-schema.js';
export { UPDATER_TEST_CARDS, type UpdaterTestCard } from './accounts/test-cards.js';
export { createSandboxApp, type SandboxApp, type SandboxAppOptions } from './app.js';
export { VirtualClock } from './clock.js';
export {
  credentialsFromEnv,
  DEFAULT_CREDENTIALS,
  type SandboxCredentials,
  type SandboxMode,
} from './config.js';
export { TEST_CARDS, type TestCard, type TestCardOutcome } from './legacy/test-cards.js';
export { type RunningSandbox, type SandboxOptions, startSandbox } from './start.js';
