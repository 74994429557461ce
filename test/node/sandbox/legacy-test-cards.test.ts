import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningSandbox, startSandbox, TEST_CARDS } from '../../../server/sandbox/index.js';
import { checkNumber } from '../../../shared/card/index.js';
import { call } from '../../support/http.js';
import { charge } from './legacy-support.js';

describe('legacy API: test cards', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await startSandbox();
  });
  after(() => sb.close());

  it('serves the table at GET /_sandbox/test-cards as [{number, brand, outcome, responseCode, description}]', async () => {
    const r = await call(`${sb.url}/_sandbox/test-cards`, { headers: { accept: 'application/xml, application/json' } });
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.json,
      TEST_CARDS.map(({ number, brand, outcome, responseCode, description }) => ({
        number,
        brand,
        outcome,
        responseCode,
        description,
      })),
    );
  });

  it('holds only numbers that are valid for their brand', () => {
    for (const card of TEST_CARDS) {
      const { brand, problem } = checkNumber(card.number);
      assert.equal(problem, undefined, card.number);
      assert.equal(brand?.name, card.brand, card.number);
    }
  });

  it('covers approval on every major brand, flagged, five or more declines and 3-D Secure', () => {
    const approvedBrands = new Set(TEST_CARDS.filter((c) => c.outcome === 'approved').map((c) => c.brand));
    for (const brand of [
      'Visa',
      'Mastercard',
      'American Express',
      'Discover',
      'Diners Club',
      'JCB',
      'UnionPay',
      'Maestro',
    ]) {
      assert.ok(approvedBrands.has(brand), brand);
    }
    assert.ok(TEST_CARDS.some((c) => c.outcome === 'flagged' && c.responseCode === '10100'));
    const declineCodes = new Set(TEST_CARDS.filter((c) => c.outcome === 'declined').map((c) => c.responseCode));
    assert.ok(declineCodes.size >= 5);
    for (const code of declineCodes) assert.match(code, /^2\d{4}$/);
    assert.ok(TEST_CARDS.some((c) => c.outcome === '3ds_required'));
    for (const number of ['4242424242424242', '378282246310005', '5555555555554444']) {
      assert.equal(TEST_CARDS.find((c) => c.number === number)?.outcome, 'approved', 'the widget tests rely on it');
    }
  });

  it('gives every test card its outcome and response code on a real charge', async () => {
    for (const card of TEST_CARDS) {
      const c = await charge(sb, card.number);
      const expected = {
        approved: ['Captured', '10000'],
        flagged: ['Flagged', '10100'],
        declined: ['Declined', card.responseCode],
        '3ds_required': ['Declined', '20154'],
      }[card.outcome];
      assert.deepEqual([c.status, c.responseCode], expected, card.number);
      assert.equal(c.responseMessage, card.responseMessage, card.number);
      assert.equal(c.card.paymentMethod, card.brand);
      if (card.outcome === 'declined' || card.outcome === '3ds_required') assert.equal(c.authCode, '000000');
      else assert.match(c.authCode, /^\d{6}$/);
    }
  });

  it('approves any other valid card number', async () => {
    const c = await charge(sb, '4111111111111111');
    assert.equal(c.status, 'Captured');
    assert.equal(c.responseCode, '10000');
  });
});
