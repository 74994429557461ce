import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { type Request, type Response, Router } from 'express';
import { ValidationError } from '../../provider/errors.js';
import { type Charge, isThreeDSecureRedirect, type LegacyClient } from '../../provider/legacy/client.js';
import { jsonBody } from '../body.js';
import type { HelperContext } from '../context.js';
import { badRequest, HelperHttpError } from '../errors.js';
import type { ChargeRequestBody } from '../options.js';
import { checkDeclines, consume, ipKey, recordDecline } from '../rate-limit.js';
import { sendJson } from '../respond.js';
import { upstreamError } from '../upstream.js';
import { parseBody } from '../validate.js';
import { type ChargeOutcome, outcomeOf, pendingOutcome } from './outcome.js';
import { checkReturnTarget, mountUrl } from './redirects.js';
import { type ChargeBody, chargeBodySchema, parseDetails } from './schema.js';
import { threeDsReturn } from './three-ds-return.js';

/** How long a token's answer is kept: the provider's idempotency window (DESIGN.md: 24 h). */
export const RESULT_TTL_MS = 24 * 3600_000;

/** SHA-256 of a card token: both the idempotency key and the store key derive from it, so it is hashed once. */
export const tokenDigest = (cardToken: string): Buffer => createHash('sha256').update(cardToken).digest();

/** The idempotency key of a card token's charge: the same for every retry of that token. */
export function idempotencyKeyFor(cardToken: string, digest = tokenDigest(cardToken)): string {
  return `tessera-charge-${digest.toString('base64url')}`;
}

/** Store key of a token's answer (the token itself is never a key: keys may end up in a shared store's logs). */
export const resultKey = (cardToken: string, digest = tokenDigest(cardToken)) => `charge:${digest.toString('hex')}`;
/** Store key of a pending 3-D Secure charge, by its `pay_tok_…`. */
export const threeDsKey = (paymentToken: string) => `3ds:${createHash('sha256').update(paymentToken).digest('hex')}`;

/** chargeMode 2 with the helper's return endpoint as both URLs (docs/DECISIONS.md#helper-3ds). */
const threeDsUrls = (returnUrl: string) => ({ chargeMode: 2 as const, successUrl: returnUrl, failUrl: returnUrl });

/** What the 3-D Secure return needs to finish a charge. */
export interface PendingThreeDs {
  readonly resultKey: string;
  readonly orderReference: string;
  readonly successUrl?: string;
  readonly failUrl?: string;
  readonly ip: string;
  readonly session?: string;
}

/** The provider's refusals that concern what the shopper sent, answered as 4xx instead of an upstream fault. */
function shopperError(err: ValidationError): HelperHttpError | undefined {
  const codes = new Set(err.fieldErrors.map((f) => f.code));
  const top = (err.body as { errorCode?: unknown } | undefined)?.errorCode;
  if (typeof top === 'string') codes.add(top);
  if (codes.has('card_token_used')) {
    return new HelperHttpError(409, 'TESSERA_CARD_TOKEN_USED', 'cardToken was already used; ask for the card again', {
      field: 'cardToken',
      outcomeKnown: true,
    });
  }
  if (codes.has('card_token_expired')) {
    return new HelperHttpError(409, 'TESSERA_CARD_TOKEN_EXPIRED', 'cardToken has expired; ask for the card again', {
      field: 'cardToken',
      outcomeKnown: true,
    });
  }
  if (codes.has('card_token_unknown')) return badRequest('cardToken', 'cardToken is not a known card token');
  if (codes.has('idempotency_key_reused')) {
    return new HelperHttpError(
      409,
      'TESSERA_CARD_TOKEN_USED',
      'cardToken was already used for a charge with other details; ask for the card again',
      { field: 'cardToken', outcomeKnown: true },
    );
  }
  if (codes.has('track_id_duplicate')) {
    return new HelperHttpError(409, 'TESSERA_ORDER_ALREADY_CHARGED', 'orderReference was already charged', {
      field: 'orderReference',
      outcomeKnown: true,
    });
  }
  const shopperField = err.fieldErrors.find((f) =>
    /^(email|customerId|billingDetails|shippingDetails)\b/.test(f.field),
  );
  if (shopperField) return badRequest(shopperField.field, `${shopperField.field} was refused by the payment provider`);
  return undefined;
}

