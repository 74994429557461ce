import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import type { Dispatcher } from 'undici';
import { encodeXml } from '../../../server/provider/codec/xml.js';
import {
  type Charge,
  createLegacyClient,
  InvalidResponseError,
  ResponseBudgetError,
} from '../../../server/provider/index.js';
import type { RunningSandbox } from '../../../server/sandbox/index.js';
import { until } from '../../support/timing.js';
import { bareServer, sandbox } from './support.js';

// The memory the clients spend on answers (docs/decisions/provider.md#answer-budget): each answer up to 4 MiB, and
// all the answers one client is reading at once up to its `responseBudgetBytes`.

const MiB = 1024 * 1024;
const CAP = 4 * MiB;
const SECRET = 'sk_test_answer_budget_0123456789';

const listen = bareServer;

/** A gate the test opens: the hostile server holds the rest of its answers until then. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** A charge answer of exactly `size` bytes, its padding in `description`. */
function chargeText(id: string, size: number): string {
  const head = `{"id":"${id}","status":"Captured","description":"`;
  return `${head}${'x'.repeat(size - head.length - 2)}"}`;
}

/** Resolves once `count` of `calls` have rejected (whichever they are). */
function rejections(calls: Promise<unknown>[], count: number): Promise<void> {
  let seen = 0;
  return new Promise((resolve, reject) => {
    // Not a timed assertion: a guard that fails the test, rather than leave it hanging, when the calls never get there.
    const guard = setTimeout(() => reject(new Error(`${seen} of ${count} calls were refused within 30 s`)), 30_000);
    for (const c of calls) {
      c.catch(() => {
        if (++seen === count) {
          clearTimeout(guard);
          resolve();
        }
      });
    }
  });
}

/** Waits until the client holds `bytes` of answers, looking every 2 ms (no timed assertion); fails after 30 s. */
const holding = (client: { heldResponseBytes: number }, bytes: number) =>
  until(() => client.heldResponseBytes === bytes, `heldResponseBytes reaches ${bytes}`, {
    withinMs: 30_000,
    everyMs: 2,
  });

/** A legacy client of the hostile `server`, closed (and the server with it) when the test ends. */
function clientOf(
  t: TestContext,
  server: { url: string; close(): void },
  options: Omit<Parameters<typeof createLegacyClient>[0], 'secretKey' | 'baseUrl'>,
) {
  const client = createLegacyClient({ secretKey: SECRET, baseUrl: server.url, ...options });
  t.after(async () => {
    await client.close();
    server.close();
  });
  return client;
}

