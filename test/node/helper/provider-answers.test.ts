import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { CardUpdatedEvent, TesseraHelperOptions } from '../../../server/helper/index.js';
import { type RunningSandbox, type SandboxOptions, startSandbox } from '../../../server/sandbox/index.js';
import { type Answer, call } from '../../support/http.js';
import { startRelay } from '../../support/relay.js';
import { sampleFixtures } from '../sandbox/accounts-support.js';
import {
  answerChallenge,
  cardToken,
  type Issuer,
  type RunningHelper,
  sandboxCharge,
  sandboxCharges,
  sandboxHelperOptions,
  startHelper,
  startIssuer,
} from './support.js';

/** What the tampering proxy answers instead of the provider, once, for the next request whose path matches. */
interface Tamper {
  readonly path: RegExp;
  readonly method: string;
  readonly status?: number;
  readonly contentType?: string;
  readonly headers?: Record<string, string>;
  readonly body: string;
}

/**
 * The real sandbox behind a relay: every request reaches the sandbox and its answer is passed back, except that the
 * next request matching `once(tamper)` has its answer replaced after the sandbox acted on it. So the provider really
 * charged or changed something, and the helper only sees a broken answer, as behind a faulty gateway.
 */
async function tamperingProxy(target: string) {
  let tamper: Tamper | undefined;
  const relay = await startRelay(target, {
    replace(method, path) {
      const t = tamper;
      if (!t || t.method !== method || !t.path.test(path)) return undefined;
      tamper = undefined;
      return {
        status: t.status ?? 200,
        ...(t.contentType === undefined ? {} : { contentType: t.contentType }),
        ...(t.headers === undefined ? {} : { headers: t.headers }),
        body: t.body,
      };
    },
  });
  return {
    url: relay.url,
    /** Replaces the answer of the next matching request. */
    once(t: Tamper) {
      tamper = t;
    },
    /** Whether the tampering rule was used (a test that never reached it proves nothing). */
    get used() {
      return tamper === undefined;
    },
    close: relay.close,
  };
}

/**
 * The sandbox with `fixtures`, a host-token issuer, the tampering proxy in front of all three of its APIs, and a helper
 * that reaches the provider only through it (`order-3ds` asks for 3-D Secure), with `extra` options on top.
 */
async function tamperedHelper(fixtures: SandboxOptions['fixtures'], extra: Partial<TesseraHelperOptions>) {
  const sb = await startSandbox({ port: 0, fixtures });
  const issuer = await startIssuer(() => sb.clock.nowMs());
  const proxy = await tamperingProxy(sb.url);
  const helper = await startHelper({
    ...sandboxHelperOptions(sb, issuer),
    legacyBaseUrl: proxy.url,
    accountsBaseUrl: proxy.url,
    authBaseUrl: proxy.url,
    resolveCharge: (_req, { orderReference }) =>
      orderReference === 'order-3ds'
        ? { amount: 4200, currency: 'GBP', threeDSecure: true }
        : { amount: 2500, currency: 'EUR' },
    // Each broken answer leaves its outcome unknown, which counts as a decline; these suites send many on purpose.
    rateLimits: { declinesPerIp: false, chargesPerIp: false },
    ...extra,
  });
  const close = async () => {
    await helper.close();
    await proxy.close();
    await issuer.close();
    await sb.close();
  };
  return { sb, issuer, proxy, helper, close };
}

const JSON_TYPE = 'application/json';

/**
 * A 3-D Secure charge through `pay`, its challenge passed at the sandbox: the charge is final at the provider, and the
 * shopper's return (with `successUrl` `/order/done`) is still to come. Its payment token and the sandbox's charge.
 */
async function finishedChallenge(sb: RunningSandbox, pay: (body: unknown) => Promise<Answer>) {
  const started = await pay({
    cardToken: await cardToken(sb, '4000000000003220'),
    orderReference: 'order-3ds',
    email: 'a@shop.example',
    successUrl: '/order/done',
  });
  assert.equal(started.status, 202, started.text);
  const back = await answerChallenge(sb, started.json.redirectUrl);
  const token = new URL(back).searchParams.get('cko-payment-token')!;
  return { token, real: await sandboxCharge(sb, token) };
}

