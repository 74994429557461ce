import { hash } from 'node:crypto';
import { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import { maskPans } from '../../common/pan.js';
import type { AccountsClient } from '../../provider/accounts/client.js';
import type { PaymentInstrument } from '../../provider/accounts/types.js';
import { NotFoundError, PreconditionRequiredError, ValidationError } from '../../provider/errors.js';
import { errorCodesOf } from '../../provider/http/response.js';
import { accountIdPattern, instrumentLabelSchema } from '../../provider/schemas/accounts/index.js';
import { checkedBody, jsonBody } from '../body.js';
import type { HelperContext } from '../context.js';
import { crossSiteGuard } from '../cross-site.js';
import { answerable, badRequest, HelperHttpError } from '../errors.js';
import { hookTimeout, LATE, thrownMessage, withinHookTime } from '../hooks.js';
import { forbidden, type HostClaims, type HostTokenClaims } from '../host-auth.js';
import { hostBinding } from '../host-binding.js';
import type { CardUpdatedEvent } from '../options.js';
import { instrumentChanged, instrumentRead, instrumentsListed, updaterAnswered } from '../provider-answers.js';
import { consume, ipKey, tooMany } from '../rate-limit.js';
import { requestLog } from '../request-log.js';
import { sendJson } from '../respond.js';
import { isTokenRequestError, upstreamError } from '../upstream.js';
import { parseBody } from '../validate.js';
import { ClientGone, DEFAULT_INSTRUMENT_LIST_TIMEOUT_MS, listStop, stoppedList } from './list-stop.js';

// The provider's id rule, the one the sandbox and the accounts client check (docs/decisions/provider.md#account-ids).
const ENTITY_ID = accountIdPattern('ent_');
const PAYMENT_INSTRUMENT_ID = accountIdPattern('ppi_');

/** Strict: card details (`card`, `number`, …) are refused by name, not silently dropped. */
const updaterBodySchema = z.strictObject({
  instrumentId: z
    .string({ error: 'must be a stored card id (src_…)' })
    .regex(accountIdPattern('src_'), { error: 'must be a stored card id (src_…)' }),
});

const patchBodySchema = z
  .strictObject({
    label: instrumentLabelSchema.optional(),
    // Only `true`: a sub-merchant moves its payouts to another instrument, never to none
    // (docs/decisions/helper.md#helper-dashboard).
    default: z
      .literal(true, { error: 'can only be true (to move payouts, make another instrument the default)' })
      .optional(),
  })
  .refine((b) => b.label !== undefined || b.default !== undefined, {
    message: 'label or default is required',
    path: ['label'],
  });

/** Instruments read at once when the platform names them, and the most it may name for one entity. */
const LIST_CONCURRENCY = 8;
const MAX_LISTED = 100;

const instrumentIdsSchema = z
  .array(z.string({ error: 'must be a ppi_… id' }).regex(PAYMENT_INSTRUMENT_ID, { error: 'must be a ppi_… id' }), {
    error: 'must be a list of ppi_… ids',
  })
  .max(MAX_LISTED, { error: `must name at most ${MAX_LISTED} instruments` });

/**
 * The store key of one dashboard user's request budget: the issuer and the subject together, since a `sub` is unique
 * only within its issuer (RFC 7519 §4.1.2) and `hostAuth.issuer` may list several (docs/decisions/helper.md#helper-rate-limits).
 * A SHA-256 of the pair written as a JSON array, so the key has one length whatever the `sub` (a token may carry one
 * of about 6 KB), no pair can spell another's (JSON quotes each, and escapes lone surrogates, which UTF-8 would not
 * tell apart), and no user's id is in the store (docs/decisions/helper.md#helper-host-user-key).
 */
export function hostUserKey(claims: Pick<HostClaims, 'iss' | 'sub'>): string {
  return `host:${hash('sha256', JSON.stringify([claims.iss, claims.sub]), 'base64url')}`;
}

function listNotConfigured(): HelperHttpError {
  return new HelperHttpError(
    501,
    'TESSERA_LIST_NOT_CONFIGURED',
    'the provider has no list of payout instruments: set the helper option `paymentInstrumentIds`',
    { outcomeKnown: true },
  );
}

/**
 * The instrument as the dashboard sees it: no document file ids, no provider links. `default` only where the provider
 * shows it (the spec has it write-only; the sandbox shows it). A card number in the label (free text set at the
 * provider, where staff may have typed one: the helper's own PATCH refuses it) is masked to its last four digits, so
 * it reaches neither the page nor anything that logs the answer (docs/decisions/helper.md#helper-pan-guard).
 */
function safeInstrument(p: PaymentInstrument) {
  return {
    id: p.id,
    label: maskPans(p.label),
    type: p.type,
    currency: p.currency,
    country: p.country,
    status: p.status,
    ...(p.default === undefined ? {} : { default: p.default }),
    instrumentId: p.instrument_id,
  };
}

function pathParam(req: Request, name: string, pattern: RegExp, what: string): string {
  const value = req.params[name];
  if (typeof value !== 'string' || !pattern.test(value)) throw badRequest(name, `${name} must be ${what}`);
  return value;
}

function notFound(field: string): HelperHttpError {
  return new HelperHttpError(404, 'TESSERA_NOT_FOUND', `${field} does not exist`, { field, outcomeKnown: true });
}

/**
 * The provider's 404/422/428 as answers about the caller's input; anything else is an upstream fault, and so is any
 * failure of the access-token request, which carries nothing of the caller's.
 */
function accountsError(err: unknown, field: string): HelperHttpError {
  if (isTokenRequestError(err)) return upstreamError(err);
  if (err instanceof NotFoundError) {
    // The entity itself may be what is missing: said so when the provider's error codes say it (the sandbox's do).
    return notFound(errorCodesOf(err.body).includes('entity_not_found') ? 'entityId' : field);
  }
  if (err instanceof PreconditionRequiredError) {
    return new HelperHttpError(
      409,
      'TESSERA_INSTRUMENT_NOT_VERIFIED',
      'only a verified instrument can become the default payout destination',
      { field: 'default', outcomeKnown: true },
    );
  }
  if (err instanceof ValidationError) {
    const named = err.fieldErrors.find((f) => f.field)?.field;
    // The entity itself may be what is refused (an id of the token's longer than the provider takes): said so when the
    // provider names its field, as the sandbox does (`entity_id`), rather than blaming the instrument id.
    const mapped = named === 'label' || named === 'default' ? named : named === 'entity_id' ? 'entityId' : field;
    return badRequest(mapped, `${mapped} was refused by the payment provider`);
  }
  return upstreamError(err);
}

/**
 * The dashboard routes, behind a host JWT (docs/decisions/helper.md#helper-host-jwt):
 * `POST /account-updater` for a stored card the token's `instruments` claim
 * names, and the payout instruments of a sub-entity its `entities` claim names.
 */
export function accountRoutes(ctx: HelperContext, accounts: AccountsClient, router: Router = Router()): Router {
  const verifyHost = ctx.verifyHost!;
  const bound = hostBinding(ctx);
  const limit = ctx.limits.hostRequestsPerUser;
  const failures = ctx.limits.hostAuthFailuresPerIp;
  const claimsOf = (res: Response) => res.locals.hostClaims as HostClaims;
  // Reads too: no other site's page has a use for these routes, and its requests (an <img>, a plain fetch) come without
  // a token, each a 401 that spent its visitor's `hostAuthFailuresPerIp` (docs/decisions/helper.md#helper-cross-site).
  const crossSite = crossSiteGuard(ctx.options.corsOrigins, ctx.options.publicUrl, true);
  const host = [
    async (req: Request, res: Response, next: (err?: unknown) => void) => {
      try {
        const refused = crossSite(req);
        if (refused) throw refused;
        if (failures) await verifyCounted(req, res, failures);
        else res.locals.hostClaims = await verify(req);
        if (limit)
          await consume(ctx.store, hostUserKey(claimsOf(res)), limit, ctx.now(), 'requests', 'hostRequestsPerUser');
        next();
      } catch (err) {
        next(err);
      }
    },
  ];

  /**
   * The request's host token, verified, then held to the request by `hostAuth.isBound` when set; before the per-user
   * limit, so a token used away from its session spends nothing of its user's budget
   * (docs/decisions/helper.md#helper-host-binding).
   */
  async function verify(req: Request): Promise<HostTokenClaims> {
    const claims = await verifyHost(req.headers.authorization);
    if (bound) await bound(claims, req);
    return claims;
  }

  /**
   * The host token checked under `hostAuthFailuresPerIp`: an IP whose requests were answered 401 `max` times in the
   * window gets 429 before its token is read, so a flood of bad tokens costs a store read each, not a signature check
   * (or a JWKS lookup); each 401 counts (docs/decisions/helper.md#helper-rate-limits).
   */
  async function verifyCounted(req: Request, res: Response, failed: NonNullable<typeof failures>): Promise<void> {
    ctx.checkProxy(req);
    const key = `host-auth-failures:ip:${ipKey(req.ip)}`;
    const known = await ctx.store.count(key);
    if (known.count >= failed.max) {
      const message = 'too many requests with a missing or refused host token; try again later';
      throw tooMany('TESSERA_RATE_LIMITED', message, 'hostAuthFailuresPerIp', known.resetAtMs, ctx.now());
    }
    try {
      res.locals.hostClaims = await verify(req);
    } catch (err) {
      if (err instanceof HelperHttpError && err.status === 401) await ctx.store.hit(key, failed.windowMs);
      throw err;
    }
  }

  function entityOf(req: Request, res: Response): string {
    const entityId = pathParam(req, 'entityId', ENTITY_ID, 'a sub-entity id (ent_…)');
    if (!claimsOf(res).entities.includes(entityId)) throw forbidden('entityId', 'sub-entity');
    return entityId;
  }

  // The host token is checked before the body is read: a caller without one learns nothing about bodies (401 first).
  router.post('/account-updater', ...host, jsonBody(ctx.bodyLimit, ctx.log), async (req: Request, res: Response) => {
    const { instrumentId } = parseBody(updaterBodySchema, checkedBody(req));
    const claims = claimsOf(res);
    if (!claims.instruments.includes(instrumentId)) throw forbidden('instrumentId', 'stored card');
    let result: Awaited<ReturnType<AccountsClient['accountUpdater']['retrieveCard']>>['data'];
    try {
      result = updaterAnswered(
        await accounts.accountUpdater.retrieveCard({ source_options: { instrument: { id: instrumentId } } }),
      );
    } catch (err) {
      throw accountsError(err, 'instrumentId');
    }
    // Only the safe summary leaves: never encrypted_card_number, never the fingerprint.
    const card = result.card
      ? {
          bin: result.card.bin,
          last4: result.card.last4,
          expiryMonth: result.card.expiry_month,
          expiryYear: result.card.expiry_year,
        }
      : undefined;
    const changed = result.account_update_status !== 'UPDATE_FAILED';
    if (changed && ctx.options.onCardUpdated) {
      const event: CardUpdatedEvent = {
        instrumentId,
        status: result.account_update_status,
        user: claims.sub,
        issuer: claims.iss,
        ...(card ? { card } : {}),
      };
      try {
        // A notification: the page's answer waits for it at most `hookTimeoutMs`, and is sent whatever it does.
        await withinHookTime(
          ctx,
          'onCardUpdated',
          ctx.options.onCardUpdated(event),
          'the page was answered without waiting for it',
          req,
        );
      } catch (err) {
        requestLog(ctx.log, req).error({ event: 'tessera.on-card-updated.failed', err }, 'onCardUpdated threw');
      }
    }
    requestLog(ctx.log, req).info(
      { event: 'tessera.account-updater', status: result.account_update_status },
      'account updater',
    );
    sendJson(ctx, res, 200, {
      instrumentId,
      status: result.account_update_status,
      ...(result.account_update_failure_code ? { failureCode: result.account_update_failure_code } : {}),
      ...(card ? { card } : {}),
      requestId: res.locals.tesseraRequestId,
    });
  });

  // The provider's API reads one payout instrument by id and lists none: the platform names them
  // (`paymentInstrumentIds`), else the sandbox's list extension is used (docs/decisions/helper.md#helper-instrument-list).
  // Its reads have `instrumentListTimeoutMs` in all, and stop when the page goes away
  // (docs/decisions/helper.md#helper-instrument-list-deadline).
  router.get('/entities/:entityId/payment-instruments', ...host, async (req: Request, res: Response) => {
    const entityId = entityOf(req, res);
    const stop = listStop(res);
    let listed: readonly PaymentInstrument[];
    try {
      const ids = ctx.options.paymentInstrumentIds ? await instrumentIdsOf(req, res, entityId) : undefined;
      stop.start(ctx.options.instrumentListTimeoutMs ?? DEFAULT_INSTRUMENT_LIST_TIMEOUT_MS);
      listed = ids ? await readEach(req, entityId, ids, stop.signal) : await sandboxList(entityId, stop.signal);
    } catch (err) {
      // The page is gone: no one to answer, and nothing failed.
      if (err instanceof ClientGone) return;
      throw err;
    } finally {
      stop.end();
    }
    sendJson(ctx, res, 200, { data: listed.map(safeInstrument), requestId: res.locals.tesseraRequestId });
  });

  /** The ids the platform's `paymentInstrumentIds` gives for `entityId`, checked, without repeats. */
  async function instrumentIdsOf(req: Request, res: Response, entityId: string): Promise<string[]> {
    let answer: unknown;
    try {
      answer = await withinHookTime(
        ctx,
        'paymentInstrumentIds',
        ctx.options.paymentInstrumentIds!(entityId, { claims: claimsOf(res), req }),
        'the page was answered 503 TESSERA_HOOK_TIMEOUT; its late answer is ignored',
        req,
      );
    } catch (err) {
      if (err instanceof HelperHttpError) {
        if (answerable(err)) throw err;
        // Its status is no error status, or Node refuses a header of it: the hook's failure, as for `resolveCharge`.
        throw idsFailed(
          req,
          `paymentInstrumentIds threw a HelperHttpError (${err.code}) with status ${err.status} or a header that cannot be sent (use a status from 400 to 599)`,
          { entityId },
        );
      }
      throw idsFailed(req, `paymentInstrumentIds threw: ${thrownMessage(err)}`, { entityId, cause: err });
    }
    if (answer === LATE) throw hookTimeout('the payout instruments could not be listed in time; try again');
    let parsed: ReturnType<typeof instrumentIdsSchema.safeParse>;
    try {
      parsed = instrumentIdsSchema.safeParse(answer);
    } catch (err) {
      // A getter or a proxy of the answer that threw while it was read: the hook's failure, not the helper's own 500.
      throw idsFailed(req, `paymentInstrumentIds answered a list that threw when read: ${thrownMessage(err)}`, {
        entityId,
        cause: err,
      });
    }
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const at = issue.path.length > 0 ? `[${issue.path.join('.')}] ` : '';
      throw idsFailed(req, `paymentInstrumentIds answered ${at}${issue.message}`, { entityId });
    }
    return [...new Set(parsed.data)];
  }

  function idsFailed(req: Request, message: string, detail: object): HelperHttpError {
    // The page gets a generic 500; the merchant's log gets what went wrong. Nothing was sent to the provider.
    requestLog(ctx.log, req).error(
      { event: 'tessera.payment_instrument_ids.failed', code: 'TESSERA_INSTRUMENT_IDS_FAILED', ...detail },
      message,
    );
    return new HelperHttpError(500, 'TESSERA_INSTRUMENT_IDS_FAILED', 'the payout instruments could not be listed', {
      outcomeKnown: true,
    });
  }

  /**
   * Each named instrument read with the specified GET, a few at a time, in the given order; gone ones left out. A
   * failed read stops new ones, and the answer waits for those already sent, so no provider call outlives it. `signal`
   * (the list's budget, the page going away) cancels those in flight and sends no more: the list is then not whole,
   * and is never answered as if it were.
   */
  async function readEach(
    req: Request,
    entityId: string,
    ids: readonly string[],
    signal: AbortSignal,
  ): Promise<PaymentInstrument[]> {
    const found: (PaymentInstrument | undefined)[] = [];
    let next = 0;
    let read = 0;
    let failure: { err: unknown } | undefined;
    const worker = async () => {
      while (next < ids.length && !failure) {
        if (signal.aborted) {
          failure = { err: signal.reason };
          break;
        }
        const i = next++;
        try {
          found[i] = instrumentRead(await accounts.paymentInstruments.retrieve(entityId, ids[i]!, { signal }), ids[i]!);
          read++;
        } catch (err) {
          if (err instanceof NotFoundError && !errorCodesOf(err.body).includes('entity_not_found')) {
            // The platform's records name an instrument the provider no longer has: the list goes on without it.
            requestLog(ctx.log, req).warn(
              { event: 'tessera.payment_instrument.missing', entityId, id: ids[i] },
              'listed instrument not found',
            );
            read++;
            continue;
          }
          failure ??= { err };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(LIST_CONCURRENCY, ids.length) }, worker));
    if (failure) {
      if (signal.aborted && failure.err === signal.reason)
        stoppedList(failure.err, { entityId, read, listed: ids.length });
      throw accountsError(failure.err, 'entityId');
    }
    return found.filter((p): p is PaymentInstrument => p !== undefined);
  }

  /** The sandbox's list extension; a provider without it (any but the sandbox) answers 501 with what to set. */
  async function sandboxList(entityId: string, signal: AbortSignal): Promise<readonly PaymentInstrument[]> {
    if (ctx.environment === 'production') throw listNotConfigured();
    try {
      return instrumentsListed(await accounts.paymentInstruments.list(entityId, { signal }));
    } catch (err) {
      if (signal.aborted && err === signal.reason) stoppedList(err, { entityId });
      if (err instanceof NotFoundError && !errorCodesOf(err.body).includes('entity_not_found'))
        throw listNotConfigured();
      throw accountsError(err, 'entityId');
    }
  }

  /**
   * With `paymentInstrumentIds`, an instrument the platform did not record for `entityId` is 404, as a missing one is,
   * before the provider is asked: the spec's path names the entity but lists no 404 for another entity's instrument, so
   * the helper does not rely on the provider to refuse it (docs/decisions/helper.md#helper-instrument-owner).
   */
  async function ownInstrument(req: Request, res: Response, entityId: string, id: string): Promise<void> {
    if (!ctx.options.paymentInstrumentIds) return;
    if (!(await instrumentIdsOf(req, res, entityId)).includes(id)) throw notFound('id');
  }

  router.get('/entities/:entityId/payment-instruments/:id', ...host, async (req: Request, res: Response) => {
    const entityId = entityOf(req, res);
    const id = pathParam(req, 'id', PAYMENT_INSTRUMENT_ID, 'a payment instrument id (ppi_…)');
    await ownInstrument(req, res, entityId, id);
    try {
      const data = instrumentRead(await accounts.paymentInstruments.retrieve(entityId, id), id);
      sendJson(ctx, res, 200, { ...safeInstrument(data), requestId: res.locals.tesseraRequestId });
    } catch (err) {
      throw accountsError(err, 'id');
    }
  });

  router.patch(
    '/entities/:entityId/payment-instruments/:id',
    ...host,
    jsonBody(ctx.bodyLimit, ctx.log),
    async (req: Request, res: Response) => {
      const entityId = entityOf(req, res);
      const id = pathParam(req, 'id', PAYMENT_INSTRUMENT_ID, 'a payment instrument id (ppi_…)');
      const body = parseBody(patchBodySchema, checkedBody(req));
      await ownInstrument(req, res, entityId, id);
      try {
        // Accepted, but for another instrument (or none named): 502 with the outcome unknown, never a 200 and never
        // logged as the change of `id` (docs/decisions/helper.md#helper-instrument-owner).
        instrumentChanged(await accounts.paymentInstruments.update(entityId, id, body), id);
      } catch (err) {
        throw accountsError(err, 'id');
      }
      const { iss, sub } = claimsOf(res);
      requestLog(ctx.log, req).info(
        { event: 'tessera.instrument.updated', entityId, id, iss, sub },
        'instrument updated',
      );
      let data: PaymentInstrument;
      try {
        data = instrumentRead(await accounts.paymentInstruments.retrieve(entityId, id), id, true);
      } catch (err) {
        // The change was made: a failed read-back (even a 404, or the token request) never says "nothing was done"
        // (docs/decisions/helper.md#helper-provider-answers).
        throw upstreamError(err, true);
      }
      sendJson(ctx, res, 200, { ...safeInstrument(data), requestId: res.locals.tesseraRequestId });
    },
  );

  return router;
}
