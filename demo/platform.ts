import { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import type { AccountsClient, ReserveRule, StoredInstrument } from '../server/provider/index.js';
import { demoBody } from './body.js';
import { DemoError, invalid } from './errors.js';
import { DEMO_USERS, demoUser, type HostIssuer } from './host-tokens.js';
import { layout, pageScript, type Safe } from './html.js';
import { onlyMethods } from './methods.js';
import { dashboardBody, pickUserBody } from './platform-page.js';
import type { DemoSessions } from './session.js';

export interface PlatformDeps {
  readonly accounts: AccountsClient;
  readonly issuer: HostIssuer;
  /** The demo's sessions: the signed-in user is kept there, on the server. */
  readonly sessions: DemoSessions;
  readonly now: () => number;
  readonly log: { warn(obj: object, msg?: string): void };
  /** Where the helper answers for this request (`helper.page(req).baseUrl`). */
  readonly helperUrl: (req: Request) => string;
}

const signInSchema = z.object({
  user: z.enum(
    DEMO_USERS.map((u) => u.id),
    { error: 'must be one of the demo users' },
  ),
});

/**
 * The platform dashboard. Picking a demo user (`POST /platform/sign-in`) stands in for the merchant's own sign-in:
 * the session gets a new id and remembers the user on the server. `GET /platform` renders the dashboard of the
 * session's user; what only the merchant's back end may read (the reserve rule, the saved cards' summaries) is
 * read here with the accounts client, and the page's script uses the helper's dashboard routes with a host token
 * from `POST /platform/token`, which is issued for the session's user only (docs/decisions/demo.md#demo-host-tokens).
 */
export function platformRoutes(deps: PlatformDeps): Router {
  const router = Router();
  /** A dashboard page (the pick form, or a user's dashboard with its script): per user, so never cached. */
  const page = (res: Response, body: Safe, head?: Safe) => {
    res
      .set('Cache-Control', 'no-store')
      .type('html')
      .send(
        layout({
          title: 'Platform dashboard',
          nonce: String(res.locals.cspNonce),
          current: 'platform',
          ...(head === undefined ? {} : { head }),
          body,
        }),
      );
  };
  const pick = (res: Response) => page(res, pickUserBody());

  router
    .route('/platform')
    .get(async (req, res) => {
      const user = demoUser(deps.sessions.user(req));
      if (!user) {
        pick(res);
        return;
      }
      const nonce = String(res.locals.cspNonce);
      const other = DEMO_USERS.find((u) => u.entity !== user.entity)!;
      const [rules, cards] = await Promise.all([reserveRules(deps, user.entity), savedCards(deps, user.savedCards)]);
      page(
        res,
        dashboardBody({ user, other, rules, cards, nowMs: deps.now(), helperUrl: deps.helperUrl(req) }),
        pageScript('platform.js', nonce),
      );
    })
    .all(onlyMethods('GET'));

  // The sign-in form (`GET`, "Switch user") and the sign-in itself: a form post, so another site's page cannot sign a
  // visitor in as someone else (the cross-site rule refuses it), and a new session id, so an id known before the
  // sign-in does not name the signed-in session.
  router
    .route('/platform/sign-in')
    .get((_req, res) => pick(res))
    .post(demoBody('form', { limit: 1024, parameterLimit: 5 }), (req, res) => {
      const parsed = signInSchema.safeParse(req.body ?? {});
      if (!parsed.success) throw invalid('user', 'user must be one of the demo users');
      deps.sessions.signIn(req, res, parsed.data.user);
      res.redirect(303, '/platform');
    })
    .all(onlyMethods('GET', 'POST'));

  // Signing out forgets the user and rotates the id: every host token issued to the session is refused from then on.
  // A form post, as the sign-in, so another site's page cannot sign a visitor out.
  router
    .route('/platform/sign-out')
    .post(demoBody('form', { limit: 1024, parameterLimit: 5 }), (req, res) => {
      deps.sessions.signOut(req, res);
      res.redirect(303, '/platform');
    })
    .all(onlyMethods('POST'));

  // As a merchant's back end would after its own sign-in: a short-lived host token for the signed-in user. The body
  // names the user the page was drawn for, so a page left open after signing in as someone else is told so.
  router
    .route('/platform/token')
    .post(demoBody('json', { limit: 1024 }), async (req, res) => {
      const user = demoUser((req.body as { user?: unknown } | undefined)?.user);
      if (!user) throw invalid('user', 'user must be one of the demo users');
      const signedIn = deps.sessions.user(req);
      if (signedIn !== user.id) {
        throw new DemoError(
          403,
          'DEMO_NOT_SIGNED_IN',
          signedIn === undefined
            ? `Sign in as ${user.id} on /platform first: this session is not signed in.`
            : `This session is signed in as ${signedIn}, not ${user.id}: reload the dashboard.`,
          'user',
        );
      }
      // Bound to this session: the helper refuses it from any other, and once this one signs out or in again
      // (docs/decisions/demo.md#demo-host-binding). A signed-in session always has an id.
      res.set('Cache-Control', 'no-store').json(await deps.issuer.issue(user, deps.sessions.binding(req)!));
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
