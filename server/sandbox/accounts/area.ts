import type { SandboxArea } from '../core/area.js';
import { parseBody } from '../core/body.js';
import type { SandboxContext } from '../core/context.js';
import { claimPaths, isSandboxPath, type NextFunction, type Request, type Response, Router } from '../core/http.js';
import { createIdempotency } from '../core/idempotency.js';
import { hostPrefixRule } from '../oauth/host.js';
import { accountControlRoutes } from './controls.js';
import { entityRoutes } from './entities/routes.js';
import { renderAccountsError, svcVersion } from './errors.js';
import { loadAccountsFixtures } from './fixtures.js';
import type { AccountsDeps } from './http.js';
import { instrumentRoutes } from './instruments.js';
import { memberRoutes } from './members.js';
import { paymentInstrumentRoutes } from './payment-instruments.js';
import { reserveRuleRoutes } from './reserve-rules.js';
import { simulatorRoutes } from './simulator.js';
import { AccountsStore } from './store.js';
import { updaterRoutes } from './updater.js';

// Any case, as the router matches (docs/decisions/sandbox.md#sandbox-http): a path the router would route must
// reach this area, or its errors come out in another area's shape.
const API_PATH = claimPaths(['/accounts', '/account-updater', '/instruments', '/onboarding-simulator']);
const CONTROL_PATH = claimPaths(['/_sandbox/account-updater', '/_sandbox/accounts']);

/**
 * The current-generation Account Services API (shared/spec/account-services-api.md): entities, members,
 * payment instruments, reserve rules, the account updater, stored instruments and the onboarding
 * simulator, with this area's sandbox controls. State is loaded from fixtures (`accounts` key) at start
 * and again on every sandbox reset.
 */
export function accountsArea(ctx: SandboxContext): SandboxArea {
  const store = new AccountsStore();
  const load = () => {
    store.clear();
    loadAccountsFixtures(ctx, store);
  };
  load();
  ctx.onReset(load);

  const idempotency = createIdempotency(ctx);
  const deps: AccountsDeps = { ctx, store, idempotency, postBody: idempotency.wrap(parseBody(['json'])) };
  const router = new Router();
  const hostRule = hostPrefixRule(ctx);
  router.use(svcVersion, (req: Request, res: Response, next: NextFunction) =>
    isSandboxPath(req.path) ? next() : hostRule(req, res, next),
  );
  updaterRoutes(router, deps);
  instrumentRoutes(router, deps);
  entityRoutes(router, deps);
  memberRoutes(router, deps);
  paymentInstrumentRoutes(router, deps);
  reserveRuleRoutes(router, deps);
  if (ctx.mode === 'sandbox') {
    simulatorRoutes(router, deps);
    accountControlRoutes(router, deps);
  }

  return {
    name: 'accounts',
    claims: (path) => API_PATH(path) || (ctx.mode === 'sandbox' && CONTROL_PATH(path)),
    formats: ['json'],
    renderError: renderAccountsError,
    faultable: true,
    router,
  };
}
