import type { Request } from 'express';
import type { HelperContext } from '../context.js';
import { HelperHttpError } from '../errors.js';
import { LATE, withinHookTime } from '../hooks.js';
import { keepClaim } from '../lease.js';
import type { ChargeEvent } from '../options.js';
import { requestLog } from '../request-log.js';
import { DELIVERY_CLAIM_MS, delivery, lookAt, runClaimed, takeTurn } from './delivery.js';

/** How long a request waits for another instance's delivery before answering 503. */
const WAIT_MS = 15_000;

const STILL_RECORDING = 'the shop is still recording this payment; send the same request again to learn the outcome';
const NOT_RECORDED =
  'the payment’s outcome is known but the shop could not record it; send the same request again (it will not be charged twice)';

function failed(event: ChargeEvent, message: string, cause?: unknown): HelperHttpError {
  return new HelperHttpError(503, 'TESSERA_ON_CHARGE_FAILED', message, {
    outcomeKnown: true,
    headers: { 'Retry-After': '2' },
    details: { chargeId: event.id },
    cause,
  });
}

/**
 * A store call of the delivery: the charge exists by now, so a store that fails is answered as a delivery that
 * failed (503 `TESSERA_ON_CHARGE_FAILED`, the charge id), never as the store's own 503, whose `outcomeKnown: true`
 * and "nothing was done" are right only before the provider call.
 */
async function stored<T>(ctx: HelperContext, req: Request, event: ChargeEvent, step: Promise<T>): Promise<T> {
  try {
    return await step;
  } catch (err) {
    requestLog(ctx.log, req).warn(
      { event: 'tessera.on_charge.store_failed', chargeId: event.id, code: (err as { code?: unknown }).code },
      'the store failed while onCharge was being delivered: the shopper was told to retry, and the retry delivers it',
    );
    throw failed(event, NOT_RECORDED, err);
  }
}

/**
 * Calls the merchant's `onCharge` for a final charge exactly once across retries, double submits and instances
 * sharing the store (docs/decisions/helper.md#helper-on-charge): `delivered` is recorded only after the hook resolved,
 * and a claim around the call, kept alive while the hook runs, keeps two instances from calling it at once
 * (delivery.ts). The shopper's answer waits for it; when the hook throws, the claim is given back and 503
 * `TESSERA_ON_CHARGE_FAILED` is thrown, so the answer never says "paid" and the next retry calls the hook again.
 */
export async function deliverCharge(
  ctx: HelperContext,
  event: ChargeEvent,
  req: Request,
  source: 'charge' | '3ds-return',
): Promise<void> {
  const hook = ctx.options.onCharge;
  if (!hook) return;
  const { store } = ctx;
  const d = delivery(`oncharge:${event.id}`);
  const deadline = Date.now() + WAIT_MS;
  const turn = await takeTurn(() => stored(ctx, req, event, lookAt(store, d)), deadline);
  if (turn === 'delivered') return;
  if (turn === 'timeout') throw failed(event, STILL_RECORDING);
  const stopKeeping = keepClaim(ctx, d.claimKey, d.owner, DELIVERY_CLAIM_MS, 'tessera.on_charge.claim', req);
  // The call and its record run to the end, also when the shopper's answer has stopped waiting for them.
  const call = async () => {
    try {
      await hook(event, { req, source });
    } catch (err) {
      // What it threw, in the shape of every error line (its class, code, stack and causes; any other value as
      // it is), written by the redactor, which survives getters that throw.
      requestLog(ctx.log, req).error(
        { event: 'tessera.on_charge.failed', chargeId: event.id, chargeStatus: event.status, source, cause: err },
        'onCharge threw: the shopper was told to retry, and the next retry calls it again',
      );
      throw failed(event, NOT_RECORDED, err);
    }
  };
  const delivering = runClaimed(store, d, stopKeeping, call, (step) => stored(ctx, req, event, step));
  const then =
    'the shopper was answered 503 TESSERA_ON_CHARGE_FAILED; the call goes on, and is recorded once it resolves';
  if ((await withinHookTime(ctx, 'onCharge', delivering, then, req)) === LATE) {
    throw failed(event, STILL_RECORDING);
  }
}
