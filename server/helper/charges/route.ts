import { hash, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { type NextFunction, type Request, type Response, Router } from 'express';
import { InvalidResponseError, ValidationError } from '../../provider/errors.js';
import {
  type Charge,
  type ChargeRequest,
  isThreeDSecureRedirect,
  type LegacyClient,
} from '../../provider/legacy/client.js';
import { jsonBody } from '../body.js';
import type { HelperContext } from '../context.js';
import { answerable, badRequest, HelperHttpError } from '../errors.js';
import { hookTimeout, LATE, thrownMessage, withinHookTime } from '../hooks.js';
import { keepClaim } from '../lease.js';
import type { ChargeRequestBody } from '../options.js';
import { chargeRead, checkChargeCreated } from '../provider-answers.js';
import {
  type Budget,
  checkDeclinesTotal,
  commitDeclines,
  consume,
  consumeAll,
  DECLINES_TOTAL_KEY,
  type DeclineCounter,
  ipKey,
  type Limit,
  type ReservedCounter,
  recordDeclines,
  releaseDeclines,
  reserveDeclines,
} from '../rate-limit.js';
import { sendJson } from '../respond.js';
import { claimAndGet, setAndRelease } from '../store.js';
import { upstreamError } from '../upstream.js';
import { parseBody } from '../validate.js';
import { deliverCharge } from './on-charge.js';
import {
  answerBody,
  type ChargeOutcome,
  outcomeOf,
  outcomeUnknown,
  pendingOutcome,
  type ResultOwner,
} from './outcome.js';
import {
  idempotencyKeyFor,
  mountBinding,
  mountRecord,
  type PendingThreeDs,
  RESULT_TTL_MS,
  resultKey,
  threeDsKey,
  tokenDigest,
} from './records.js';
import { checkReturnTarget, mountUrl } from './redirects.js';
import { type ChargeBody, chargeBodySchema, parseDetails } from './schema.js';
import { returnPages, threeDsReturn } from './three-ds-return.js';

/** How long a request waits for another request's (or instance's) charge of the same token before answering 503. */
export const CLAIM_WAIT_MS = 15_000;

/**
 * How long a card token's claim lasts once its owner stopped keeping it alive (keepClaim): how long a crashed instance
 * blocks the token. A live owner keeps it for as long as it works (`resolveCharge`, every provider attempt).
 */
const CLAIM_TTL_MS = 10_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const sha256 = (text: string) => hash('sha256', text, 'hex');

/** A store write after the provider answered ({@link outcomeUnknown}). */
const saved = (write: Promise<unknown>) =>
  outcomeUnknown(
    write,
    'the payment reached the provider but its result could not be saved; send the same request again to learn the outcome (it will not be charged twice)',
  );

/**
 * A store call of a request that waits for another request's charge of the same token: that charge may have been
 * made, even though this request saw no one else charging before ({@link outcomeUnknown}).
 */
const waitedFor = <T>(read: Promise<T>) =>
  outcomeUnknown(
    read,
    'another request is charging this card token and its outcome cannot be read now; send the same request again to learn it (it will not be charged twice)',
  );

/** chargeMode 2 with the helper's return endpoint as both URLs (docs/decisions/helper.md#helper-3ds). */
const threeDsUrls = (returnUrl: string) => ({ chargeMode: 2 as const, successUrl: returnUrl, failUrl: returnUrl });

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
 * The shopper's address as the provider takes it (`customerIp`, an IPv4 or IPv6 address), or undefined: an IPv4
 * address mapped into IPv6 as itself, and an IPv6 address without its zone id (`fe80::1%eth0`, which Node's `isIP`
 * accepts and a link-local client's `remoteAddress` or a forwarded address may hold): the zone names an interface of
 * this server, means nothing to the provider, and its schema refuses it, which failed the charge.
 */
function providerIp(ip: string): string | undefined {
  const zone = ip.indexOf('%');
  const bare = (zone === -1 ? ip : ip.slice(0, zone)).replace(/^::ffff:(?=\d+\.)/i, '');
  return isIP(bare) ? bare : undefined;
}

/**
 * `POST /charges` and `GET /charges/3ds-return`: one card token → at most one
 * charge (docs/decisions/helper.md#helper-charges).
 */
export function chargeRoutes(ctx: HelperContext, legacy: LegacyClient, router: Router = Router()): Router {
  // In-process fast path: a double submit to this process shares one promise; the store's claim covers the rest.
  const inFlight = new Map<string, Promise<ChargeOutcome>>();
  const { store, limits, log } = ctx;
  const exposeCodes = ctx.options.exposeDeclineCodes === true;

  /** Who is paying, read once per request (`req.ip` runs Express's proxy rules on every read). */
  const callerOf = (req: Request): Caller => {
    const ip = req.ip ?? 'unknown';
    return { ip, owner: ownerOf(ip, ctx.sessionOf(req)) };
  };

  /** The decline counters of a caller (by IP key and session hash), empty when both limits are off. */
  function declineCounters(owner: ResultOwner): DeclineCounter[] {
    const counters: DeclineCounter[] = [];
    if (limits.declinesPerIp) {
      counters.push({ key: `declines:ip:${owner.ip}`, limit: limits.declinesPerIp, name: 'declinesPerIp' });
    }
    if (limits.declinesPerSession && owner.session) {
      counters.push({
        key: `declines:session:${owner.session}`,
        limit: limits.declinesPerSession,
        name: 'declinesPerSession',
      });
    }
    return counters;
  }

  /**
   * The caller's decline reservations (per IP, per session) and, with `declinesTotal`, the shop-wide count read beside
   * them (one store round trip for all): refused with 429 when either is full, after the reservations are given back.
   * A store that failed is answered as such (503) before any limit, and a per-IP or per-session 429 before the
   * shop-wide one (docs/decisions/helper.md#helper-declines-total).
   */
  async function reserveOrRefuse(
    counters: readonly DeclineCounter[],
    total: Limit,
  ): Promise<readonly ReservedCounter[]> {
    const [reserving, checked] = await Promise.allSettled([
      counters.length === 0 ? [] : reserveDeclines(store, counters, ctx.now),
      checkDeclinesTotal(store, total, ctx.now),
    ]);
    if (reserving.status === 'fulfilled' && checked.status === 'fulfilled') return reserving.value;
    if (reserving.status === 'fulfilled') await releaseDeclines(store, reserving.value);
    const errors = [reserving, checked].flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    throw errors.find((e) => !(e instanceof HelperHttpError && e.status === 429)) ?? errors[0];
  }

  /**
   * Counts one decline of the shop in `declinesTotal` (when set), and logs one warning when that count reaches the
   * limit: the store's count is atomic, so one decline per window, on one instance, sees it reach `max` exactly.
   */
  async function countTotal(): Promise<void> {
    const total = limits.declinesTotal;
    if (!total) return;
    const { count, resetAtMs } = await store.hit(DECLINES_TOTAL_KEY, total.windowMs);
    if (count !== total.max) return;
    log.warn(
      {
        event: 'tessera.declines_total_reached',
        limit: 'declinesTotal',
        count,
        max: total.max,
        windowMs: total.windowMs,
        resetAt: new Date(resetAtMs).toISOString(),
      },
      `the shop had ${count} declined payments in this window of ${total.windowMs} ms: every charge is refused ` +
        '(429 TESSERA_TOO_MANY_DECLINES) until it ends, a sign of card testing; see rateLimits.declinesTotal',
    );
  }

  /**
   * Stores the final outcome of a 3-D Secure charge and, for a decline, counts it once against the limits of the
   * shopper who started it, whichever of the return and a later `POST /charges` learns it first: the first to
   * claim the token's `:declined` marker counts it, on every instance sharing the store.
   */
  async function settle(charge: Charge, pending: PendingThreeDs): Promise<ChargeOutcome> {
    const outcome = outcomeOf(charge, pending.orderReference, pending);
    // The charge exists: a store that fails here is answered as `saved` says, never "nothing was done".
    await saved(store.set(pending.resultKey, JSON.stringify(outcome), RESULT_TTL_MS));
    if (outcome.status === 402) {
      // The record's owner holds the session's hash; records of earlier versions kept the session id itself.
      const owner = pending.owner ?? ownerOf(pending.ip, pending.session);
      const count = async () => {
        if (await store.claim(`${pending.resultKey}:declined`, '1', RESULT_TTL_MS)) {
          await Promise.all([recordDeclines(store, declineCounters(owner)), countTotal()]);
        }
      };
      await settled(count(), true);
    }
    return outcome;
  }

  /**
   * Waits for an update of the decline counters after the provider answered. What the shopper is told of the
   * charge must not hang on a counter: a store failure here is logged, not answered
   * (docs/decisions/helper.md#helper-rate-limits).
   */
  async function settled(update: Promise<void>, kept: boolean): Promise<void> {
    try {
      await update;
    } catch (err) {
      log.warn(
        { event: 'tessera.declines.unsettled', kept, code: (err as { code?: unknown }).code },
        'the decline counters could not be updated; they end with their window',
      );
    }
  }

  /**
   * A pending 3-D Secure answer is refreshed from the provider: the shopper may have finished it meanwhile. Once the
   * charge is final, a store that fails before its outcome is stored is no "nothing was done"; and a 3-D Secure
   * record lost while the answer was kept (a store that evicted it) is rebuilt from that answer and this request: the
   * return URLs it held are the return route's, not needed here (docs/decisions/helper.md#helper-3ds).
   */
  async function refreshed(outcome: ChargeOutcome, t: TokenRequest): Promise<ChargeOutcome> {
    if (outcome.status !== 202 || !outcome.paymentToken) return outcome;
    let charge: Charge;
    try {
      charge = chargeRead(await legacy.charges.retrieve(outcome.paymentToken));
    } catch (err) {
      // The charge exists (it was answered 202): a read of it that fails is no "nothing was done".
      throw upstreamError(err, true);
    }
    if (charge.status === 'Pending') return outcome;
    const record = await outcomeUnknown(
      store.get(threeDsKey(outcome.paymentToken)),
      'the payment is complete but its 3-D Secure record cannot be read now; send the same request again to learn the outcome (it will not be charged twice)',
    );
    const pending: PendingThreeDs = record
      ? (JSON.parse(record) as PendingThreeDs)
      : {
          resultKey: t.key,
          orderReference: outcome.orderReference,
          ip: t.caller.ip,
          owner: outcome.owner ?? t.caller.owner,
          ...(outcome.params ? { params: outcome.params, mount: outcome.mount } : t.mount),
        };
    return settle(charge, pending);
  }

  /**
   * The 500 of a `resolveCharge` that failed (threw, or answered something that threw while it was read); the
   * shopper gets a generic message, the merchant's log what went wrong, in full.
   */
  function resolveFailed(err: unknown, what: string): HelperHttpError {
    log.error(
      { event: 'tessera.resolve_charge.failed', code: 'TESSERA_RESOLVE_CHARGE_FAILED', cause: err },
      `resolveCharge ${what}: ${thrownMessage(err)}`,
    );
    return new HelperHttpError(500, 'TESSERA_RESOLVE_CHARGE_FAILED', 'the order could not be priced', { cause: err });
  }

  async function resolveDetails(req: Request, body: ChargeBody) {
    const hookBody: ChargeRequestBody = {
      orderReference: body.orderReference,
      ...(body.email === undefined ? {} : { email: body.email }),
      ...(body.customerId === undefined ? {} : { customerId: body.customerId }),
    };
    let resolved: unknown;
    try {
      resolved = ctx.options.resolveCharge(req, hookBody);
      // A hook that answers at once is not awaited (one turn of the microtask queue less per charge).
      if (typeof (resolved as PromiseLike<unknown> | null)?.then === 'function') {
        resolved = await withinHookTime(
          ctx,
          'resolveCharge',
          resolved as PromiseLike<unknown>,
          'the shopper was answered 503 TESSERA_HOOK_TIMEOUT and nothing was charged; its late answer is ignored',
        );
        if (resolved === LATE)
          throw hookTimeout('the order could not be priced in time; nothing was charged, try again');
      }
    } catch (err) {
      if (err instanceof HelperHttpError) {
        if (answerable(err)) throw err;
        // Its status is no error status, or Node refuses a header of it: the merchant's bug, said in the log.
        throw resolveFailed(
          new Error(`a HelperHttpError (${err.code}) with status ${err.status} or a header that cannot be sent`),
          'threw an error that cannot be answered (use a status from 400 to 599)',
        );
      }
      throw resolveFailed(err, 'threw');
    }
    if (resolved === undefined || resolved === null) {
      throw badRequest('orderReference', 'orderReference does not name an order to pay', 'TESSERA_UNKNOWN_ORDER');
    }
    try {
      return parseDetails(resolved);
    } catch (err) {
      // A getter or a proxy of the answer that threw while it was read is a failure of the hook, not a bad answer.
      if (!(err instanceof HelperHttpError)) throw resolveFailed(err, 'answered a value that threw while read');
      log.error({ event: 'tessera.resolve_charge.invalid', field: err.field }, err.message);
      throw err;
    }
  }

  async function charge(t: TokenRequest, claim: TokenClaim): Promise<ChargeOutcome> {
    const { req, body, key, digest } = t;
    const { params, mount: allParams } = t.mount;
    const { ip, owner } = t.caller;
    // Reserved before anything else, so concurrent charges cannot overshoot; kept only for a decline, or when
    // the provider may have charged (outcome unknown). docs/decisions/helper.md#helper-rate-limits
    // Without `declinesTotal` (the default), as before it: nothing more on the way of a charge.
    const counters = declineCounters(owner);
    const reserved = limits.declinesTotal
      ? await reserveOrRefuse(counters, limits.declinesTotal)
      : counters.length === 0
        ? []
        : await reserveDeclines(store, counters, ctx.now);
    let keep = false;
    let settling: Promise<void> | undefined;
    // The reservations become declines (`keep`), counted in the shop's total too, or are given back.
    const settleDeclines = async () => {
      if (keep && limits.declinesTotal) {
        await settled(
          Promise.all([commitDeclines(store, reserved), countTotal()]).then(() => undefined),
          keep,
        );
        return;
      }
      if (reserved.length === 0) return;
      await settled(keep ? commitDeclines(store, reserved) : releaseDeclines(store, reserved), keep);
    };
    try {
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
      const details = await resolveDetails(req, body);
      // Built field by field, not by spreading a dozen optional parts: this runs once per charge.
      const request: ChargeRequest = {
        cardToken: body.cardToken,
        value: details.amount,
        currency: details.currency,
      };
      if (body.email !== undefined) request.email = body.email;
      if (body.customerId !== undefined) request.customerId = body.customerId;
      if (details.trackId !== undefined) request.trackId = details.trackId;
      if (details.description !== undefined) request.description = details.description;
      if (details.metadata !== undefined) request.metadata = details.metadata;
      if (details.autoCapture === false) request.autoCapture = 'n';
      else if (details.autoCapTime !== undefined) {
        request.autoCapture = 'y';
        request.autoCapTime = details.autoCapTime;
      }
      if (body.billingDetails !== undefined) request.billingDetails = body.billingDetails;
      if (body.shippingDetails !== undefined) request.shippingDetails = body.shippingDetails;
      const customerIp = providerIp(ip);
      if (customerIp !== undefined) request.customerIp = customerIp;
      if (details.threeDSecure) Object.assign(request, threeDsUrls(`${mount()}/charges/3ds-return`));
      let answer: Awaited<ReturnType<LegacyClient['charges']['create']>>;
      try {
        answer = await legacy.charges.create(request, {
          idempotencyKey: idempotencyKeyFor(body.cardToken, body.orderReference, digest, t.pathParams),
        });
        checkChargeCreated(answer);
      } catch (err) {
        const shopper = err instanceof ValidationError ? shopperError(err) : undefined;
        if (shopper) throw shopper;
        const mapped = upstreamError(err);
        keep = mapped.outcomeKnown !== true;
        log.warn(
          {
            event: 'tessera.charge.failed',
            code: mapped.code,
            outcomeKnown: mapped.outcomeKnown,
            providerCode: (err as { code?: unknown }).code,
            providerRequestId: (err as { requestId?: unknown }).requestId,
            // Which field of the provider's answer was refused (a challenge URL that is no https URL, a card without
            // its last four digits): the helper's own words, never the provider's body.
            ...(err instanceof InvalidResponseError ? { reason: err.message } : {}),
          },
          'charge failed upstream',
        );
        throw mapped;
      }
      const data = answer.data;
      let outcome: ChargeOutcome;
      if (isThreeDSecureRedirect(data)) {
        outcome = pendingOutcome(data.redirectUrl, data.id, body.orderReference, { owner, params, mount: allParams });
        const pending: PendingThreeDs = {
          resultKey: key,
          orderReference: body.orderReference,
          ip,
          owner,
          // The provider sends the shopper back to `publicUrl`'s path, one for every mount: the return hands these to
          // `onCharge` (docs/decisions/helper.md#helper-mount-params).
          params,
          ...(allParams ? { mount: allParams } : {}),
          ...(successUrl ? { successUrl } : {}),
          ...(failUrl ? { failUrl } : {}),
        };
        await saved(store.set(threeDsKey(data.id), JSON.stringify(pending), RESULT_TTL_MS));
      } else {
        outcome = outcomeOf(data as Charge, body.orderReference, { owner, params, mount: allParams });
        keep = outcome.status === 402;
      }
      // The answer is stored and the token's claim given back in one step, while the decline counters settle; first
      // an extension of the claim on its way lands, so that none comes after the release.
      settling = settleDeclines();
      const landing = claim.stopKeeping();
      if (landing) await landing;
      await saved(setAndRelease(store, key, JSON.stringify(outcome), RESULT_TTL_MS, claim.key, claim.owner));
      claim.given = true;
      // One log line per request: the request logger adds these fields to its `tessera.request` line.
      req.res!.locals.tesseraLog = {
        chargeStatus: outcome.body.status,
        chargeId: outcome.body.id,
        responseCode: outcome.body.responseCode,
        providerRequestId: answer.requestId,
      };
      return outcome;
    } finally {
      await (settling ?? settleDeclines());
    }
  }

  /**
   * The token's outcome: the stored one (refreshed while 3-D Secure is pending), or a new charge by whoever
   * claims the token in the store; the others poll the store for its answer, at most {@link CLAIM_WAIT_MS}.
   * The claim comes first and the stored answer is read right after it, in one step where the store offers
   * `claimAndGet`, and a new answer is stored and the claim given back in one step where it offers `setAndRelease`
   * (both built-in stores offer both): a new token costs two store calls. A claim is kept alive while its owner
   * works and expires {@link CLAIM_TTL_MS} after its owner died; the next request then calls the provider with the
   * same idempotency key, which replays the first answer (docs/decisions/helper.md#helper-charges).
   */
  async function tokenOutcome(t: TokenRequest): Promise<ChargeOutcome> {
    const { key } = t;
    const claim: TokenClaim = { key: `${key}:claim`, owner: randomUUID(), given: false, stopKeeping: () => undefined };
    const deadline = Date.now() + CLAIM_WAIT_MS;
    // Whether another request was seen charging the token: from then on a store that fails is no "nothing was done".
    let another = false;
    for (let delay = 20; ; delay = Math.min(delay * 2, 250)) {
      const { claimed, value: stored } = await (another
        ? waitedFor(claimAndGet(store, claim.key, claim.owner, CLAIM_TTL_MS, key))
        : claimAndGet(store, claim.key, claim.owner, CLAIM_TTL_MS, key));
      if (claimed) {
        claim.stopKeeping = keepClaim(ctx, claim.key, claim.owner, CLAIM_TTL_MS, 'tessera.charge.claim');
        try {
          if (stored) return await refreshed(JSON.parse(stored) as ChargeOutcome, t);
          return await charge(t, claim);
        } finally {
          // Not given back with a new answer (a replay, a failed call): given back now, without holding up the
          // answer; a request that meets the claim before it is gone reads the stored answer. A release that fails
          // leaves the claim to expire.
          if (!claim.given) {
            const landing = claim.stopKeeping();
            const release = () => store.release(claim.key, claim.owner);
            (landing ? landing.then(release) : release()).catch(() => undefined);
          }
        }
      }
      if (stored) return refreshed(JSON.parse(stored) as ChargeOutcome, t);
      another = true;
      if (Date.now() + delay > deadline) {
        throw new HelperHttpError(
          503,
          'TESSERA_CHARGE_IN_PROGRESS',
          'this card token is being charged by another request; send the same request again to learn the outcome (it will not be charged twice)',
          { outcomeKnown: false, headers: { 'Retry-After': '2' } },
        );
      }
      await sleep(delay);
    }
  }

  // Counted before the body is read and scanned: a flood of large bodies costs a store hit each, not a scan.
  const requestBudget = async (req: Request, _res: Response, next: NextFunction) => {
    try {
      ctx.checkProxy(req);
      if (limits.requestsPerIp) {
        await consume(
          store,
          `requests:ip:${ipKey(req.ip)}`,
          limits.requestsPerIp,
          ctx.now(),
          'payment requests',
          'requestsPerIp',
        );
      }
      next();
    } catch (err) {
      next(err);
    }
  };

  router.post('/charges', requestBudget, jsonBody(ctx.bodyLimit, ctx.log), async (req: Request, res: Response) => {
    const body = parseBody(chargeBodySchema, req.body);
    // Only valid requests spend the charge budget (docs/decisions/helper.md#helper-rate-limits).
    const now = ctx.now();
    const caller = callerOf(req);
    const { owner } = caller;
    const what = 'payment attempts';
    const budgets: Budget[] = [];
    if (limits.chargesPerIp) {
      budgets.push({ key: `charges:ip:${owner.ip}`, limit: limits.chargesPerIp, what, name: 'chargesPerIp' });
    }
    if (limits.chargesPerSession && owner.session) {
      const key = `charges:session:${owner.session}`;
      budgets.push({ key, limit: limits.chargesPerSession, what, name: 'chargesPerSession' });
    }
    // No budget (both limits off): no await, one microtask hop less per charge.
    if (budgets.length > 0) await consumeAll(store, budgets, now);
    const digest = tokenDigest(body.cardToken);
    const key = resultKey(body.cardToken, digest);
    // The shop, for a helper under a path with parameters: part of the order (docs/decisions/helper.md#helper-mount-params).
    // Read once: every parameter for the idempotency key, and what the records keep of them.
    const pathParams = mountBinding(req.params);
    const mount = mountRecord(pathParams);
    // One promise per token in this process, registered before any await, so a double submit shares it.
    let running = inFlight.get(key);
    if (!running) {
      running = tokenOutcome({ req, body, key, digest, caller, pathParams, mount });
      inFlight.set(key, running);
      running.then(
        () => inFlight.delete(key),
        () => inFlight.delete(key),
      );
    }
    const outcome = await running;
    if (
      !mayRead(outcome.owner, owner) ||
      outcome.orderReference !== body.orderReference ||
      !sameMount(outcome, mount)
    ) {
      throw new HelperHttpError(409, 'TESSERA_CARD_TOKEN_USED', 'cardToken was already used; ask for the card again', {
        field: 'cardToken',
        outcomeKnown: true,
      });
    }
    if (outcome.event) {
      res.locals.tesseraLog ??= {
        chargeStatus: outcome.event.status,
        chargeId: outcome.event.id,
        responseCode: outcome.event.responseCode,
      };
      // Without an `onCharge` hook there is nothing to deliver: not awaited (deliverCharge returns at once then).
      if (ctx.options.onCharge) await deliverCharge(ctx, outcome.event, req, 'charge');
    }
    sendJson(res, outcome.status, { ...answerBody(outcome, exposeCodes), requestId: res.locals.tesseraRequestId });
  });

  // The return is counted like a payment request: each unfinished one costs a provider read.
  router.get(
    '/charges/3ds-return',
    returnPages,
    requestBudget,
    threeDsReturn(ctx, legacy, { threeDs: threeDsKey, settle }),
  );

  return router;
}

/**
 * The owner a token's answer is stored under: the caller's IP key and, with a session, its hash (session ids are
 * bearer secrets, and a shared store's keys and values can end up in its logs).
 */
function ownerOf(ip: string, session: string | undefined): ResultOwner {
  return session ? { session: sha256(session), ip: ipKey(ip) } : { ip: ipKey(ip) };
}

/** Who sent a charge request: `req.ip` (or `unknown`), and the owner its answer is stored under (the session's hash). */
interface Caller {
  readonly ip: string;
  readonly owner: ResultOwner;
}

/** One valid `POST /charges`: the request, its parsed body, the token's store key and digest, and its caller. */
interface TokenRequest {
  readonly req: Request;
  readonly body: ChargeBody;
  readonly key: string;
  readonly digest: Buffer;
  readonly caller: Caller;
  /** Every mount-path parameter of the request, for the idempotency key (records.ts `mountBinding`). */
  readonly pathParams: Readonly<Record<string, unknown>>;
  /** The request's mount-path parameters as a record keeps them (records.ts `mountRecord`). */
  readonly mount: { readonly params: Readonly<Record<string, string>>; readonly mount?: string };
}

/** A card token's claim in the store, held by one request while it charges; `given` once it was given back. */
interface TokenClaim {
  readonly key: string;
  readonly owner: string;
  given: boolean;
  /** Stops keeping the claim alive: an extension on its way, if any, to wait for before the claim is given back. */
  stopKeeping: () => Promise<void> | undefined;
}

/**
 * Whether a caller may read a token's stored answer (docs/decisions/helper.md#helper-charges): a charge made with a
 * session is answered again only to that session; one made without, only to the same IP key (IPv4, IPv6 /64).
 */
function mayRead(owner: ResultOwner | undefined, caller: ResultOwner): boolean {
  if (!owner) return true;
  if (owner.session) return owner.session === caller.session;
  return owner.ip === caller.ip;
}

/**
 * Whether a token's stored answer was made under the caller's mount-path parameters: a token sent again under another
 * shop's path (`/shops/beta/payments` for a charge of `/shops/alpha/payments`) is another order, refused like one, so
 * that neither its page nor beta's `onCharge` learns alpha's charge as beta's (docs/decisions/helper.md#helper-mount-params).
 * An answer stored before the parameters were kept is read under any.
 */
function sameMount(
  outcome: ChargeOutcome,
  { params: caller, mount }: { readonly params: Readonly<Record<string, string>>; readonly mount?: string },
): boolean {
  const kept = outcome.params;
  if (kept === undefined) return true;
  // The parameters a record leaves out (a value over 256 characters, a wildcard's segments) count as well.
  if (outcome.mount !== mount) return false;
  const names = Object.keys(kept);
  if (names.length !== Object.keys(caller).length) return false;
  return names.every((name) => Object.hasOwn(caller, name) && caller[name] === kept[name]);
}
