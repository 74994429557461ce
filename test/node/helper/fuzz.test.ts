import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CurrencyCode } from '../../../server/helper/index.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { type Answer, call } from '../../support/http.js';
import { mutate, picker, ODD_VALUES as SHARED_ODD_VALUES, seededRandom, urlEncoded } from '../../support/random.js';
import { sampleFixtures } from '../sandbox/accounts-support.js';
import {
  cardToken,
  type Issuer,
  NO_RATE_LIMITS,
  type RunningHelper,
  sandboxHelperOptions,
  startHelper,
  startIssuer,
} from './support.js';

/**
 * Every route of the helper, fed seeded random mutations of valid requests (odd values in one to three fields,
 * unknown fields, broken JSON, odd media types, odd path segments and query values, odd credentials). The lists of
 * known bad inputs live beside each route's tests; this catches the combinations nobody listed. The seed is fixed,
 * so a failure names the case and replays.
 */

const PAN = '4242424242424242';

/** The shared odd values, and what a card tester or a hostile page tries on these routes in particular. */
const ODD_VALUES: readonly unknown[] = [
  ...SHARED_ODD_VALUES,
  false,
  '<script>alert(1)</script>',
  '../../etc/passwd',
  'card_tok_',
  `card_tok_${'a'.repeat(65)}`,
  'card_tok_doesnotexist',
  'cust_nope',
  'javascript:alert(1)',
  '//evil.example/x',
  PAN,
  `${PAN.slice(0, 4)} ${PAN.slice(4, 8)} ${PAN.slice(8, 12)} ${PAN.slice(12)}`,
  { toString: 'x', valueOf: 1 },
  { constructor: { prototype: { polluted: true } } },
];

/** Bodies no mutation of an object produces: broken or odd JSON, other encodings. */
const RAW_BODIES: string[] = [
  '',
  '{',
  '{"cardToken":',
  'null',
  '[]',
  '"text"',
  '12',
  '{"a":1,"a":2}',
  '\ufeff{}',
  '{"__proto__":{"polluted":true}}',
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  `{"a":${'{"a":'.repeat(60)}1${'}'.repeat(61)}}`,
  `{"x":"${'\\u0000'.repeat(2000)}"}`,
  `{"x":${'1'.repeat(400)}}`,
  `{"pad":"${'x'.repeat(40_000)}"}`,
];

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  'multipart/form-data; boundary=x',
  'application/json, text/plain',
  '',
];

/** Path segments and query values as a hostile page would write them into a URL. */
const ODD_SEGMENTS = [
  '',
  '%',
  '%zz',
  '%E0%A4%A',
  '%00',
  '..',
  '%2e%2e',
  '%2F',
  'ent_fixture_a%00',
  'ent_fixture_b',
  'ppi_nope',
  'ppi_verified_1',
  'src_other',
  'x'.repeat(3000),
  encodeURIComponent('🧾'.repeat(20)),
  encodeURIComponent(PAN),
  encodeURIComponent('<img src=x onerror=alert(1)>'),
];

/** Names a mutation may add: the amount and currency the server decides, unknown ones, a prototype key. */
const EXTRA_KEYS = ['amount', 'currency', 'value', 'extra', 'status', '__proto__'];

const ORDERS: Record<string, { amount: number; currency: CurrencyCode; threeDSecure?: boolean }> = {
  'order-1': { amount: 2500, currency: 'EUR' },
  'order-3ds': { amount: 4200, currency: 'GBP', threeDSecure: true },
};