/**
 * `POST /charges` and `GET /charges/3ds-return`: one card token → at most one
 * charge (docs/DECISIONS.md#helper-charges).
 */
export function chargeRoutes(ctx: HelperContext, legacy: LegacyClient, router: Router = Router()): Router {
  const inFlight = new Map<string, Promise<ChargeOutcome>>();
  const { store, limits, log } = ctx;

  async function remember(key: string, outcome: ChargeOutcome): Promise<void> {
    await store.set(key, JSON.stringify(outcome), RESULT_TTL_MS);
  }

  async function countDecline(ip: string, session: string | undefined): Promise<void> {
    if (limits.declinesPerIp) await recordDecline(store, `declines:ip:${ipKey(ip)}`, limits.declinesPerIp);
    if (limits.declinesPerSession && session) {
      await recordDecline(store, `declines:session:${session}`, limits.declinesPerSession);
    }
  }

  /** A pending 3-D Secure answer is refreshed from the provider: the shopper may have finished it meanwhile. */
  async function refreshed(key: string, outcome: ChargeOutcome): Promise<ChargeOutcome> {
    if (outcome.status !== 202 || !outcome.paymentToken) return outcome;
    let charge: Charge;
    try {
      charge = (await legacy.charges.retrieve(outcome.paymentToken)).data;
    } catch (err) {
      throw upstreamError(err);
    }
    if (charge.status === 'Pending') return outcome;
    const final = outcomeOf(charge, outcome.orderReference);
    await remember(key, final);
    return final;
  }

  async function charge(req: Request, body: ChargeBody, key: string, digest: Buffer): Promise<ChargeOutcome> {
    const ip = req.ip ?? 'unknown';
    const session = ctx.sessionOf(req);
    const now = ctx.now();
    if (limits.declinesPerIp) await checkDeclines(store, `declines:ip:${ipKey(ip)}`, limits.declinesPerIp, now);
    if (limits.declinesPerSession && session) {
      await checkDeclines(store, `declines:session:${session}`, limits.declinesPerSession, now);
    }
    // The helper's own URL is only needed for return targets and 3-D Secure; most charges have neither.
    let base: string | undefined;
    const mount = () => (base ??= mountUrl(req, ctx.options.publicUrl));
    let successUrl: string | undefined;
    let failUrl: string | undefined;
    if (body.successUrl !== undefined || body.failUrl !== undefined) {
      const ownOrigin = new URL(mount()).origin;
      const allowed = ctx.options.redirectOrigins ?? [];
      successUrl = checkReturnTarget('successUrl', body.successUrl, ownOrigin, allowed);
      failUrl = checkReturnTarget('failUrl', body.failUrl, ownOrigin, allowed);
    }

    const hookBody: ChargeRequestBody = {
      orderReference: body.orderReference,
      ...(body.email === undefined ? {} : { email: body.email }),
      ...(body.customerId === undefined ? {} : { customerId: body.customerId }),
    };
    let resolved: unknown;
    try {
      resolved = await ctx.options.resolveCharge(req, hookBody);
    } catch (err) {
      if (err instanceof HelperHttpError) throw err;
      throw new HelperHttpError(500, 'TESSERA_RESOLVE_CHARGE_FAILED', 'the order could not be priced', { cause: err });
    }
    if (resolved === undefined || resolved === null) {
      throw badRequest('orderReference', 'orderReference does not name an order to pay', 'TESSERA_UNKNOWN_ORDER');
    }
    const details = parseDetails(resolved);
    const request = {
      cardToken: body.cardToken,
      value: details.amount,
      currency: details.currency,
      ...(body.email === undefined ? {} : { email: body.email }),
      ...(body.customerId === undefined ? {} : { customerId: body.customerId }),
      ...(details.trackId === undefined ? {} : { trackId: details.trackId }),
      ...(details.description === undefined ? {} : { description: details.description }),
      ...(details.metadata === undefined ? {} : { metadata: details.metadata }),
      ...(body.billingDetails === undefined ? {} : { billingDetails: body.billingDetails }),
      ...(body.shippingDetails === undefined ? {} : { shippingDetails: body.shippingDetails }),
      ...(isIP(ip) ? { customerIp: ip.replace(/^::ffff:/, '') } : {}),
      ...(details.threeDSecure ? threeDsUrls(`${mount()}/charges/3ds-return`) : {}),
    };
    let answer: Awaited<ReturnType<LegacyClient['charges']['create']>>;
    try {
      answer = await legacy.charges.create(request, { idempotencyKey: idempotencyKeyFor(body.cardToken, digest) });
    } catch (err) {
      const shopper = err instanceof ValidationError ? shopperError(err) : undefined;
      if (shopper) throw shopper;
      const mapped = upstreamError(err);
      log.warn(
        {
          event: 'tessera.charge.failed',
          code: mapped.code,
          outcomeKnown: mapped.outcomeKnown,
          providerCode: (err as { code?: unknown }).code,
          providerRequestId: (err as { requestId?: unknown }).requestId,
        },
        'charge failed upstream',
      );
      throw mapped;
    }
    const data = answer.data;
    let outcome: ChargeOutcome;
    if (isThreeDSecureRedirect(data)) {
      outcome = pendingOutcome(data.redirectUrl, data.id, body.orderReference);
      const pending: PendingThreeDs = {
        resultKey: key,
        orderReference: body.orderReference,
        ip,
        ...(session ? { session } : {}),
        ...(successUrl ? { successUrl } : {}),
        ...(failUrl ? { failUrl } : {}),
      };
      await store.set(threeDsKey(data.id), JSON.stringify(pending), RESULT_TTL_MS);
    } else {
      outcome = outcomeOf(data as Charge, body.orderReference);
      if (outcome.status === 402) await countDecline(ip, session);
    }
    await remember(key, outcome);
    // One log line per request: the request logger adds these fields to its `tessera.request` line.
    req.res!.locals.tesseraLog = {
      chargeStatus: outcome.body.status,
      chargeId: outcome.body.id,
      responseCode: outcome.body.responseCode,
      providerRequestId: answer.requestId,
    };
    return outcome;
  }

  router.post('/charges', jsonBody(ctx.bodyLimit), async (req: Request, res: Response) => {
    const now = ctx.now();
    const session = ctx.sessionOf(req);
    if (limits.chargesPerIp)
      await consume(store, `charges:ip:${ipKey(req.ip)}`, limits.chargesPerIp, now, 'payment attempts');
    if (limits.chargesPerSession && session) {
      await consume(store, `charges:session:${session}`, limits.chargesPerSession, now, 'payment attempts');
    }
    const body = parseBody(chargeBodySchema, req.body);
    const digest = tokenDigest(body.cardToken);
    const key = resultKey(body.cardToken, digest);
    // One promise per token, registered before any await, so a double submit shares it (DESIGN.md invariant).
    let running = inFlight.get(key);
    if (!running) {
      running = (async () => {
        const stored = await store.get(key);
        return stored ? refreshed(key, JSON.parse(stored) as ChargeOutcome) : charge(req, body, key, digest);
      })();
      inFlight.set(key, running);
      running.then(
        () => inFlight.delete(key),
        () => inFlight.delete(key),
      );
    }
    const outcome = await running;
    if (outcome.orderReference !== body.orderReference) {
      throw new HelperHttpError(409, 'TESSERA_CARD_TOKEN_USED', 'cardToken was already used for another order', {
        field: 'cardToken',
        outcomeKnown: true,
      });
    }
    sendJson(res, outcome.status, { ...outcome.body, requestId: res.locals.tesseraRequestId });
  });

  router.get('/charges/3ds-return', threeDsReturn(ctx, legacy, { threeDs: threeDsKey }, countDecline));

  return router;
}
