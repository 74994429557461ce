import type { Request } from 'express';
import type { Charge, LegacyClient } from '../../provider/legacy/client.js';
import type { HelperContext } from '../context.js';
import { DEFAULT_HOOK_TIMEOUT_MS, withinHookTime } from '../hooks.js';
import { keepClaim } from '../lease.js';
import type { ChallengeEvent } from '../options.js';
import { challengeRead } from '../provider-answers.js';
import { requestLog } from '../request-log.js';
import { DELIVERY_CLAIM_MS, delivery, lookAt, runClaimed, takeTurn } from './delivery.js';
import type { ChargeOutcome } from './outcome.js';
import { threeDsKey } from './records.js';

/**
 * What `onChallenge` receives, picked field by field from the provider's charge: never its card, customer or
 * addresses, nor the payment token that opens the challenge. `metadata` only when `resolveCharge` gave some (the
 * provider answers `{}` for none).
 */
export function challengeEvent(charge: Charge, orderReference: string): ChallengeEvent {
  const metadata = Object.entries(charge.metadata ?? {});
  return {
    id: charge.id,
    orderReference,
    amount: charge.value,
    currency: charge.currency,
    ...(charge.trackId ? { trackId: charge.trackId } : {}),
    ...(metadata.length > 0 ? { metadata: Object.fromEntries(metadata) } : {}),
    startedAt: charge.created,
  };
}

/** Which step of a delivery failed: its store calls, the read of the charge, or the merchant's hook. */
type Step = 'store' | 'provider' | 'hook';

/**
 * Calls the merchant's `onChallenge` once per 3-D Secure challenge, for a 202 answer of `POST /charges`
 * (docs/decisions/helper.md#helper-on-challenge): once across retries, double submits and instances, as `onCharge` is
 * (delivery.ts), keyed by the hash of the challenge's payment token. The charge is read once from the provider for its
 * `charge_…` id and start (the 202 carries neither); a challenge that already ended is recorded without a call. The
 * answer waits for the delivery at most `hookTimeoutMs`, also when another request or instance delivers it (a double
 * submit, a retry while the first request waits): no 202, and so no challenge URL, leaves before the hook settled.
 * Nothing here fails the answer: the challenge exists at the provider and the shopper must get to it, so a store, a
 * read or a hook that fails is logged (`tessera.on_challenge.failed`), the claim given back, and the next retry of the
 * token (if any, while the challenge is open) tries again.
 */
export async function deliverChallenge(
  ctx: HelperContext,
  legacy: LegacyClient,
  outcome: ChargeOutcome,
  req: Request,
): Promise<void> {
  const hook = ctx.options.onChallenge;
  const paymentToken = outcome.paymentToken;
  if (!hook || outcome.status !== 202 || !paymentToken) return;
  const { store, log } = ctx;
  const d = delivery(`onchallenge:${threeDsKey(paymentToken)}`);
  let step: Step = 'store';
  let chargeId: string | undefined;
  const failed = (err: unknown) => {
    requestLog(log, req).error(
      {
        event: 'tessera.on_challenge.failed',
        step,
        ...(chargeId ? { chargeId } : {}),
        // What the hook threw, in the error shape; of the store or the provider, only its code.
        ...(step === 'hook' ? { cause: err } : { code: (err as { code?: unknown } | null)?.code }),
      },
      `onChallenge was not delivered (${step} failed): the shopper still got the 3-D Secure challenge, and a retry of the same card token tries again`,
    );
  };
  const call = async () => {
    step = 'provider';
    const charge = challengeRead(await legacy.charges.retrieve(paymentToken));
    chargeId = charge.id;
    // Ended already (only a retry can see this): `onCharge` tells its outcome, and a challenge is no longer news.
    if (charge.status === 'Pending') {
      step = 'hook';
      await hook(challengeEvent(charge, outcome.orderReference), { req });
    }
    step = 'store';
  };
  // Another request or instance holding the claim is waited for (looked at again) until it recorded the delivery or
  // gave the claim back (then this one delivers it), within the same `hookTimeoutMs` as a delivery of its own: a 202
  // sent at once let the shopper reach the challenge, and its `onCharge` come, before `onChallenge` ran.
  const deadline = Date.now() + (ctx.options.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS);
  const delivering = (async () => {
    if ((await takeTurn(() => lookAt(store, d), deadline)) !== 'claimed') return;
    const stopKeeping = keepClaim(ctx, d.claimKey, d.owner, DELIVERY_CLAIM_MS, 'tessera.on_challenge.claim', req);
    // The delivery runs to the end, also when the answer has stopped waiting for it.
    await runClaimed(store, d, stopKeeping, call);
  })().catch(failed);
  await withinHookTime(
    ctx,
    'onChallenge',
    delivering,
    'the shopper was answered 202 with the challenge; the call goes on, and is recorded once it resolves',
    req,
  );
}
