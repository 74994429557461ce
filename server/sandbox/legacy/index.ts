import type { SandboxArea } from '../core/area.js';
import { renderDefaultError } from '../core/area.js';
import { parseBody } from '../core/body.js';
import type { SandboxContext } from '../core/context.js';
import { claimPaths, type Request, type Response, Router } from '../core/http.js';
import { createIdempotency } from '../core/idempotency.js';
import { respond } from '../core/respond.js';
import { requireKey } from './auth.js';
import { consumeCardToken, createCardToken } from './card-tokens.js';
import { createCharge, readCharge } from './charges.js';
import { cardTokenCors } from './cors.js';
import { loadLegacyFixtures } from './fixtures.js';
import { legacyPaths } from './paths.js';
import { createPaymentToken } from './payment-tokens.js';
import { LegacyStore } from './store.js';
import { TEST_CARDS } from './test-cards.js';
import { completeChallenge, showChallenge } from './three-ds.js';

/**
 * The legacy card token and charge API (shared/spec/legacy-card-api.md), stateful on the sandbox clock: card
 * tokens (public key, CORS), payment tokens and charges (secret key), `GET /charges/{id}`, the 3-D Secure
 * challenge page and `GET /_sandbox/test-cards`. Bodies are JSON or XML both ways; POSTs take `Idempotency-Key`.
 * Registers `ctx.services.cardTokens` so other areas can use up a card token.
 */
export function legacyArea(ctx: SandboxContext): SandboxArea {
  const paths = legacyPaths(ctx.mode);
  const store = new LegacyStore(ctx.storeLimits);
  loadLegacyFixtures(ctx.fixtures, store);
  ctx.onReset(() => {
    store.clear();
    loadLegacyFixtures(ctx.fixtures, store);
  });
  ctx.services.cardTokens = {
    consume: (tokenId, field = 'cardToken') => consumeCardToken(ctx, store, tokenId, field).card,
  };

  const idem = createIdempotency(ctx);
  const body = parseBody(['json', 'xml']);
  const publicKey = requireKey(ctx.credentials, 'public');
  const secretKey = requireKey(ctx.credentials, 'secret');
  const router = new Router();
  const cors = cardTokenCors(paths.cardTokens);

  router.post(paths.cardTokens, publicKey, ...idem.wrap(body), createCardToken(ctx, store));
  router.post(paths.paymentTokens, secretKey, ...idem.wrap(body), createPaymentToken(ctx, store));
  router.post(paths.chargeWithToken, secretKey, ...idem.wrap(body), createCharge(ctx, store, paths));
  router.get(`${paths.charge}/:id`, secretKey, readCharge(ctx, store));
  router.get(`${paths.challenge}/:reference`, showChallenge(ctx, store));
  router.post(`${paths.challenge}/:reference`, parseBody(['form']), completeChallenge(ctx, store));
  if (paths.testCards) {
    const list = TEST_CARDS.map(({ number, brand, outcome, responseCode, description }) => ({
      number,
      brand,
      outcome,
      responseCode,
      description,
    }));
    // A JSON array whatever Accept says: the XML mapping has no top-level array.
    router.get(paths.testCards, (_req: Request, res: Response) => {
      res.locals.responseFormat = 'json';
      respond(res, 200, list);
    });
  }

  // Any case and a trailing slash, as the router matches them (docs/decisions/sandbox.md#sandbox-http).
  const claims = claimPaths([paths.base, paths.challenge], paths.testCards ? [paths.testCards] : []);
  const isChallenge = claimPaths([paths.challenge]);
  return {
    name: 'legacy',
    claims,
    formats: ['json', 'xml'],
    renderError: renderDefaultError,
    faultable: true,
    prepare: (req, res, next) => {
      // The challenge page is HTML for a browser (Accept: text/html); its few errors are JSON whatever it asks.
      if (isChallenge(req.path)) req.headers.accept = 'application/json';
      cors(req, res, next);
    },
    router,
  };
}
