import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { request } from 'undici';
import { type CurrencyCode, HelperHttpError, type TesseraHelperOptions } from '../../../server/helper/index.js';
import { createLegacyClient } from '../../../server/provider/index.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { type Answer, call } from '../../support/http.js';
import {
  answerChallenge,
  cardToken,
  fault,
  NO_RATE_LIMITS,
  type RunningHelper,
  sandboxCharge,
  sandboxCharges,
  startHelper,
} from './support.js';

const ORDERS: Record<string, { amount: number; currency: CurrencyCode; threeDSecure?: boolean }> = {
  'order-1': { amount: 2500, currency: 'EUR' },
  'order-3ds': { amount: 4200, currency: 'GBP', threeDSecure: true },
};

/** Every answer any test saw, scanned at the end for secrets. */
const seen: string[] = [];

describe('POST /charges against the sandbox', () => {
  let sb: RunningSandbox;
  let h: RunningHelper;
  const helpers: RunningHelper[] = [];

  async function helper(extra: Partial<TesseraHelperOptions> = {}): Promise<RunningHelper> {
    const started = await startHelper({
      publicKey: sb.credentials.publicKey,
      secretKey: sb.credentials.secretKey,
      legacyBaseUrl: sb.url,
      providerMaxRetries: 0,
      providerTimeoutMs: 1500,
      now: () => sb.clock.nowMs(),
      resolveCharge: (_req, { orderReference }) => ORDERS[orderReference],
      rateLimits: { chargesPerIp: false, declinesPerIp: false },
      ...extra,
    });
    helpers.push(started);
    return started;
  }

  async function pay(target: RunningHelper, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const r = await call(`${target.url}/charges`, { body, headers });
    seen.push(r.text, JSON.stringify([...r.headers]));
    return r;
  }

  before(async () => {
    sb = await startSandbox();
    h = await helper();
  });
  beforeEach(() => sb.context.reset());
  after(async () => {
    for (const x of helpers) await x.close();
    await sb.close();
  });

  it('charges the server-decided amount and answers 201 with a small, safe result', async () => {
    const token = await cardToken(sb);
    const r = await pay(h, {
      cardToken: token,
      orderReference: 'order-1',
      email: 'a@shop.example',
      amount: 1,
      value: 1,
      currency: 'USD',
    });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(Object.keys(r.json).sort(), [
      'approved',
      'brand',
      'id',
      'last4',
      'message',
      'requestId',
      'responseCode',
      'status',
    ]);
    assert.match(r.json.id, /^charge_/);
    assert.ok(['Authorised', 'Captured'].includes(r.json.status), r.json.status);
    assert.equal(r.json.approved, true);
    assert.equal(r.json.responseCode, '10000');
    assert.equal(r.json.brand, 'Visa');
    assert.equal(r.json.last4, '4242');
    const charge = await sandboxCharge(sb, r.json.id);
    assert.equal(charge.value, 2500);
    assert.equal(charge.currency, 'EUR');
    assert.equal(charge.customerIp, '127.0.0.1');
  });

  it("keeps every charge answer out of any cache: 201, 202, 402 and errors hold one shopper's payment", async () => {
    // A helper of its own: the decline test counts the 402 lines in the shared helper's log.
    const own = await helper();
    const answers: [string, Answer][] = [];
    for (const [what, number, orderReference] of [
      ['201', '4242424242424242', 'order-1'],
      ['202', '4000000000003220', 'order-3ds'],
      ['402', '4000000000000002', 'order-1'],
    ] as const) {
      answers.push([
        what,
        await pay(own, { cardToken: await cardToken(sb, number), orderReference, email: 'a@shop.example' }),
      ]);
    }
    answers.push([
      '400',
      await pay(own, { cardToken: 'card_tok_', orderReference: 'order-1', email: 'a@shop.example' }),
    ]);
    for (const [what, r] of answers) {
      assert.equal(String(r.status), what, r.text);
      assert.equal(r.headers.get('cache-control'), 'no-store', what);
    }
  });

  it('works with a ready legacy client instead of the secret key', async () => {
    const legacyClient = createLegacyClient({ secretKey: sb.credentials.secretKey, baseUrl: sb.url, maxRetries: 0 });
    const ready = await helper({ secretKey: undefined, legacyClient });
    const r = await pay(ready, { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' });
    assert.equal(r.status, 201, r.text);
    await legacyClient.close();
  });

  it("answers a given legacy client's failure that is no ProviderError as 502 with the outcome unknown", async () => {
    // A merchant's wrapper around the client (metrics, tracing) that throws its own error once the charge was sent:
    // the charge may exist, so the shopper is never told nothing was done.
    const real = createLegacyClient({ secretKey: sb.credentials.secretKey, baseUrl: sb.url, maxRetries: 0 });
    const wrapped = Object.create(real) as typeof real;
    Object.defineProperty(wrapped, 'charges', {
      value: Object.assign(Object.create(real.charges), {
        create: async (...args: Parameters<typeof real.charges.create>) => {
          await real.charges.create(...args);
          throw new Error('tracing exporter failed');
        },
      }),
    });
    const h = await helper({ secretKey: undefined, legacyClient: wrapped });
    const r = await pay(h, { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' });
    assert.equal(r.status, 502, r.text);
    assert.equal(r.json.code, 'TESSERA_PROVIDER_ERROR');
    assert.equal(r.json.outcomeKnown, false);
    assert.ok(!/nothing was done/.test(r.text), r.text);
    await real.close();
  });

  it('reports resolveCharge failures: its own HelperHttpError as is, a throw or a bad answer as a 500 naming it', async () => {
    const cases: [TesseraHelperOptions['resolveCharge'], number, string, string | undefined][] = [
      [
        () => {
          throw new HelperHttpError(409, 'ORDER_CLOSED', 'this order can no longer be paid', {
            field: 'orderReference',
          });
        },
        409,
        'ORDER_CLOSED',
        'orderReference',
      ],
      [
        () => {
          throw new Error('database down');
        },
        500,
        'TESSERA_RESOLVE_CHARGE_FAILED',
        undefined,
      ],
      [() => ({ amount: 19.99, currency: 'EUR' }), 500, 'TESSERA_RESOLVE_CHARGE_INVALID', 'amount'],
      [() => ({ amount: 100, currency: 'EURO' }) as never, 500, 'TESSERA_RESOLVE_CHARGE_INVALID', 'currency'],
      [
        () => ({ ammount: 100, amount: 100, currency: 'EUR' }) as never,
        500,
        'TESSERA_RESOLVE_CHARGE_INVALID',
        'ammount',
      ],
      [async () => null, 400, 'TESSERA_UNKNOWN_ORDER', 'orderReference'],
      // Junk a hook may throw or answer is its failure too: a 500 naming resolveCharge, never the helper's own 500.
      [
        () => {
          throw Object.create(null);
        },
        500,
        'TESSERA_RESOLVE_CHARGE_FAILED',
        undefined,
      ],
      [
        () => ({
          get amount(): number {
            throw new Error('database down');
          },
          currency: 'EUR' as const,
        }),
        500,
        'TESSERA_RESOLVE_CHARGE_FAILED',
        undefined,
      ],
    ];
    for (const [resolveCharge, status, code, field] of cases) {
      const target = await helper({ resolveCharge });
      const r = await pay(target, {
        cardToken: await cardToken(sb),
        orderReference: 'order-1',
        email: 'a@shop.example',
      });
      assert.equal(r.status, status, r.text);
      assert.equal(r.json.code, code);
      assert.equal(r.json.field, field);
      assert.ok(!r.text.includes('database down'), 'internal error text stays on the server');
    }
    assert.equal((await sandboxCharges(sb)).length, 0);
  });

  it('answers a HelperHttpError of resolveCharge that cannot be answered as it is with a 500 JSON error, never a success or a stack trace', async () => {
    // A 200 told the page a charge went through; a status or header Node refuses made the error handler throw, and
    // Express answered its own HTML page with the stack trace.
    const errors = [
      new HelperHttpError(200, 'ORDER_CLOSED', 'closed'),
      new HelperHttpError(302, 'ORDER_CLOSED', 'closed'),
      new HelperHttpError(1000, 'ORDER_CLOSED', 'closed'),
      new HelperHttpError(409.5, 'ORDER_CLOSED', 'closed'),
      new HelperHttpError(409, 'ORDER_CLOSED', 'closed', { headers: { 'x-order': 'a\r\nset-cookie: x=1' } }),
    ];
    for (const error of errors) {
      const target = await helper({
        resolveCharge: () => {
          throw error;
        },
      });
      const r = await pay(target, {
        cardToken: await cardToken(sb),
        orderReference: 'order-1',
        email: 'a@shop.example',
      });
      assert.equal(r.status, 500, r.text);
      assert.equal(r.json.code, 'TESSERA_RESOLVE_CHARGE_FAILED', r.text);
      assert.equal(r.headers.get('x-order'), null);
      assert.ok(!/at |RangeError|TypeError/.test(r.text), r.text);
      const line = target.log.lines.find((l) => l.event === 'tessera.resolve_charge.failed');
      assert.match(String(line?.msg), /status from 400 to 599/);
    }
    assert.equal((await sandboxCharges(sb)).length, 0);
  });

  it('makes one charge for a double submit: concurrent and later retries answer the same', async () => {
    const token = await cardToken(sb);
    const body = { cardToken: token, orderReference: 'order-1', email: 'a@shop.example' };
    const [a, b] = await Promise.all([pay(h, body), pay(h, body)]);
    const c = await pay(h, body);
    assert.equal(a.status, 201, a.text);
    for (const other of [b, c]) {
      assert.equal(other.status, a.status);
      const { requestId: _x, ...rest } = other.json;
      const { requestId: _y, ...first } = a.json;
      assert.deepEqual(rest, first);
    }
    assert.equal((await sandboxCharges(sb)).length, 1);
  });

  it('answers a request that joins a charge in flight by its own session and order: 409 for another one, no charge of its own', async () => {
    ORDERS['order-2'] = { amount: 2500, currency: 'EUR' };
    for (const second of [
      { session: 'shopper-b', orderReference: 'order-1' },
      { session: 'shopper-a', orderReference: 'order-2' },
    ]) {
      // The charge's `resolveCharge` waits until both requests have been read (the session is read right before a
      // request asks for the token's outcome, with no await between when no charge budget is on): the later one
      // joins the earlier one's charge in this process, whichever arrives first.
      let read = 0;
      let bothRead!: () => void;
      const both = new Promise<void>((resolve) => {
        bothRead = resolve;
      });
      const events: { orderReference: string }[] = [];
      const target = await helper({
        rateLimits: NO_RATE_LIMITS,
        sessionId: (req) => {
          if (++read === 2) bothRead();
          return req.get('x-session') ?? undefined;
        },
        resolveCharge: async (_req, { orderReference }) => {
          await both;
          return ORDERS[orderReference];
        },
        onCharge: (e) => void events.push(e),
      });
      const token = await cardToken(sb);
      const first = { cardToken: token, orderReference: 'order-1', email: 'a@shop.example' };
      const [a, b] = await Promise.all([
        pay(target, first, { 'x-session': 'shopper-a' }),
        pay(target, { ...first, orderReference: second.orderReference }, { 'x-session': second.session }),
      ]);
      const answers = [a, b].sort((x, y) => x.status - y.status);
      assert.deepEqual(
        answers.map((r) => r.status),
        [201, 409],
        `${a.text} ${b.text}`,
      );
      const [paid, refused] = answers as [Answer, Answer];
      assert.equal(refused.json.code, 'TESSERA_CARD_TOKEN_USED', refused.text);
      assert.equal(refused.json.field, 'cardToken');
      assert.ok(!refused.text.includes(String(paid.json.id)), refused.text);
      assert.equal(events.length, 1);
      assert.equal((await sandboxCharges(sb)).length, 1);
      sb.context.reset();
    }
  });

  it('refuses the same token for another order with 409', async () => {
    const token = await cardToken(sb);
    assert.equal((await pay(h, { cardToken: token, orderReference: 'order-1', email: 'a@shop.example' })).status, 201);
    ORDERS['order-2'] = { amount: 100, currency: 'EUR' };
    const r = await pay(h, { cardToken: token, orderReference: 'order-2', email: 'a@shop.example' });
    assert.equal(r.status, 409);
    assert.equal(r.json.code, 'TESSERA_CARD_TOKEN_USED');
    assert.equal(r.json.field, 'cardToken');
    assert.equal((await sandboxCharges(sb)).length, 1);
  });

  it('refuses the token for another order of the same price after the store forgot it, and still replays its own order', async () => {
    // A restart loses a MemoryStore's answers (a flushed Redis too); the provider keeps the charge's idempotency key
    // for 24 h. The order never reaches the provider, so with a key of the token alone the token sent for another
    // order of the same price was the same request, and the provider's replay of the first charge paid that order.
    ORDERS['order-same-price'] = { ...ORDERS['order-1']! };
    const events: { id: string; orderReference: string }[] = [];
    const onCharge = (e: { id: string; orderReference: string }) => void events.push(e);
    const token = await cardToken(sb);
    const body = { cardToken: token, orderReference: 'order-1', email: 'a@shop.example' };
    const first = await pay(await helper({ onCharge }), body);
    assert.equal(first.status, 201, first.text);
    const restarted = await helper({ onCharge });
    const other = await pay(restarted, { ...body, orderReference: 'order-same-price' });
    assert.equal(other.status, 409, other.text);
    assert.equal(other.json.code, 'TESSERA_CARD_TOKEN_USED');
    assert.equal(other.json.field, 'cardToken');
    assert.ok(!other.text.includes(first.json.id), other.text);
    // The token's own order, sent again after the restart, still learns its charge from the provider's replay.
    const again = await pay(await helper({ onCharge }), body);
    assert.equal(again.status, 201, again.text);
    assert.equal(again.json.id, first.json.id);
    assert.deepEqual(
      events.map((e) => e.orderReference),
      ['order-1', 'order-1'],
    );
    const ids = (await sandboxCharges(sb)).map((e) => (e.responseBody as { id?: string } | undefined)?.id);
    assert.deepEqual([...new Set(ids.filter(Boolean))], [first.json.id]);
  });

  it('answers 402 for declines with one generic message whatever the reason', async () => {
    const answers: Answer[] = [];
    for (const number of ['4000000000000002', '4000000000000119', '4000000000009995']) {
      answers.push(
        await pay(h, { cardToken: await cardToken(sb, number), orderReference: 'order-1', email: 'a@shop.example' }),
      );
    }
    for (const r of answers) {
      assert.equal(r.status, 402, r.text);
      assert.equal(r.json.code, 'TESSERA_CARD_DECLINED');
      assert.equal(r.json.status, 'Declined');
      assert.equal(r.json.approved, false);
      assert.equal(r.json.message, answers[0]!.json.message);
      assert.ok(!/cvv|number|fund/i.test(r.json.message), r.json.message);
    }
    // The issuer's code would tell a card tester which cards are live: the browser never sees it by default.
    for (const r of answers) assert.equal(r.json.responseCode, undefined, r.text);
    const exposing = await helper({ exposeDeclineCodes: true });
    const codes: unknown[] = [];
    for (const number of ['4000000000000002', '4000000000000119', '4000000000009995']) {
      const r = await pay(exposing, {
        cardToken: await cardToken(sb, number),
        orderReference: 'order-1',
        email: 'a@shop.example',
      });
      codes.push(r.json.responseCode);
    }
    assert.deepEqual(codes, ['20005', '20014', '20051']);
    // The merchant's log line keeps it.
    const logged = h.log.lines.filter((l) => l.event === 'tessera.request' && l.status === 402);
    assert.deepEqual(
      logged.map((l) => l.responseCode),
      ['20005', '20014', '20051'],
    );
  });

  it('answers 201 approved for a flagged charge', async () => {
    const r = await pay(h, {
      cardToken: await cardToken(sb, '4000000000004954'),
      orderReference: 'order-1',
      email: 'a@shop.example',
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.status, 'Flagged');
    assert.equal(r.json.approved, true);
    assert.equal(r.json.responseCode, '10100');
  });

  it('answers 409 for a token used elsewhere and for an expired one, without a charge', async () => {
    const used = await cardToken(sb);
    const direct = await call(`${sb.url}/api2/v2/charges/token`, {
      body: { cardToken: used, value: 100, currency: 'EUR', email: 'x@shop.example' },
      headers: { authorization: sb.credentials.secretKey },
    });
    assert.equal(direct.status, 200, direct.text);
    const r = await pay(h, { cardToken: used, orderReference: 'order-1', email: 'a@shop.example' });
    assert.equal(r.status, 409, r.text);
    assert.equal(r.json.code, 'TESSERA_CARD_TOKEN_USED');
    assert.equal(r.json.field, 'cardToken');
    const old = await cardToken(sb);
    sb.clock.advance(16 * 60);
    const e = await pay(h, { cardToken: old, orderReference: 'order-1', email: 'a@shop.example' });
    assert.equal(e.status, 409, e.text);
    assert.equal(e.json.code, 'TESSERA_CARD_TOKEN_EXPIRED');
    const unknown = await pay(h, {
      cardToken: 'card_tok_doesnotexist',
      orderReference: 'order-1',
      email: 'a@shop.example',
    });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.json.field, 'cardToken');
  });

  it('answers 400 naming the field for every kind of bad input', async () => {
    const token = 'card_tok_abcdefghijklmnop';
    const ok = { cardToken: token, orderReference: 'order-1', email: 'a@shop.example' };
    const cases: [unknown, string, string][] = [
      [{}, 'TESSERA_INVALID_REQUEST', 'cardToken'],
      [{ ...ok, cardToken: 'tok_123' }, 'TESSERA_INVALID_REQUEST', 'cardToken'],
      [{ ...ok, cardToken: 42 }, 'TESSERA_INVALID_REQUEST', 'cardToken'],
      [{ ...ok, orderReference: '' }, 'TESSERA_INVALID_REQUEST', 'orderReference'],
      [{ ...ok, orderReference: 'x'.repeat(101) }, 'TESSERA_INVALID_REQUEST', 'orderReference'],
      [{ ...ok, orderReference: 'no-such-order' }, 'TESSERA_UNKNOWN_ORDER', 'orderReference'],
      [{ cardToken: token, orderReference: 'order-1' }, 'TESSERA_INVALID_REQUEST', 'email'],
      [{ ...ok, email: 'not-an-email' }, 'TESSERA_INVALID_REQUEST', 'email'],
      [{ ...ok, customerId: 'c_1' }, 'TESSERA_INVALID_REQUEST', 'customerId'],
      [{ ...ok, billingDetails: { city: 5 } }, 'TESSERA_INVALID_REQUEST', 'billingDetails.city'],
      [
        { ...ok, shippingDetails: { phone: { number: '\u0000' } } },
        'TESSERA_INVALID_REQUEST',
        'shippingDetails.phone.number',
      ],
      [{ ...ok, successUrl: 'https://evil.example/done' }, 'TESSERA_REDIRECT_NOT_ALLOWED', 'successUrl'],
      [{ ...ok, failUrl: '//evil.example/done' }, 'TESSERA_REDIRECT_NOT_ALLOWED', 'failUrl'],
      [{ ...ok, successUrl: 'javascript:alert(1)' }, 'TESSERA_REDIRECT_NOT_ALLOWED', 'successUrl'],
    ];
    for (const [body, code, field] of cases) {
      const r = await pay(h, body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
      assert.equal(r.json.code, code, JSON.stringify(body));
      assert.equal(r.json.field, field, JSON.stringify(body));
    }
    // A value of the wrong type is not "required": the message says what was wrong with it.
    for (const [body, message] of [
      [{ ...ok, cardToken: 42 }, 'cardToken must be a card token (card_tok_…)'],
      [{ ...ok, billingDetails: 'x' }, /^billingDetails (?!is required)/],
      [{ ...ok, orderReference: undefined }, 'orderReference is required'],
      [{ cardToken: token, orderReference: 'order-1' }, 'email or customerId is required'],
    ] as [unknown, string | RegExp][]) {
      const r = await pay(h, body);
      if (typeof message === 'string') assert.equal(r.json.message, message, JSON.stringify(body));
      else assert.match(r.json.message, message, JSON.stringify(body));
    }
    assert.equal((await sandboxCharges(sb)).length, 0);
  });

  it('answers malformed, hostile and oversized bodies with a 4xx, never a 500', async () => {
    const json = { 'content-type': 'application/json' };
    const cases: [Parameters<typeof call>[1], number, string][] = [
      [{ raw: '{"cardToken":', headers: json }, 400, 'TESSERA_BODY_MALFORMED'],
      [{ raw: '[1,2]', headers: json }, 400, 'TESSERA_BODY_NOT_OBJECT'],
      [{ raw: '"text"', headers: json }, 400, 'TESSERA_BODY_NOT_OBJECT'],
      [{ raw: '{"__proto__":{"x":1}}', headers: json }, 400, 'TESSERA_FORBIDDEN_KEY'],
      [{ raw: `{"a":${'{"a":'.repeat(40)}1${'}'.repeat(41)}`, headers: json }, 400, 'TESSERA_BODY_TOO_DEEP'],
      [{ raw: Buffer.from([0x7b, 0xff, 0x7d]), headers: json }, 400, 'TESSERA_BODY_ENCODING'],
      [
        { raw: 'cardToken=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
        415,
        'TESSERA_UNSUPPORTED_MEDIA_TYPE',
      ],
      [{ raw: `{"pad":"${'x'.repeat(20_000)}"}`, headers: json }, 413, 'TESSERA_BODY_TOO_LARGE'],
      [
        {
          raw: Buffer.from('{"cardToken":"x"}', 'utf16le'),
          headers: { 'content-type': 'application/json; charset=utf-16' },
        },
        415,
        'TESSERA_UNSUPPORTED_MEDIA_TYPE',
      ],
      [
        { raw: '{"cardToken":"x"}', headers: { 'content-type': 'application/json; charset=iso-8859-1' } },
        415,
        'TESSERA_UNSUPPORTED_MEDIA_TYPE',
      ],
      [{ raw: '{}', headers: { 'content-type': 'Application/JSON; Charset="UTF-8"' } }, 400, 'TESSERA_INVALID_REQUEST'],
      [{ raw: '{"cardToken":"x"}', headers: { 'content-type': 'text/plain' } }, 415, 'TESSERA_UNSUPPORTED_MEDIA_TYPE'],
      [{ raw: '{"cardToken":"x"}', headers: {} }, 415, 'TESSERA_UNSUPPORTED_MEDIA_TYPE'],
      // A compressed body is not unpacked: a small request must not become a large body.
      [
        { raw: gzipSync('{"cardToken":"x"}'), headers: { ...json, 'content-encoding': 'gzip' } },
        415,
        'TESSERA_UNSUPPORTED_MEDIA_TYPE',
      ],
    ];
    for (const [init, status, code] of cases) {
      const r = await call(`${h.url}/charges`, { method: 'POST', ...init });
      assert.equal(r.status, status, `${code}: ${r.text}`);
      assert.equal(r.json.code, code);
      assert.equal(typeof r.json.field, 'string', r.text);
    }
    const gzipped = await call(`${h.url}/charges`, {
      method: 'POST',
      raw: gzipSync('{}'),
      headers: { ...json, 'content-encoding': 'gzip' },
    });
    assert.equal(gzipped.json.field, 'content-encoding');
    const identity = await call(`${h.url}/charges`, {
      method: 'POST',
      raw: '{}',
      headers: { ...json, 'content-encoding': 'identity' },
    });
    assert.equal(identity.json.code, 'TESSERA_INVALID_REQUEST', 'identity is no encoding at all');
    // A transfer coding Node does not undo reaches the helper still compressed: refused by name, not as bad JSON.
    // HTTP clients will not send one: written on a socket.
    const transfer = async (coding: string, payload: Buffer) => {
      const { port } = new URL(h.url);
      const socket = connect(Number(port), '127.0.0.1');
      await once(socket, 'connect');
      socket.write(
        `POST /payments/charges HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
          `Transfer-Encoding: ${coding}\r\nConnection: close\r\n\r\n${payload.length.toString(16)}\r\n`,
      );
      socket.write(payload);
      socket.write('\r\n0\r\n\r\n');
      const chunks: Buffer[] = [];
      for await (const chunk of socket) chunks.push(chunk as Buffer);
      const [head = '', rest = ''] = Buffer.concat(chunks).toString().split('\r\n\r\n');
      return { status: Number(head.split(' ')[1]), json: JSON.parse(rest) as Record<string, string> };
    };
    const packed = await transfer('gzip, chunked', gzipSync('{"cardToken":"x"}'));
    assert.deepEqual(
      [packed.status, packed.json.code, packed.json.field],
      [415, 'TESSERA_UNSUPPORTED_MEDIA_TYPE', 'transfer-encoding'],
    );
    const chunked = await transfer('chunked', Buffer.from('{}'));
    assert.equal(chunked.json.code, 'TESSERA_INVALID_REQUEST', 'chunked alone is read as sent');
  });

  it('refuses a card number anywhere in the body with 400 and keeps it out of the logs', async () => {
    const ok = { cardToken: 'card_tok_abcdefghijklmnop', orderReference: 'order-1', email: 'a@shop.example' };
    const cases: [unknown, string][] = [
      [{ ...ok, orderReference: '4242424242424242' }, 'orderReference'],
      [{ ...ok, billingDetails: { addressLine1: 'card 5555-5555-5555-4444 pls' } }, 'billingDetails.addressLine1'],
      [{ ...ok, note: { deep: [{ x: '3782 822463 10005' }] } }, 'note.deep.0.x'],
      [{ ...ok, pan: 6011111111111117 }, 'pan'],
      [{ ...ok, '4242424242424242': true }, '[key]'],
      [{ ...ok, billingDetails: { '4111 1111 1111 1111': 'x' } }, 'billingDetails.[key]'],
    ];
    for (const [body, field] of cases) {
      const r = await pay(h, body);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.code, 'TESSERA_CARD_DATA_REFUSED');
      assert.equal(r.json.message, 'card data must not be sent to this server');
      assert.equal(r.json.field, field);
      // The refusal never repeats the number, as a value or as a key. (The random request id is left out: a
      // UUID holds "6011" or "4242" now and then, which made this check fail about once in a hundred runs.)
      const { requestId, ...answer } = r.json as Record<string, unknown>;
      assert.match(String(requestId), /^hreq_[0-9a-f-]{36}$/);
      assert.ok(!/4242|1111 1111|5555|82246|6011/.test(JSON.stringify(answer)), r.text);
    }
    const raw = await call(`${h.url}/charges`, {
      raw: `{"cardToken":"card_tok_abc","orderReference":"o","email":"a@b.co","n":4242424242424242428}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(raw.status, 400);
    assert.equal(raw.json.code, 'TESSERA_CARD_DATA_REFUSED');
    // Fewer than 13 digits in the raw text, yet a card number once parsed: JSON escapes and digits of other scripts.
    const hidden: [string, string][] = [
      [
        '"orderReference":"\\u0034\\u0032\\u0034\\u0032\\u0034\\u0032\\u0034\\u0032\\u0034\\u0032\\u0034\\u0032\\u0034\\u0032\\u0034\\u0032"',
        'orderReference',
      ],
      ['"orderReference":"４２４２４２４２４２４２４２４２"', 'orderReference'],
      ['"a":"\\uff14242 4242","b":"4242 4242"', 'b'],
      ['"orderReference":"㊷㊷㊷㊷㊷㊷㊷㊷"', 'orderReference'],
    ];
    for (const [fields, field] of hidden) {
      const r = await call(`${h.url}/charges`, {
        raw: `{"cardToken":"card_tok_abc","email":"a@b.co",${fields}}`,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(r.status, 400, `${fields}: ${r.text}`);
      assert.equal(r.json.code, 'TESSERA_CARD_DATA_REFUSED', fields);
      assert.equal(r.json.field, field, fields);
    }
    const broken = await call(`${h.url}/charges`, {
      raw: `{"number":"4242424242424242"`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(broken.json.code, 'TESSERA_CARD_DATA_REFUSED');
    const logs = h.log.text().replace(/\D/g, '');
    for (const pan of ['4242424242424242', '5555555555554444', '378282246310005', '6011111111111117']) {
      assert.ok(!logs.includes(pan), `log holds ${pan}`);
    }
    assert.equal((await sandboxCharges(sb)).length, 0);
  });

  it('refuses a security code sent under any of its usual names, which no value scan can tell from other digits', async () => {
    const ok = { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...ok, cvv: '123' }, 'cvv'],
      [{ ...ok, CVC2: 123 }, 'CVC2'],
      [{ ...ok, securityCode: '1234' }, 'securityCode'],
      [{ ...ok, security_code: '1234' }, 'security_code'],
      [{ ...ok, 'card-code': '123' }, 'card-code'],
      [{ ...ok, card: { cvc: '123' } }, 'card.cvc'],
      [
        { ...ok, billingDetails: { addressLine1: 'Main St 1', cardVerificationValue: '123' } },
        'billingDetails.cardVerificationValue',
      ],
      [{ ...ok, items: [{ sku: 'a' }, { csc: '999' }] }, 'items.1.csc'],
    ];
    for (const [body, field] of cases) {
      const r = await pay(h, body);
      assert.equal(r.status, 400, `${field}: ${r.text}`);
      assert.equal(r.json.code, 'TESSERA_CARD_DATA_REFUSED', field);
      assert.equal(r.json.field, field);
      assert.doesNotMatch(JSON.stringify(r.json), /"(123|1234|999)"/, 'the code is not repeated');
    }
    assert.equal((await sandboxCharges(sb)).length, 0, 'nothing reached the provider');
    // An empty field carries no card data (a blank form input), and `cid` is usually a client or correlation id.
    const blank = await pay(h, { ...ok, cvv: '', cid: 'c-42' });
    assert.equal(blank.status, 201, blank.text);
  });

  it('runs 3-D Secure: 202 with the challenge, the return confirms with the provider and redirects', async () => {
    const token = await cardToken(sb, '4000000000003220');
    const body = {
      cardToken: token,
      orderReference: 'order-3ds',
      email: 'a@shop.example',
      successUrl: '/order/done',
      failUrl: '/order/failed',
    };
    const r = await pay(h, body);
    assert.equal(r.status, 202, r.text);
    assert.deepEqual(Object.keys(r.json).sort(), ['message', 'redirectUrl', 'requestId', 'status']);
    assert.equal(r.json.status, 'Pending');
    assert.ok(r.json.redirectUrl);
    // Like every other answer, it has a message a page can show (the README's examples print `message`).
    assert.equal(
      r.json.message,
      'The card issuer asks the shopper to confirm this payment (3-D Secure): continue at redirectUrl.',
    );
    const again = await pay(h, body);
    assert.equal(again.status, 202);
    assert.equal(again.json.message, r.json.message);
    // The shopper passes the challenge; the sandbox sends the browser to the helper's return URL.
    const returnUrl = await answerChallenge(sb, r.json.redirectUrl);
    assert.ok(returnUrl.startsWith(`${h.url}/charges/3ds-return?cko-payment-token=pay_tok_`), returnUrl);
    const back = await fetch(returnUrl, { redirect: 'manual', headers: { accept: 'text/html' } });
    assert.equal(back.status, 303);
    // A target on the helper's own site is answered as a path, so the browser stays on the site it is on.
    assert.match(back.headers.get('location')!, /^\/order\/done\?chargeId=charge_/);
    const done = new URL(back.headers.get('location')!, h.url);
    assert.match(done.searchParams.get('chargeId') ?? '', /^charge_/);
    const final = await pay(h, body);
    assert.equal(final.status, 201, final.text);
    assert.equal(final.json.id, done.searchParams.get('chargeId'));
    assert.equal((await sandboxCharge(sb, final.json.id)).value, 4200);
    const json = await call(returnUrl, { headers: { accept: 'application/json' } });
    assert.equal(json.status, 201);
    assert.equal(json.json.id, final.json.id);
  });

  it('sends a failed challenge to failUrl and answers 402 afterwards', async () => {
    const body = {
      cardToken: await cardToken(sb, '4000000000003220'),
      orderReference: 'order-3ds',
      email: 'a@shop.example',
      failUrl: '/order/failed',
    };
    const r = await pay(h, body);
    const back = await fetch(await answerChallenge(sb, r.json.redirectUrl, 'fail'), { redirect: 'manual' });
    assert.equal(back.status, 303);
    assert.equal(new URL(back.headers.get('location')!, h.url).pathname, '/order/failed');
    const final = await pay(h, body);
    assert.equal(final.status, 402);
    assert.equal(final.json.code, 'TESSERA_CARD_DECLINED');
  });

  /** A helper of its own for the return-target tests, without limits: the shared one's requestsPerIp is for the others. */
  const targetSite = () => helper({ rateLimits: NO_RATE_LIMITS, redirectOrigins: ['https://shop.example'] });
  const targetOrder = { orderReference: 'order-1', email: 'a@shop.example' };

  /** Each target, sent as each of `fields`, is 400 `TESSERA_REDIRECT_NOT_ALLOWED` naming that field, before any charge. */
  async function refusedTargets(site: RunningHelper, targets: readonly string[], fields = ['successUrl']) {
    for (const target of targets) {
      for (const field of fields) {
        const r = await pay(site, { ...targetOrder, cardToken: await cardToken(sb), [field]: target });
        assert.equal(r.status, 400, `${field} ${target}: ${r.text}`);
        assert.equal(r.json.code, 'TESSERA_REDIRECT_NOT_ALLOWED', target);
        assert.equal(r.json.field, field, target);
      }
    }
    assert.equal((await sandboxCharges(sb)).length, 0, 'refused before any charge');
  }

  /** Each target, sent as `successUrl`, is taken: the charge is made. */
  async function acceptedTargets(site: RunningHelper, targets: readonly string[]) {
    for (const target of targets) {
      const r = await pay(site, { ...targetOrder, cardToken: await cardToken(sb), successUrl: target });
      assert.equal(r.status, 201, `${target}: ${r.text}`);
    }
  }

  it('refuses a return target that leaves the site once a proxy percent-decodes it, and keeps paths that do not', async () => {
    const site = await targetSite();
    // To the browser each is a path on the site; a proxy or app that decodes the path before routing (nginx's `$uri`)
    // reads `//evil.example` or `/\evil.example`, which the site's own redirects (a trailing slash, a login's `next`)
    // send to another host. A decoded tab or line break is dropped by a URL parser, so `/%09/` is `//` too.
    const offSite = [
      '/%2F%2Fevil.example',
      '/%2fevil.example/x',
      '/%5Cevil.example',
      '/%5c%5cevil.example',
      '/%09/evil.example',
      '/%0A/evil.example',
      '/a%2F..%2F%2Fevil.example',
      '/%2e%2e/%2F/evil.example',
      '/%2F%2F%C3evil.example',
      `${new URL(site.url).origin}/%2F%2Fevil.example`,
    ];
    await refusedTargets(site, offSite, ['successUrl', 'failUrl']);
    // The same on an origin of `redirectOrigins`: the merchant's other site decodes its paths just the same.
    await refusedTargets(site, ['https://shop.example/%2F%2Fevil.example', 'https://shop.example//evil.example/']);
    // An escaped slash inside the path, or anything escaped after the first segment, is the merchant's own business.
    await acceptedTargets(site, [
      'https://shop.example/a%2Fb',
      '/orders/a%2Fb/done',
      '/caf%C3%A9/done',
      '/done?next=%2F%2Fevil.example',
    ]);
  });

  it('refuses a return target that leaves the site once decoded twice: a decoding proxy in front of a decoding app', async () => {
    const site = await targetSite();
    // nginx's `proxy_pass http://app$uri` hands the app `/%2F%2Fevil.example` for `/%252F%252Fevil.example`, and an
    // app that decodes its path before routing reads `//evil.example`: two single decodings, one after the other.
    await refusedTargets(site, [
      '/%252F%252Fevil.example',
      '/%252fevil.example/x',
      '/%255Cevil.example',
      '/%2509/evil.example',
      '/%25252F%25252Fevil.example',
      '/%2F%252Fevil.example',
      '/a%252F..%252F%252Fevil.example',
      'https://shop.example/%252F%252Fevil.example',
      // Still changing after eight decodings: no path of a shop is escaped that deep.
      `/%${'25'.repeat(600)}41`,
    ]);
    // A path escaped twice that stays a path, however often it is decoded, is the merchant's own.
    await acceptedTargets(site, [
      '/sale/100%2525-off',
      '/caf%25C3%25A9/done',
      '/orders/a%252Fb',
      '/done?next=%252F%252Fx',
    ]);
  });

  it('is no open redirect: a forged Host header cannot make the return send the shopper off the site', async () => {
    // fetch() will not send another Host: undici's request() does.
    const payWithHost = async (body: unknown) => {
      const r = await request(`${h.url}/charges`, {
        method: 'POST',
        headers: { host: 'evil.example', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: r.statusCode, json: (await r.body.json()) as Record<string, string> };
    };
    const body = {
      cardToken: await cardToken(sb, '4000000000003220'),
      orderReference: 'order-3ds',
      email: 'a@shop.example',
      successUrl: 'http://evil.example/phish',
      failUrl: '/a/..//evil.example/phish',
    };
    // Whoever sends the charge controls Host: the own-origin check passes, but what is kept is a path.
    const r = await payWithHost(body);
    assert.equal(r.status, 202, JSON.stringify(r.json));
    const returnUrl = new URL(await answerChallenge(sb, r.json.redirectUrl!));
    // The link the attacker would send a victim: the helper's real return URL with that payment token.
    const back = await fetch(`${h.url}/charges/3ds-return${returnUrl.search}`, { redirect: 'manual' });
    assert.equal(back.status, 303);
    assert.match(back.headers.get('location')!, /^\/phish\?chargeId=charge_/);
    const failing = await payWithHost({ ...body, cardToken: await cardToken(sb, '4000000000003220') });
    const failed = new URL(await answerChallenge(sb, failing.json.redirectUrl!, 'fail'));
    const failBack = await fetch(`${h.url}/charges/3ds-return${failed.search}`, { redirect: 'manual' });
    // `/a/..//evil.example/phish` normalises to `//evil.example/phish`, which a browser reads as another host.
    assert.match(failBack.headers.get('location')!, /^\/evil\.example\/phish\?chargeId=charge_/);
  });

  it('with publicUrl, a forged Host cannot choose where the provider sends the shopper after the challenge', async () => {
    // Without publicUrl (allowed only outside production) the provider is given a return URL on the Host the charge
    // request named: a challenge link minted with `Host: evil.example` would send whoever opens it there.
    const target = await helper({ publicUrl: 'https://shop.example/payments' });
    const r = await request(`${target.url}/charges`, {
      method: 'POST',
      headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({
        cardToken: await cardToken(sb, '4000000000003220'),
        orderReference: 'order-3ds',
        email: 'a@shop.example',
      }),
    });
    const json = (await r.body.json()) as Record<string, string>;
    assert.equal(r.statusCode, 202, JSON.stringify(json));
    for (const outcome of ['pass', 'fail'] as const) {
      const redirectUrl =
        outcome === 'pass'
          ? json.redirectUrl!
          : (
              await pay(target, {
                cardToken: await cardToken(sb, '4000000000003220'),
                orderReference: 'order-3ds',
                email: 'a@shop.example',
              })
            ).json.redirectUrl;
      const back = new URL(await answerChallenge(sb, redirectUrl, outcome));
      assert.equal(back.origin, 'https://shop.example');
      assert.equal(back.pathname, '/payments/charges/3ds-return');
    }
  });

  it('answers a Host header that names no host with 400 naming it, where it was a 500 or a provider error', async () => {
    // Without publicUrl the helper's URL (own-origin return targets, the 3-D Secure return URL) comes from Host.
    // Its own helper: the requests below would spend the shared one's requestsPerIp.
    const target = await helper();
    // HTTP clients refuse to send most of these Host values: written on a socket as they come.
    const send = (host: string, body: Record<string, unknown>) =>
      new Promise<{ status: number; json: Record<string, string> }>((resolve, reject) => {
        const { port } = new URL(target.url);
        const text = JSON.stringify(body);
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `POST /payments/charges HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
              `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
          );
        });
        const chunks: Buffer[] = [];
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('error', reject);
        socket.on('end', () => {
          const answer = Buffer.concat(chunks).toString();
          const [head = '', rest = ''] = answer.split('\r\n\r\n');
          resolve({ status: Number(head.split(' ')[1]), json: JSON.parse(rest) });
        });
      });
    for (const host of ['[', 'a b', 'shop.example:99999', 'a\\b', 'x:-1', '%']) {
      for (const body of [{ orderReference: 'order-1', successUrl: '/done' }, { orderReference: 'order-3ds' }]) {
        const token = await cardToken(sb, body.orderReference === 'order-3ds' ? '4000000000003220' : undefined);
        const r = await send(host, { ...body, cardToken: token, email: 'a@shop.example' });
        assert.equal(r.status, 400, `${host}: ${JSON.stringify(r.json)}`);
        assert.equal(r.json.field, 'host');
        assert.match(r.json.message!, /publicUrl/);
      }
    }
    assert.equal((await sandboxCharges(sb)).length, 0);
    // A host with a port, an IP literal and the same request with a usable Host still work.
    for (const host of ['shop.example:8443', '[::1]:3000', '127.0.0.1']) {
      const r = await send(host, {
        cardToken: await cardToken(sb),
        orderReference: 'order-1',
        email: 'a@shop.example',
        successUrl: '/done',
      });
      assert.equal(r.status, 201, `${host}: ${JSON.stringify(r.json)}`);
    }
  });

  it('answers a finished 3-D Secure return again from the store: reloading it reads nothing more from the provider', async () => {
    const started = await pay(h, {
      cardToken: await cardToken(sb, '4000000000003220'),
      orderReference: 'order-3ds',
      email: 'a@shop.example',
    });
    assert.equal(started.status, 202, started.text);
    const back = await answerChallenge(sb, started.json.redirectUrl);
    const reads = async () =>
      ((await call(`${sb.url}/_sandbox/requests?limit=200`)).json.data as { method: string; path: string }[]).filter(
        (e) => e.method === 'GET' && e.path.startsWith('/api2/v2/charges/'),
      ).length;
    const before = await reads();
    const first = await call(back);
    assert.equal(first.status, 201, first.text);
    for (let i = 0; i < 5; i++) {
      const again = await call(back);
      assert.equal(again.status, 201, again.text);
      assert.equal(again.json.id, first.json.id);
      assert.equal(again.json.status, first.json.status);
    }
    assert.equal((await reads()) - before, 1, 'one read of the charge, by the first return');
  });

  it('refuses 3-D Secure returns it did not start or cannot read', async () => {
    const cases: [string, number, string][] = [
      ['', 400, 'TESSERA_INVALID_REQUEST'],
      ['?cko-payment-token=nope', 400, 'TESSERA_INVALID_REQUEST'],
      ['?cko-payment-token=pay_tok_unknown123', 404, 'TESSERA_UNKNOWN_PAYMENT'],
    ];
    for (const [query, status, code] of cases) {
      const r = await call(`${h.url}/charges/3ds-return${query}`);
      assert.equal(r.status, status, r.text);
      assert.equal(r.json.code, code);
      assert.equal(r.json.field, 'cko-payment-token');
    }
    const pending = await pay(h, {
      cardToken: await cardToken(sb, '4000000000003220'),
      orderReference: 'order-3ds',
      email: 'a@shop.example',
    });
    const id = new URL(pending.json.redirectUrl, sb.url).pathname.split('/').pop();
    const early = await call(`${h.url}/charges/3ds-return?cko-payment-token=${id}`);
    assert.equal(early.status, 409);
    assert.equal(early.json.code, 'TESSERA_3DS_NOT_FINISHED');
  });

  describe('upstream faults', () => {
    const body = async () => ({ cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' });
    const cases: [string, Record<string, unknown>, number, string, boolean][] = [
      ['500 before', { status: 500, phase: 'before' }, 502, 'TESSERA_PROVIDER_ERROR', false],
      ['500 after', { status: 500, phase: 'after' }, 502, 'TESSERA_PROVIDER_ERROR', false],
      ['503 before', { status: 503, phase: 'before' }, 503, 'TESSERA_PROVIDER_UNAVAILABLE', false],
      ['reset before', { reset: true, phase: 'before' }, 502, 'TESSERA_PROVIDER_ERROR', false],
      ['reset after', { reset: true, phase: 'after' }, 502, 'TESSERA_PROVIDER_ERROR', false],
      ['stall before', { stallBody: true, phase: 'before' }, 504, 'TESSERA_PROVIDER_TIMEOUT', false],
      ['stall after', { stallBody: true, phase: 'after' }, 504, 'TESSERA_PROVIDER_TIMEOUT', false],
    ];
    for (const [name, rule, status, code, outcomeKnown] of cases) {
      it(`${name}: ${status} saying whether the outcome is known, and a retry never charges twice`, async () => {
        const b = await body();
        await fault(sb, { method: 'POST', path: '/api2/v2/charges/token', ...rule });
        const r = await pay(h, b);
        assert.equal(r.status, status, r.text);
        assert.equal(r.json.code, code);
        assert.equal(r.json.outcomeKnown, outcomeKnown);
        const retry = await pay(h, b);
        assert.equal(retry.status, 201, retry.text);
        const made = (await sandboxCharges(sb)).filter((e) => (e.responseBody as { id?: string } | undefined)?.id);
        const ids = new Set(made.map((e) => (e.responseBody as { id: string }).id));
        assert.deepEqual([...ids], [retry.json.id], 'one charge, answered to the retry');
      });
    }

    it('never says "nothing was done" when a retry is refused after an attempt that charged', async () => {
      const retrying = await helper({ providerMaxRetries: 1 });
      const b = await body();
      await fault(sb, { method: 'POST', path: '/api2/v2/charges/token', status: 503, phase: 'after' });
      await fault(sb, { method: 'POST', path: '/api2/v2/charges/token', status: 429 });
      const r = await pay(retrying, b);
      assert.equal(r.status, 503, r.text);
      assert.equal(r.json.code, 'TESSERA_PROVIDER_UNAVAILABLE');
      assert.equal(r.json.outcomeKnown, false, 'the first attempt charged');
      assert.doesNotMatch(r.json.message, /nothing was done/);
      const retry = await pay(retrying, b);
      assert.equal(retry.status, 201, retry.text);
      const made = (await sandboxCharges(sb)).filter((e) => (e.responseBody as { id?: string } | undefined)?.id);
      assert.deepEqual([...new Set(made.map((e) => (e.responseBody as { id: string }).id))], [retry.json.id]);
    });

    it('answers a charge whose answer the client had no room for 503 with the outcome unknown, and a retry charges once', async (t) => {
      // Something in front of the provider (a proxy, a CDN) answers some charges with large bodies it sends slowly;
      // they hold the legacy client's whole answer budget (providerResponseBudgetBytes) when a real charge comes back.
      const MiB = 1024 * 1024;
      let open = () => {};
      const hogs = { opened: new Promise<void>((resolve) => (open = resolve)), open: () => open() };
      const upstream = createServer((req, res) => {
        res.on('error', () => {});
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const sent = Buffer.concat(chunks);
          const trackId = sent.length > 0 ? (JSON.parse(sent.toString()) as { trackId?: string }).trackId : undefined;
          if (trackId?.startsWith('hog')) {
            res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 * MiB) });
            res.write('{');
            void hogs.opened.then(() => res.destroy());
          } else if (trackId === 'probe') {
            res.writeHead(422, { 'content-type': 'application/json' });
            res.end('{"errorCode":"70000","message":"probe"}');
          } else {
            // Everything else goes to the sandbox as it was sent.
            const forwarded = httpRequest(
              `${sb.url}${req.url}`,
              { method: req.method, headers: req.headers },
              (answer) => {
                res.writeHead(answer.statusCode!, answer.headers);
                answer.pipe(res);
              },
            );
            forwarded.end(sent);
          }
        });
      });
      await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
      t.after(() => {
        upstream.closeAllConnections();
        upstream.close();
      });
      const orders: Record<string, { amount: number; currency: CurrencyCode; trackId?: string }> = {
        'order-1': { amount: 2500, currency: 'EUR' },
        'order-hog-1': { amount: 1, currency: 'EUR', trackId: 'hog-1' },
        'order-hog-2': { amount: 1, currency: 'EUR', trackId: 'hog-2' },
        'order-probe': { amount: 1, currency: 'EUR', trackId: 'probe' },
      };
      const proxied = await helper({
        legacyBaseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
        providerResponseBudgetBytes: 4 * MiB,
        providerTimeoutMs: 10_000,
        rateLimits: NO_RATE_LIMITS,
        resolveCharge: (_req, { orderReference }) => orders[orderReference],
      });
      const shopper = async (orderReference: string) => ({
        cardToken: await cardToken(sb),
        orderReference,
        email: 'a@shop.example',
      });
      const held = [pay(proxied, await shopper('order-hog-1')), pay(proxied, await shopper('order-hog-2'))];
      // Until both large answers hold the budget, a probe's small 422 is read (the helper's 4xx); then it is refused
      // for the budget, with the outcome known (the provider refused it). Bounded: with the default budget (64 MiB,
      // the option not passed on) the two large answers never fill it, and the probes would go on for ever.
      let refused = false;
      for (let tries = 0; tries < 200 && !refused; tries++) {
        const probe = await pay(proxied, await shopper('order-probe'));
        refused = probe.status === 503;
        if (refused) {
          assert.equal(probe.json.code, 'TESSERA_PROVIDER_UNAVAILABLE', probe.text);
          assert.equal(probe.json.outcomeKnown, true, probe.text);
        } else assert.ok(probe.status >= 400 && probe.status < 500, probe.text);
      }
      assert.ok(refused, 'the large answers fill providerResponseBudgetBytes (4 MiB)');
      const b = await body();
      const before = (await sandboxCharges(sb)).length;
      const r = await pay(proxied, b);
      assert.equal(r.status, 503, r.text);
      assert.equal(r.json.code, 'TESSERA_PROVIDER_UNAVAILABLE');
      assert.equal(r.json.outcomeKnown, false, 'the provider made the charge; its answer was not read');
      assert.equal(r.headers.get('retry-after'), '1');
      assert.equal((await sandboxCharges(sb)).length, before + 1, 'the charge reached the provider');
      assert.ok(
        proxied.log.lines.some((l) => l.event === 'provider.error' && l.code === 'TESSERA_RESPONSE_BUDGET'),
        'the refusal is logged',
      );
      hogs.open();
      await Promise.all(held);
      const retry = await pay(proxied, b);
      assert.equal(retry.status, 201, retry.text);
      const made = (await sandboxCharges(sb)).filter((e) => (e.responseBody as { id?: string } | undefined)?.id);
      const ids = new Set(made.slice(-2).map((e) => (e.responseBody as { id: string }).id));
      assert.deepEqual([...ids], [retry.json.id], 'one charge, answered to the retry');
    });
  });

  describe('card-testing defence', () => {
    it('holds a decline place for a charge whose outcome is unknown, so lost answers do not widen the limit', async () => {
      // A card tester whose charges end in lost answers (a reset after the provider acted) must not get more tries
      // than one whose declines are answered: the unknown charge may be a decline, and keeps its place until the
      // window ends.
      const limited = await helper({
        rateLimits: { ...NO_RATE_LIMITS, declinesPerSession: { max: 1, windowMs: 600_000 } },
        sessionId: (req) => req.get('x-session') ?? undefined,
      });
      const s = { 'x-session': 'tester' };
      await fault(sb, { method: 'POST', path: '/api2/v2/charges/token', reset: true, phase: 'after' });
      const lost = await pay(
        limited,
        { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' },
        s,
      );
      assert.equal(lost.status, 502, lost.text);
      assert.equal(lost.json.outcomeKnown, false);
      const made = (await sandboxCharges(sb)).length;
      const next = await pay(
        limited,
        { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' },
        s,
      );
      assert.equal(next.status, 429, next.text);
      assert.equal(next.json.code, 'TESSERA_TOO_MANY_DECLINES');
      assert.equal((await sandboxCharges(sb)).length, made, 'the next charge never reached the provider');
    });

    it('limits charges per IP and per session with 429 and Retry-After', async () => {
      const limited = await helper({
        rateLimits: { chargesPerIp: { max: 3, windowMs: 60_000 }, chargesPerSession: { max: 1, windowMs: 60_000 } },
        sessionId: (req) => req.get('x-session') ?? undefined,
      });
      const body = {
        cardToken: 'card_tok_abcdefghijklmnop',
        orderReference: 'order-1',
        email: 'a@shop.example',
        email2: 1,
      };
      assert.notEqual((await pay(limited, body, { 'x-session': 's1' })).status, 429);
      const session = await pay(limited, body, { 'x-session': 's1' });
      assert.equal(session.status, 429);
      assert.equal(session.json.code, 'TESSERA_RATE_LIMITED');
      assert.notEqual((await pay(limited, body, { 'x-session': 's2' })).status, 429);
      const ip = await pay(limited, body, { 'x-session': 's3' });
      assert.equal(ip.status, 429);
      assert.equal(ip.headers.get('retry-after'), '60');
      sb.clock.advance(61);
      assert.notEqual((await pay(limited, body, { 'x-session': 's4' })).status, 429);
    });

    it('blocks an IP after too many declines without calling the provider, until the window ends', async () => {
      const guarded = await helper({
        rateLimits: { chargesPerIp: false, declinesPerIp: { max: 2, windowMs: 600_000 } },
      });
      for (let i = 0; i < 2; i++) {
        const r = await pay(guarded, {
          cardToken: await cardToken(sb, '4000000000000002'),
          orderReference: 'order-1',
          email: 'a@shop.example',
        });
        assert.equal(r.status, 402);
      }
      const before = (await sandboxCharges(sb)).length;
      const blocked = await pay(guarded, {
        cardToken: await cardToken(sb),
        orderReference: 'order-1',
        email: 'a@shop.example',
      });
      assert.equal(blocked.status, 429);
      assert.equal(blocked.json.code, 'TESSERA_TOO_MANY_DECLINES');
      // Without `trust proxy`, a forged X-Forwarded-For is not a new client.
      const forged = await pay(
        guarded,
        { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' },
        { 'x-forwarded-for': '203.0.113.7', forwarded: 'for=203.0.113.8', 'x-real-ip': '203.0.113.9' },
      );
      assert.equal(forged.status, 429);
      assert.equal(forged.json.code, 'TESSERA_TOO_MANY_DECLINES');
      assert.equal((await sandboxCharges(sb)).length, before);
      sb.clock.advance(601);
      const later = await pay(guarded, {
        cardToken: await cardToken(sb),
        orderReference: 'order-1',
        email: 'a@shop.example',
      });
      assert.equal(later.status, 201, later.text);
    });
  });

  it('never answers or logs the secret key', () => {
    const all = [...seen, ...helpers.map((x) => x.log.text())].join('\n');
    assert.ok(all.length > 1000);
    assert.ok(!all.includes(sb.credentials.secretKey));
    assert.ok(!all.includes(sb.credentials.clientSecret));
    assert.ok(!/card_tok_[A-Za-z0-9]{8,}/.test(helpers.map((x) => x.log.text()).join('\n')), 'a card token in a log');
  });
});
