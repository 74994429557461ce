import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import express from 'express';
import { resultKey } from '../../../server/helper/charges/records.js';
import {
  type ChargeEvent,
  MemoryStore,
  type OnChargeContext,
  StoreUnavailableError,
  type TesseraHelperOptions,
  type TesseraStore,
  tesseraHelper,
} from '../../../server/helper/index.js';
import { STORE_CALL_TIMEOUT_MS } from '../../../server/helper/store-guard.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { type Answer, call } from '../../support/http.js';
import {
  answerChallenge,
  captureLogger,
  cardToken,
  fault,
  gate,
  type RunningHelper,
  requiredMethods,
  sandboxCharge,
  sandboxCharges,
  startHelper,
} from './support.js';

const DECLINED = '4000000000000002';

const THREE_DS = '4000000000003220';

const ORDERS: Record<string, Record<string, unknown>> = {
  'order-1': { amount: 2500, currency: 'EUR' },
  'order-track': { amount: 2500, currency: 'EUR', trackId: 'trk-1' },
  'order-3ds': { amount: 4200, currency: 'GBP', threeDSecure: true },
};

describe('charge outcomes: limits, onCharge, capture and several instances', () => {
  let sb: RunningSandbox;
  const running: { close(): Promise<void> }[] = [];

  const base = (): TesseraHelperOptions => ({
    publicKey: sb.credentials.publicKey,
    secretKey: sb.credentials.secretKey,
    legacyBaseUrl: sb.url,
    providerMaxRetries: 0,
    providerTimeoutMs: 1500,
    // These tests count the provider's charge requests; the startup key check would add its probe to them.
    startupKeyCheck: false,
    now: () => sb.clock.nowMs(),
    resolveCharge: (_req, { orderReference }) => ORDERS[orderReference] as never,
    rateLimits: { chargesPerIp: false, declinesPerIp: false },
    sessionId: (req) => req.get('x-session') ?? undefined,
  });

  async function helper(extra: Partial<TesseraHelperOptions> = {}): Promise<RunningHelper> {
    const started = await startHelper({ ...base(), ...extra });
    running.push(started);
    return started;
  }

  /** The helper in an app with `trust proxy` set as given (startHelper's app leaves it off). */
  async function proxied(trustProxy: unknown, extra: Partial<TesseraHelperOptions> = {}) {
    const { logger, log } = captureLogger();
    const app = express();
    app.set('trust proxy', trustProxy);
    app.use('/payments', tesseraHelper({ ...base(), ...extra, logger }));
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const close = () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    running.push({ close });
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/payments`, log };
  }

  const pay = (target: { url: string }, body: unknown, headers: Record<string, string> = {}): Promise<Answer> =>
    call(`${target.url}/charges`, { body, headers });
  const order = async (number?: string, orderReference = 'order-1') => ({
    cardToken: await cardToken(sb, number),
    orderReference,
    email: 'a@shop.example',
  });
  /** Asserts the answer of a charge the shop did not record (onCharge threw or ran late): never "paid". */
  function notRecorded(r: Answer): Answer {
    assert.equal(r.status, 503, r.text);
    assert.equal(r.json.code, 'TESSERA_ON_CHARGE_FAILED');
    assert.equal(r.json.outcomeKnown, true);
    assert.match(r.json.chargeId, /^charge_/);
    assert.ok(!/approved|orders table/i.test(r.text), r.text);
    return r;
  }
  /** The shopper's answer to the 3-D Secure challenge, without following the provider's redirect to the return. */
  const challenge = (redirectUrl: string, outcome: 'pass' | 'fail') => answerChallenge(sb, redirectUrl, outcome);
  /**
   * The built-in store (`memory`, to read it behind the test's back) with every method call passed through `around`,
   * which answers it itself or calls the real method (`call`, bound to the store, whose fields are private).
   */
  function storeWith(
    around: (name: string, args: unknown[], call: () => Promise<unknown>) => Promise<unknown>,
    memory = new MemoryStore({ now: () => sb.clock.nowMs() }),
  ): MemoryStore {
    return new Proxy(memory, {
      get(target, name) {
        const value = Reflect.get(target, name, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => around(String(name), args, () => value.apply(target, args));
      },
    });
  }
  /** The built-in store, except that a call `fails(name, key)` picks is refused as a shared store that is down. */
  const storeFailing = (fails: (name: string, key: string) => boolean) =>
    storeWith((name, args, call) =>
      fails(name, String(args[0]))
        ? Promise.reject(new StoreUnavailableError('the shared store cannot be reached; nothing was done'))
        : call(),
    );
  /** A 3-D Secure charge started through `h` (202) and its challenge passed: the URL the shopper comes back to. */
  const passedThreeDs = async (h: RunningHelper, body?: Record<string, unknown>): Promise<string> => {
    const started = await pay(h, body ?? (await order(THREE_DS, 'order-3ds')));
    assert.equal(started.status, 202, started.text);
    return challenge(started.json.redirectUrl, 'pass');
  };

  before(async () => {
    sb = await startSandbox();
  });
  beforeEach(() => sb.context.reset());
  after(async () => {
    for (const x of running) await x.close();
    await sb.close();
  });

  describe('card-testing limits', () => {
    it('counts a decline learned through 3-D Secure exactly once, from the return or a later POST', async () => {
      const h = await helper({
        rateLimits: { chargesPerIp: false, declinesPerSession: { max: 3, windowMs: 600_000 } },
      });
      const s = { 'x-session': 'shopper-1' };
      const start = async () => {
        const body = await order(THREE_DS, 'order-3ds');
        const r = await pay(h, body, s);
        assert.equal(r.status, 202, r.text);
        return { body, returnUrl: await challenge(r.json.redirectUrl, 'fail') };
      };
      // A: the POST learns it first, then the return; B: the other way round; C: the POST only (return skipped).
      const a = await start();
      assert.equal((await pay(h, a.body, s)).status, 402);
      assert.equal((await call(a.returnUrl, { headers: { accept: 'application/json' } })).status, 402);
      assert.equal((await pay(h, a.body, s)).status, 402);
      const b = await start();
      assert.equal((await call(b.returnUrl, { headers: { accept: 'application/json' } })).status, 402);
      assert.equal((await pay(h, b.body, s)).status, 402);
      const c = await start();
      assert.equal((await pay(h, c.body, s)).status, 402);
      assert.equal((await pay(h, c.body, s)).status, 402, 'a replay is no new decline');
      const made = (await sandboxCharges(sb)).length;
      const d = await pay(h, await order(THREE_DS, 'order-3ds'), s);
      assert.equal(d.status, 429, d.text);
      assert.equal(d.json.code, 'TESSERA_TOO_MANY_DECLINES');
      assert.equal(d.json.limit, 'declinesPerSession');
      assert.equal(d.json.option, 'rateLimits.declinesPerSession');
      assert.match(d.json.message, /rateLimits\.declinesPerSession/);
      assert.equal((await sandboxCharges(sb)).length, made, 'the fourth never reached the provider');
    });

    it('reserves the limit before the provider call: concurrent declines never overshoot it', async () => {
      const h = await helper({
        rateLimits: {
          chargesPerIp: false,
          declinesPerIp: { max: 5, windowMs: 600_000 },
          declinesPerSession: { max: 3, windowMs: 600_000 },
        },
      });
      const session = await Promise.all(Array.from({ length: 10 }, () => order(DECLINED)));
      const bySession = await Promise.all(session.map((b) => pay(h, b, { 'x-session': 'tester' })));
      assert.equal(bySession.filter((r) => r.status === 402).length, 3);
      assert.equal(bySession.filter((r) => r.status === 429).length, 7);
      assert.equal((await sandboxCharges(sb)).length, 3);
      // Fresh sessions from one IP: the per-IP limit (5) holds too; 3 of its 5 are already used.
      const ip = await Promise.all(Array.from({ length: 12 }, () => order(DECLINED)));
      const byIp = await Promise.all(ip.map((b, i) => pay(h, b, { 'x-session': `fresh-${i}` })));
      assert.equal(byIp.filter((r) => r.status === 402).length, 2);
      assert.equal((await sandboxCharges(sb)).length, 5);
    });

    it('gives the reservation back when the charge is approved or refused before any charge', async () => {
      const h = await helper({ rateLimits: { chargesPerIp: false, declinesPerIp: { max: 2, windowMs: 600_000 } } });
      const approved = await Promise.all(Array.from({ length: 6 }, () => order()));
      const answers = await Promise.all(approved.map((b) => pay(h, b)));
      assert.deepEqual(
        answers.map((r) => r.status),
        [201, 201, 201, 201, 201, 201],
      );
      for (let i = 0; i < 4; i++) {
        assert.equal((await pay(h, { ...(await order()), orderReference: 'no-such-order' })).status, 400);
      }
      assert.equal((await pay(h, await order(DECLINED))).status, 402);
      assert.equal((await pay(h, await order(DECLINED))).status, 402);
      assert.equal((await pay(h, await order(DECLINED))).status, 429);
    });

    it('sends the provider an IPv6 address with a zone id (fe80::1%eth0) without the zone, which only the server reads', async () => {
      // Node's isIP takes `fe80::1%eth0` (a link-local client has such a remoteAddress; behind `trust proxy`, so may
      // X-Forwarded-For), the provider's schema does not: the charge was refused and the shopper told it failed (502).
      const app = await proxied(1);
      const cases: [string, string | null][] = [
        ['fe80::1%eth0', 'fe80::1'],
        ['fe80::1%25eth0', 'fe80::1'],
        ['::ffff:192.0.2.7', '192.0.2.7'],
        ['not-an-address', null],
      ];
      for (const [forwarded, sent] of cases) {
        const r = await pay(app, await order(), { 'x-forwarded-for': forwarded });
        assert.equal(r.status, 201, `${forwarded}: ${r.text}`);
        assert.equal((await sandboxCharge(sb, r.json.id)).customerIp, sent, forwarded);
      }
    });

    it('keeps the per-IP decline limit with trust proxy off, whatever X-Forwarded-For and session say', async () => {
      const app = await proxied(false, {
        rateLimits: { chargesPerIp: false, declinesPerIp: { max: 2, windowMs: 600_000 } },
      });
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await pay(app, await order(DECLINED), {
          'x-forwarded-for': `198.51.100.${i}`,
          'x-session': `fresh-${i}`,
        });
        statuses.push(r.status);
      }
      assert.deepEqual(statuses, [402, 402, 429, 429, 429, 429]);
      assert.equal((await sandboxCharges(sb)).length, 2);
      const warnings = app.log.lines.filter((l) => l.event === 'tessera.trust_proxy');
      assert.equal(warnings.length, 1, 'warned once');
      assert.match(String(warnings[0]!.msg), /X-Forwarded-For is ignored/);
    });

    describe('declinesTotal, the shop-wide decline limit', () => {
      const WINDOW = 600_000;
      /** A client of its own: an address (behind `trust proxy` 1) and a session no other request shares. */
      const from = (i: number) => ({ 'x-forwarded-for': `198.51.100.${i}`, 'x-session': `bot-${i}` });

      it('refuses every charge once the shop has max declines, from addresses and sessions each under their own limits, until the window ends', async () => {
        const app = await proxied(1, {
          rateLimits: {
            chargesPerIp: false,
            declinesPerIp: { max: 2, windowMs: WINDOW },
            declinesPerSession: { max: 2, windowMs: WINDOW },
            declinesTotal: { max: 4, windowMs: WINDOW },
          },
        });
        // A botnet testing cards: each decline from an address and a session of its own, each one under its limit.
        for (let i = 0; i < 4; i++) {
          const r = await pay(app, await order(DECLINED), from(i));
          assert.equal(r.status, 402, r.text);
        }
        // The shop has had 4: every further charge is refused before the provider, fresh address, session and card.
        for (let i = 4; i < 9; i++) {
          const r = await pay(app, await order(), from(i));
          assert.equal(r.status, 429, r.text);
          assert.equal(r.json.code, 'TESSERA_TOO_MANY_DECLINES');
          assert.equal(r.json.limit, 'declinesTotal');
          assert.equal(r.json.option, 'rateLimits.declinesTotal');
          assert.match(r.json.message, /rateLimits\.declinesTotal/);
          // To the end of the window, which started with the first decline (the sandbox clock follows wall time).
          const retryAfter = Number(r.headers.get('retry-after'));
          assert.ok(retryAfter > 590 && retryAfter <= 600, `Retry-After: ${retryAfter}`);
        }
        assert.equal((await sandboxCharges(sb)).length, 4, 'the refused charges never reached the provider');
        // One warning when the count reached the limit, not one per refused request; counts only, no card data.
        const warnings = app.log.lines.filter((l) => l.event === 'tessera.declines_total_reached');
        assert.equal(warnings.length, 1, JSON.stringify(warnings));
        const { level, count, max, windowMs, limit, resetAt } = warnings[0]!;
        assert.deepEqual(
          { level, count, max, windowMs, limit },
          { level: 40, count: 4, max: 4, windowMs: WINDOW, limit: 'declinesTotal' },
        );
        assert.equal(Date.parse(String(resetAt)) > sb.clock.nowMs(), true);
        assert.deepEqual(
          Object.keys(warnings[0]!)
            .filter((k) => !['time', 'pid', 'hostname', 'name', 'msg'].includes(k))
            .sort(),
          // The request whose decline reached it (docs/decisions/helper.md#helper-log-request-id).
          ['count', 'event', 'level', 'limit', 'max', 'requestId', 'resetAt', 'windowMs'],
        );
        // The window ends: charges pass again.
        sb.clock.advance(WINDOW / 1000);
        const again = await pay(app, await order(), from(9));
        assert.equal(again.status, 201, again.text);
        const declined = await pay(app, await order(DECLINED), from(10));
        assert.equal(declined.status, 402, declined.text);
      });

      it('counts declines learned through 3-D Secure and charges whose outcome is unknown, as the per-IP limits do', async () => {
        const h = await helper({
          rateLimits: { chargesPerIp: false, declinesPerIp: false, declinesTotal: { max: 2, windowMs: WINDOW } },
        });
        const started = await pay(h, await order(THREE_DS, 'order-3ds'));
        assert.equal(started.status, 202, started.text);
        const accept = { accept: 'application/json' };
        const returned = await call(await challenge(started.json.redirectUrl, 'fail'), { headers: accept });
        assert.equal(returned.status, 402, returned.text);
        // The provider charged, then its answer was lost: may be a decline.
        await fault(sb, { method: 'POST', path: '/api2/v2/charges/token', status: 503, phase: 'after', count: 1 });
        const unknown = await pay(h, await order());
        assert.equal(unknown.json.outcomeKnown, false, unknown.text);
        const refused = await pay(h, await order());
        assert.equal(refused.status, 429, refused.text);
        assert.equal(refused.json.limit, 'declinesTotal');
      });

      it('reserves no place: concurrent charges do not wait on each other, and may pass max by those in flight', async () => {
        // Each charge is held in resolveCharge (after the limits) until all six are there: a limit that made them wait
        // on each other would never let the sixth in.
        const all = gate();
        let arrived = 0;
        const h = await helper({
          rateLimits: { chargesPerIp: false, declinesPerIp: false, declinesTotal: { max: 1, windowMs: WINDOW } },
          resolveCharge: async (_req, { orderReference }) => {
            if (++arrived === 6) all.open();
            await all.opened;
            return ORDERS[orderReference] as never;
          },
        });
        const bodies = await Promise.all(Array.from({ length: 6 }, () => order(DECLINED)));
        const answers = await Promise.all(bodies.map((b) => pay(h, b)));
        // All were under way before any was counted: the documented overshoot, at most the charges in flight.
        assert.deepEqual(
          answers.map((r) => r.status),
          [402, 402, 402, 402, 402, 402],
        );
        assert.equal((await pay(h, await order())).status, 429);
        assert.equal(h.log.lines.filter((l) => l.event === 'tessera.declines_total_reached').length, 1);
      });

      it('is off by default: the store is never asked for it, and a charge makes the same store calls as without it', async () => {
        /** The store calls of one approved charge through a helper with these limits, by method and shop-wide or not. */
        const callsOfOneCharge = async (rateLimits: TesseraHelperOptions['rateLimits']) => {
          const calls: string[] = [];
          const store = storeWith((name, args, call) => {
            calls.push(String(args[0]).startsWith('declines:total') ? `${name} declines:total` : name);
            return call();
          });
          // The default limits (per IP on), not this file's.
          const h = await helper({ store, rateLimits });
          const r = await pay(h, await order());
          assert.equal(r.status, 201, r.text);
          return calls.sort();
        };
        const defaults = await callsOfOneCharge({});
        assert.equal(defaults.filter((c) => c.includes('declines:total')).length, 0, defaults.join());
        assert.deepEqual(await callsOfOneCharge({ declinesTotal: false }), defaults);
        const on = await callsOfOneCharge({ declinesTotal: { max: 100, windowMs: WINDOW } });
        assert.deepEqual(on, [...defaults, 'count declines:total'].sort(), 'one store read more with it on');
        // Off, a botnet's declines pass as before (each address under its own limit).
        const app = await proxied(1, {
          rateLimits: { chargesPerIp: false, declinesPerIp: { max: 1, windowMs: WINDOW } },
        });
        for (let i = 0; i < 6; i++) assert.equal((await pay(app, await order(DECLINED), from(i))).status, 402);
        assert.equal((await pay(app, await order(), from(6))).status, 201);
        assert.equal(app.log.lines.filter((l) => l.event === 'tessera.declines_total_reached').length, 0);
      });

      it('fails closed when the count cannot be read: 503 before the provider, and the per-IP reservation given back', async () => {
        let down = true;
        const store = storeWith((name, args, call) =>
          down && name === 'count' && args[0] === 'declines:total'
            ? Promise.reject(new StoreUnavailableError('the shared store cannot be reached; nothing was done'))
            : call(),
        );
        const h = await helper({
          store,
          rateLimits: {
            chargesPerIp: false,
            declinesPerIp: { max: 1, windowMs: WINDOW },
            declinesTotal: { max: 10, windowMs: WINDOW },
          },
        });
        for (let i = 0; i < 3; i++) {
          const r = await pay(h, await order());
          assert.equal(r.status, 503, r.text);
          assert.equal(r.json.code, 'TESSERA_STORE_UNAVAILABLE');
          assert.equal(r.json.outcomeKnown, true);
          assert.equal(r.headers.get('retry-after'), '1');
        }
        assert.equal((await sandboxCharges(sb)).length, 0, 'nothing reached the provider');
        down = false;
        // Three refused charges held no place in the per-IP limit of 1: a decline still goes through, then 429.
        assert.equal((await pay(h, await order(DECLINED))).status, 402);
        const blocked = await pay(h, await order());
        assert.equal(blocked.status, 429, blocked.text);
        assert.equal(blocked.json.limit, 'declinesPerIp', "the shopper's own limit is named before the shop's");
      });
    });

    it('warns once when trust proxy is true, since any client then chooses its own IP', async () => {
      const app = await proxied(true);
      for (let i = 0; i < 3; i++) await pay(app, {}, { 'x-forwarded-for': `198.51.100.${i}` });
      const warnings = app.log.lines.filter((l) => l.event === 'tessera.trust_proxy');
      assert.equal(warnings.length, 1);
      assert.match(String(warnings[0]!.msg), /trust proxy` is true/);
    });

    it('answers an X-Forwarded-Proto that is neither https nor http with 400 naming it, before any charge', async () => {
      // Behind a trusted proxy the helper's own URL (for return targets and the 3-D Secure return) takes its scheme.
      const app = await proxied(1);
      for (const [proto, status] of [
        ['javascript', 400],
        ['https', 201],
      ] as const) {
        const r = await pay(app, { ...(await order()), successUrl: '/done' }, { 'x-forwarded-proto': proto });
        assert.equal(r.status, status, r.text);
        if (status === 400) assert.equal(r.json.field, 'x-forwarded-proto');
      }
      assert.equal((await sandboxCharges(sb)).length, 1);
    });

    it('counts every request before reading its body, and invalid ones do not spend the charge budget', async () => {
      const h = await helper({
        rateLimits: {
          requestsPerIp: { max: 25, windowMs: 600_000 },
          chargesPerIp: { max: 2, windowMs: 600_000 },
          declinesPerIp: false,
        },
      });
      for (let i = 0; i < 20; i++) assert.equal((await pay(h, {})).status, 400);
      // Twenty invalid bodies later, a shopper behind the same IP still pays.
      const ok = await pay(h, await order());
      assert.equal(ok.status, 201, ok.text);
      for (let i = 0; i < 4; i++) await pay(h, {});
      // The budget is used up: a body that would be refused as card data is not even read.
      const flood = await pay(h, { number: '4242 4242 4242 4242', pad: 'x'.repeat(15_000) });
      assert.equal(flood.status, 429, flood.text);
      assert.equal(flood.json.code, 'TESSERA_RATE_LIMITED');
      assert.equal(flood.json.limit, 'requestsPerIp');
    });

    it('counts 3-D Secure returns in requestsPerIp: a flood of unfinished returns stops reaching the provider', async () => {
      const h = await helper({ rateLimits: { requestsPerIp: { max: 5, windowMs: 600_000 }, declinesPerIp: false } });
      const started = await pay(h, await order(THREE_DS, 'order-3ds'));
      assert.equal(started.status, 202, started.text);
      const token = new URL(started.json.redirectUrl, sb.url).pathname.split('/').pop();
      const reads = async () =>
        ((await call(`${sb.url}/_sandbox/requests?limit=200`)).json.data as { method: string; path: string }[]).filter(
          (e) => e.method === 'GET' && e.path === `/api2/v2/charges/${token}`,
        ).length;
      const unfinished = `${h.url}/charges/3ds-return?cko-payment-token=${token}`;
      const answers: number[] = [];
      for (let i = 0; i < 10; i++) answers.push((await call(unfinished)).status);
      // One request went to the charge itself: four returns, each a provider read, then 429 without one.
      assert.deepEqual(answers, [409, 409, 409, 409, 429, 429, 429, 429, 429, 429]);
      assert.equal(await reads(), 4);
      // A shopper's browser gets a page that offers the same return again, never "paid".
      const page = await fetch(unfinished, { headers: { accept: 'text/html' } });
      const html = await page.text();
      assert.equal(page.status, 429);
      assert.match(html, /<h1>We could not confirm your payment yet<\/h1>/);
      assert.match(html, /TESSERA_RATE_LIMITED/);
      assert.match(html, /<a href="\?cko-payment-token=pay_tok_[A-Za-z0-9]+">Try again<\/a>/);
    });

    it('answers the charge and calls onCharge when the store fails to settle the decline counters after it', async () => {
      const down = Object.assign(new Error('store down'), { code: 'TESSERA_STORE_UNAVAILABLE' });
      let failing = false;
      // The built-in store, except that the give-backs (`unreserve`) and the counters' `hit` fail once the charge is
      // under way.
      const store = storeWith((name, args, call) => {
        const counter = name === 'unreserve' || (name === 'hit' && String(args[0]).startsWith('declines:'));
        return failing && counter ? Promise.reject(down) : call();
      });
      const calls: string[] = [];
      const h = await helper({
        store,
        rateLimits: { chargesPerIp: false, declinesPerIp: { max: 5, windowMs: 600_000 } },
        resolveCharge: (_req, { orderReference }) => {
          failing = true;
          return ORDERS[orderReference] as never;
        },
        onCharge: (charge) => void calls.push(charge.id),
      });
      for (const number of [undefined, DECLINED]) {
        failing = false;
        const r = await pay(h, await order(number));
        assert.equal(r.status, number ? 402 : 201, r.text);
        assert.match(r.json.id, /^charge_/);
        assert.equal(calls.at(-1), r.json.id, 'the merchant learns the outcome');
      }
      // A decline learned at the 3-D Secure return: counted then, and that count fails too.
      failing = false;
      const started = await pay(h, await order(THREE_DS, 'order-3ds'));
      assert.equal(started.status, 202, started.text);
      const returned = await call(await challenge(started.json.redirectUrl, 'fail'), {
        headers: { accept: 'application/json' },
      });
      assert.equal(returned.status, 402, returned.text);
      assert.equal(calls.at(-1), returned.json.id);
      const unsettled = h.log.lines.filter((l) => l.event === 'tessera.declines.unsettled');
      assert.deepEqual(
        unsettled.map((l) => l.kept),
        [false, true, false, true],
        'the give-backs (approval, 3-D Secure pending) and the two declines’ counts are logged',
      );
    });
  });

  describe('who may read a stored result', () => {
    it('replays a charge to its own session only', async () => {
      const h = await helper();
      const body = await order();
      const first = await pay(h, body, { 'x-session': 'owner' });
      assert.equal(first.status, 201);
      const other = await pay(h, body, { 'x-session': 'someone-else' });
      assert.equal(other.status, 409, other.text);
      assert.equal(other.json.code, 'TESSERA_CARD_TOKEN_USED');
      assert.ok(!other.text.includes(first.json.id), 'no detail of the charge');
      const none = await pay(h, body);
      assert.equal(none.status, 409);
      const again = await pay(h, body, { 'x-session': 'owner' });
      assert.equal(again.status, 201);
      assert.equal(again.json.id, first.json.id);
    });

    it('replays a charge made without a session to the same IP only', async () => {
      const app = await proxied('loopback');
      const body = await order();
      const first = await pay(app, body, { 'x-forwarded-for': '203.0.113.5' });
      assert.equal(first.status, 201);
      const other = await pay(app, body, { 'x-forwarded-for': '203.0.113.6' });
      assert.equal(other.status, 409);
      assert.ok(!other.text.includes(first.json.id));
      const same = await pay(app, body, { 'x-forwarded-for': '203.0.113.5' });
      assert.equal(same.json.id, first.json.id);
    });
  });

  describe('a retry once the store forgot the first answer (a restart, a flushed Redis)', () => {
    /** The charge requests the sandbox answered with `status` (the refused retries are logged too). */
    const chargeRequests = async (status: number) => (await sandboxCharges(sb)).filter((e) => e.status === status);
    /** Asserts the 409 of a token the provider refused as already sent with other details: never "another card". */
    function alreadySent(r: Answer): void {
      assert.equal(r.status, 409, r.text);
      assert.equal(r.json.code, 'TESSERA_CHARGE_ALREADY_SENT');
      assert.equal(r.json.field, 'cardToken');
      assert.equal(r.json.outcomeKnown, false);
      assert.match(r.json.message, /already sent/);
      assert.match(r.json.message, /onCharge/);
      assert.doesNotMatch(r.json.message, /; ask for the card again/);
      assert.ok(!('id' in r.json) && !('chargeId' in r.json), r.text);
    }

    it('from another address behind trust proxy: 409 TESSERA_CHARGE_ALREADY_SENT, outcome unknown, no onCharge, a warning naming the order; the first address still gets the charge', async () => {
      const shopper = { 'x-session': 'shopper' };
      const first = await proxied(1);
      const body = await order();
      const paid = await pay(first, body, { ...shopper, 'x-forwarded-for': '203.0.113.5' });
      assert.equal(paid.status, 201, paid.text);
      // The instance restarts: its MemoryStore starts empty, and so knows nothing of the charge.
      const delivered: ChargeEvent[] = [];
      const restarted = await proxied(1, { onCharge: (charge) => void delivered.push(charge) });
      // The phone changed network: the same request from another address is another body for the provider.
      const moved = { ...shopper, 'x-forwarded-for': '198.51.100.9' };
      alreadySent(await pay(restarted, body, moved));
      assert.equal(delivered.length, 0, 'no outcome to give onCharge');
      const warned = restarted.log.lines.filter((l) => l.event === 'tessera.charge.failed');
      assert.equal(warned.length, 1);
      assert.equal(warned[0]!.level, 40);
      assert.equal(warned[0]!.code, 'TESSERA_CHARGE_ALREADY_SENT');
      assert.equal(warned[0]!.outcomeKnown, false);
      assert.equal(warned[0]!.orderReference, 'order-1');
      assert.match(String(warned[0]!.providerRequestId), /./);
      assert.ok(!restarted.log.text().includes(body.cardToken), 'the token is never logged');
      // Nothing is kept of the refusal: the next retry asks the provider again, and is refused the same way …
      alreadySent(await pay(restarted, body, moved));
      assert.equal((await chargeRequests(422)).length, 2);
      // … while the first request again (the shopper back on the first network) gets the provider's replay of the
      // charge, which the helper then answers, stores and gives onCharge.
      const back = await pay(restarted, body, { ...shopper, 'x-forwarded-for': '203.0.113.5' });
      assert.equal(back.status, 201, back.text);
      assert.equal(back.json.id, paid.json.id);
      assert.deepEqual(
        delivered.map((c) => c.id),
        [paid.json.id],
      );
      assert.equal((await chargeRequests(200)).length, 2, 'one charge, then its replay');
      assert.equal((await pay(restarted, body, moved)).json.id, paid.json.id, 'stored now: its session reads it');
    });

    it('priced otherwise by resolveCharge (the cart changed): the same 409, and the provider made one charge', async () => {
      const first = await helper();
      const body = await order();
      assert.equal((await pay(first, body)).status, 201);
      const restarted = await helper({ resolveCharge: () => ({ amount: 2600, currency: 'EUR' }) });
      alreadySent(await pay(restarted, body));
      const charges = (await sandboxCharges(sb)).filter((e) => e.status !== 422);
      assert.equal(charges.length, 1);
    });
  });

  describe('onCharge', () => {
    it('is called once per approved or declined charge, with the safe summary, before the answer', async () => {
      const calls: [ChargeEvent, OnChargeContext['source']][] = [];
      const h = await helper({
        onCharge: async (charge, context) => {
          await new Promise((r) => setTimeout(r, 20));
          calls.push([charge, context.source]);
        },
      });
      const body = await order(undefined, 'order-track');
      const answers = await Promise.all([pay(h, body), pay(h, body), pay(h, body)]);
      assert.equal((await pay(h, body)).status, 201);
      for (const r of answers) assert.equal(r.status, 201);
      assert.equal(calls.length, 1);
      const [event, source] = calls[0]!;
      assert.equal(source, 'charge');
      assert.deepEqual(event, {
        id: answers[0]!.json.id,
        status: answers[0]!.json.status,
        approved: true,
        responseCode: '10000',
        amount: 2500,
        currency: 'EUR',
        trackId: 'trk-1',
        orderReference: 'order-track',
        card: { brand: 'Visa', last4: '4242', expiryMonth: 12, expiryYear: 2030 },
      });
      const declined = await pay(h, await order(DECLINED));
      assert.equal(declined.status, 402);
      assert.equal(calls.length, 2);
      assert.equal(calls[1]![0].approved, false);
      assert.equal(calls[1]![0].responseCode, '20005');
      assert.ok(!JSON.stringify(calls).includes('4242424242424242'));
    });

    it('after 3-D Secure: from the return, or from a later POST when the return was skipped', async () => {
      const calls: [ChargeEvent, OnChargeContext['source']][] = [];
      const h = await helper({ onCharge: (charge, context) => void calls.push([charge, context.source]) });
      const body = await order(THREE_DS, 'order-3ds');
      const r = await pay(h, body);
      assert.equal(calls.length, 0, 'pending is not final');
      const back = await call(await challenge(r.json.redirectUrl, 'pass'), { headers: { accept: 'application/json' } });
      assert.equal(back.status, 201);
      assert.equal((await pay(h, body)).status, 201);
      assert.deepEqual(
        calls.map(([e, s]) => [e.id, e.status, s]),
        [[back.json.id, back.json.status, '3ds-return']],
      );
      const skipped = await order(THREE_DS, 'order-3ds');
      await challenge((await pay(h, skipped)).json.redirectUrl, 'fail');
      assert.equal((await pay(h, skipped)).status, 402);
      assert.equal((await pay(h, skipped)).status, 402);
      assert.equal(calls.length, 2);
      assert.equal(calls[1]![1], 'charge');
      assert.equal(calls[1]![0].approved, false);
    });

    it('when it throws on the 3-D Secure return, a browser gets a page (not JSON) that never says paid and offers the same return again', async () => {
      let fail = true;
      const h = await helper({
        onCharge: () => {
          if (fail) throw new Error('orders table is locked');
        },
      });
      const body = { ...(await order(THREE_DS, 'order-3ds')), successUrl: '/order/done' };
      const back = await passedThreeDs(h, body);
      const navigate = (url: string) =>
        fetch(new URL(url, h.url), {
          headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
          redirect: 'manual',
        });
      const page = await navigate(back);
      const html = await page.text();
      assert.equal(page.status, 503);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      assert.equal(page.headers.get('cache-control'), 'no-store');
      assert.match(html, /<h1>We could not confirm your payment yet<\/h1>/);
      assert.match(html, /TESSERA_ON_CHARGE_FAILED/);
      assert.match(html, /payment charge_[A-Za-z0-9]+/);
      assert.ok(!/approved|paid|orders table/i.test(html), html);
      // The retry link is the same return, relative to it, with the payment token encoded.
      const link = /<a href="([^"]+)">Try again<\/a>/.exec(html)?.[1];
      assert.equal(link, `?${new URL(back, h.url).searchParams.toString()}`);
      // A fetch that asks for JSON still gets the JSON error.
      const json = await call(new URL(back, h.url).href, { headers: { accept: 'application/json' } });
      assert.equal(json.status, 503);
      assert.equal(json.json.code, 'TESSERA_ON_CHARGE_FAILED');
      // Once the shop records it, following the link sends the shopper on to the success page.
      fail = false;
      const done = await navigate(new URL(link!, new URL(back, h.url)).href);
      assert.equal(done.status, 303);
      assert.match(done.headers.get('location') ?? '', /^\/order\/done\?chargeId=charge_/);
    });

    it('an unknown payment token on the return is a page without a retry link for a browser', async () => {
      const h = await helper();
      const page = await fetch(`${h.url}/charges/3ds-return?cko-payment-token=pay_tok_unknown123`, {
        headers: { accept: 'text/html' },
      });
      const html = await page.text();
      assert.equal(page.status, 404);
      assert.match(html, /<h1>This payment could not be confirmed<\/h1>/);
      assert.match(html, /TESSERA_UNKNOWN_PAYMENT/);
      assert.ok(!html.includes('Try again'), html);
    });

    it('when it throws: 503 with the charge id (never "paid"), the cause logged, and a retry calls it again', async () => {
      let fail = true;
      const calls: string[] = [];
      const h = await helper({
        onCharge: (charge) => {
          calls.push(charge.id);
          if (fail) throw new Error('orders table is locked');
        },
      });
      const body = await order();
      const r = notRecorded(await pay(h, body));
      const line = h.log.lines.find((l) => l.event === 'tessera.on_charge.failed')!;
      const cause = line.cause as { message: string; stack: string };
      assert.equal(cause.message, 'orders table is locked');
      assert.match(cause.stack, /charge-outcomes\.test\.ts/);
      assert.equal((await pay(h, body)).status, 503, 'still failing: still not "paid"');
      fail = false;
      const retry = await pay(h, body);
      assert.equal(retry.status, 201, retry.text);
      assert.equal(retry.json.id, r.json.chargeId);
      assert.equal((await pay(h, body)).status, 201);
      assert.deepEqual(calls, [r.json.chargeId, r.json.chargeId, r.json.chargeId]);
      assert.equal((await sandboxCharges(sb)).length, 1);
    });

    it('when the store fails around the call, after the charge was made: 503 with the charge id, never "nothing was charged"', async () => {
      // The store's own 503 says `outcomeKnown: true` and "nothing was done", right only before the provider call.
      for (const step of ['claimAndGet', 'setAndRelease'] as const) {
        let failing = true;
        const store = storeFailing((name, key) => failing && name === step && key.startsWith('oncharge:'));
        const calls: string[] = [];
        const h = await helper({ store, onCharge: (charge) => void calls.push(charge.id) });
        const body = await order();
        const r = notRecorded(await pay(h, body));
        assert.ok(!/nothing was/i.test(r.text), `${step}: ${r.text}`);
        failing = false;
        const retry = await pay(h, body);
        assert.equal(retry.status, 201, `${step}: ${retry.text}`);
        assert.equal(retry.json.id, r.json.chargeId);
        assert.equal(calls.at(-1), r.json.chargeId);
      }
      assert.equal((await sandboxCharges(sb)).length, 2);
    });

    it('when it throws a value that is no Error and cannot be made a string: the same 503 and log line, never the helper’s own 500', async () => {
      let fail = true;
      const h = await helper({
        onCharge: () => {
          // String() of an object without a prototype throws: it used to escape as a TypeError, 500 TESSERA_INTERNAL.
          if (fail) throw Object.create(null);
        },
      });
      const body = await order();
      const r = notRecorded(await pay(h, body));
      const line = h.log.lines.find((l) => l.event === 'tessera.on_charge.failed');
      assert.ok(line, h.log.text());
      assert.equal(line.chargeId, r.json.chargeId);
      fail = false;
      const retry = await pay(h, body);
      assert.equal(retry.status, 201, retry.text);
      assert.equal(retry.json.id, r.json.chargeId);
    });
  });

  describe('what a hook threw, in the log', () => {
    /** An Error with a code and a cause, one whose message cannot be read, and a value that is no Error. */
    const thrown = (): [string, unknown, Record<string, unknown> | string][] => [
      [
        'an Error with a code and a cause',
        Object.assign(
          new TypeError('orders table is locked', {
            cause: Object.assign(new Error('ECONNRESET'), { code: 'ECONNRESET' }),
          }),
          {
            code: 'E_LOCKED',
          },
        ),
        {
          type: 'TypeError',
          message: 'orders table is locked',
          code: 'E_LOCKED',
          cause: { type: 'Error', message: 'ECONNRESET', code: 'ECONNRESET' },
        },
      ],
      [
        'an Error whose message getter throws',
        Object.defineProperty(new Error('m'), 'message', {
          get() {
            throw new Error('getter');
          },
        }),
        { type: 'Error', message: '[a value that could not be read]' },
      ],
      [
        'an object',
        { code: 'E_DB', detail: 'card 4242 4242 4242 4242' },
        { code: 'E_DB', detail: 'card [redacted-card]' },
      ],
      [
        // A key is cleaned like any string of the line: it was written as it was.
        'an object and an Error keyed by a card number',
        { '4242 4242 4242 4242': 'declined', cause: Object.assign(new Error('e'), { '4242424242424242': 'x' }) },
        { '[redacted-card]': 'declined', cause: { type: 'Error', message: 'e', '[redacted-card]': 'x' } },
      ],
    ];
    const noStacks = (v: unknown): unknown => {
      if (!v || typeof v !== 'object') return v;
      const { stack: _stack, cause, ...rest } = v as Record<string, unknown>;
      return { ...rest, ...(cause === undefined ? {} : { cause: noStacks(cause) }) };
    };

    it('onCharge: the cause in the shape of every error line (class, code, causes), and a throwing getter still answers 503', async () => {
      for (const [what, value, expected] of thrown()) {
        const h = await helper({
          onCharge: () => {
            throw value;
          },
        });
        // Before, an Error whose message getter threw escaped the log line: 500 TESSERA_INTERNAL after a charge.
        const r = notRecorded(await pay(h, await order()));
        const line = h.log.lines.find((l) => l.event === 'tessera.on_charge.failed')!;
        assert.equal(line.chargeId, r.json.chargeId, what);
        assert.deepEqual(noStacks(line.cause), expected, what);
      }
    });

    it('resolveCharge: the same shape, and a throwing getter is its 500 TESSERA_RESOLVE_CHARGE_FAILED', async () => {
      for (const [what, value, expected] of thrown()) {
        const h = await helper({
          resolveCharge: () => {
            throw value;
          },
        });
        const r = await pay(h, await order());
        assert.equal(r.status, 500, `${what}: ${r.text}`);
        assert.equal(r.json.code, 'TESSERA_RESOLVE_CHARGE_FAILED', what);
        const line = h.log.lines.find((l) => l.event === 'tessera.resolve_charge.failed')!;
        assert.deepEqual(noStacks(line.cause), expected, what);
      }
      assert.equal((await sandboxCharges(sb)).length, 0);
    });

    it('a thrown value that holds itself many times is written within a bound, and the charge answered as usual', async () => {
      // Eight levels deep, six ways each (1.7 million values), and an AggregateError whose errors are itself 12 times
      // (20,736 errors, a stack each): the line was walked in full. With 300, the event loop was held for hours.
      const wide: Record<string, unknown> = {};
      for (const k of ['a', 'b', 'c', 'd', 'e', 'f']) wide[k] = wide;
      const aggregate = new AggregateError([], 'many');
      Object.defineProperty(aggregate, 'errors', { value: Array(12).fill(aggregate) });
      for (const value of [wide, aggregate]) {
        const h = await helper({
          onCharge: () => {
            throw value;
          },
        });
        const started = Date.now();
        notRecorded(await pay(h, await order()));
        assert.ok(Date.now() - started < 2000, `answered in ${Date.now() - started} ms`);
        const line = h.log.lines.find((l) => l.event === 'tessera.on_charge.failed')!;
        const written = JSON.stringify(line.cause);
        assert.ok(written.length < 1_000_000, `${written.length} characters`);
        assert.ok(written.includes('[too many values]'), written.slice(0, 200));
      }
    });
  });

  describe('hooks that take too long (hookTimeoutMs)', () => {
    it('resolveCharge: 503 TESSERA_HOOK_TIMEOUT with nothing charged, and the same request charged once it answers in time', async () => {
      let slow = true;
      const h = await helper({
        hookTimeoutMs: 200,
        resolveCharge: async (_req, { orderReference }) => {
          if (slow) await new Promise(() => {});
          return ORDERS[orderReference] as never;
        },
      });
      const body = await order();
      const r = await pay(h, body);
      assert.equal(r.status, 503, r.text);
      assert.equal(r.json.code, 'TESSERA_HOOK_TIMEOUT');
      assert.equal(r.json.outcomeKnown, true);
      assert.equal(r.headers.get('retry-after'), '2');
      const line = h.log.lines.find((l) => l.event === 'tessera.hook.timeout');
      assert.equal(line?.hook, 'resolveCharge');
      assert.equal(line?.level, 50);
      assert.equal((await sandboxCharges(sb)).length, 0, 'nothing reached the provider');
      slow = false;
      const again = await pay(h, body);
      assert.equal(again.status, 201, again.text);
      assert.equal((await sandboxCharges(sb)).length, 1);
    });

    it('onCharge: 503 TESSERA_ON_CHARGE_FAILED with the charge id, the call goes on and is recorded, and a retry answers the charge', async () => {
      const calls: string[] = [];
      let outcome = gate();
      let fail = false;
      const h = await helper({
        hookTimeoutMs: 200,
        onCharge: async (charge) => {
          calls.push(charge.id);
          await outcome.opened;
          if (fail) throw new Error('orders table is locked');
        },
      });
      const body = await order();
      const r = notRecorded(await pay(h, body));
      assert.equal(h.log.lines.find((l) => l.event === 'tessera.hook.timeout')?.hook, 'onCharge');
      // The call that timed out resolves later: it is recorded, and the retry answers without calling it again.
      outcome.open();
      const retry = await pay(h, body);
      assert.equal(retry.status, 201, retry.text);
      assert.equal(retry.json.id, r.json.chargeId);
      assert.deepEqual(calls, [r.json.chargeId]);
      // One that rejects after its time is not recorded: the next retry calls the hook again.
      const other = await order(undefined, 'order-track');
      outcome = gate();
      fail = true;
      const first = notRecorded(await pay(h, other));
      outcome.open();
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(h.log.lines.some((l) => l.event === 'tessera.on_charge.failed' && l.chargeId === first.json.chargeId));
      fail = false;
      const second = await pay(h, other);
      assert.equal(second.status, 201, second.text);
      assert.deepEqual(calls, [r.json.chargeId, first.json.chargeId, first.json.chargeId]);
      assert.equal((await sandboxCharges(sb)).length, 2);
    });
  });

  describe('several instances sharing one store', () => {
    it('one provider charge and one onCharge for 30 concurrent requests over two instances', async () => {
      const store = new MemoryStore({ now: () => sb.clock.nowMs() });
      const calls: string[] = [];
      const onCharge = (charge: ChargeEvent) => void calls.push(charge.id);
      const a = await helper({ store, onCharge });
      const b = await helper({ store, onCharge });
      const body = await order();
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => pay(i % 2 ? a : b, body)));
      for (const r of answers) assert.equal(r.status, 201, r.text);
      assert.equal(new Set(answers.map((r) => r.json.id)).size, 1);
      assert.equal((await sandboxCharges(sb)).length, 1);
      assert.deepEqual(calls, [answers[0]!.json.id]);
    });

    type StoreKind = 'a MemoryStore' | 'a store without the optional methods';

    /**
     * A store on the sandbox's clock that reports each write to a claim matching `claims`: an extension (`extend`,
     * or `set` where there is none) and each claim won or refused; `next(when)` resolves at the next such write.
     */
    function watchedStore(kind: StoreKind, claims: RegExp) {
      const memory = new MemoryStore({ now: () => sb.clock.nowMs() });
      const watchers: { when: (claimed: boolean) => boolean; resolve: () => void }[] = [];
      const seen = (key: string, claimed: boolean) => {
        if (!claims.test(key)) return;
        for (const w of watchers.splice(0)) (w.when(claimed) ? w.resolve : () => watchers.push(w))();
      };
      const next = (when: (claimed: boolean) => boolean) =>
        new Promise<void>((resolve) => void watchers.push({ when, resolve }));
      const store = requiredMethods(memory, {
        set: async (k, v, t) => {
          await memory.set(k, v, t);
          seen(k, true);
        },
        claim: async (k, v, t) => {
          const won = await memory.claim(k, v, t);
          seen(k, won);
          return won;
        },
        ...(kind === 'a MemoryStore'
          ? {
              claimAndGet: async (k: string, v: string, t: number, key: string) => {
                const answer = await memory.claimAndGet(k, v, t, key);
                seen(k, answer.claimed);
                return answer;
              },
              setAndRelease: (k: string, v: string, t: number, ck: string, cv: string) =>
                memory.setAndRelease(k, v, t, ck, cv),
              extend: async (k: string, v: string, t: number) => {
                const kept = await memory.extend(k, v, t);
                seen(k, kept);
                return kept;
              },
            }
          : {}),
      });
      /**
       * Lets `seconds` of the store's clock pass in steps of 4 s (more than a third of a claim's 10 s, less than two
       * thirds) while an owner holds its claim, as a hook waiting on a locked table would; each step waits for the
       * claim's extension, or 3 s without one.
       */
      async function outlast(seconds: number): Promise<void> {
        for (let passed = 0; passed < seconds; passed += 4) {
          const extended = next((kept) => kept);
          sb.clock.advance(4);
          await Promise.race([extended, new Promise((r) => setTimeout(r, 3000))]);
        }
      }
      return { store, next, outlast };
    }

    /** A hook that records each call and holds every one until `release()`; `first`/`second` open at those calls. */
    function heldHook<A extends unknown[], R>(answer: (...args: A) => R) {
      const calls: A[] = [];
      const [held, first, second] = [gate(), gate(), gate()];
      const hook = async (...args: A): Promise<R> => {
        calls.push(args);
        (calls.length === 1 ? first : second).open();
        await held.opened;
        return answer(...args);
      };
      return { hook, calls, first: first.opened, second: second.opened, release: held.open };
    }

    /**
     * Pays `order()` on instance `a`, lets `seconds` pass while its hook is held, then pays the same on `b`: whether
     * `b` found the claim held and waited, or called the hook a second time. Both answers once the hook is released.
     */
    async function whileHeld(
      watched: ReturnType<typeof watchedStore>,
      held: { readonly first: Promise<void>; readonly second: Promise<void>; release(): void },
      extra: Partial<TesseraHelperOptions>,
      seconds: number,
    ) {
      const a = await helper({ store: watched.store, ...extra });
      const b = await helper({ store: watched.store, ...extra });
      const body = await order();
      const first = pay(a, body);
      await held.first;
      await watched.outlast(seconds);
      const refused = watched.next((claimed) => !claimed);
      const other = pay(b, body);
      const outcome = await Promise.race([refused.then(() => 'waits'), held.second.then(() => 'called again')]);
      held.release();
      const [done, same] = await Promise.all([first, other]);
      return { outcome, done, same };
    }

    for (const kind of ['a MemoryStore', 'a store without the optional methods'] as const) {
      it(`an onCharge slower than its claim is not called again by another instance while it runs (${kind})`, async () => {
        const watched = watchedStore(kind, /^oncharge:.*:claim$/);
        const held = heldHook((_charge: ChargeEvent) => undefined);
        // Past the delivery claim's 10 s, and the 30 s it once was, while the first call still runs.
        const { outcome, done, same } = await whileHeld(watched, held, { onCharge: held.hook }, 36);
        assert.equal(outcome, 'waits', 'the other instance waits for the running call');
        assert.equal(done.status, 201, done.text);
        assert.equal(same.status, 201, same.text);
        assert.equal(same.json.id, done.json.id);
        assert.deepEqual(
          held.calls.map(([charge]) => charge.id),
          [done.json.id],
          'onCharge once',
        );
        assert.equal((await sandboxCharges(sb)).length, 1);
      });

      it(`a resolveCharge slower than the token's claim keeps another instance from charging the token meanwhile (${kind})`, async () => {
        const watched = watchedStore(kind, /:claim$/);
        const held = heldHook(
          (
            _req: Parameters<TesseraHelperOptions['resolveCharge']>[0],
            { orderReference }: { orderReference: string },
          ) => ORDERS[orderReference] as never,
        );
        // Past the token claim's 10 s, while the first request still prices the order.
        const { outcome, done, same } = await whileHeld(watched, held, { resolveCharge: held.hook }, 24);
        assert.equal(outcome, 'waits', 'the other instance waits for the first charge');
        assert.equal(done.status, 201, done.text);
        assert.equal(same.json.id, done.json.id, same.text);
        assert.deepEqual(
          held.calls.map(([, body]) => body.orderReference),
          ['order-1'],
          'priced once',
        );
        assert.equal((await sandboxCharges(sb)).length, 1, 'one call to the provider');
      });
    }

    it('a store without the optional claimAndGet and setAndRelease still makes one charge and one onCharge for 30 concurrent requests', async () => {
      const memory = new MemoryStore({ now: () => sb.clock.nowMs() });
      const used: string[] = [];
      const noted = <T>(name: string, result: T): T => {
        used.push(name);
        return result;
      };
      // Only the seven methods every TesseraStore has, as a store of the merchant's own would.
      const store: TesseraStore = {
        get: (k) => noted('get', memory.get(k)),
        set: (k, v, t) => noted('set', memory.set(k, v, t)),
        hit: (k, w) => memory.hit(k, w),
        count: (k) => memory.count(k),
        unhit: (k) => memory.unhit(k),
        claim: (k, v, t) => noted('claim', memory.claim(k, v, t)),
        release: (k, v) => noted('release', memory.release(k, v)),
      };
      const calls: string[] = [];
      const onCharge = (charge: ChargeEvent) => void calls.push(charge.id);
      const a = await helper({ store, onCharge });
      const b = await helper({ store, onCharge });
      const body = await order();
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => pay(i % 2 ? a : b, body)));
      for (const r of answers) assert.equal(r.status, 201, r.text);
      assert.equal(new Set(answers.map((r) => r.json.id)).size, 1);
      assert.equal((await sandboxCharges(sb)).length, 1);
      assert.deepEqual(calls, [answers[0]!.json.id]);
      assert.ok(used.includes('claim') && used.includes('release'), used.join());
      assert.equal(used.filter((u) => u === 'set').length, 2, 'the answer and its delivery stored once each');
      await new Promise((r) => setImmediate(r));
      assert.equal(await memory.get(`${resultKey(body.cardToken)}:claim`), undefined, 'the token’s claim given back');
      assert.equal(await memory.get(`oncharge:${calls[0]}:claim`), undefined, 'the delivery’s claim given back');
    });

    it('a store of the merchant’s own that throws its own error: 503 TESSERA_STORE_UNAVAILABLE, nothing charged, never the helper’s 500', async () => {
      const memory = new MemoryStore({ now: () => sb.clock.nowMs() });
      let down = true;
      const fails = <T>(call: () => Promise<T>): Promise<T> =>
        down ? Promise.reject(new Error('ECONNRESET from our database driver')) : call();
      const store: TesseraStore = {
        get: (k) => memory.get(k),
        set: (k, v, t) => memory.set(k, v, t),
        hit: (k, w) => fails(() => memory.hit(k, w)),
        count: (k) => memory.count(k),
        unhit: (k) => memory.unhit(k),
        // A synchronous throw, as a careless store may.
        claim: (k, v, t) => {
          if (down) throw new TypeError('our driver is not connected');
          return memory.claim(k, v, t);
        },
        release: (k, v) => memory.release(k, v),
      };
      const h = await helper({ store });
      const body = await order();
      const made = (await sandboxCharges(sb)).length;
      const refused = await pay(h, body);
      assert.equal(refused.status, 503, refused.text);
      assert.deepEqual([refused.json.code, refused.json.outcomeKnown], ['TESSERA_STORE_UNAVAILABLE', true]);
      assert.equal(refused.headers.get('retry-after'), '1');
      assert.ok(!refused.text.includes('ECONNRESET'), 'the driver’s message stays in the log');
      assert.equal((await sandboxCharges(sb)).length, made, 'nothing charged');
      assert.ok(h.log.text().includes('ECONNRESET'), 'the cause is logged');
      down = false;
      const charged = await pay(h, body);
      assert.equal(charged.status, 201, charged.text);
    });

    it('a store of the merchant’s own that does not answer: 503 TESSERA_STORE_UNAVAILABLE within its bound, never a request left open', async () => {
      const memory = new MemoryStore({ now: () => sb.clock.nowMs() });
      // A driver with no timeout of its own: the token's claim is taken 6 s later, after the request was answered.
      let slow = true;
      let landed: Promise<unknown> | undefined;
      const store = requiredMethods(memory, {
        claim: (k, v, t) => {
          if (!slow) return memory.claim(k, v, t);
          const late = new Promise((resolve) => setTimeout(resolve, STORE_CALL_TIMEOUT_MS + 1000)).then(() =>
            memory.claim(k, v, t),
          );
          landed = late;
          return late;
        },
      });
      const h = await helper({ store });
      const body = await order();
      const made = (await sandboxCharges(sb)).length;
      const started = Date.now();
      const refused = await pay(h, body);
      const took = Date.now() - started;
      assert.equal(refused.status, 503, refused.text);
      assert.deepEqual([refused.json.code, refused.json.outcomeKnown], ['TESSERA_STORE_UNAVAILABLE', true]);
      assert.ok(took >= STORE_CALL_TIMEOUT_MS - 100 && took < STORE_CALL_TIMEOUT_MS + 900, `answered in ${took} ms`);
      assert.equal((await sandboxCharges(sb)).length, made, 'nothing charged');
      assert.match(JSON.stringify(h.log.lines.find((l) => l.event === 'tessera.error')), /did not answer within/);
      // The claim it took when it landed is given back: the shopper's retry is charged at once, not 10 s later.
      slow = false;
      await landed;
      await new Promise((r) => setImmediate(r));
      const retried = Date.now();
      const charged = await pay(h, body);
      assert.equal(charged.status, 201, charged.text);
      assert.ok(Date.now() - retried < 2000, `answered in ${Date.now() - retried} ms`);
    });

    it('a store of the merchant’s own whose decline reservation lands after the 503: given back, the next charge not refused', async () => {
      const memory = new MemoryStore({ now: () => sb.clock.nowMs() });
      // A driver with no timeout of its own, on a pool: the reservation lands 6 s later, after the request was
      // answered and after its own give-back, which the pool ran at once on another connection.
      let slow = true;
      let landed: Promise<unknown> | undefined;
      const store = requiredMethods(memory, {
        reserve: (k, id, t) => {
          if (!slow) return memory.reserve(k, id, t);
          slow = false;
          landed = new Promise((resolve) => setTimeout(resolve, STORE_CALL_TIMEOUT_MS + 1000)).then(() =>
            memory.reserve(k, id, t),
          );
          return landed as Promise<{ count: number; resetAtMs: number }>;
        },
        unreserve: (k, id) => memory.unreserve(k, id),
      });
      const h = await helper({
        store,
        rateLimits: { chargesPerIp: false, declinesPerIp: { max: 1, windowMs: 600_000 } },
      });
      const refused = await pay(h, await order());
      assert.equal(refused.status, 503, refused.text);
      assert.deepEqual([refused.json.code, refused.json.outcomeKnown], ['TESSERA_STORE_UNAVAILABLE', true]);
      await landed;
      await new Promise((r) => setImmediate(r));
      // The reservation it made when it landed is given back: the shopper's next charge goes through at once. Left in
      // place, it filled the limit of one for ten minutes: the charge waited 3 s for it, then 429 with no decline.
      const started = Date.now();
      const charged = await pay(h, await order());
      assert.equal(charged.status, 201, charged.text);
      assert.ok(Date.now() - started < 2000, `answered in ${Date.now() - started} ms`);
    });

    it('a new charge and its onCharge take four calls of the built-in store; a replay two, and leaves no claim behind', async () => {
      const memory = new MemoryStore({ now: () => sb.clock.nowMs() });
      const used: string[] = [];
      // Every method call of the store, by name.
      const store = storeWith((name, _args, call) => {
        used.push(name);
        return call();
      }, memory);
      const calls: string[] = [];
      const off = { requestsPerIp: false, chargesPerIp: false, declinesPerIp: false } as const;
      const h = await helper({ store, rateLimits: off, onCharge: (charge) => void calls.push(charge.id) });
      const body = await order();
      const first = await pay(h, body);
      assert.equal(first.status, 201, first.text);
      // The token: claimed and read, then answered and given back; the delivery: the same two steps.
      assert.deepEqual(used, ['claimAndGet', 'setAndRelease', 'claimAndGet', 'setAndRelease']);
      assert.equal(await memory.get(`${resultKey(body.cardToken)}:claim`), undefined);
      assert.equal(await memory.get(`oncharge:${first.json.id}:claim`), undefined);
      used.length = 0;
      const replay = await pay(h, body);
      assert.equal(replay.status, 201, replay.text);
      assert.equal(replay.json.id, first.json.id);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(used.sort(), ['claimAndGet', 'claimAndGet', 'release', 'release']);
      assert.equal(await memory.get(`${resultKey(body.cardToken)}:claim`), undefined);
      assert.equal(await memory.get(`oncharge:${first.json.id}:claim`), undefined);
      assert.deepEqual(calls, [first.json.id], 'onCharge once');
    });

    it('waits on the store six times in a row for an approved charge with a session and the default limits', async () => {
      // A store that pipelines, as ioredis does: calls made in the same turn of the event loop leave together and
      // are answered together a turn later, one round trip; a call made after that answer starts another.
      let batch: (() => void)[] | undefined;
      let trips = 0;
      const store = storeWith(async (_name, _args, call) => {
        if (!batch) {
          const next: (() => void)[] = [];
          batch = next;
          trips++;
          setImmediate(() => {
            batch = undefined;
            for (const answer of next) answer();
          });
        }
        await new Promise<void>((resolve) => batch!.push(resolve));
        return call();
      });
      const h = await helper({
        store,
        rateLimits: {
          requestsPerIp: { max: 100, windowMs: 600_000 },
          chargesPerIp: { max: 20, windowMs: 600_000 },
          chargesPerSession: { max: 10, windowMs: 600_000 },
          declinesPerIp: { max: 5, windowMs: 600_000 },
          declinesPerSession: { max: 3, windowMs: 600_000 },
        },
      });
      const r = await pay(h, await order(), { 'x-session': 'shopper-trips' });
      assert.equal(r.status, 201, r.text);
      // Request budget; charge budgets; claim and read; in-flight hits; known counts; answer with give-backs.
      assert.equal(trips, 6);
    });

    it('a claim left by a dead instance expires, and the next request charges once', async () => {
      const store = new MemoryStore({ now: () => sb.clock.nowMs() });
      const h = await helper({ store, providerTimeoutMs: 100, providerMaxRetries: 0 });
      const body = await order();
      // What an instance killed in the middle of a charge leaves: a claim and no answer.
      assert.equal(await store.claim(`${resultKey(body.cardToken)}:claim`, 'dead-instance', 5_100), true);
      const waiting = pay(h, body);
      await new Promise((r) => setTimeout(r, 300));
      sb.clock.advance(6);
      const r = await waiting;
      assert.equal(r.status, 201, r.text);
      assert.equal((await sandboxCharges(sb)).length, 1);
    });
  });

  describe('capture control', () => {
    it('passes autoCapture and autoCapTime to the provider: captured after the time, or authorised until it lapses', async () => {
      ORDERS['order-later'] = { amount: 900, currency: 'EUR', autoCapture: true, autoCapTime: 1.5 };
      ORDERS['order-manual'] = { amount: 900, currency: 'EUR', autoCapture: false };
      const h = await helper();
      const later = await pay(h, await order(undefined, 'order-later'));
      const manual = await pay(h, await order(undefined, 'order-manual'));
      assert.equal(later.status, 201, later.text);
      assert.equal(manual.status, 201, manual.text);
      const l = await sandboxCharge(sb, later.json.id);
      assert.deepEqual([l.autoCapture, l.autoCapTime, l.status], ['y', 1.5, 'Authorised']);
      const m = await sandboxCharge(sb, manual.json.id);
      assert.deepEqual([m.autoCapture, m.status], ['n', 'Authorised']);
      sb.clock.advance(1.4 * 3600);
      assert.equal((await sandboxCharge(sb, later.json.id)).status, 'Authorised');
      sb.clock.advance(0.2 * 3600);
      assert.equal((await sandboxCharge(sb, later.json.id)).status, 'Captured');
      sb.clock.advance(166 * 3600);
      assert.equal((await sandboxCharge(sb, manual.json.id)).status, 'Authorised');
      sb.clock.advance(1 * 3600);
      assert.equal((await sandboxCharge(sb, manual.json.id)).status, 'Expired');
    });

    it('refuses a bad capture answer of resolveCharge with a message naming the field, before any charge', async () => {
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ autoCapture: true }, 'autoCapTime', /required when autoCapture is true/],
        [{ autoCapture: true, autoCapTime: 169 }, 'autoCapTime', /0 to 168/],
        [{ autoCapTime: -1 }, 'autoCapTime', /0 to 168/],
        [{ autoCapTime: '2' }, 'autoCapTime', /hours/],
        [{ autoCapture: 'y', autoCapTime: 2 }, 'autoCapture', /true or false/],
        [{ autoCapture: false, autoCapTime: 2 }, 'autoCapTime', /left out when autoCapture is false/],
      ];
      for (const [extra, field, message] of cases) {
        const h = await helper({ resolveCharge: () => ({ amount: 100, currency: 'EUR', ...extra }) as never });
        const r = await pay(h, await order());
        assert.equal(r.status, 500, r.text);
        assert.equal(r.json.code, 'TESSERA_RESOLVE_CHARGE_INVALID');
        assert.equal(r.json.field, field, JSON.stringify(extra));
        assert.match(r.json.message, message);
      }
      assert.equal((await sandboxCharges(sb)).length, 0);
    });
  });

  describe('smaller items', () => {
    it('logs what resolveCharge threw, message and stack, while the shopper gets a generic 500', async () => {
      const h = await helper({
        resolveCharge: () => {
          throw new Error('db down');
        },
      });
      const r = await pay(h, await order());
      assert.equal(r.status, 500);
      assert.equal(r.json.code, 'TESSERA_RESOLVE_CHARGE_FAILED');
      assert.ok(!r.text.includes('db down'));
      const line = h.log.lines.find((l) => l.event === 'tessera.resolve_charge.failed')!;
      const cause = line.cause as { message: string; stack: string };
      assert.equal(cause.message, 'db down');
      assert.match(cause.stack, /^Error: db down\n\s+at /);
    });

    it('accepts every address the browser’s type=email accepts, such as a@b.c', async () => {
      const h = await helper();
      for (const email of ['a@b.c', 'a@localhost', "o'brien+tag@shop-1.example"]) {
        const r = await pay(h, { ...(await order()), email });
        assert.equal(r.status, 201, `${email}: ${r.text}`);
      }
      for (const email of ['a@', '@b.c', 'a@b..c', 'a@-b.c', 'a b@c.d', 'a@b.c-', `a@${'b'.repeat(64)}.c`]) {
        const r = await pay(h, { cardToken: 'card_tok_abcdefghijkl', orderReference: 'order-1', email });
        assert.equal(r.status, 400, email);
        assert.equal(r.json.field, 'email');
      }
    });
  });

  it('answers 503 with outcomeKnown false when the result cannot be saved after the provider charged, and a retry gives that charge', async () => {
    // A store that stops taking results: the provider has charged, so "nothing happened" would be a lie.
    class FailingResults extends MemoryStore {
      failing = true;
      override async set(key: string, value: string, ttlMs: number): Promise<void> {
        if (this.failing && key.startsWith('charge:')) throw new Error('store write failed');
        return super.set(key, value, ttlMs);
      }
      override async setAndRelease(key: string, value: string, ttlMs: number, claimKey: string, claimValue: string) {
        if (this.failing && key.startsWith('charge:')) throw new Error('store write failed');
        return super.setAndRelease(key, value, ttlMs, claimKey, claimValue);
      }
    }
    const store = new FailingResults();
    const h = await helper({ store });
    const body = await order();
    const before = (await sandboxCharges(sb)).length;
    const first = await pay(h, body);
    assert.equal(first.status, 503, first.text);
    assert.equal(first.json.code, 'TESSERA_STORE_UNAVAILABLE');
    assert.equal(first.json.outcomeKnown, false);
    store.failing = false;
    const again = await pay(h, body);
    assert.equal(again.status, 201, again.text);
    // Both requests reached the provider with the same idempotency key: one charge, answered twice.
    const requests = (await sandboxCharges(sb)).slice(before);
    assert.equal(requests.length, 2);
    const ids = new Set(requests.map((e) => (e.responseBody as { id?: string }).id));
    assert.deepEqual([...ids], [again.json.id]);
  });

  it('finishes a 3-D Secure charge from a later POST when its record cannot be read (503, outcome unknown) or was lost', async () => {
    // The shopper passed the challenge but never came back through the return; the POST again learns the outcome.
    let record: 'failing' | 'lost' | 'kept' = 'kept';
    const store = storeWith((name, args, call) => {
      if (name !== 'get' || !String(args[0]).startsWith('3ds:') || record === 'kept') return call();
      return record === 'lost'
        ? Promise.resolve(undefined)
        : Promise.reject(new StoreUnavailableError('the shared store cannot be reached; nothing was done'));
    });
    const calls: ChargeEvent[] = [];
    const h = await helper({ store, onCharge: (charge) => void calls.push(charge) });
    const body = await order(THREE_DS, 'order-3ds');
    await passedThreeDs(h, body);
    record = 'failing';
    const unread = await pay(h, body);
    assert.equal(unread.status, 503, unread.text);
    assert.equal(unread.json.code, 'TESSERA_STORE_UNAVAILABLE');
    assert.equal(unread.json.outcomeKnown, false, 'the charge is complete: never "nothing was done"');
    record = 'lost';
    const finished = await pay(h, body);
    assert.equal(finished.status, 201, finished.text);
    assert.deepEqual(
      calls.map((c) => [c.id, c.approved, c.orderReference]),
      [[finished.json.id, true, body.orderReference]],
    );
    assert.equal((await pay(h, body)).json.id, finished.json.id, 'stored: the same answer again');
  });

  it('answers a 3-D Secure charge whose provider read fails after the challenge with outcomeKnown false, on a later POST and on the return', async () => {
    // The charge exists (it was answered 202): a read of it that fails is no "nothing was charged".
    const h = await helper();
    const body = await order(THREE_DS, 'order-3ds');
    const returnUrl = await passedThreeDs(h, body);
    for (const [name, send] of [
      ['POST /charges', () => pay(h, body)],
      ['the return', () => call(returnUrl, { headers: { accept: 'application/json' } })],
    ] as const) {
      await fault(sb, { method: 'GET', path: '/api2/v2/charges/*', status: 503 });
      const unread = await send();
      assert.equal(unread.status, 503, `${name}: ${unread.text}`);
      assert.equal(unread.json.code, 'TESSERA_PROVIDER_UNAVAILABLE', name);
      assert.equal(unread.json.outcomeKnown, false, `${name}: the charge exists: never "nothing was done"`);
      assert.doesNotMatch(String(unread.json.message), /nothing was done/, name);
    }
    const finished = await pay(h, body);
    assert.equal(finished.status, 201, finished.text);
  });

  it('answers a 3-D Secure return whose records cannot be read with outcomeKnown false, never "nothing was done"', async () => {
    // The shopper comes back from the challenge of a charge made before: the store's own 503 (outcomeKnown: true,
    // "nothing was done") would deny it.
    let failing: string | undefined;
    const store = storeFailing((name, key) => failing !== undefined && name === 'get' && key.startsWith(failing));
    const returnUrl = await passedThreeDs(await helper({ store }));
    for (const record of ['3ds:', 'charge:']) {
      failing = record;
      const unread = await call(returnUrl, { headers: { accept: 'application/json' } });
      assert.equal(unread.status, 503, `${record} ${unread.text}`);
      assert.equal(unread.json.code, 'TESSERA_STORE_UNAVAILABLE', record);
      assert.equal(unread.json.outcomeKnown, false, `${record} the charge exists: never "nothing was done"`);
    }
    failing = undefined;
    const back = await call(returnUrl, { headers: { accept: 'application/json' } });
    assert.equal(back.status, 201, back.text);
  });

  it('answers a 3-D Secure return whose outcome cannot be saved with outcomeKnown false, never "nothing was done"', async () => {
    // The charge was made before the shopper came back: the store's own 503 (outcomeKnown: true) would deny it.
    let failing = false;
    const store = storeFailing((name, key) => failing && name === 'set' && key.startsWith('charge:'));
    const returnUrl = await passedThreeDs(await helper({ store }));
    failing = true;
    const r = await call(returnUrl, { headers: { accept: 'application/json' } });
    assert.equal(r.status, 503, r.text);
    assert.equal(r.json.outcomeKnown, false);
    assert.ok(!/nothing was done/.test(r.text), r.text);
    failing = false;
    const again = await call(returnUrl, { headers: { accept: 'application/json' } });
    assert.equal(again.status, 201, again.text);
  });
});
