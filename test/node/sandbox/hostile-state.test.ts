import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { accessToken, authed, FORM, form, requests, sampleFixtures, V3 } from './accounts-support.js';
import { fromXml } from './legacy-support.js';

/**
 * What a hostile or careless client could grow or confuse in the sandbox's own state: the fault table, the Account
 * Services collections, and single-valued headers sent twice (docs/decisions/sandbox.md#fault-table,
 * #accounts-memory, #repeated-headers).
 */

/** Request headers; an array is sent as one line per item. */
type RawHeaders = Record<string, string | string[]>;

/** One POST whose headers may repeat (an array value is sent as one line per item); fetch would join them. */
function postRaw(
  url: string,
  headers: RawHeaders,
  body: string,
  // biome-ignore lint/suspicious/noExplicitAny: tests assert the body's shape, as test/support/http.ts's Answer.
): Promise<{ status: number; headers: Record<string, unknown>; text: string; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers, signal: AbortSignal.timeout(10_000) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => {
        const json = res.headers['content-type']?.startsWith('application/json') ? JSON.parse(text) : undefined;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.once('error', reject);
    req.end(body);
  });
}

describe('sandbox faults under hostile parameters', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await startSandbox();
  });
  beforeEach(() => sb.context.reset());
  after(() => sb.close());

  const addFault = (body: unknown) => call(`${sb.url}/_sandbox/faults`, { body });
  const pending = async () => (await call(`${sb.url}/_sandbox/faults`)).json.data.length;

  it('refuses a setting it does not know, naming it, instead of dropping it and adding another fault', async () => {
    // Before: `rest` (for `reset`) was dropped and a delay-only fault was added in its place.
    for (const [body, field] of [
      [{ path: '/api2/**', delayMs: 5, rest: true }, 'rest'],
      [{ path: '/api2/**', status: 503, timeout: true }, 'timeout'],
      [{ path: '/api2/**', status: 503, Count: 3 }, 'Count'],
    ] as const) {
      const r = await addFault(body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.json.errors[0].field, field);
      assert.equal(r.json.errors[0].code, 'fault_setting_unknown', 'a fixed code, never built from the key');
      assert.match(r.json.errors[0].message, /is not a fault setting/);
    }
    assert.equal(await pending(), 0, 'nothing was added');
  });

  it('refuses a method the sandbox never answers, so a misspelt method is not a fault that never fires', async () => {
    for (const method of ['POTS', 'CONNECT', 'TRACE', '', 7]) {
      const r = await addFault({ path: '/api2/**', status: 503, method });
      assert.equal(r.status, 400, String(method));
      assert.equal(r.json.errors[0].field, 'method');
    }
    const lower = await addFault({ path: '/api2/**', status: 503, method: 'post' });
    assert.equal(lower.status, 201);
    assert.equal(lower.json.method, 'POST');
  });

  it('keeps at most 100 faults pending: the next is 409 until they are cleared, and requests still match them', async () => {
    // Before: the table grew without end; with 2,000 rules one request took 22 s of matching.
    for (let i = 0; i < 100; i++) {
      const r = await addFault({ path: `/api2/v2/nowhere/${i}/**`, status: 503, count: 1000 });
      assert.equal(r.status, 201, r.text);
    }
    const full = await addFault({ path: '/api2/**', status: 503 });
    assert.equal(full.status, 409);
    assert.equal(full.json.errorCode, 'fault_table_full');
    assert.equal(full.json.errors[0].field, 'path');
    assert.equal(await pending(), 100);
    assert.equal((await call(`${sb.url}/api2/v2/nowhere/7/x`)).status, 503, 'a pending rule still applies');
    assert.equal((await call(`${sb.url}/_sandbox/faults`, { method: 'DELETE' })).status, 204);
    assert.equal((await addFault({ path: '/api2/**', status: 503 })).status, 201);
  });
});