describe('answer budget: a hostile upstream answering many big bodies slowly', () => {
  it('refuses the answers an announced length would take past the budget at once, reads the others, and gives every byte back', async (t) => {
    const size = 1.5 * MiB;
    const rest = gate();
    const server = await listen((req, res) => {
      res.on('error', () => {});
      const text = chargeText(req.url!.split('/').pop()!, size);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(size) });
      res.write(text.slice(0, 1024));
      void rest.opened.then(() => res.end(text.slice(1024)));
    });
    const client = clientOf(t, server, { responseBudgetBytes: CAP, maxRetries: 0 });
    assert.equal(client.heldResponseBytes, 0);
    const calls = Array.from({ length: 6 }, (_, i) => client.charges.retrieve(`charge_${i}`));
    // Two announced lengths fit in 4 MiB (3 MiB); a third would take 4.5 MiB: four calls are refused at their headers.
    await rejections(calls, 4);
    assert.equal(client.heldResponseBytes, 2 * size, 'the two answers being read hold their announced length');
    rest.open();
    const settled = await Promise.allSettled(calls);
    const read = settled.filter((s) => s.status === 'fulfilled');
    const refused = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
    assert.equal(read.length, 2);
    for (const r of read) {
      const { id, description } = r.value.data as Charge & { description: string };
      assert.equal(description, JSON.parse(chargeText(id, size)).description, 'read whole');
    }
    assert.equal(refused.length, 4);
    for (const error of refused) {
      assert.ok(error instanceof ResponseBudgetError, String(error));
      assert.equal(error.code, 'TESSERA_RESPONSE_BUDGET');
      assert.equal(error.status, 200);
      assert.equal(error.budgetBytes, CAP);
      assert.equal(error.outcomeKnown, true, 'a read');
      assert.equal(error.attempts, 1);
      assert.match(
        error.message,
        /^GET \/api2\/v2\/charges\/\S+ answered HTTP 200, not read: .*responseBudgetBytes \(4194304 bytes\)/,
      );
    }
    assert.equal(client.heldResponseBytes, 0, 'every byte is given back once the calls have settled');
  });

  it('counts chunked answers as they stream: those that would pass the budget fail, at least one is read, and nothing stays held', async (t) => {
    const first = 1 * MiB;
    const rest = gate();
    const server = await listen((req, res) => {
      res.on('error', () => {});
      const text = chargeText(req.url!.split('/').pop()!, first + 10);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(text.slice(0, first));
      void rest.opened.then(() => res.end(text.slice(first)));
    });
    const client = clientOf(t, server, { responseBudgetBytes: CAP, maxRetries: 0 });
    const count = 8;
    let failed = 0;
    const calls = Array.from({ length: count }, (_, i) =>
      client.charges.retrieve(`charge_${i}`).catch((e: unknown) => {
        failed++;
        throw e;
      }),
    );
    for (const c of calls) c.catch(() => {});
    // Every call has either failed or holds the whole first megabyte of its answer.
    // `failed` still moves while the answers stream: read again at each look.
    await until(() => client.heldResponseBytes === (count - failed) * first, 'the read answers are held', {
      withinMs: 30_000,
      everyMs: 2,
    });
    assert.ok(client.heldResponseBytes <= CAP, `${client.heldResponseBytes} bytes held`);
    assert.ok(failed >= count - 4, `${failed} calls failed: at most four megabytes fit`);
    rest.open();
    const settled = await Promise.allSettled(calls);
    const read = settled.filter((s) => s.status === 'fulfilled');
    const refused = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
    assert.ok(read.length >= 1, 'an answer alone always fits');
    assert.equal(read.length + refused.length, count);
    assert.equal(refused.length, failed);
    for (const error of refused) assert.ok(error instanceof ResponseBudgetError, String(error));
    assert.equal(client.heldResponseBytes, 0);
  });

  it('retries a keyed charge refused for the budget with the same key, and leaves its outcome unknown', async (t) => {
    const rest = gate();
    const keys: string[] = [];
    let hogs = 0;
    const server = await listen((req, res) => {
      res.on('error', () => {});
      if (req.method === 'GET') {
        // Other answers, large and slow, holding the whole budget.
        hogs++;
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 * MiB) });
        res.write('{');
        void rest.opened.then(() => res.destroy());
        return;
      }
      keys.push(String(req.headers['idempotency-key']));
      const text = JSON.stringify({ id: 'charge_made', status: 'Captured' });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(text.length) });
      res.end(text);
    });
    const client = clientOf(t, server, { responseBudgetBytes: CAP, maxRetries: 2, retryBaseMs: 1, retryMaxMs: 4 });
    const held = [client.charges.retrieve('charge_a'), client.charges.retrieve('charge_b')];
    for (const h of held) h.catch(() => {});
    await holding(client, CAP);
    const body = { cardToken: 'card_tok_abcdefgh', value: 1999, currency: 'EUR', email: 'a@shop.example' };
    const error = await client.charges.create(body, { idempotencyKey: 'order-7' }).catch((e: unknown) => e);
    assert.ok(error instanceof ResponseBudgetError, String(error));
    assert.equal(error.outcomeKnown, false, 'the provider answered 200: the charge may be made');
    assert.equal(error.idempotencyKey, 'order-7');
    assert.equal(error.attempts, 3);
    assert.deepEqual(keys, ['order-7', 'order-7', 'order-7']);
    rest.open();
    await Promise.allSettled(held);
    assert.ok(hogs >= 2);
    assert.equal(client.heldResponseBytes, 0);
    // With room again, the same key reads the answer.
    const again = await client.charges.create(body, { idempotencyKey: 'order-7' });
    assert.equal(again.data.id, 'charge_made');
    assert.equal(client.heldResponseBytes, 0);
  });

  it('leaves a keyed write answered 409 and refused for the budget with its outcome unknown: the 409 may say the first request with that key is still running', async (t) => {
    const rest = gate();
    const server = await listen((req, res) => {
      res.on('error', () => {});
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(CAP) });
        res.write('{');
        void rest.opened.then(() => res.destroy());
        return;
      }
      // What the sandbox answers while a request with the same key is still running.
      const text = JSON.stringify({ errorCode: 'idempotency_key_in_use', message: 'still in flight' });
      res.writeHead(409, { 'content-type': 'application/json', 'content-length': String(text.length) });
      res.end(text);
    });
    const client = clientOf(t, server, { responseBudgetBytes: CAP, maxRetries: 0 });
    const body = { cardToken: 'card_tok_abcdefgh', value: 1999, currency: 'EUR', email: 'a@shop.example' };
    // Read, the 409 leaves the outcome unknown.
    const read = await client.charges.create(body, { idempotencyKey: 'order-9' }).catch((e: unknown) => e);
    assert.equal((read as ResponseBudgetError).status, 409);
    assert.equal((read as ResponseBudgetError).outcomeKnown, false);
    const hog = client.charges.retrieve('charge_hog').catch(() => {});
    await holding(client, CAP);
    // Not read, nothing tells it from any other 409: it is unknown as well (it said "nothing was done").
    const refused = await client.charges.create(body, { idempotencyKey: 'order-9' }).catch((e: unknown) => e);
    assert.ok(refused instanceof ResponseBudgetError, String(refused));
    assert.equal(refused.status, 409);
    assert.equal(refused.outcomeKnown, false);
    rest.open();
    await hog;
    assert.equal(client.heldResponseBytes, 0);
  });

  it('gives the bytes of an answer back when its attempt times out, its caller aborts or its connection breaks mid-body', async (t) => {
    const server = await listen((req, res) => {
      res.on('error', () => {});
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MiB) });
      res.write('{"id":"charge_');
      if (req.url!.includes('broken')) res.socket?.destroy();
    });
    const client = clientOf(t, server, { timeoutMs: 300, maxRetries: 0 });
    const late = client.charges.retrieve('charge_late').catch((e: unknown) => e);
    assert.equal(((await late) as Error).name, 'TimeoutError');
    assert.equal(client.heldResponseBytes, 0);

    const controller = new AbortController();
    const aborted = client.charges.retrieve('charge_aborted', { signal: controller.signal }).catch((e: unknown) => e);
    await holding(client, MiB);
    controller.abort(new Error('the shopper left'));
    assert.equal(((await aborted) as Error).message, 'the shopper left');
    assert.equal(client.heldResponseBytes, 0);

    const broken = await client.charges.retrieve('charge_broken').catch((e: unknown) => e);
    assert.equal((broken as Error).name, 'NetworkError');
    assert.equal(client.heldResponseBytes, 0);
  });

  it('takes nothing of the budget for an answer a dispatcher starts after the attempt was stopped', async () => {
    // A dispatcher of the caller's (an interceptor, a test double) that goes on calling the handler after `abort()`:
    // the answer it starts once the attempt timed out is not counted, so nothing is held for good.
    let aborted = false;
    let handler: Dispatcher.DispatchHandler | undefined;
    const controller = {
      abort: () => {
        aborted = true;
      },
      pause() {},
      resume() {},
      paused: false,
      aborted: false,
      reason: null,
    } as unknown as Dispatcher.DispatchController;
    const late = {
      dispatch(_opts: Dispatcher.DispatchOptions, h: Dispatcher.DispatchHandler) {
        handler = h;
        h.onRequestStart?.(controller, {});
        return true;
      },
      close: async () => {},
      destroy: async () => {},
      on() {
        return this;
      },
    } as unknown as Dispatcher;
    const client = createLegacyClient({
      secretKey: SECRET,
      baseUrl: 'http://127.0.0.1:9',
      dispatcher: late,
      timeoutMs: 50,
      maxRetries: 0,
    });
    const error = await client.charges.retrieve('charge_late').catch((e: unknown) => e);
    assert.equal((error as Error).name, 'TimeoutError');
    assert.ok(aborted, 'the attempt was aborted');
    handler!.onResponseStart?.(controller, 200, { 'content-length': String(MiB) }, 'OK');
    assert.equal(client.heldResponseBytes, 0);
  });

  it('refuses one answer over 4 MiB, announced or chunked, without a retry, and holds nothing after', async (t) => {
    let hits = 0;
    const server = await listen((req, res) => {
      hits++;
      res.on('error', () => {});
      if (req.url!.includes('announced')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(CAP + 1) });
        res.write('{');
        return;
      }
      const text = chargeText('charge_chunked', CAP + 1);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(text);
    });
    const client = clientOf(t, server, { retryBaseMs: 1, retryMaxMs: 4 });
    for (const id of ['charge_announced', 'charge_chunked']) {
      hits = 0;
      const error = await client.charges.retrieve(id).catch((e: unknown) => e);
      assert.ok(error instanceof InvalidResponseError, String(error));
      assert.match(error.message, /larger than 4194304 bytes/);
      assert.equal(error.attempts, 1, 'the same answer would come back');
      assert.equal(hits, 1);
      assert.equal(client.heldResponseBytes, 0);
    }
  });
});

