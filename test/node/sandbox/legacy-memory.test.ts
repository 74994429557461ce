/** The legacy store stays bounded however long the sandbox runs (docs/decisions/sandbox.md#sandbox-memory). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { type CardTokenRecord, LegacyStore } from '../../../server/sandbox/legacy/store.js';
import { advance, charge, chargeBody, getCharge, postCharge } from './legacy-support.js';

const errorCode = (json: { errors?: { code: string }[]; errorCode?: string }) =>
  json.errors?.[0]?.code ?? json.errorCode;

describe('legacy store bounds (over HTTP, small caps)', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await startSandbox({
      limits: { maxCardTokens: 30, maxPaymentTokens: 10, maxCustomers: 10, maxCharges: 10 },
    });
  });
  after(() => sb.close());

  it('drops the oldest charges beyond the cap and keeps the newest', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) ids.push((await charge(sb)).id as string);
    assert.equal((await getCharge(sb, ids[0]!)).status, 404);
    assert.equal((await getCharge(sb, ids[49]!)).status, 404);
    for (const id of ids.slice(-10)) assert.equal((await getCharge(sb, id)).status, 200);
  });

  it('a used token answers "used" and an expired one "expired" while a retry matters, then is forgotten', async () => {
    const used = await chargeBody(sb);
    assert.equal((await postCharge(sb, used)).status, 200);
    const expired = await chargeBody(sb);
    await advance(sb, 20 * 60);
    const again = await postCharge(sb, { ...used, email: 'other@example.com' });
    assert.equal(again.status, 422);
    assert.equal(errorCode(again.json), 'card_token_used');
    const late = await postCharge(sb, expired);
    assert.equal(errorCode(late.json), 'card_token_expired');
    // 23 hours on: still known.
    await advance(sb, 23 * 3600);
    assert.equal(errorCode((await postCharge(sb, used)).json), 'card_token_used');
    // A day after they expired, a new token sweeps them out.
    await advance(sb, 3600);
    await chargeBody(sb);
    assert.equal(errorCode((await postCharge(sb, used)).json), 'card_token_unknown');
    assert.equal(errorCode((await postCharge(sb, expired)).json), 'card_token_unknown');
  });
});

describe('legacy store bounds (store, many cycles)', () => {
  it('keeps every map within its cap over 5,000 token + charge cycles', () => {
    const store = new LegacyStore({
      maxCardTokens: 100,
      maxPaymentTokens: 50,
      maxCustomers: 50,
      maxCharges: 200,
      spentTokenRetentionMs: 60_000,
    });
    store.customers.set('cust_fixture', { id: 'cust_fixture', email: 'f@example.com', name: null });
    store.customersByEmail.set('f@example.com', 'cust_fixture');
    store.pinnedCustomers.add('cust_fixture');
    let now = 0;
    for (let i = 0; i < 5_000; i++) {
      now += 1_000;
      const token = { id: `card_tok_${i}`, createdMs: now, expiresMs: now + 900_000, used: true } as CardTokenRecord;
      store.addCardToken(token, now);
      store.addPaymentToken({ id: `pay_tok_${i}`, value: 1, currency: 'EUR', chargeMode: 2, createdMs: now });
      store.addCustomer({ id: `cust_${i}`, email: `s${i}@example.com`, name: null });
      store.addCharge(
        { id: `charge_${i}`, reference: `pay_tok_${i}`, request: { trackId: `t${i}` } } as never,
        `t${i}`,
      );
      assert.ok(store.cardTokens.size <= 100);
      assert.ok(store.paymentTokens.size <= 50);
      assert.ok(store.customers.size <= 51 && store.customersByEmail.size <= 51);
      assert.ok(store.charges.size <= 200 && store.chargesByReference.size <= 200 && store.trackIds.size <= 200);
    }
    assert.equal(store.charges.size, 200);
    assert.ok(store.findCharge('charge_4999'));
    assert.equal(store.findCharge('pay_tok_0'), undefined);
    assert.equal(store.customers.get('cust_fixture')?.email, 'f@example.com');
    assert.equal(store.customersByEmail.get('f@example.com'), 'cust_fixture');
    // Tokens 15 min + 1 min retention: the ones older than that are gone even under the cap.
    assert.equal(store.cardTokens.has('card_tok_4000'), false);
    assert.ok(store.cardTokens.has('card_tok_4999'));
  });
});
