import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { challengeLeftMs, ORDER_LIMITS, OrderRefused, ShopState } from '../../../demo/state.js';

const HOUR = 3_600_000;

/** Puts one mug in `session`'s cart and checks it out. */
function order(state: ShopState, session: string, nowMs: number) {
  state.change(session, 'mug', 'add');
  return state.placeOrder(session, nowMs);
}

describe('the demo shop’s order store (demo/state.ts)', () => {
  it('stays bounded under a flood of checkouts, never forgetting an order someone may still pay', () => {
    const state = new ShopState();
    const { maxOrders, maxOpenPerSession } = ORDER_LIMITS;
    const t0 = 1_000_000;
    const shopper = order(state, 'shopper', t0)!;
    // Many sessions, each up to its own limit, fill the store.
    let placed = 1;
    for (let s = 0; placed < maxOrders; s++) {
      for (let i = 0; i < maxOpenPerSession && placed < maxOrders; i++, placed++) order(state, `flood-${s}`, t0 + 1);
    }
    // The store is full of open orders: the next one is refused (the old store dropped the shopper's order instead).
    assert.throws(
      () => order(state, 'late', t0 + 2),
      (err: unknown) => (err as OrderRefused).reason === 'full',
    );
    assert.equal(state.order(shopper.id), shopper, 'the shopper’s open order is kept');
    assert.equal(state.cart('late').length, 1, 'the refused cart is kept');
    // A paid order makes room: the oldest paid one is forgotten, not an open one.
    shopper.paidBy = 'charge_1';
    const next = state.placeOrder('late', t0 + 3)!;
    assert.equal(state.order(shopper.id), undefined, 'the paid order made room');
    assert.equal(state.order(next.id), next);
    // An hour on, the unpaid orders are abandoned and make room, oldest first.
    const later = order(state, 'later', t0 + 1 + HOUR)!;
    assert.equal(state.order(later.id), later);
    assert.equal(state.order(next.id), next, 'the newest one stays');
  });

  it('refuses a session more than its open orders, and counts paid and abandoned ones no more', () => {
    const state = new ShopState({ maxOpenPerSession: 2 });
    const a = order(state, 's', 0)!;
    order(state, 's', 0);
    assert.throws(
      () => order(state, 's', 0),
      (err: unknown) => (err as OrderRefused).reason === 'session',
    );
    assert.ok(order(state, 'other', 0), 'another session is not held back');
    a.paidBy = 'charge_1';
    assert.ok(state.placeOrder('s', 0), 'a paid order no longer counts');
    assert.throws(() => order(state, 's', 0), OrderRefused);
    assert.ok(state.placeOrder('s', HOUR), 'abandoned orders no longer count');
  });

  it('counts an order placed before the clock was set back (a sandbox reset) as abandoned, not open for as long as the clock had been moved on', () => {
    const state = new ShopState({ maxOpenPerSession: 2, maxOrders: 3 });
    // The console moved the clock a year on, orders were placed, then the sandbox reset set it back to now.
    const year = 366 * 24 * HOUR;
    order(state, 's', year);
    order(state, 's', year);
    order(state, 'other', year);
    // A day later by the reset clock: the sandbox forgot every card token and challenge of those orders.
    assert.ok(order(state, 's', 24 * HOUR), 'the session may check out again');
    assert.equal(state.cart('s').length, 0);
  });

  it('keeps a 3-D Secure challenge open for its 15 minutes, until an outcome or a payment, and not across a clock set back', () => {
    const placed = order(new ShopState(), 's', HOUR)!;
    assert.equal(challengeLeftMs(placed, HOUR), undefined, 'none started');
    placed.challengeStartedMs = HOUR;
    assert.equal(challengeLeftMs(placed, HOUR + 60_000), 14 * 60_000);
    assert.equal(challengeLeftMs(placed, HOUR + 15 * 60_000), undefined, 'lapsed');
    assert.equal(challengeLeftMs(placed, HOUR - 1), undefined, 'the console reset the clock: the sandbox forgot it');
    placed.paidBy = 'charge_x';
    assert.equal(challengeLeftMs(placed, HOUR + 60_000), undefined, 'paid');
  });

  it('gives a session’s cart and orders to its new id (sign-in)', () => {
    const state = new ShopState();
    const placed = order(state, 'old', 0)!;
    state.change('old', 'mug', 'add');
    state.moveSession('old', 'new');
    assert.equal(state.order(placed.id)?.session, 'new');
    assert.deepEqual([state.cart('old').length, state.cart('new').map((l) => l.product.id)], [0, ['mug']]);
  });
});
