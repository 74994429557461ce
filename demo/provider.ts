import type { ChallengeEvent, ChargeEvent } from '../server/helper/index.js';
import type { ShopState } from './state.js';

/**
 * The shop's `onCharge`: the helper calls it on this server once per charge whose outcome is final (approved,
 * declined, flagged; after 3-D Secure too), before the shopper's answer is sent. The order named by the charge's
 * `trackId` records the attempt, for the result page and the sandbox console, and is marked paid when the charge
 * was approved: the shop never takes the browser's word (`?chargeId=…`) for it. When the console's shop fault is
 * on, it throws instead, as a shop whose database is down would: the shopper is not told "paid", and paying again
 * records the same charge.
 */
export function recordCharge(state: ShopState, now: () => number) {
  return (charge: ChargeEvent): void => {
    if (state.takeRecordFault())
      throw new Error('the order database is unavailable (a fault from the sandbox console)');
    const order = state.order(charge.trackId ?? charge.orderReference);
    if (!order) return;
    if (!order.attempts.some((a) => a.id === charge.id)) order.attempts.push({ id: charge.id, atMs: now() });
    // The challenge the shopper left open has ended when this is its outcome. The late outcome of an older one (it
    // lapsed, another started, then its bank page was answered) leaves the open one open: the provider still holds
    // the order for it. An approved charge pays the order, which ends any notice (challengeLeftMs).
    if (charge.id === order.challengeId) {
      order.challengeStartedMs = undefined;
      order.challengeId = undefined;
    }
    if (charge.approved && !order.paidBy) order.paidBy = charge.id;
  };
}

/**
 * The shop's `onChallenge`: the helper calls it on this server once per 3-D Secure challenge, before the shopper's
 * 202. The order notes when the challenge started (the provider's `created`, on the sandbox clock): while it is open
 * the provider refuses any other charge of the order, and the checkout says so (docs/decisions/demo.md#demo-capture).
 * Its own outcome, recorded by {@link recordCharge}, clears it (matched by the charge id).
 */
export function recordChallenge(state: ShopState) {
  return (challenge: ChallengeEvent): void => {
    const order = state.order(challenge.trackId ?? challenge.orderReference);
    const startedMs = Date.parse(challenge.startedAt);
    // Its outcome already recorded (an onChallenge that outlasted the helper's wait and ran after the onCharge): over.
    if (!order || order.paidBy || !Number.isFinite(startedMs) || order.attempts.some((a) => a.id === challenge.id)) {
      return;
    }
    order.challengeStartedMs = startedMs;
    order.challengeId = challenge.id;
  };
}
