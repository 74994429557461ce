import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { containsPan } from '../../../server/common/pan.js';
import { readableUrl } from '../../../server/common/url-pans.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { cardBody, postCardToken, SANDBOX } from './legacy-support.js';

const requestLog = async (sb: RunningSandbox) => (await call(`${sb.url}/_sandbox/requests?limit=200`)).text;

describe('legacy API: the request log masks card data by content', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await startSandbox();
  });
  after(() => sb.close());
  beforeEach(async () => {
    await call(`${sb.url}/_sandbox/reset`, { method: 'POST', body: {} });
  });

  it('accepts a number as digits or in its printed groups with single spaces or dashes, and nothing else', async () => {
    for (const number of ['4242424242424242', '4242 4242 4242 4242', '4242-4242-4242-4242', '3782 822463 10005']) {
      const r = await postCardToken(sb, cardBody(sb, number, number.startsWith('37') ? { cvv: '1234' } : {}));
      assert.equal(r.status, 200, `${number}: ${r.text}`);
    }
    for (const number of [
      '4242  4242  4242  4242',
      '4242\t4242\t4242\t4242',
      '4242\u00a04242\u00a04242\u00a04242',
      '4242 4242-4242 4242',
      '42424 24242 424242',
      ' 4242424242424242',
      '4242 4242 4242 4242 ',
      '4242\u200b4242\u200b4242\u200b4242',
      '3782 8224 6310 005',
    ]) {
      const r = await postCardToken(sb, cardBody(sb, number));
      assert.equal(r.status, 400, `${JSON.stringify(number)}: ${r.text}`);
      assert.equal(r.json.errors[0].field, 'number', r.text);
      assert.equal(containsPan(r.text), false, r.text);
    }
  });

  it('keeps no card number, however spaced or wherever sent, and no CVV under any name', async () => {
    const sent = [
      cardBody(sb, '4242  4242  4242  4242'),
      cardBody(sb, '4242\t4242\t4242\t4242'),
      cardBody(sb, '4242\u00a04242\u00a04242\u00a04242'),
      cardBody(sb, '4242424242424242', { name: '5555 5555 5555 4444' }),
      cardBody(sb, '4242424242424242', { name: 'Ada', '6011 1111 1111 1117': 'x' }),
      cardBody(sb, '4242424242424242', { card_cvv: '987', CVV_code: '876', securityCode: '765', note: '654' }),
      cardBody(sb, '4242424242424242', { extra: { code: 5432 } }),
      cardBody(sb, '4242 4242 4242 4241'),
    ];
    for (const body of sent) await postCardToken(sb, body);
    await call(`${sb.url}${SANDBOX}/charges/4242424242424242?q=5555%205555%205555%204444`);
    // Percent-encoded separators put digits between the groups of the raw text: only a reading as a route would
    // read the URL sees the number.
    await call(`${sb.url}${SANDBOX}/charges/4242%204242%204242%204242`);
    await call(`${sb.url}${SANDBOX}/charges/ch_%2F5555555555554444`);
    // Percent-encoded UTF-8 (no-break and thin spaces, full-width digits) encoded twice: decoded once, still escapes.
    await call(`${sb.url}${SANDBOX}/charges/4242%25C2%25A04242%25C2%25A04242%25C2%25A04242`);
    await call(`${sb.url}${SANDBOX}/charges/x?return=5555%25E2%2580%25895555%25E2%2580%25895555%25E2%2580%25894444`);
    await call(
      `${sb.url}${SANDBOX}/charges/${encodeURIComponent(encodeURIComponent('４２４２４２４２４２４２４２４２'))}`,
    );
    // No route (404) and a wrong method (405): their messages name the path, and the log keeps the answer.
    const echoed = [
      await call(`${sb.url}${SANDBOX}/charges/4242%204242%204242%204242/x`),
      await call(`${sb.url}${SANDBOX}/charges/4242%204242%204242%204242`, { method: 'POST' }),
      await call(`${sb.url}/nowhere/5555%205555%205555%204444`),
    ];
    assert.deepEqual(
      echoed.map((r) => r.status),
      [404, 405, 404],
    );
    for (const r of echoed) assert.equal(containsPan(readableUrl(r.text)), false, r.text);
    const log = await requestLog(sb);
    assert.equal(containsPan(log), false, log);
    assert.equal(containsPan(readableUrl(log)), false, log);
    assert.ok(!/(4242|5555)%(25)?(C2|E2)|%(25)?BC%(25)?94/i.test(log), log);
    assert.ok(
      !/4242424242424241/.test(log.replace(/\s/g, '')),
      'a refused (Luhn-invalid) number in `number` is masked by name',
    );
    // As a value (durations and ids may hold the same digits by chance).
    for (const cvv of ['987', '876', '765', '654', '5432']) {
      assert.ok(!new RegExp(`"${cvv}"|:${cvv}[,}]`).test(log), `log holds ${cvv}`);
    }
    // No key names a CVV at any depth (searching the whole text would also hit a random id that spells "cvv").
    const keys: string[] = [];
    const collect = (value: unknown): void => {
      if (!value || typeof value !== 'object') return;
      for (const [key, inner] of Object.entries(value)) {
        keys.push(key);
        collect(inner);
      }
    };
    collect(JSON.parse(log));
    assert.ok(keys.includes('requestBody'), 'the walk reached the logged bodies');
    assert.deepEqual(
      keys.filter((key) => /cvv/i.test(key)),
      [],
    );
    assert.match(log, /424242\*+4242/);
    assert.match(log, /555555\*+4444/);
    assert.match(log, /601111\*+1117/);
  });
});
