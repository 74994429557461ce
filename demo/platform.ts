import { type Request, Router } from 'express';
import type { AccountsClient, ReserveRule, StoredInstrument } from '../server/provider/index.js';
import { demoBody } from './body.js';
import { invalid } from './errors.js';
import { DEMO_USERS, demoUser, type HostIssuer } from './host-tokens.js';
import { layout, pageScript } from './html.js';
import { onlyMethods } from './methods.js';
import { dashboardBody, pickUserBody } from './platform-page.js';

export interface PlatformDeps {
  readonly accounts: AccountsClient;
  readonly issuer: HostIssuer;
  readonly now: () => number;
  readonly log: { warn(obj: object, msg?: string): void };
  /** Where the helper answers for this request (`helper.page(req).baseUrl`). */
  readonly helperUrl: (req: Request) => string;
}

/**
 * The platform dashboard. `GET /platform?user=…` renders the page for a demo user; what only the merchant's back
 * end may read (the reserve rule, the saved cards' summaries) is read here with the accounts client, and the
 * page's script uses the helper's dashboard routes with a host token from `POST /platform/token`.
 */
export function platformRoutes(deps: PlatformDeps): Router {
  const router = Router();

  router
    .route('/platform')
    .get(async (req, res) => {
      const nonce = String(res.locals.cspNonce);
      const wanted = req.query.user;
      const user = wanted === undefined ? undefined : demoUser(wanted);
      if (wanted !== undefined && !user) throw invalid('user', 'user must be one of the demo users');
      res.set('Cache-Control', 'no-store').type('html');
      if (!user) {
        res.send(layout({ title: 'Platform dashboard', nonce, current: 'platform', body: pickUserBody() }));
        return;
      }
      const other = DEMO_USERS.find((u) => u.entity !== user.entity)!;
      const [rules, cards] = await Promise.all([reserveRules(deps, user.entity), savedCards(deps, user.savedCards)]);
      res.send(
        layout({
          title: 'Platform dashboard',
          nonce,
          current: 'platform',
          head: pageScript('platform.js', nonce),
          body: dashboardBody({ user, other, rules, cards, nowMs: deps.now(), helperUrl: deps.helperUrl(req) }),
        }),
      );
    })
    .all(onlyMethods('GET'));

  // As a merchant's back end would after its own sign-in: a short-lived host token for the signed-in user.
  router
    .route('/platform/token')
    .post(demoBody('json', { limit: 1024 }), async (req, res) => {
      const user = demoUser((req.body as { user?: unknown } | undefined)?.user);
      if (!user) throw invalid('user', 'user must be one of the demo users');
      res.set('Cache-Control', 'no-store').json(await deps.issuer.issue(user));
    })
    .all(onlyMethods('POST'));

  return router;
}

async function reserveRules(deps: PlatformDeps, entity: string): Promise<ReserveRule[] | undefined> {
  try {
    return (await deps.accounts.reserveRules.list(entity)).data.data;
  } catch (err) {
    deps.log.warn({ event: 'demo.reserve-rules.failed', code: (err as { code?: unknown }).code }, 'reserve rules');
    return undefined;
  }
}

async function savedCards(deps: PlatformDeps, ids: readonly string[]) {
  const out = new Map<string, StoredInstrument | undefined>();
  await Promise.all(
    ids.map(async (id) => {
      try {
        out.set(id, (await deps.accounts.instruments.retrieve(id)).data);
      } catch {
        out.set(id, undefined);
      }
    }),
  );
  return new Map(ids.map((id) => [id, out.get(id)]));
}
