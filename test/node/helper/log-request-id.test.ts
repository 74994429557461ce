import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import {
  HelperHttpError,
  type HostAuthOptions,
  MemoryStore,
  type TesseraHelperOptions,
  tesseraHelper,
} from '../../../server/helper/index.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { type Answer, call } from '../../support/http.js';
import { sampleFixtures } from '../sandbox/accounts-support.js';
import {
  answerChallenge,
  type CapturedLog,
  captureLogger,
  cardToken,
  fault,
  type Issuer,
  NO_RATE_LIMITS,
  requiredMethods,
  sandboxHelperOptions,
  serveApp,
  startIssuer,
} from './support.js';

/**
 * Every line the helper writes on behalf of a request names it: the `requestId` of its answer (the page shows it to
 * the shopper), and for a charge of a helper mounted for several shops the mount path's parameters
 * (docs/decisions/helper.md#helper-log-request-id).
 */
describe('log lines name the request they were written for', () => {
  let sb: RunningSandbox;
  let issuer: Issuer;
  const closers: (() => Promise<void>)[] = [];

  before(async () => {
    sb = await startSandbox({ fixtures: sampleFixtures() });
    issuer = await startIssuer(() => sb.clock.nowMs());
  });
  after(async () => {
    for (const close of closers) await close();
    await issuer.close();
    await sb.close();
  });

  /** A helper for many shops at `/shops/:shop/payments` of a real app, over the sandbox, writing into `log`. */
  async function shops(extra: Partial<TesseraHelperOptions> = {}): Promise<{ base: string; log: CapturedLog }> {
    const { logger, log } = captureLogger();
    const app = express();
    const served = await serveApp(app);
    closers.push(served.close);
    const options = sandboxHelperOptions(sb, issuer);
    const helper = tesseraHelper({
      ...options,
      rateLimits: NO_RATE_LIMITS,
      startupKeyCheck: false,
      publicUrl: `${served.base}/shops/main/payments`,
      hookTimeoutMs: 200,
      resolveCharge: (_req, { orderReference }) =>
        orderReference.startsWith('o-')
          ? { amount: 4200, currency: 'GBP', threeDSecure: orderReference === 'o-3ds' }
          : undefined,
      ...extra,
      logger,
    });
    app.use('/shops/:shop/payments', helper);
    return { base: `${served.base}/shops/alpha/payments`, log };
  }

  const pay = (base: string, body: Record<string, unknown>) =>
    call(`${base}/charges`, { body: { email: 'a@shop.example', ...body }, headers: { accept: 'application/json' } });

  /** A hook that throws `message`. */
  const throwing = (message: string) => () => {
    throw new Error(message);
  };

  /** A charge of order `o-1` with a new approved card's token. */
  const payOrder = async (base: string) => pay(base, { cardToken: await cardToken(sb), orderReference: 'o-1' });

  /** The lines the helper wrote since `from` (its own `tessera.…` ones; the provider clients' are not the helper's). */
  const linesSince = (log: CapturedLog, from: number) =>
    log.lines.slice(from).filter((l) => String(l.event).startsWith('tessera.'));

  /** Every line of the request carries the answer's `requestId` (and, for a charge, the shop); `events` are among them. */
  function assertNamed(
    r: Answer,
    lines: Record<string, unknown>[],
    events: string[],
    mountParams: Record<string, string> | undefined,
  ) {
    const requestId = r.json?.requestId ?? r.headers.get('x-request-id');
    assert.match(String(requestId), /^hreq_/, r.text);
    const written = lines.map((l) => l.event);
    for (const event of events) assert.ok(written.includes(event), `no ${event} line in ${JSON.stringify(written)}`);
    for (const line of lines) {
      assert.equal(line.requestId, requestId, `${line.event} names another request: ${JSON.stringify(line)}`);
      assert.deepEqual(line.mountParams, mountParams, `${line.event}'s mount-path parameters: ${JSON.stringify(line)}`);
    }
  }

  it('names the request and the shop in tessera.charge.failed for a provider fault', async () => {
    const h = await shops();
    await fault(sb, { method: 'POST', path: '/api2/v2/charges/token', status: 503, phase: 'before', count: 1 });
    const r = await payOrder(h.base);
    assert.equal(r.status, 503, r.text);
    const line = h.log.lines.find((l) => l.event === 'tessera.charge.failed');
    assert.ok(line, 'no tessera.charge.failed line');
    assert.equal(line.requestId, r.json.requestId);
    assert.equal(line.requestId, r.headers.get('x-request-id'));
    assert.deepEqual(line.mountParams, { shop: 'alpha' });
  });

  it('names the request in every line written while answering it, whichever way it failed', async () => {
    const paths: {
      name: string;
      options?: Partial<TesseraHelperOptions>;
      /** Sends the request; `mark` says where its lines begin, when it needs a request of its own first. */
      send(base: string, mark: () => void): Promise<Answer>;
      status: number;
      events: string[];
      mountParams?: Record<string, string>;
    }[] = [
      {
        name: 'a provider fault',
        async send(base) {
          await fault(sb, { method: 'POST', path: '/api2/v2/charges/token', status: 503, phase: 'before', count: 1 });
          return payOrder(base);
        },
        status: 503,
        events: ['tessera.charge.failed', 'tessera.error', 'tessera.request'],
      },
      {
        name: 'onCharge throwing',
        options: {
          onCharge: throwing('the orders table is locked'),
        },
        send: payOrder,
        status: 503,
        events: ['tessera.on_charge.failed', 'tessera.error', 'tessera.request'],
      },
      {
        name: 'onCharge throwing on the 3-D Secure return',
        options: {
          onCharge: throwing('the orders table is locked'),
        },
        async send(base, mark) {
          const started = await pay(base, {
            cardToken: await cardToken(sb, '4000000000003220'),
            orderReference: 'o-3ds',
          });
          assert.equal(started.status, 202, started.text);
          mark();
          // The provider sends the shopper back to publicUrl's path (another shop's): the lines name the charge's.
          const back = await answerChallenge(sb, started.json.redirectUrl);
          return call(back, { headers: { accept: 'application/json' } });
        },
        status: 503,
        events: ['tessera.on_charge.failed', 'tessera.error', 'tessera.request'],
      },
      {
        name: 'onChallenge throwing',
        options: {
          onChallenge: throwing('the orders table is locked'),
        },
        send: async (base) =>
          pay(base, { cardToken: await cardToken(sb, '4000000000003220'), orderReference: 'o-3ds' }),
        status: 202,
        events: ['tessera.on_challenge.failed', 'tessera.request'],
      },
      {
        name: 'resolveCharge throwing',
        options: {
          resolveCharge: throwing('the price list is gone'),
        },
        send: payOrder,
        status: 500,
        events: ['tessera.resolve_charge.failed', 'tessera.error', 'tessera.request'],
      },
      {
        name: 'resolveCharge answering an invalid charge',
        options: { resolveCharge: () => ({ amount: -1, currency: 'GBP' }) },
        send: payOrder,
        status: 500,
        events: ['tessera.resolve_charge.invalid', 'tessera.error', 'tessera.request'],
      },
      {
        name: 'resolveCharge not settling in time',
        options: { resolveCharge: () => new Promise<never>(() => {}) },
        send: payOrder,
        status: 503,
        events: ['tessera.hook.timeout', 'tessera.error', 'tessera.request'],
      },
      {
        name: 'a resolveCharge HelperHttpError that cannot be answered',
        options: {
          resolveCharge: () => {
            throw new HelperHttpError(200, 'ORDER_CLOSED', 'closed');
          },
        },
        send: payOrder,
        status: 500,
        events: ['tessera.resolve_charge.failed', 'tessera.error', 'tessera.request'],
      },
      {
        name: 'an unknown order',
        send: async (base) => pay(base, { cardToken: await cardToken(sb), orderReference: 'nothing-1' }),
        status: 400,
        events: ['tessera.request'],
      },
      {
        name: 'card data refused',
        send: (base) => pay(base, { cardToken: '4242424242424242', orderReference: 'o-1' }),
        status: 400,
        // Refused before the charge route reads its parameters: only the request is named.
        events: ['tessera.request'],
        mountParams: undefined,
      },
      {
        name: 'the store failing',
        options: {
          store: requiredMethods(new MemoryStore(), {
            claim: () => Promise.reject(Object.assign(new Error('connection lost'), { code: 'ECONNRESET' })),
          }),
        },
        send: payOrder,
        status: 503,
        events: ['tessera.error', 'tessera.request'],
      },
    ];
    for (const path of paths) {
      sb.context.reset();
      const h = await shops(path.options);
      let from = h.log.lines.length;
      const r = await path.send(h.base, () => {
        from = h.log.lines.length;
      });
      assert.equal(r.status, path.status, `${path.name}: ${r.text}`);
      // The `tessera.request` line is written once the answer is sent; a line after it would be a bug of its own.
      const lines = linesSince(h.log, from);
      assert.ok(lines.length > 0, path.name);
      assertNamed(r, lines, path.events, 'mountParams' in path ? path.mountParams : { shop: 'alpha' });
    }
  });

  it('names the request in the dashboard routes’ lines, without mount-path parameters', async () => {
    const options = sandboxHelperOptions(sb, issuer);
    const isBound: HostAuthOptions['isBound'] = () => {
      throw new Error('the session store is down');
    };
    const h = await shops({ hostAuth: { ...options.hostAuth, isBound } });
    const from = h.log.lines.length;
    const token = await issuer.sign({ sub: 'usr_a', entities: ['ent_fixture_a'] });
    const r = await call(`${h.base}/entities/ent_fixture_a/payment-instruments`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(r.status, 503, r.text);
    assertNamed(
      r,
      linesSince(h.log, from),
      ['tessera.host_auth.is_bound.failed', 'tessera.error', 'tessera.request'],
      undefined,
    );
  });
});
