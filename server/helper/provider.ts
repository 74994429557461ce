import type { Router } from 'express';
import type { HelperContext } from './context.js';
import type { HelperLogger } from './log.js';
import type { ValidatedOptions } from './options.js';

/** Where `npx tessera sandbox` listens by default: the default of every provider URL. */
const DEFAULT_SANDBOX_URL = 'http://127.0.0.1:4010';

/** The provider side of one helper: the widget's card-token URL and the routes that call the provider. */
export interface HelperProvider {
  readonly cardTokenUrl: string;
  routes(ctx: HelperContext): Router[];
}

/** Builds the provider side from validated options. */
export function createProvider(o: ValidatedOptions, _log: HelperLogger): HelperProvider {
  const base = (o.legacyBaseUrl ?? DEFAULT_SANDBOX_URL).replace(/\/+$/, '');
  return {
    cardTokenUrl: `${base}/api2/v2/tokens/card`,
    routes: () => [],
  };
}
