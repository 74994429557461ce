import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { chargeBody, postCharge } from './legacy-support.js';

describe('legacy API: fixtures', () => {
  const fixtures = { legacy: { customers: [{ id: 'cust_fixture1', email: 'Ada@Example.com', name: 'Ada' }] } };

  it('starts with the fixture customers, and has them again after a reset', async () => {
    const sb = await startSandbox({ fixtures });
    try {
      for (let round = 0; round < 2; round++) {
        const byId = await postCharge(sb, { ...(await chargeBody(sb)), email: undefined, customerId: 'cust_fixture1' });
        assert.equal(byId.status, 200, byId.text);
        assert.equal(byId.json.email, 'Ada@Example.com');
        const byEmail = await postCharge(sb, { ...(await chargeBody(sb)), email: 'ada@example.com' });
        assert.equal(byEmail.json.card.customerId, 'cust_fixture1');
        const mismatch = await postCharge(sb, {
          ...(await chargeBody(sb)),
          email: 'grace@example.com',
          customerId: 'cust_fixture1',
        });
        assert.equal(mismatch.json.errorCode, 'customer_email_mismatch');
        assert.equal((await call(`${sb.url}/_sandbox/reset`, { method: 'POST' })).status, 204);
      }
    } finally {
      await sb.close();
    }
  });

  it('refuses bad fixtures at start, naming the path', async () => {
    const cases: [unknown, RegExp][] = [
      [{ customers: [{ id: 'customer1', email: 'a@b.co' }] }, /legacy\.customers\.0\.id/],
      [{ customers: [{ id: 'cust_a', email: 'not-an-email' }] }, /legacy\.customers\.0\.email/],
      [{ customers: {} }, /legacy\.customers/],
      [{ cards: [] }, /legacy: /],
      [
        {
          customers: [
            { id: 'cust_a', email: 'a@b.co' },
            { id: 'cust_b', email: 'A@B.CO' },
          ],
        },
        /appears twice/,
      ],
    ];
    for (const [legacy, message] of cases) {
      await assert.rejects(startSandbox({ fixtures: { legacy } }), message, JSON.stringify(legacy));
    }
  });
});
