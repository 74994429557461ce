/**
 * A JSON body with a key given twice (docs/decisions/helper.md#helper-duplicate-keys): `JSON.parse` keeps the last
 * value, a WAF, a log shipper or a merchant's middleware may read the first, so the helper refuses the body before any
 * route reads it, on every route that has one, and names the repeated key's path.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import express from 'express';
import { tesseraHelper } from '../../../server/helper/index.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { type Answer, call } from '../../support/http.js';
import { sampleFixtures } from '../sandbox/accounts-support.js';
import {
  accountsCalls,
  captureLogger,
  cardToken,
  type Issuer,
  NO_RATE_LIMITS,
  type RunningHelper,
  sandboxCharges,
  sandboxHelperOptions,
  serveApp,
  startHelper,
  startIssuer,
} from './support.js';

const CARD = '4242424242424242';

describe('helper refuses a JSON body with a key given twice', () => {
  let sb: RunningSandbox;
  let issuer: Issuer;
  let h: RunningHelper;

  before(async () => {
    sb = await startSandbox({ fixtures: sampleFixtures() });
    issuer = await startIssuer(() => sb.clock.nowMs());
    h = await startHelper({
      ...sandboxHelperOptions(sb, issuer),
      resolveCharge: () => ({ amount: 100, currency: 'EUR' }),
      rateLimits: NO_RATE_LIMITS,
    });
  });
  beforeEach(() => sb.context.reset());
  after(async () => {
    await h.close();
    await issuer.close();
    await sb.close();
  });

  /** `raw` sent as it is written (duplicate keys and escapes kept), as JSON, to `path` of the helper. */
  const send = (path: string, raw: string, init: { method?: string; token?: string } = {}): Promise<Answer> =>
    call(`${h.url}${path}`, {
      method: init.method ?? 'POST',
      raw,
      headers: {
        'content-type': 'application/json',
        ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      },
    });

  const assertDuplicate = (r: Answer, field: string, what: string) => {
    assert.equal(r.status, 400, `${what}: ${r.text}`);
    assert.equal(r.json.code, 'TESSERA_BODY_DUPLICATE_KEY', what);
    assert.equal(r.json.field, field, what);
    assert.match(r.json.message, /more than once/, what);
  };

  it('POST /charges: a card token given twice charges nothing (it charged the last one)', async () => {
    const token = await cardToken(sb);
    const raw = `{"cardToken":"card_tok_firstvalue","cardToken":"${token}","orderReference":"o-1","email":"a@b.co"}`;
    const r = await send('/charges', raw);
    assertDuplicate(r, 'cardToken', raw);
    assert.deepEqual(await sandboxCharges(sb), [], 'the provider was asked for no charge');
    // The same body with the key once is charged: the refusal is the duplicate's, nothing else's.
    const once = await send('/charges', `{"cardToken":"${token}","orderReference":"o-1","email":"a@b.co"}`);
    assert.equal(once.status, 201, once.text);
  });

  it('PATCH of a payout instrument and POST /account-updater: a key given twice changes nothing', async () => {
    const token = await issuer.sign({
      sub: 'usr_a',
      entities: ['ent_fixture_a'],
      instruments: ['src_fixture_card'],
    });
    const path = '/entities/ent_fixture_a/payment-instruments/ppi_verified_2';
    const patched = await send(path, '{"label":"Shown to the WAF","label":"Main account"}', {
      method: 'PATCH',
      token,
    });
    assertDuplicate(patched, 'label', 'PATCH');
    const updater = await send('/account-updater', '{"instrumentId":"src_other","instrumentId":"src_fixture_card"}', {
      token,
    });
    assertDuplicate(updater, 'instrumentId', 'account-updater');
    assert.deepEqual(await accountsCalls(sb), [], 'the provider was asked nothing');
    const read = await call(`${h.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(read.json.label, 'Account ppi_verified_2', read.text);
  });

  it('names the path of the repeated key at any depth, its key decoded and cleaned as other body errors name it', async () => {
    const fields = '"cardToken":"card_tok_abcdefgh","orderReference":"o-1","email":"a@b.co"';
    for (const [raw, field] of [
      // Compared decoded: an escape does not make another key.
      [`{"tok\\u0065n":"a",${fields},"token":"b"}`, 'token'],
      [`{${fields},"email":"c@d.co"}`, 'email'],
      [`{${fields},"billingDetails":{"city":"A","zip":"1","city" : "B"}}`, 'billingDetails.city'],
      [`{${fields},"a":[1,{"b":[{},{"c":1,"c":2}]}]}`, 'a.1.b.1.c'],
      [`{${fields},"a\\u202eb":{"x":1,"x":1}}`, 'a\\u202Eb.x'],
      [`{${fields},"":1,"":2}`, '""'],
      [`{${fields},"${'k'.repeat(40)}":1,"${'k'.repeat(40)}":1}`, `${'k'.repeat(32)}…`],
      // A key again in an object a later duplicate overwrote, which the parsed body no longer holds.
      [`{${fields},"m":{"n":1,"n":2},"m":3}`, 'm.n'],
    ] as const) {
      assertDuplicate(await send('/charges', raw), field, raw);
    }
    // The same key in sibling or nested objects, and keys that are also values, are no duplicates.
    for (const raw of [
      '{"cardToken":"nope","orderReference":"o-1","billingDetails":{"cardToken":"x"},"shippingDetails":{"cardToken":"x"}}',
      '{"cardToken":"nope","orderReference":"o-1","a":[{"k":1},{"k":2}],"b":{"b":{"b":"b"}}}',
      '{"cardToken":"nope","orderReference":"o-1","note":"\\"cardToken\\":1,","x":["cardToken","cardToken"]}',
      '{"cardToken":"nope","orderReference":"o-1","Cardtoken":1,"cardtoken":2,"cardToken ":3}',
    ]) {
      const r = await send('/charges', raw);
      assert.equal(r.json.code, 'TESSERA_INVALID_REQUEST', `${raw}: ${r.text}`);
      assert.equal(r.json.field, 'cardToken', raw);
    }
  });

  it('still answers card data refused, never the duplicate and never the number, when the overwritten value holds card data', async () => {
    const fields = '"cardToken":"card_tok_abcdefgh","orderReference":"o-1","email":"a@b.co"';
    for (const raw of [
      `{${fields},"note":"${CARD}","note":"x"}`,
      `{${fields},"note":{"pan":"4242 4242 4242 4242"},"note":1}`,
      `{${fields},"note":"\\u0034242424242424242","note":"x"}`,
      `{${fields},"${CARD}":1,"${CARD}":2}`,
      `{${fields},"cvv":"123","cvv":""}`,
      `{${fields},"card":{"cvc":"999","cvc":null}}`,
      `{"email":"${CARD}",${fields}}`,
    ]) {
      const r = await send('/charges', raw);
      assert.equal(r.status, 400, `${raw}: ${r.text}`);
      assert.equal(r.json.code, 'TESSERA_CARD_DATA_REFUSED', raw);
      assert.ok(!r.text.includes('4242'), r.text);
    }
    assert.ok(!h.log.text().includes(CARD), 'the log holds no card number');
  });

  it('answers the problems it answered before a duplicate first: malformed JSON, no object, a forbidden key', async () => {
    for (const [raw, code, field] of [
      ['{"a":1,"a":2', 'TESSERA_BODY_MALFORMED', 'body'],
      ['[{"a":1,"a":2}]', 'TESSERA_BODY_NOT_OBJECT', 'body'],
      ['{"__proto__":{},"__proto__":{}}', 'TESSERA_FORBIDDEN_KEY', '__proto__'],
    ] as const) {
      const r = await send('/charges', raw);
      assert.equal(r.json.code, code, `${raw}: ${r.text}`);
      assert.equal(r.json.field, field, raw);
    }
  });
});

describe('duplicate keys behind an app-wide parser', () => {
  const options = {
    publicKey: 'pk_sbox_tessera0demo0public0key0000001',
    secretKey: 'sk_sbox_tessera0demo0secret0key0000001',
    resolveCharge: () => ({ amount: 100, currency: 'EUR' as const }),
  };

  /** POST /charges of `raw` as JSON to a helper mounted behind an app-wide `parser`. */
  async function chargeBehind(parser: express.RequestHandler, raw: string): Promise<Answer> {
    const app = express();
    app.use(parser);
    app.use('/payments', tesseraHelper({ ...options, logger: captureLogger().logger }));
    const server = await serveApp(app);
    try {
      return await call(`${server.base}/payments/charges`, { raw, headers: { 'content-type': 'application/json' } });
    } finally {
      await server.close();
    }
  }

  it('refuses them in the bytes or text an app-wide express.raw() or express.text() left', async () => {
    const raw = '{"cardToken":"nope","cardToken":"card_tok_abcdefgh","orderReference":"o-1","email":"a@b.co"}';
    for (const parser of [express.raw({ type: 'application/json' }), express.text({ type: 'application/json' })]) {
      const r = await chargeBehind(parser, raw);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.code, 'TESSERA_BODY_DUPLICATE_KEY');
      assert.equal(r.json.field, 'cardToken');
    }
  });

  it('cannot see them behind an app-wide express.json(): the parsed body holds the last value (docs/helper.md)', async () => {
    const raw = '{"cardToken":"card_tok_abcdefgh","cardToken":"nope","orderReference":"o-1","email":"a@b.co"}';
    const r = await chargeBehind(express.json(), raw);
    // The text is gone: the route reads the last value, as JSON.parse left it.
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.code, 'TESSERA_INVALID_REQUEST');
    assert.equal(r.json.field, 'cardToken');
  });
});
