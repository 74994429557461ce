import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordChallenge, recordCharge } from '../../../demo/provider.js';
import { challengeLeftMs, ShopState } from '../../../demo/state.js';
import type { ChallengeEvent, ChargeEvent } from '../../../server/helper/index.js';

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-27T10:00:00.000Z');

function placed(state: ShopState) {
  state.change('s', 'print', 'add');
  return state.placeOrder('s', T0)!;
}

const challenge = (order: string, id: string, startedMs: number): ChallengeEvent => ({
  id,
  orderReference: order,
  trackId: order,
  amount: 6900,
  currency: 'EUR',
  startedAt: new Date(startedMs).toISOString(),
});

const outcome = (order: string, id: string, approved: boolean): ChargeEvent => ({
  id,
  status: approved ? 'Authorised' : 'Declined',
  approved,
  responseCode: approved ? '10000' : '20151',
  amount: 6900,
  currency: 'EUR',
  trackId: order,
  orderReference: order,
  card: { brand: 'Visa', last4: '3220', expiryMonth: 12, expiryYear: 2034 },
});

describe('the demo shop’s hooks (demo/provider.ts)', () => {
  it('an open challenge ends with its own outcome', () => {
    const state = new ShopState();
    const order = placed(state);
    recordChallenge(state)(challenge(order.id, 'charge_a', T0));
    assert.equal(challengeLeftMs(order, T0 + MINUTE), 14 * MINUTE);
    recordCharge(state, () => T0 + 2 * MINUTE)(outcome(order.id, 'charge_a', false));
    assert.equal(challengeLeftMs(order, T0 + 2 * MINUTE), undefined);
  });

  it('the late outcome of an older challenge leaves the open one open (the provider still holds the order for it)', () => {
    const state = new ShopState();
    const order = placed(state);
    // Challenge A lapses unanswered; after it the shopper starts challenge B.
    recordChallenge(state)(challenge(order.id, 'charge_a', T0));
    recordChallenge(state)(challenge(order.id, 'charge_b', T0 + 16 * MINUTE));
    // Then A's bank page, left open in another tab, is answered: its outcome (declined, it lapsed) comes back.
    recordCharge(state, () => T0 + 17 * MINUTE)(outcome(order.id, 'charge_a', false));
    assert.equal(challengeLeftMs(order, T0 + 17 * MINUTE), 14 * MINUTE, 'B is still open');
    recordCharge(state, () => T0 + 18 * MINUTE)(outcome(order.id, 'charge_b', true));
    assert.equal(challengeLeftMs(order, T0 + 18 * MINUTE), undefined, 'B paid the order');
    assert.equal(order.paidBy, 'charge_b');
  });

  it('a challenge whose outcome is already recorded is not noted as open (an onChallenge that ran late)', () => {
    const state = new ShopState();
    const order = placed(state);
    recordCharge(state, () => T0 + MINUTE)(outcome(order.id, 'charge_a', false));
    recordChallenge(state)(challenge(order.id, 'charge_a', T0));
    assert.equal(challengeLeftMs(order, T0 + 2 * MINUTE), undefined);
  });
});