describe('answer budget: nothing a provider legitimately answers is refused', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await sandbox();
  });
  after(() => sb.close());

  /** Products whose text fields are at their longest, `ch` repeated (a character JSON or XML escapes, or a 4-byte one). */
  const product = (ch: string) => ({
    description: ch.repeat(500),
    name: ch.repeat(100),
    price: 9007199254740991,
    quantity: 1_000_000,
    shippingCost: 9007199254740991,
    sku: ch.repeat(100),
    trackingUrl: ch.repeat(2048),
  });

  for (const format of ['json', 'xml'] as const) {
    it(`reads the largest charge the sandbox takes (${format}: a request at its 64 KiB limit), created and read back`, async () => {
      const client = createLegacyClient({
        publicKey: sb.credentials.publicKey,
        secretKey: sb.credentials.secretKey,
        baseUrl: sb.url,
        format,
        responseBudgetBytes: CAP,
      });
      const token = await client.cardTokens.create({
        number: '4242424242424242',
        expiryMonth: 12,
        expiryYear: 2031,
        cvv: '123',
      });
      // As many long products as fit under the sandbox's request limit (64 KiB).
      const body = {
        cardToken: token.data.id,
        value: 1999,
        currency: 'EUR',
        email: 'shopper@example.com',
        description: "'".repeat(500),
        products: [] as ReturnType<typeof product>[],
      };
      const encode = (b: object) => (format === 'xml' ? encodeXml(b as Record<string, unknown>) : JSON.stringify(b));
      while (Buffer.byteLength(encode({ ...body, products: [...body.products, product("'")] })) < 64 * 1024) {
        body.products.push(product("'"));
      }
      assert.ok(body.products.length >= 3, `${body.products.length} products`);
      const created = await client.charges.create(body);
      const charge = created.data as Charge;
      assert.equal(charge.products?.length, body.products.length);
      const read = await client.charges.retrieve(charge.id);
      assert.equal(read.data.products?.[0]?.trackingUrl, "'".repeat(2048));
      assert.equal(client.heldResponseBytes, 0);
      await client.close();
    });
  }

  it('reads the largest answer a request the types allow can bring: a charge of 1.7 MB of XML', async (t) => {
    // No sandbox takes this request (64 KiB); a provider without that limit would answer it. Built with the encoder the
    // sandbox answers with, every text field at its longest, of the character XML escapes longest (`&apos;`).
    const ch = "'";
    const address = { addressLine1: ch.repeat(100), city: ch.repeat(100), postcode: ch.repeat(50), country: 'GB' };
    const metadata = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`k${i}${'m'.repeat(98)}`, ch.repeat(100)]),
    );
    const charge = {
      id: 'charge_largest',
      liveMode: false,
      created: '2026-01-01T00:00:00.000Z',
      value: 1999,
      currency: 'EUR',
      trackId: ch.repeat(50),
      description: ch.repeat(500),
      email: 'shopper@example.com',
      customerIp: null,
      chargeMode: 1,
      transactionIndicator: 1,
      autoCapture: 'y',
      autoCapTime: 0,
      responseMessage: 'Approved',
      responseAdvancedInfo: 'Approved',
      responseCode: '10000',
      status: 'Captured',
      authCode: '123456',
      isCascaded: false,
      card: {
        id: 'card_1',
        last4: '4242',
        bin: '424242',
        paymentMethod: 'Visa',
        expiryMonth: '12',
        expiryYear: '2031',
        fingerprint: 'f'.repeat(64),
        name: ch.repeat(100),
        customerId: 'cust_1',
        billingDetails: address,
        cvvCheck: 'Y',
        avsCheck: 'Y',
      },
      riskCheck: true,
      customerPaymentPlans: null,
      metadata,
      shippingDetails: address,
      products: Array.from({ length: 100 }, () => product(ch)),
      udf1: ch.repeat(100),
      udf2: ch.repeat(100),
      udf3: ch.repeat(100),
      udf4: ch.repeat(100),
      udf5: ch.repeat(100),
    };
    const xml = encodeXml(charge);
    assert.ok(Buffer.byteLength(xml) > 1.6e6, `${Buffer.byteLength(xml)} bytes`);
    const server = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(xml);
    });
    const client = clientOf(t, server, { format: 'xml', responseBudgetBytes: CAP });
    const read = await client.charges.retrieve('charge_largest');
    assert.equal(read.data.products?.length, 100);
    assert.equal(read.data.products?.[99]?.trackingUrl, ch.repeat(2048));
    assert.equal(client.heldResponseBytes, 0);
  });

  it('reads an answer of exactly 4 MiB', async (t) => {
    const server = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(chargeText('charge_cap', CAP));
    });
    const client = createLegacyClient({ secretKey: SECRET, baseUrl: server.url });
    t.after(async () => {
      await client.close();
      server.close();
    });
    const read = await client.charges.retrieve('charge_cap');
    assert.equal(read.data.id, 'charge_cap');
    assert.equal(client.heldResponseBytes, 0);
  });
});
