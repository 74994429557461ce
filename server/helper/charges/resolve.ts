import type { Request } from 'express';
import type { HelperContext } from '../context.js';
import { answerable, badRequest, HelperHttpError } from '../errors.js';
import { hookTimeout, LATE, thrownMessage, withinHookTime } from '../hooks.js';
import type { HelperLogger } from '../log.js';
import type { ChargeRequestBody } from '../options.js';
import { requestLog } from '../request-log.js';
import { type ChargeBody, type ParsedChargeDetails, parseDetails } from './schema.js';

/**
 * The 500 of a `resolveCharge` that failed (threw, or answered something that threw while it was read); the
 * shopper gets a generic message, the merchant's log what went wrong, in full.
 */
function resolveFailed(log: HelperLogger, err: unknown, what: string): HelperHttpError {
  log.error(
    { event: 'tessera.resolve_charge.failed', code: 'TESSERA_RESOLVE_CHARGE_FAILED', cause: err },
    `resolveCharge ${what}: ${thrownMessage(err)}`,
  );
  return new HelperHttpError(500, 'TESSERA_RESOLVE_CHARGE_FAILED', 'the order could not be priced', { cause: err });
}

/**
 * What the merchant's `resolveCharge` says the order costs, within its time bound (503 `TESSERA_HOOK_TIMEOUT`
 * after it); an order it does not know is 400 `TESSERA_UNKNOWN_ORDER`, a hook that fails is 500.
 */
export async function resolveDetails(ctx: HelperContext, req: Request, body: ChargeBody): Promise<ParsedChargeDetails> {
  const { log } = ctx;
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
        req,
      );
      if (resolved === LATE) throw hookTimeout('the order could not be priced in time; nothing was charged, try again');
    }
  } catch (err) {
    if (err instanceof HelperHttpError) {
      if (answerable(err)) throw err;
      // Its status is no error status, or Node refuses a header of it: the merchant's bug, said in the log.
      throw resolveFailed(
        requestLog(log, req),
        new Error(`a HelperHttpError (${err.code}) with status ${err.status} or a header that cannot be sent`),
        'threw an error that cannot be answered (use a status from 400 to 599)',
      );
    }
    throw resolveFailed(requestLog(log, req), err, 'threw');
  }
  if (resolved === undefined || resolved === null) {
    throw badRequest('orderReference', 'orderReference does not name an order to pay', 'TESSERA_UNKNOWN_ORDER');
  }
  try {
    return parseDetails(resolved);
  } catch (err) {
    // A getter or a proxy of the answer that threw while it was read is a failure of the hook, not a bad answer.
    if (!(err instanceof HelperHttpError)) {
      throw resolveFailed(requestLog(log, req), err, 'answered a value that threw while read');
    }
    requestLog(log, req).error({ event: 'tessera.resolve_charge.invalid', field: err.field }, err.message);
    throw err;
  }
}
