import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodeXml } from '../../../server/provider/codec/xml.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { mutate, seededRandom } from '../../support/random.js';
import { cardBody, chargeBody, SANDBOX } from './legacy-support.js';

describe('legacy API: random hostile bodies', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await startSandbox();
  });
  after(() => sb.close());

  it('answers every mutated card-token and charge body, JSON or XML, with a 200 or a 4xx naming a field', async () => {
    const next = seededRandom(20261122);
    const chargeBase = {
      ...(await chargeBody(sb)),
      autoCapture: 'y',
      autoCapTime: 1,
      chargeMode: 1,
      transactionIndicator: 1,
      metadata: { a: 'b' },
      products: [{ name: 'p', price: 1, quantity: 1 }],
      billingDetails: { addressLine1: 'a', phone: { number: '1' } },
      trackId: 'fuzz',
      udf1: 'u',
    };
    const targets: [string, string, Record<string, unknown>][] = [
      ['/tokens/card', sb.credentials.publicKey, cardBody(sb)],
      ['/charges/token', sb.credentials.secretKey, chargeBase],
      ['/tokens/payment', sb.credentials.secretKey, { value: 100, currency: 'EUR', chargeMode: 1 }],
    ];
    for (let i = 0; i < 240; i++) {
      const [path, key, base] = targets[i % targets.length]!;
      const body = mutate(base, next, undefined, ['extra0', 'extra1', 'extra2']);
      const xml = next() < 0.3;
      const r = await call(`${sb.url}${SANDBOX}${path}`, {
        method: 'POST',
        raw: xml ? encodeXml(body) : JSON.stringify(body),
        headers: { authorization: key, 'content-type': xml ? 'application/xml' : 'application/json' },
      });
      const label = `#${i} ${path} ${xml ? 'xml' : 'json'} ${JSON.stringify(body).slice(0, 160)}`;
      assert.ok(
        r.status === 200 || (r.status >= 400 && r.status < 500),
        `${label}: ${r.status} ${r.text.slice(0, 200)}`,
      );
      if (r.status !== 200) {
        assert.equal(typeof r.json?.errorCode, 'string', label);
        assert.ok(r.json.errors.length > 0 && typeof r.json.errors[0].field === 'string', label);
      }
    }
    assert.equal(({} as Record<string, unknown>).nested, undefined);
  });
});