describe('single-valued headers sent twice', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await startSandbox();
  });
  after(() => sb.close());

  it('refuses two Content-Type, Authorization or Idempotency-Key lines with 400 naming the header', async () => {
    const card = JSON.stringify({ number: '4242424242424242', expiryMonth: 12, expiryYear: 2040, cvv: '123' });
    const payment = JSON.stringify({ value: 100, currency: 'USD', chargeMode: 1 });
    const json = 'application/json';
    const cases: [string, RawHeaders, string, string][] = [
      // Node kept the first Content-Type; a proxy in front may have read the XML one.
      [
        '/api2/v2/tokens/card',
        { authorization: sb.credentials.publicKey, 'content-type': [json, 'application/xml'] },
        card,
        'Content-Type',
      ],
      [
        '/api2/v2/tokens/payment',
        { authorization: [sb.credentials.secretKey, sb.credentials.publicKey], 'content-type': json },
        payment,
        'Authorization',
      ],
      // Node joined these into the one key "a, b", which neither line named.
      [
        '/api2/v2/tokens/payment',
        { authorization: sb.credentials.secretKey, 'content-type': json, 'idempotency-key': ['a', 'b'] },
        payment,
        'Idempotency-Key',
      ],
    ];
    for (const [path, headers, body, field] of cases) {
      const r = await postRaw(`${sb.url}${path}`, headers, body);
      assert.equal(r.status, 400, `${path} ${field}`);
      assert.equal(r.json.errorCode, 'header_repeated');
      assert.deepEqual(r.json.errors, [{ field, code: 'header_repeated', message: `send ${field} once` }]);
    }
    // The card-token endpoint's refusal is readable by the page that called it (CORS, as every error there).
    const cors = await postRaw(`${sb.url}/api2/v2/tokens/card`, cases[0]![1], card);
    assert.equal(cors.headers['access-control-allow-origin'], '*');
    // Nothing was made: the key "a, b" is still free.
    const joined = await postRaw(
      `${sb.url}/api2/v2/tokens/payment`,
      { authorization: sb.credentials.secretKey, 'content-type': json, 'idempotency-key': 'a, b' },
      payment,
    );
    assert.equal(joined.status, 200);
    assert.equal(joined.headers['idempotent-replayed'], undefined);
  });

  it('answers a legacy client that asked for XML in XML, like every other legacy error', async () => {
    // Before: the refusal came before negotiation, so it was JSON whatever Accept said.
    const r = await postRaw(
      `${sb.url}/api2/v2/tokens/payment`,
      {
        authorization: [sb.credentials.secretKey, sb.credentials.secretKey],
        'content-type': 'application/json',
        accept: 'application/xml',
      },
      JSON.stringify({ value: 100, currency: 'USD', chargeMode: 1 }),
    );
    assert.equal(r.status, 400);
    assert.match(String(r.headers['content-type']), /^application\/xml/);
    assert.equal(fromXml(r.text).errorCode, 'header_repeated');
    // An Accept the area cannot answer is still refused for the repeated header first (in its default format).
    const both = await postRaw(
      `${sb.url}/api2/v2/tokens/payment`,
      { authorization: [sb.credentials.secretKey, sb.credentials.secretKey], accept: 'text/csv' },
      '{}',
    );
    assert.equal(both.status, 400);
    assert.equal(both.json.errorCode, 'header_repeated');
  });

  it("answers it in the Account Services and token endpoint's shapes", async () => {
    const token = await accessToken(sb);
    const accounts = await postRaw(
      `${sb.url}/accounts/entities`,
      { authorization: [`Bearer ${token}`, `Bearer ${token}`], 'content-type': 'application/json', accept: V3 },
      JSON.stringify(requests.individualGb('twice')),
    );
    assert.equal(accounts.status, 400);
    assert.equal(accounts.json.error_type, 'request_malformed');
    assert.deepEqual(accounts.json.error_codes, ['header_repeated']);
    const basic = `Basic ${Buffer.from(`${sb.credentials.clientId}:${sb.credentials.clientSecret}`).toString('base64')}`;
    const oauth = await postRaw(
      `${sb.url}/connect/token`,
      { ...FORM, authorization: [basic, 'Basic eDp5'] },
      form({ grant_type: 'client_credentials' }),
    );
    assert.equal(oauth.status, 400);
    assert.equal(oauth.json.error, 'invalid_request');
    assert.equal(oauth.json.error_description, 'send Authorization once');
  });
});