describe('the provider answers 2xx without what the helper reads', () => {
  let sb: RunningSandbox;
  let issuer: Issuer;
  let proxy: Awaited<ReturnType<typeof tamperingProxy>>;
  let helper: RunningHelper;
  const updated: CardUpdatedEvent[] = [];

  let close: () => Promise<void>;

  before(async () => {
    ({ sb, issuer, proxy, helper, close } = await tamperedHelper(
      sampleFixtures({
        stored_cards: [
          { id: 'src_fixture_card', number: '4000000000002008', expiry_month: 6, expiry_year: 2025 },
          { id: 'src_updated', number: '4000000000001000', expiry_month: 6, expiry_year: 2025 },
        ],
      }),
      {
        onCardUpdated: (event) => {
          updated.push(event);
        },
      },
    ));
  });
  after(() => close());
  afterEach(() => {
    assert.ok(proxy.used, 'the broken answer was sent');
    assert.doesNotMatch(helper.log.text(), /TESSERA_INTERNAL/, 'no answer was a 500');
  });

  const pay = (body: unknown): Promise<Answer> => call(`${helper.url}/charges`, { body });
  const host = async () => ({
    authorization: `Bearer ${await issuer.sign({ entities: ['ent_fixture_a'], instruments: ['src_updated'] })}`,
  });

  function unknownOutcome(r: Answer, what: string) {
    assert.equal(r.status, 502, `${what}: ${r.text}`);
    assert.equal(r.json.code, 'TESSERA_PROVIDER_ERROR', what);
    assert.equal(r.json.outcomeKnown, false, what);
    assert.match(r.json.message, /outcome is unknown/, what);
  }

  it('answers a new charge 502 with an unknown outcome, and the retry the one real charge', async () => {
    const charge = {
      id: 'charge_x',
      status: 'Captured',
      responseCode: '10000',
      value: 2500,
      currency: 'EUR',
      card: { paymentMethod: 'Visa', last4: '4242', expiryMonth: '12', expiryYear: '2030' },
    };
    const broken: [string, Partial<Tamper>][] = [
      ['an empty 200', { body: '' }],
      ['a 204', { status: 204, body: '' }],
      ['null', { contentType: JSON_TYPE, body: 'null' }],
      ['an array', { contentType: JSON_TYPE, body: '[]' }],
      ['an empty object', { contentType: JSON_TYPE, body: '{}' }],
      ['a numeric id', { contentType: JSON_TYPE, body: JSON.stringify({ ...charge, id: 5 }) }],
      // docs/decisions/helper.md#helper-charge-id: on a new charge too, not only on a 3-D Secure read-back.
      ['an id without charge_', { contentType: JSON_TYPE, body: JSON.stringify({ ...charge, id: 'ch_123' }) }],
      ['charge_ alone', { contentType: JSON_TYPE, body: JSON.stringify({ ...charge, id: 'charge_' }) }],
      ['an id with markup', { contentType: JSON_TYPE, body: JSON.stringify({ ...charge, id: 'charge_<b>' }) }],
      [
        'an id of 101 characters after charge_',
        { contentType: JSON_TYPE, body: JSON.stringify({ ...charge, id: `charge_${'a'.repeat(101)}` }) },
      ],
      ['an unknown status', { contentType: JSON_TYPE, body: JSON.stringify({ ...charge, status: 'Weird' }) }],
      [
        'Pending without a challenge',
        { contentType: JSON_TYPE, body: JSON.stringify({ ...charge, status: 'Pending' }) },
      ],
      ['no card', { contentType: JSON_TYPE, body: JSON.stringify({ ...charge, card: undefined }) }],
      [
        'a card without brand',
        { contentType: JSON_TYPE, body: JSON.stringify({ ...charge, card: { last4: '4242' } }) },
      ],
      ['an amount as text', { contentType: JSON_TYPE, body: JSON.stringify({ ...charge, value: '2500' }) }],
      [
        'an id that holds a card number',
        { contentType: JSON_TYPE, body: JSON.stringify({ ...charge, id: 'charge_4242_4242_4242_4242' }) },
      ],
      [
        'the whole card number as its last four digits',
        {
          contentType: JSON_TYPE,
          body: JSON.stringify({ ...charge, card: { ...charge.card, last4: '4242424242424242' } }),
        },
      ],
      [
        'a challenge URL that is a script',
        { contentType: JSON_TYPE, body: JSON.stringify({ id: 'pay_tok_x', redirectUrl: 'javascript:alert(1)' }) },
      ],
      [
        'a challenge URL in clear text to the network',
        {
          contentType: JSON_TYPE,
          body: JSON.stringify({ id: 'pay_tok_x', redirectUrl: 'http://acs.bank.example/3ds/pay_tok_x' }),
        },
      ],
      [
        'a challenge URL with a user before the host (a bank name in front of another site)',
        {
          contentType: JSON_TYPE,
          body: JSON.stringify({ id: 'pay_tok_x', redirectUrl: 'https://acs.bank.example@evil.example/3ds/pay_tok_x' }),
        },
      ],
      [
        'a challenge URL with a user and password',
        {
          contentType: JSON_TYPE,
          body: JSON.stringify({ id: 'pay_tok_x', redirectUrl: 'https://user:secret@acs.bank.example/3ds/pay_tok_x' }),
        },
      ],
      [
        'a relative challenge URL',
        { contentType: JSON_TYPE, body: JSON.stringify({ id: 'pay_tok_x', redirectUrl: '/3ds/pay_tok_x' }) },
      ],
    ];
    for (const [what, answer] of broken) {
      const body = { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' };
      const before = (await sandboxCharges(sb)).length;
      proxy.once({ path: /\/charges\/token$/, method: 'POST', body: '', ...answer });
      unknownOutcome(await pay(body), what);
      assert.ok(proxy.used, what);
      // The merchant's log says which field of the answer was refused.
      const failed = helper.log.lines.findLast((l) => l.event === 'tessera.charge.failed');
      assert.match(String(failed?.reason), /^POST charges\/token answered without a valid `/, what);
      if (what.includes('challenge URL')) assert.match(String(failed?.reason), /`redirectUrl`/, what);
      // The provider did charge: the same request again resends the idempotency key and learns the real charge.
      const retry = await pay(body);
      assert.equal(retry.status, 201, `${what}, retried: ${retry.text}`);
      assert.match(retry.json.id, /^charge_/);
      // Both requests reached the provider, and both answered the one charge the first made.
      const ids = (await sandboxCharges(sb)).slice(before).map((e) => (e.responseBody as { id?: string }).id);
      assert.deepEqual(ids, [retry.json.id, retry.json.id], what);
    }
  });

  it('answers a charge answered with a redirect 502 with an unknown outcome: the charge may have been made', async () => {
    for (const status of [303, 307]) {
      const body = { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' };
      const before = (await sandboxCharges(sb)).length;
      // The sandbox charged; the answer that comes back is a redirect ("the result is over there").
      proxy.once({ path: /\/charges\/token$/, method: 'POST', status, body: '' });
      unknownOutcome(await pay(body), `${status}`);
      const retry = await pay(body);
      assert.equal(retry.status, 201, `${status}, retried: ${retry.text}`);
      const ids = (await sandboxCharges(sb)).slice(before).map((e) => (e.responseBody as { id?: string }).id);
      assert.deepEqual(ids, [retry.json.id, retry.json.id], 'one charge, answered twice');
    }
  });

  it("passes a 429's Retry-After on as a small whole number of seconds, whatever the provider sent", async () => {
    const sent: [string, string][] = [
      ['9'.repeat(400), '60'],
      ['99999999999999999999', '60'],
      ['Fri, 31 Dec 9999 23:59:59 GMT', '60'],
      ['3600', '60'],
      ['0', '1'],
      ['soon', '1'],
      ['2', '2'],
    ];
    for (const [retryAfter, expected] of sent) {
      const body = { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' };
      proxy.once({
        path: /\/charges\/token$/,
        method: 'POST',
        status: 429,
        contentType: JSON_TYPE,
        headers: { 'retry-after': retryAfter },
        body: '{}',
      });
      const r = await pay(body);
      assert.equal(r.status, 503, `${retryAfter}: ${r.text}`);
      assert.equal(r.json.code, 'TESSERA_PROVIDER_UNAVAILABLE');
      assert.equal(r.headers.get('retry-after'), expected, retryAfter.slice(0, 40));
    }
  });

  it('answers the 3-D Secure return 502 when the charge read back is malformed, and the page can come back', async () => {
    const body = {
      cardToken: await cardToken(sb, '4000000000003220'),
      orderReference: 'order-3ds',
      email: 'a@shop.example',
    };
    const started = await pay(body);
    assert.equal(started.status, 202, started.text);
    const token = new URL(started.json.redirectUrl).pathname.split('/').find((p) => p.startsWith('pay_tok_'));
    assert.ok(token, started.json.redirectUrl);
    const back = `${helper.url}/charges/3ds-return?cko-payment-token=${token}`;
    proxy.once({ path: /\/charges\/pay_tok_/, method: 'GET', contentType: JSON_TYPE, body: '{"id":"charge_x"}' });
    const r = await call(back, { headers: { accept: JSON_TYPE } });
    assert.equal(r.status, 502, r.text);
    assert.equal(r.json.code, 'TESSERA_PROVIDER_ERROR');
    // The charge exists (pending or final): a read that failed says its outcome is unknown, never "nothing was done".
    assert.equal(r.json.outcomeKnown, false, r.text);
    // Read properly, the challenge is still open.
    assert.equal((await call(back, { headers: { accept: JSON_TYPE } })).json.code, 'TESSERA_3DS_NOT_FINISHED');
  });

  it('answers the 3-D Secure return 502 when the final charge read back has no charge id, never sending the payment token on', async () => {
    // The charge is final at the provider; only its id in the answer is wrong.
    const { token, real } = await finishedChallenge(sb, pay);
    const ids: [string, string][] = [
      // `?chargeId=` of the 303 would hand the payment token to the merchant's success page and its scripts.
      ['the payment token itself', token],
      ['no charge_ prefix', 'ch_123'],
      [
        'a megabyte: a Location no browser takes, answered from the store on every reload',
        `charge_${'a'.repeat(1 << 20)}`,
      ],
      ['markup', 'charge_<script>'],
      // The card number would reach the success page, its scripts, the store and onCharge.
      ['a card number', 'charge_4242424242424242'],
      ['a card number in groups', 'charge_4242-4242-4242-4242'],
    ];
    const returned = `${helper.url}/charges/3ds-return?cko-payment-token=${token}`;
    for (const [what, id] of ids) {
      proxy.once({
        path: /\/charges\/pay_tok_/,
        method: 'GET',
        contentType: JSON_TYPE,
        body: JSON.stringify({ ...real, id }),
      });
      const r = await fetch(returned, { headers: { accept: 'text/html' }, redirect: 'manual' });
      await r.text();
      assert.equal(r.status, 502, `${what}: ${r.headers.get('location')?.slice(0, 200)}`);
      assert.equal(r.headers.get('location'), null, what);
      assert.ok(proxy.used, what);
      const failed = helper.log.lines.findLast((l) => l.event === 'tessera.error');
      assert.match(JSON.stringify(failed), /GET charges answered without a valid `id`/, what);
    }
    // Read properly, the same return settles the real charge.
    const ok = await fetch(returned, { headers: { accept: 'text/html' }, redirect: 'manual' });
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get('location'), `/order/done?chargeId=${real.id}`);
  });

  it('answers the account updater 502 without calling onCardUpdated when its answer is malformed', async () => {
    const broken = [
      '{}',
      '{"account_update_status":"SOMETHING_NEW"}',
      '{"account_update_status":"CARD_UPDATED","card":{"bin":"424242","last4":4242}}',
      // The spec has the card present with these two outcomes: an update that does not say what changed.
      '{"account_update_status":"CARD_UPDATED"}',
      '{"account_update_status":"CARD_EXPIRY_UPDATED"}',
      'null',
      // More of the card number than the first six (or eight) and last four digits: never passed on to the page.
      '{"account_update_status":"CARD_UPDATED","card":{"bin":"4000000000001000","last4":"1000","expiry_month":1,"expiry_year":2030}}',
      '{"account_update_status":"CARD_UPDATED","card":{"bin":"400000","last4":"4000000000001000","expiry_month":1,"expiry_year":2030}}',
    ];
    for (const body of broken) {
      proxy.once({ path: /\/account-updater\/cards$/, method: 'POST', contentType: JSON_TYPE, body });
      const r = await call(`${helper.url}/account-updater`, {
        body: { instrumentId: 'src_updated' },
        headers: await host(),
      });
      unknownOutcome(r, body);
    }
    assert.deepEqual(updated, []);
  });

  it('reads a payout instrument without `default`, which the spec has write-only, and leaves it out', async () => {
    const instrument = /\/payment-instruments\/ppi_[^/]*$/;
    const url = `${helper.url}/entities/ent_fixture_a/payment-instruments/ppi_verified_1`;
    const shown = await call(url, { headers: await host() });
    assert.equal(shown.status, 200, shown.text);
    assert.equal(typeof shown.json.default, 'boolean', 'the sandbox shows it on read');
    // The same instrument from a provider that keeps `default` write-only, as the spec has it.
    const { default: _, requestId: __, instrumentId, ...fields } = shown.json;
    const providerBody = JSON.stringify({ ...fields, instrument_id: instrumentId });
    proxy.once({ path: instrument, method: 'GET', contentType: JSON_TYPE, body: providerBody });
    const read = await call(url, { headers: await host() });
    assert.equal(read.status, 200, read.text);
    assert.equal('default' in read.json, false);
    assert.equal(read.json.id, 'ppi_verified_1');
    // A change answers the instrument read back after it.
    proxy.once({ path: instrument, method: 'GET', contentType: JSON_TYPE, body: providerBody });
    const patched = await call(url, { method: 'PATCH', body: { label: 'Main account' }, headers: await host() });
    assert.equal(patched.status, 200, patched.text);
    assert.equal('default' in patched.json, false);
  });

  it('answers the payout instruments 502 when one read back is malformed, and after a change says its outcome is unknown', async () => {
    const instrument = /\/payment-instruments\/ppi_[^/]*$/;
    const url = `${helper.url}/entities/ent_fixture_a/payment-instruments/ppi_verified_1`;
    for (const body of ['{}', '{"id":"ppi_verified_1","status":"verified","default":"yes"}', '[]']) {
      proxy.once({ path: instrument, method: 'GET', contentType: JSON_TYPE, body });
      const r = await call(url, { headers: await host() });
      assert.equal(r.status, 502, `${body}: ${r.text}`);
      assert.equal(r.json.outcomeKnown, true, body);
    }
    proxy.once({ path: /\/payment-instruments$/, method: 'GET', contentType: JSON_TYPE, body: '{"data":[{"id":7}]}' });
    const list = await call(`${helper.url}/entities/ent_fixture_a/payment-instruments`, { headers: await host() });
    assert.equal(list.status, 502, list.text);
    proxy.once({ path: instrument, method: 'GET', contentType: JSON_TYPE, body: '{}' });
    const patched = await call(url, { method: 'PATCH', body: { label: 'Main account' }, headers: await host() });
    unknownOutcome(patched, 'PATCH');
  });

  it('refuses a payout instrument answered for another id than the one asked: 502, and after a change outcome unknown', async () => {
    const instrument = /\/payment-instruments\/ppi_verified_1$/;
    const url = `${helper.url}/entities/ent_fixture_a/payment-instruments/ppi_verified_1`;
    // Another instrument (another entity's, to a provider that mixed them up), well-formed in every field.
    const other = JSON.stringify({
      id: 'ppi_of_someone_else',
      label: 'Their account',
      type: 'bank_account',
      currency: 'GBP',
      country: 'GB',
      status: 'verified',
      instrument_id: 'src_someone_else',
    });
    proxy.once({ path: instrument, method: 'GET', contentType: JSON_TYPE, body: other });
    const read = await call(url, { headers: await host() });
    assert.equal(read.status, 502, read.text);
    assert.equal(read.json.code, 'TESSERA_PROVIDER_ERROR');
    assert.equal(read.json.outcomeKnown, true);
    assert.ok(!/someone_else|Their account/.test(read.text), read.text);
    proxy.once({ path: instrument, method: 'GET', contentType: JSON_TYPE, body: other });
    const patched = await call(url, { method: 'PATCH', body: { label: 'Main account' }, headers: await host() });
    unknownOutcome(patched, 'PATCH');
    assert.ok(!/someone_else|Their account/.test(patched.text), patched.text);
  });

  it('never answers 200 to a PATCH the provider says it made to another instrument: 502, outcome unknown, logged', async () => {
    const instrument = /\/payment-instruments\/ppi_verified_2$/;
    const url = `${helper.url}/entities/ent_fixture_a/payment-instruments/ppi_verified_2`;
    // The spec's answer to the change is the changed instrument's id (and links): here another one's, as from a provider
    // that mixed up instruments; the read-back of the asked one would show it as if the change were its own.
    for (const body of ['{"id":"ppi_of_someone_else","_links":{}}', '{"id":7}', '{}', '[]', 'null']) {
      proxy.once({ path: instrument, method: 'PATCH', contentType: JSON_TYPE, body });
      const before = helper.log.lines.length;
      const r = await call(url, { method: 'PATCH', body: { label: 'Main account' }, headers: await host() });
      unknownOutcome(r, body);
      assert.ok(!/someone_else/.test(r.text), r.text);
      const logged = helper.log.lines.slice(before);
      assert.ok(
        logged.some((l) => l.event === 'tessera.error' && /PATCH payment-instruments/.test(JSON.stringify(l))),
        `${body}: the merchant's log says which answer was refused: ${JSON.stringify(logged)}`,
      );
      assert.ok(!logged.some((l) => l.event === 'tessera.instrument.updated'), `${body}: not logged as made`);
    }
  });
});

describe('no configured secret leaves in an answer, whatever the provider echoes (docs/decisions/helper.md#helper-secret-guard)', () => {
  let sb: RunningSandbox;
  let issuer: Issuer;
  let proxy: Awaited<ReturnType<typeof tamperingProxy>>;
  let helper: RunningHelper;
  /** When set, `onCharge` throws: the shopper's error then names the charge (`chargeId`, in the page's reference). */
  let shopDown = false;

  let close: () => Promise<void>;

  before(async () => {
    ({ sb, issuer, proxy, helper, close } = await tamperedHelper(sampleFixtures(), {
      exposeDeclineCodes: true,
      onCharge: () => {
        if (shopDown) throw new Error('the shop is down');
      },
    }));
  });
  after(() => close());

  /** The helper's configured secrets, as a provider or gateway that echoes them could put them in a charge id. */
  const secrets = () => {
    const { secretKey, clientSecret } = sb.credentials;
    return [
      ['the secret key', secretKey.replace(/[^A-Za-z0-9_-]/g, '')],
      ['the client secret', clientSecret.replace(/[^A-Za-z0-9_-]/g, '')],
    ] as const;
  };

  /** The refusal: 502, outcome unknown, logged once as tessera.error, and the secret nowhere in the answer or the log. */
  function refused(r: { status: number; text: string; json: Record<string, unknown> }, secret: string, what: string) {
    assert.equal(r.status, 502, `${what}: ${r.text.slice(0, 300)}`);
    assert.equal(r.json.code, 'TESSERA_PROVIDER_ERROR', what);
    assert.equal(r.json.outcomeKnown, false, what);
    assert.ok(!r.text.includes(secret), `${what}: the answer holds the secret`);
    assert.ok(!helper.log.text().includes(secret), `${what}: the log holds the secret`);
    const line = helper.log.lines.findLast((l) => l.event === 'tessera.error');
    assert.equal(line?.requestId, r.json.requestId, `${what}: logged as tessera.error`);
    assert.match(JSON.stringify(line), /held a configured secret/, what);
  }

  const pay = (body: unknown): Promise<Answer> => call(`${helper.url}/charges`, { body });
  const charge = {
    status: 'Captured',
    responseCode: '10000',
    value: 2500,
    currency: 'EUR',
    card: { paymentMethod: 'Visa', last4: '4242', expiryMonth: '12', expiryYear: '2030' },
  };

  it('answers 502 rather than a charge whose id holds a secret (approved or declined)', async () => {
    for (const [what, secret] of secrets()) {
      for (const answer of [charge, { ...charge, status: 'Declined', responseCode: '20005' }]) {
        const label = `${what}, ${answer.status}`;
        proxy.once({
          path: /\/charges\/token$/,
          method: 'POST',
          contentType: JSON_TYPE,
          body: JSON.stringify({ ...answer, id: `charge_${secret}` }),
        });
        const r = await pay({ cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' });
        assert.ok(proxy.used, label);
        refused(r, secret, label);
      }
    }
  });

  it('answers 502 rather than a 3-D Secure challenge URL that holds a secret', async () => {
    for (const [what, secret] of secrets()) {
      proxy.once({
        path: /\/charges\/token$/,
        method: 'POST',
        contentType: JSON_TYPE,
        body: JSON.stringify({ id: 'pay_tok_x', redirectUrl: `https://acs.bank.example/3ds?k=${secret}` }),
      });
      const body = {
        cardToken: await cardToken(sb, '4000000000003220'),
        orderReference: 'order-3ds',
        email: 'a@x.example',
      };
      const r = await pay(body);
      assert.ok(proxy.used, what);
      refused(r, secret, what);
    }
  });

  it('never sends the shopper back from 3-D Secure with a secret in `Location` or the page', async () => {
    for (const [what, secret] of secrets()) {
      const { token, real } = await finishedChallenge(sb, pay);
      proxy.once({
        path: /\/charges\/pay_tok_/,
        method: 'GET',
        contentType: JSON_TYPE,
        body: JSON.stringify({ ...real, id: `charge_${secret}` }),
      });
      const returned = `${helper.url}/charges/3ds-return?cko-payment-token=${token}`;
      const r = await fetch(returned, { headers: { accept: 'text/html' }, redirect: 'manual' });
      const page = await r.text();
      assert.ok(proxy.used, what);
      assert.equal(r.status, 502, `${what}: ${r.headers.get('location')}`);
      assert.equal(r.headers.get('location'), null, what);
      assert.match(r.headers.get('content-type') ?? '', /^text\/html/, what);
      assert.ok(!page.includes(secret), `${what}: the page holds the secret`);
      assert.ok(!helper.log.text().includes(secret), `${what}: the log holds the secret`);
      // Answered from the store again (as JSON to a fetch): still refused.
      refused(await call(returned, { headers: { accept: JSON_TYPE } }), secret, `${what}, as JSON`);
    }
  });

  it('answers 502 rather than a payout instrument whose label holds a secret', async () => {
    const url = `${helper.url}/entities/ent_fixture_a/payment-instruments/ppi_verified_1`;
    const headers = {
      authorization: `Bearer ${await issuer.sign({ entities: ['ent_fixture_a'], instruments: [] })}`,
    };
    const shown = await call(url, { headers });
    assert.equal(shown.status, 200, shown.text);
    const { requestId: _, instrumentId, default: __, ...fields } = shown.json;
    for (const [what, secret] of secrets()) {
      proxy.once({
        path: /\/payment-instruments\/ppi_verified_1$/,
        method: 'GET',
        contentType: JSON_TYPE,
        body: JSON.stringify({ ...fields, instrument_id: instrumentId, label: `echo ${secret}` }),
      });
      refused(await call(url, { headers }), secret, what);
    }
  });

  it('answers 502 rather than an error page or body that names a charge whose id holds a secret', async () => {
    shopDown = true;
    try {
      for (const [what, secret] of secrets()) {
        const { token, real } = await finishedChallenge(sb, pay);
        proxy.once({
          path: /\/charges\/pay_tok_/,
          method: 'GET',
          contentType: JSON_TYPE,
          // Another id than the earlier test's: onCharge was delivered for that one, and is delivered once.
          body: JSON.stringify({ ...real, id: `charge_${secret}_shop_down` }),
        });
        const returned = `${helper.url}/charges/3ds-return?cko-payment-token=${token}`;
        // onCharge throws: the 503 TESSERA_ON_CHARGE_FAILED page would quote the charge id as the shopper's reference.
        const r = await fetch(returned, { headers: { accept: 'text/html' }, redirect: 'manual' });
        const page = await r.text();
        assert.ok(proxy.used, what);
        assert.equal(r.status, 502, `${what}: ${page}`);
        assert.match(r.headers.get('content-type') ?? '', /^text\/html/, what);
        assert.match(page, /TESSERA_PROVIDER_ERROR/, what);
        assert.ok(!page.includes(secret), `${what}: the page holds the secret`);
        const line = helper.log.lines.findLast((l) => l.event === 'tessera.error');
        assert.match(JSON.stringify(line), /a 503 error page held a configured secret/, what);
        // The same error as JSON (its `chargeId`).
        refused(await call(returned, { headers: { accept: JSON_TYPE } }), secret, `${what}, as JSON`);
      }
    } finally {
      shopDown = false;
    }
  });
});