describe('helper: random hostile requests on every route', () => {
  let sb: RunningSandbox;
  let issuer: Issuer;
  let h: RunningHelper;
  const next = seededRandom(20261123);
  const pick = picker(next);
  /** Every answer, scanned at the end for secrets and card numbers. */
  const seen: string[] = [];

  /**
   * The valid body one time in four (valid requests between hostile ones must keep working), else a mutated JSON
   * body or a raw one, with an odd media type now and then.
   */
  function bodyOf(base: Record<string, unknown>): { raw: string; headers: Record<string, string> } {
    const roll = next();
    const raw =
      roll < 0.25
        ? JSON.stringify(base)
        : roll < 0.85
          ? JSON.stringify(mutate(base, next, ODD_VALUES, EXTRA_KEYS))
          : pick(RAW_BODIES);
    const type = next() < 0.85 ? 'application/json' : pick(CONTENT_TYPES);
    return { raw, headers: type ? { 'content-type': type } : {} };
  }

  async function send(label: string, url: string, init: Parameters<typeof call>[1] = {}): Promise<Answer> {
    const r = await call(url, init);
    seen.push(r.text, JSON.stringify([...r.headers]));
    const context = `${label}: ${r.status} ${r.text.slice(0, 300)}`;
    assert.ok(r.status < 500, context);
    assert.doesNotMatch(r.text, /\n\s+at |node_modules|TypeError|SyntaxError/, context);
    assert.match(r.headers.get('x-request-id') ?? '', /^hreq_/, context);
    if (r.status >= 400 && r.headers.get('content-type')?.startsWith('application/json')) {
      assert.match(r.json?.code, /^TESSERA_[A-Z0-9_]+$/, context);
      assert.equal(typeof r.json.message, 'string', context);
      if (r.status === 400 || r.status === 413 || r.status === 415) {
        assert.ok(typeof r.json.field === 'string' && r.json.field.length > 0, `${context}: names no field`);
      }
    }
    return r;
  }

  /** The sandbox's logged charge requests not seen before, with the status it answered. */
  const known = new Set<string>();
  async function newCharges(): Promise<number[]> {
    const r = await call(`${sb.url}/_sandbox/requests?limit=20`);
    const fresh = (r.json.data as { requestId: string; method: string; path: string; status: number }[]).filter(
      (e) => !known.has(e.requestId),
    );
    for (const e of fresh) known.add(e.requestId);
    return fresh.filter((e) => e.method === 'POST' && e.path === '/api2/v2/charges/token').map((e) => e.status);
  }

  before(async () => {
    sb = await startSandbox({ fixtures: sampleFixtures() });
    issuer = await startIssuer(() => sb.clock.nowMs());
    h = await startHelper({
      ...sandboxHelperOptions(sb, issuer),
      resolveCharge: (_req, { orderReference }) => ORDERS[orderReference],
      // Off, so every request reaches validation instead of a 429 (limits.test.ts covers them).
      rateLimits: NO_RATE_LIMITS,
    });
  });
  after(async () => {
    await h.close();
    await issuer.close();
    await sb.close();
  });

  it('POST /charges: a 2xx for each valid request and one provider charge behind it, a 4xx and no charge for the rest', async () => {
    await newCharges();
    const statuses = new Map<number, number>();
    for (let i = 0; i < 150; i++) {
      const base = {
        cardToken: await cardToken(sb),
        orderReference: next() < 0.8 ? 'order-1' : 'order-3ds',
        email: 'shopper@example.com',
        ...(next() < 0.3 ? { billingDetails: { addressLine1: '1 Road', city: 'Town', country: 'GB' } } : {}),
        ...(next() < 0.2 ? { successUrl: '/done', failUrl: '/failed' } : {}),
      };
      const init = bodyOf(base);
      const r = await send(`#${i} ${init.headers['content-type']} ${init.raw.slice(0, 160)}`, `${h.url}/charges`, {
        method: 'POST',
        ...init,
      });
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      const charges = await newCharges();
      const made = charges.filter((s) => s < 300);
      if (r.status < 300) assert.deepEqual(made.length, 1, `#${i}: ${r.status} with ${made.length} charges`);
      else assert.deepEqual(made, [], `#${i}: ${r.status} ${r.text} left a charge at the provider`);
    }
    // The corpus reaches both sides: charges made and requests refused (else this test proves nothing).
    assert.ok((statuses.get(201) ?? 0) + (statuses.get(202) ?? 0) >= 10, JSON.stringify([...statuses]));
    assert.ok((statuses.get(400) ?? 0) >= 50, JSON.stringify([...statuses]));
  });

  it('GET /charges/3ds-return: odd and repeated query values answer 4xx pages', async () => {
    for (let i = 0; i < 60; i++) {
      const value = next() < 0.5 ? pick(ODD_SEGMENTS) : urlEncoded(pick(ODD_VALUES));
      const extra = next() < 0.3 ? `&cko-payment-token=${pick(ODD_SEGMENTS)}` : next() < 0.2 ? '&x[y]=1' : '';
      const query = next() < 0.1 ? `cko-payment-token[a]=${value}` : `cko-payment-token=${value}${extra}`;
      const r = await send(`#${i} ${query.slice(0, 160)}`, `${h.url}/charges/3ds-return?${query}`);
      assert.ok(r.status >= 400 && r.status < 500, `#${i} ${query.slice(0, 160)}: ${r.status}`);
    }
  });

  it('dashboard routes: odd tokens, paths and bodies answer 4xx JSON, and valid ones still work', async () => {
    const sign = () =>
      issuer.sign({
        sub: 'usr_fuzz',
        entities: ['ent_fixture_a'],
        instruments: ['src_fixture_card'],
      });
    const valid = await sign();
    const statuses = new Map<number, number>();
    for (let i = 0; i < 150; i++) {
      const roll = next();
      const auth =
        roll < 0.75
          ? `Bearer ${valid}`
          : roll < 0.85
            ? `Bearer ${pick(ODD_SEGMENTS)}`
            : roll < 0.9
              ? `Bearer ${valid.slice(0, -3)}abc`
              : roll < 0.95
                ? `Basic ${valid}`
                : '';
      const headers: Record<string, string> = auth ? { authorization: auth } : {};
      const entity = next() < 0.8 ? 'ent_fixture_a' : pick(ODD_SEGMENTS);
      const instrument = next() < 0.8 ? 'ppi_verified_2' : pick(ODD_SEGMENTS);
      const kind = pick(['updater', 'list', 'one', 'patch'] as const);
      let r: Answer;
      if (kind === 'updater') {
        const init = bodyOf({ instrumentId: 'src_fixture_card' });
        r = await send(`#${i} updater ${init.raw.slice(0, 160)}`, `${h.url}/account-updater`, {
          method: 'POST',
          raw: init.raw,
          headers: { ...headers, ...init.headers },
        });
      } else if (kind === 'patch') {
        const init = bodyOf({ label: 'Main account', default: next() < 0.5 });
        r = await send(
          `#${i} patch ${entity.slice(0, 40)}/${instrument.slice(0, 40)} ${init.raw.slice(0, 160)}`,
          `${h.url}/entities/${entity}/payment-instruments/${instrument}`,
          { method: 'PATCH', raw: init.raw, headers: { ...headers, ...init.headers } },
        );
      } else {
        const path = `/entities/${entity}/payment-instruments${kind === 'one' ? `/${instrument}` : ''}`;
        r = await send(`#${i} GET ${path.slice(0, 160)}`, `${h.url}${path}`, { headers });
      }
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status >= 400) assert.ok(r.json, `#${i}: a ${r.status} that is not JSON: ${r.text.slice(0, 200)}`);
    }
    assert.ok((statuses.get(200) ?? 0) >= 20, JSON.stringify([...statuses]));
    assert.ok((statuses.get(400) ?? 0) >= 20, JSON.stringify([...statuses]));
    assert.ok((statuses.get(401) ?? 0) >= 10, JSON.stringify([...statuses]));
  });

  it('widget routes and unknown paths: odd segments and queries answer 200 or a 4xx', async () => {
    for (let i = 0; i < 60; i++) {
      const segment = pick(ODD_SEGMENTS);
      const path = pick([
        `/locales/${segment}`,
        `/locales/${segment}.json`,
        `/widget.js?v=${segment}`,
        `/config?${segment}=${segment}`,
        `/charges/${segment}`,
        `/x/${segment}`,
      ]);
      const method = next() < 0.8 ? 'GET' : pick(['POST', 'PUT', 'DELETE', 'OPTIONS']);
      await send(`#${i} ${method} ${path.slice(0, 160)}`, `${h.url}${path}`, { method });
    }
  });

  it('kept every card number, secret and stack trace out of the answers and the logs, and logged no internal error', () => {
    const answers = seen.join('\n');
    const logs = h.log.text();
    for (const text of [answers, logs]) {
      assert.ok(!text.includes(PAN), 'a card number was echoed or logged');
      assert.ok(!text.includes(sb.credentials.secretKey), 'the secret key leaked');
      assert.ok(!text.includes(sb.credentials.clientSecret), 'the client secret leaked');
    }
    const internal = h.log.lines.filter((l) => l.code === 'TESSERA_INTERNAL' || l.event === 'tessera.error');
    assert.deepEqual(internal, []);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
