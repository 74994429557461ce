import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  type ChallengeEvent,
  type ChargeEvent,
  MemoryStore,
  type OnChallengeContext,
  type TesseraHelperOptions,
} from '../../../server/helper/index.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { type Answer, call } from '../../support/http.js';
import { startRelay } from '../../support/relay.js';
import {
  answerChallenge,
  cardToken,
  fault,
  gate,
  legacyHelperOptions,
  type RunningHelper,
  requiredMethods,
  sandboxCharge,
  sandboxCharges,
  startHelper,
} from './support.js';

// `onChallenge` (docs/decisions/helper.md#helper-on-challenge): once per 3-D Secure challenge, before the 202, never
// failing it; against the real sandbox over real HTTP.

const THREE_DS = '4000000000003220';

const ORDERS: Record<string, Record<string, unknown>> = {
  'order-1': { amount: 2500, currency: 'EUR' },
  'order-3ds': {
    amount: 6900,
    currency: 'EUR',
    threeDSecure: true,
    trackId: 'ord-3ds',
    metadata: { order: 'ord-3ds' },
  },
  'order-3ds-bare': { amount: 5100, currency: 'GBP', threeDSecure: true },
};

describe('onChallenge', () => {
  let sb: RunningSandbox;
  const running: RunningHelper[] = [];

  async function helper(extra: Partial<TesseraHelperOptions> = {}): Promise<RunningHelper> {
    const started = await startHelper({
      ...legacyHelperOptions(sb),
      providerTimeoutMs: 1500,
      now: () => sb.clock.nowMs(),
      resolveCharge: (_req, { orderReference }) => ORDERS[orderReference] as never,
      rateLimits: { chargesPerIp: false, declinesPerIp: false, declinesPerSession: false },
      ...extra,
    });
    running.push(started);
    return started;
  }

  const pay = (h: { url: string }, body: unknown): Promise<Answer> => call(`${h.url}/charges`, { body });
  const order = async (number: string, orderReference = 'order-3ds') => ({
    cardToken: await cardToken(sb, number),
    orderReference,
    email: 'a@shop.example',
  });
  /** Records every call of the hook, with the path of its request. */
  function recorder() {
    const calls: { challenge: ChallengeEvent; method: string; path: string }[] = [];
    const onChallenge = (challenge: ChallengeEvent, { req }: OnChallengeContext) =>
      void calls.push({ challenge, method: req.method, path: req.originalUrl });
    return { calls, onChallenge };
  }

  before(async () => {
    sb = await startSandbox();
  });
  beforeEach(() => sb.context.reset());
  after(async () => {
    for (const h of running) await h.close();
    await sb.close();
  });

  it('is called once, before the 202, with the charge id, the order, the server’s amount, trackId, metadata and start', async () => {
    const { calls, onChallenge } = recorder();
    const charges: ChargeEvent[] = [];
    const h = await helper({ onChallenge, onCharge: (charge) => void charges.push(charge) });
    const body = await order(THREE_DS);
    const r = await pay(h, body);
    assert.equal(r.status, 202, r.text);
    // Called before the answer left: no wait needed to see it.
    assert.equal(calls.length, 1);
    const [{ challenge, method, path }] = calls as [(typeof calls)[0]];
    assert.equal(method, 'POST');
    assert.equal(path, '/payments/charges');
    const held = await sandboxCharge(sb, challenge.id);
    assert.equal(held.status, 'Pending');
    assert.deepEqual(challenge, {
      id: held.id,
      orderReference: 'order-3ds',
      amount: 6900,
      currency: 'EUR',
      trackId: 'ord-3ds',
      metadata: { order: 'ord-3ds' },
      startedAt: held.created,
    });
    assert.match(challenge.id, /^charge_/);
    // No lifetime: the provider's answer gives none.
    assert.equal('expiresAt' in challenge, false);
    // The same charge reaches onCharge once the challenge ends.
    const back = await call(await answerChallenge(sb, r.json.redirectUrl), { headers: { accept: 'application/json' } });
    assert.equal(back.status, 201, back.text);
    assert.deepEqual(
      charges.map((c) => c.id),
      [challenge.id],
    );
    assert.equal(calls.length, 1);
  });

  it('leaves out trackId and metadata that resolveCharge did not give', async () => {
    const { calls, onChallenge } = recorder();
    const h = await helper({ onChallenge });
    const r = await pay(h, await order(THREE_DS, 'order-3ds-bare'));
    assert.equal(r.status, 202, r.text);
    assert.deepEqual(Object.keys(calls[0]!.challenge).sort(), [
      'amount',
      'currency',
      'id',
      'orderReference',
      'startedAt',
    ]);
    assert.equal(calls[0]!.challenge.amount, 5100);
    assert.equal(calls[0]!.challenge.currency, 'GBP');
  });

  it('is not called for a frictionless charge or a decline', async () => {
    const { calls, onChallenge } = recorder();
    const h = await helper({ onChallenge });
    const approved = await pay(h, await order('4242424242424242', 'order-1'));
    assert.equal(approved.status, 201, approved.text);
    const declined = await pay(h, await order('4000000000000002', 'order-1'));
    assert.equal(declined.status, 402, declined.text);
    // The 3-D Secure card without 3-D Secure is a soft decline, no challenge.
    const soft = await pay(h, await order(THREE_DS, 'order-1'));
    assert.equal(soft.status, 402, soft.text);
    assert.deepEqual(calls, []);
  });

  it('is not called again for a replay of the token or a double submit', async () => {
    const { calls, onChallenge } = recorder();
    const h = await helper({ onChallenge });
    const body = await order(THREE_DS);
    const first = await pay(h, body);
    assert.equal(first.status, 202, first.text);
    const replay = await pay(h, body);
    assert.equal(replay.status, 202, replay.text);
    assert.equal(replay.json.redirectUrl, first.json.redirectUrl);
    assert.equal(calls.length, 1);
    // A double submit of a new token: both answered 202, one challenge, one call.
    // (Another order: the first challenge holds the trackId of this one.)
    const twin = await order(THREE_DS, 'order-3ds-bare');
    const both = await Promise.all([pay(h, twin), pay(h, twin), pay(h, twin)]);
    for (const r of both) assert.equal(r.status, 202, r.text);
    assert.equal(new Set(both.map((r) => r.json.redirectUrl)).size, 1);
    assert.equal(calls.length, 2);
    assert.notEqual(calls[1]!.challenge.id, calls[0]!.challenge.id);
  });

  it('is called once by two instances sharing one store', async () => {
    const store = new MemoryStore({ now: () => sb.clock.nowMs() });
    const { calls, onChallenge } = recorder();
    const a = await helper({ store, onChallenge });
    const b = await helper({ store, onChallenge });
    const body = await order(THREE_DS);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => pay(i % 2 ? a : b, body)));
    for (const r of answers) assert.equal(r.status, 202, r.text);
    assert.equal((await sandboxCharges(sb)).length, 1);
    assert.equal(calls.length, 1);
    // Later replays on either instance find it delivered.
    assert.equal((await pay(a, body)).status, 202);
    assert.equal((await pay(b, body)).status, 202);
    assert.equal(calls.length, 1);
  });

  it('a hook that throws: the 202 is sent, the failure logged without secrets, the challenge finishes and onCharge runs', async () => {
    const secret = legacyHelperOptions(sb).secretKey;
    const charges: string[] = [];
    let tries = 0;
    const h = await helper({
      onChallenge: () => {
        tries++;
        throw new TypeError('stock service is down');
      },
      onCharge: (charge) => void charges.push(charge.id),
    });
    const body = await order(THREE_DS);
    const r = await pay(h, body);
    assert.equal(r.status, 202, r.text);
    assert.equal(r.json.status, 'Pending');
    const line = h.log.lines.find((l) => l.event === 'tessera.on_challenge.failed');
    assert.ok(line, h.log.text());
    assert.equal(line.level, 50);
    assert.equal(line.step, 'hook');
    assert.match(String(line.chargeId), /^charge_/);
    assert.equal((line.cause as { message?: string }).message, 'stock service is down');
    const payToken = new URL(r.json.redirectUrl).pathname.split('/').at(-1)!;
    assert.match(payToken, /^pay_tok_/);
    for (const leak of [body.cardToken, THREE_DS, payToken, r.json.redirectUrl, secret]) {
      assert.equal(h.log.text().includes(leak), false, `the log holds ${leak}`);
    }
    // Not recorded: a retry of the token, while the challenge is open, tries again.
    assert.equal((await pay(h, body)).status, 202);
    assert.equal(tries, 2);
    // The shopper finishes the challenge; the return calls onCharge.
    const back = await call(await answerChallenge(sb, r.json.redirectUrl), { headers: { accept: 'application/json' } });
    assert.equal(back.status, 201, back.text);
    assert.deepEqual(charges, [line.chargeId]);
    assert.equal(tries, 2);
  });

  it('a hook that never settles: the 202 is sent after hookTimeoutMs, the challenge finishes and onCharge runs', async () => {
    const charges: string[] = [];
    const held = gate();
    let tries = 0;
    const h = await helper({
      hookTimeoutMs: 200,
      onChallenge: async () => {
        tries++;
        await held.opened;
      },
      onCharge: (charge) => void charges.push(charge.id),
    });
    const body = await order(THREE_DS);
    const r = await pay(h, body);
    assert.equal(r.status, 202, r.text);
    const timeout = h.log.lines.find((l) => l.event === 'tessera.hook.timeout');
    assert.equal(timeout?.hook, 'onChallenge');
    assert.equal(timeout?.timeoutMs, 200);
    // Still running, under its kept-alive claim: a replay does not call it a second time.
    assert.equal((await pay(h, body)).status, 202);
    assert.equal(tries, 1);
    const back = await call(await answerChallenge(sb, r.json.redirectUrl), { headers: { accept: 'application/json' } });
    assert.equal(back.status, 201, back.text);
    assert.deepEqual(charges, [back.json.id]);
    held.open();
  });

  it('gets no card token, card number, CVV, payment token, challenge URL or key', async () => {
    const seen: unknown[] = [];
    const h = await helper({ onChallenge: (challenge, context) => void seen.push(challenge, context.req.body) });
    const body = await order(THREE_DS);
    const r = await pay(h, body);
    assert.equal(r.status, 202, r.text);
    const json = JSON.stringify(seen[0]);
    const payToken = new URL(r.json.redirectUrl).pathname.split('/').at(-1)!;
    const { secretKey, publicKey } = legacyHelperOptions(sb);
    for (const leak of [
      body.cardToken,
      'card_tok_',
      THREE_DS,
      '3220',
      '"123"',
      payToken,
      'pay_tok_',
      secretKey,
      publicKey,
    ]) {
      assert.equal(json.includes(leak), false, `the challenge holds ${leak}: ${json}`);
    }
    assert.equal(json.includes(new URL(r.json.redirectUrl).host), false, json);
  });

  it('a read of the charge that fails is logged and the 202 still sent', async () => {
    const { calls, onChallenge } = recorder();
    const h = await helper({ onChallenge });
    const body = await order(THREE_DS);
    // The charge is made; the read of it after the 202 fails once.
    await fault(sb, { method: 'GET', path: '/api2/v2/charges/*', status: 503, count: 1 });
    const r = await pay(h, body);
    assert.equal(r.status, 202, r.text);
    assert.deepEqual(calls, []);
    const line = h.log.lines.find((l) => l.event === 'tessera.on_challenge.failed');
    assert.equal(line?.step, 'provider', h.log.text());
    // The next replay delivers it.
    assert.equal((await pay(h, body)).status, 202);
    assert.equal(calls.length, 1);
  });
  it('answers a second request for the challenge only once the hook settled: the shopper cannot reach it first', async () => {
    // The store tells how often a request found the delivery claimed by another (a double submit, a retry while the
    // first request waits for the hook); the hook settles only once a request has looked twice.
    const memory = new MemoryStore({ now: () => sb.clock.nowMs() });
    const secondLook = gate();
    const entered = gate();
    let busy = 0;
    const store = requiredMethods(memory, {
      claim: async (key, value, ttlMs) => {
        const claimed = await memory.claim(key, value, ttlMs);
        if (!claimed && key.startsWith('onchallenge:') && ++busy === 2) secondLook.open();
        return claimed;
      },
    });
    let noted = false;
    const h = await helper({
      store,
      hookTimeoutMs: 20_000,
      onChallenge: async () => {
        entered.open();
        await secondLook.opened;
        noted = true;
      },
    });
    const body = await order(THREE_DS);
    const first = pay(h, body);
    await entered.opened;
    try {
      const second = await pay(h, body);
      assert.equal(second.status, 202, second.text);
      // Its 202 (with the challenge URL) left only after the shop had noted the challenge.
      assert.equal(noted, true, 'the second 202 was sent while onChallenge was still running');
      assert.equal((await first).status, 202);
    } finally {
      secondLook.open();
      await first;
    }
  });

  it('refuses a pending charge read back with fields it would pass on malformed, or the payment token as its id', async () => {
    let tamper: ((payToken: string) => Record<string, unknown>) | undefined;
    const relay = await startRelay(sb.url, {
      replace(method, path) {
        const payToken = /\/charges\/(pay_tok_[A-Za-z0-9]+)/.exec(path)?.[1];
        if (!tamper || method !== 'GET' || !payToken) return undefined;
        const body = JSON.stringify(tamper(payToken));
        tamper = undefined;
        return { status: 200, contentType: 'application/json', body };
      },
    });
    try {
      const { calls, onChallenge } = recorder();
      const h = await helper({ onChallenge, legacyBaseUrl: relay.url });
      const pending = {
        id: 'charge_hostile',
        status: 'Pending',
        value: 5100,
        currency: 'GBP',
        created: '2026-11-27T00:00:00Z',
      };
      const hostile: [string, (payToken: string) => Record<string, unknown>][] = [
        ['id', (payToken) => ({ ...pending, id: payToken })],
        ['value', () => ({ ...pending, value: '5100' })],
        ['currency', () => ({ ...pending, currency: { code: 'GBP' } })],
        ['trackId', () => ({ ...pending, trackId: 42 })],
        ['created', () => ({ ...pending, created: undefined })],
        ['metadata', () => ({ ...pending, metadata: { order: { nested: 'x'.repeat(1000) } } })],
        ['metadata', () => ({ ...pending, metadata: JSON.parse('{"__proto__":{"polluted":"yes"}}') })],
        [
          'metadata',
          () => ({ ...pending, metadata: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v'])) }),
        ],
      ];
      const delivered = () => calls;
      for (const [field, answer] of hostile) {
        const body = await order(THREE_DS, 'order-3ds-bare');
        tamper = answer;
        const r = await pay(h, body);
        assert.equal(tamper, undefined, `${field}: the read was tampered with`);
        assert.equal(r.status, 202, r.text);
        assert.deepEqual(calls, [], `${field}: onChallenge got ${JSON.stringify(calls[0]?.challenge)}`);
        const line = h.log.lines.findLast((l) => l.event === 'tessera.on_challenge.failed');
        assert.equal(line?.step, 'provider', `${field}: ${h.log.text()}`);
        // Read properly, the retry delivers it.
        assert.equal((await pay(h, body)).status, 202);
        assert.equal(calls.length, 1, field);
        // (Read through a function: the assertion above narrowed `calls` to an empty array.)
        assert.match(delivered()[0]!.challenge.id, /^charge_/);
        calls.length = 0;
      }
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    } finally {
      await relay.close();
    }
  });
});