describe('Account Services collections stay bounded', () => {
  let sb: RunningSandbox;
  let token: string;
  before(async () => {
    sb = await startSandbox({ fixtures: sampleFixtures(), limits: { maxEntities: 3, maxStoredInstruments: 6 } });
  });
  beforeEach(async () => {
    sb.context.reset();
    token = await accessToken(sb);
  });
  after(() => sb.close());

  const entity = (id: string) => `${sb.url}/accounts/entities/${id}`;
  const rule = {
    type: 'rolling',
    valid_from: '2099-01-01T00:00:00Z',
    rolling: { percentage: 10, holding_duration: { weeks: 2 } },
  };
  const bank = {
    type: 'bank_account',
    label: 'L',
    currency: 'GBP',
    country: 'GB',
    account_number: 'GB94BARC10201530093459',
    document: { type: 'bank_statement', file_id: 'file_new' },
  };

  /** POSTs `body` to `url` until it is refused; answers how many were made and the refusal. */
  async function fill(url: string, body: unknown, headers = authed(sb.credentials.secretKey)) {
    for (let made = 0; made <= 200; made++) {
      const r = await call(url, { headers, body });
      if (r.status !== 201) return { made, refused: r };
    }
    assert.fail(`${url}: more than 200 were made`);
  }

  it('keeps at most 100 reserve rules and 100 payment instruments per entity; the list answers at most that', async () => {
    // Before: every POST added one for good, and the list answered all of them (3,000 rules: 894 KB).
    const rules = await fill(`${entity('ent_fixture_a')}/reserve-rules`, rule);
    assert.equal(rules.made, 98, 'the fixture holds 2');
    assert.equal(rules.refused.status, 422);
    assert.deepEqual(rules.refused.json.error_codes, ['reserve_rule_limit_reached']);
    const listed = await call(`${entity('ent_fixture_a')}/reserve-rules`, {
      headers: authed(sb.credentials.secretKey),
    });
    assert.equal(listed.json.data.length, 100);
    assert.equal(
      (
        await call(`${entity('ent_fixture_b')}/reserve-rules`, {
          headers: authed(sb.credentials.secretKey),
          body: rule,
        })
      ).status,
      201,
      'another entity has room',
    );

    const card = {
      ...bank,
      type: 'card_token',
      instrument_id: 'src_fixture_card',
      document: undefined,
      account_number: undefined,
    };
    const instruments = await fill(`${entity('ent_fixture_a')}/payment-instruments`, card);
    assert.equal(instruments.made, 95, 'the fixture holds 5');
    assert.equal(instruments.refused.status, 422);
    assert.deepEqual(instruments.refused.json.error_codes, ['payment_instrument_limit_reached']);
    const all = await call(`${entity('ent_fixture_a')}/payment-instruments`, {
      headers: authed(sb.credentials.secretKey),
    });
    assert.equal(all.json.data.length, 100);
  });

  it('caps entities and stored instruments at limits.maxEntities and limits.maxStoredInstruments, refusing before any effect', async () => {
    const onboard = (reference: string) =>
      call(`${sb.url}/accounts/entities`, {
        headers: authed(token, { accept: V3 }),
        body: requests.individualGb(reference),
      });
    const third = await onboard('third');
    assert.equal(third.status, 201, third.text);
    const over = await onboard('fourth');
    assert.equal(over.status, 422);
    assert.deepEqual(over.json.error_codes, ['entity_limit_reached']);
    // A bank account makes a stored instrument: the fixtures' five (a card, four bank accounts) and this one fill the 6.
    assert.equal(
      (await call(`${entity('ent_fixture_b')}/payment-instruments`, { headers: authed(token), body: bank })).status,
      201,
    );
    const noRoom = await call(`${entity('ent_fixture_b')}/payment-instruments`, { headers: authed(token), body: bank });
    assert.equal(noRoom.status, 422);
    assert.deepEqual(noRoom.json.error_codes, ['instrument_limit_reached']);
    const tok = await call(`${sb.url}/api2/v2/tokens/card`, {
      headers: { authorization: sb.credentials.publicKey },
      body: { number: '4242424242424242', expiryMonth: 12, expiryYear: 2040, cvv: '123' },
    });
    const stored = await call(`${sb.url}/instruments`, {
      headers: authed(token),
      body: { type: 'token', token: tok.json.id },
    });
    assert.equal(stored.status, 422);
    assert.deepEqual(stored.json.error_codes, ['instrument_limit_reached']);
    // The refusal came before the card token was spent: it still makes a charge.
    const charge = await call(`${sb.url}/api2/v2/charges/token`, {
      headers: { authorization: sb.credentials.secretKey },
      body: { cardToken: tok.json.id, currency: 'USD', email: 'a@shop.example', value: 100 },
    });
    assert.equal(charge.status, 200, charge.text);
    // Reset puts the fixtures back and frees the room.
    sb.context.reset();
    assert.equal((await onboard('fourth')).status, 201);
  });

  it('refuses fixtures that hold more than a cap, naming the place, so no list answers more than the cap', async () => {
    // Before: fixtures loaded past every cap (101 reserve rules on one entity were all listed).
    const fixtures = sampleFixtures();
    const [a, b] = fixtures.accounts.entities as Record<string, unknown>[];
    const rules = Array.from({ length: 101 }, (_, i) => ({
      id: `rsv_many_${i}`,
      type: 'rolling',
      valid_from_in_days: 10,
      rolling: rule.rolling,
    }));
    const cases: [Parameters<typeof startSandbox>[0], RegExp][] = [
      [
        { fixtures: { accounts: { ...fixtures.accounts, entities: [{ ...a, reserve_rules: rules }, b] } } },
        /accounts\.entities\.0\.reserve_rules: .*100/,
      ],
      [
        {
          fixtures: {
            accounts: {
              ...fixtures.accounts,
              entities: [
                {
                  ...a,
                  payment_instruments: Array.from({ length: 101 }, (_, i) => ({ ...bank, id: `ppi_many_${i}` })),
                },
              ],
            },
          },
        },
        /accounts\.entities\.0\.payment_instruments: .*100/,
      ],
      [{ fixtures, limits: { maxEntities: 1 } }, /accounts\.entities: 2 entities.*limits\.maxEntities \(1\)/],
      // The fixtures' card and four bank accounts are five stored instruments.
      [
        { fixtures, limits: { maxStoredInstruments: 4 } },
        /accounts\.stored_cards: 5 stored instruments.*limits\.maxStoredInstruments \(4\)/,
      ],
    ];
    for (const [options, message] of cases) {
      let started: RunningSandbox | undefined;
      try {
        await assert.rejects(
          (async () => {
            started = await startSandbox(options);
          })(),
          message,
        );
      } finally {
        await started?.close();
      }
    }
    // At the caps exactly, they load.
    const full = await startSandbox({ fixtures, limits: { maxEntities: 2, maxStoredInstruments: 5 } });
    await full.close();
  });

  it('refuses the start option when a cap is not a whole number from 1', async () => {
    await assert.rejects(startSandbox({ limits: { maxEntities: 0 } }), /limits\.maxEntities/);
    await assert.rejects(startSandbox({ limits: { maxStoredInstruments: 1.5 } }), /limits\.maxStoredInstruments/);
  });
});
