import assert from 'node:assert/strict';
import { createServer as createHttpServer, request } from 'node:http';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Agent, ProxyAgent } from 'undici';
import {
  type Charge,
  ConflictError,
  createLegacyClient,
  InvalidResponseError,
  type LegacyClient,
  NetworkError,
  NotFoundError,
  PermissionError,
  ProviderServerError,
  RateLimitError,
  RequestRejectedError,
  TimeoutError,
  ValidationError,
} from '../../../server/provider/index.js';
import type { RunningSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { bareServer, FAST_RETRY, fault, recordingDispatcher, requests, reset, sandbox } from './support.js';

const CARD = { number: '4242424242424242', expiryMonth: 12, expiryYear: 2031, cvv: '123' };
const CHARGES = '/api2/v2/charges/token';

describe('HTTP core: retries, timeouts and outcomes against sandbox faults', () => {
  let sb: RunningSandbox;
  let legacy: LegacyClient;
  const wire = recordingDispatcher();

  before(async () => {
    sb = await sandbox();
    legacy = createLegacyClient({
      publicKey: sb.credentials.publicKey,
      secretKey: sb.credentials.secretKey,
      baseUrl: sb.url,
      dispatcher: wire.dispatcher,
      ...FAST_RETRY,
    });
  });
  after(async () => {
    await sb.close();
    await wire.close();
  });
  beforeEach(() => reset(sb));

  const chargeBody = async () => ({
    cardToken: (await legacy.cardTokens.create(CARD)).data.id,
    value: 1999,
    currency: 'EUR',
    email: 'shopper@example.com',
  });
  const keysSentTo = (path: string) =>
    wire.sent.filter((s) => s.path === path).map((s) => s.headers['idempotency-key']);

  for (const status of [429, 502, 503, 504]) {
    it(`retries a charge answered ${status} after it took effect, with the same key, and charges once`, async () => {
      const body = await chargeBody();
      wire.sent.length = 0;
      await fault(sb, { path: CHARGES, status, phase: 'after' });
      const result = await legacy.charges.create(body);
      const charge = result.data as Charge;
      const log = await requests(sb, CHARGES);
      assert.deepEqual(
        log.map((r) => r.status),
        [status, 200],
      );
      const keys = keysSentTo(CHARGES);
      assert.equal(keys.length, 2);
      assert.equal(keys[0], keys[1]);
      assert.equal(keys[0], result.idempotencyKey);
      // The retry replayed the first charge: the card token was used once, by this charge.
      assert.equal((await legacy.charges.retrieve(charge.id)).data.status, 'Captured');
      const second = await legacy.charges.create(body).catch((e: unknown) => e);
      assert.ok(second instanceof ValidationError);
      assert.equal(second.fieldErrors[0]?.code, 'card_token_used');
    });
  }

  it('retries a GET on 503 and a reset connection, then succeeds', async () => {
    const { data } = await legacy.charges.create(await chargeBody());
    await fault(sb, { path: `/api2/v2/charges/${data.id}`, status: 503 });
    await fault(sb, { path: `/api2/v2/charges/${data.id}`, reset: true });
    const read = await legacy.charges.retrieve(data.id);
    assert.equal(read.data.id, data.id);
    assert.deepEqual(
      (await requests(sb, '/api2/v2/charges/charge_')).map((r) => r.status),
      [503, 0, 200],
    );
  });

  it('gives up after maxRetries with the last error and the number of attempts', async () => {
    const { data } = await legacy.charges.create(await chargeBody());
    await fault(sb, { path: `/api2/v2/charges/${data.id}`, status: 502, count: 5 });
    const error = await legacy.charges.retrieve(data.id).catch((e: unknown) => e);
    assert.ok(error instanceof ProviderServerError);
    assert.equal(error.code, 'TESSERA_PROVIDER_UNAVAILABLE');
    assert.equal(error.status, 502);
    assert.equal(error.attempts, 3);
    assert.equal(error.outcomeKnown, true, 'a read has no effect');
    assert.match(error.requestId ?? '', /^req_/);
    assert.equal((await requests(sb, '/api2/v2/charges/charge_')).length, 3);
  });

  const notRetried: [number, new (...args: never[]) => Error][] = [
    [400, ValidationError],
    [403, PermissionError],
    [404, NotFoundError],
    [409, ConflictError],
    [422, ValidationError],
    [405, RequestRejectedError],
    [500, ProviderServerError],
  ];
  for (const [status, type] of notRetried) {
    it(`does not retry ${status}, even on a GET`, async () => {
      const { data } = await legacy.charges.create(await chargeBody());
      await fault(sb, { path: `/api2/v2/charges/${data.id}`, status, count: 3 });
      const error = await legacy.charges.retrieve(data.id).catch((e: unknown) => e);
      assert.ok(error instanceof type, String(error));
      assert.equal((error as unknown as { status: number }).status, status);
      assert.equal((await requests(sb, '/api2/v2/charges/charge_')).length, 1);
    });
  }

  it('does not retry a write without an idempotency key, and says its outcome is unknown', async () => {
    await fault(sb, { path: '/api2/v2/tokens/payment', status: 503, phase: 'after' });
    const error = await legacy.paymentTokens.create({ value: 100, currency: 'EUR' }).catch((e: unknown) => e);
    assert.ok(error instanceof ProviderServerError);
    assert.equal(error.outcomeKnown, false);
    assert.equal((await requests(sb, '/api2/v2/tokens/payment')).length, 1);
  });

  it('lets the caller resolve an unknown charge outcome by resending its idempotency key', async () => {
    const noRetry = createLegacyClient({ secretKey: sb.credentials.secretKey, baseUrl: sb.url, maxRetries: 0 });
    const body = await chargeBody();
    await fault(sb, { path: CHARGES, reset: true, phase: 'after' });
    const error = await noRetry.charges.create(body).catch((e: unknown) => e);
    assert.ok(error instanceof NetworkError);
    assert.equal(error.code, 'TESSERA_NETWORK');
    assert.equal(error.outcomeKnown, false);
    assert.ok(error.idempotencyKey);
    const resolved = await noRetry.charges.create(body, { idempotencyKey: error.idempotencyKey });
    assert.equal((resolved.data as Charge).status, 'Captured');
    await noRetry.close();
  });

  it('times out on time when the answer is late, without retrying past maxRetries', async () => {
    const quick = createLegacyClient({
      secretKey: sb.credentials.secretKey,
      baseUrl: sb.url,
      timeoutMs: 150,
      maxRetries: 0,
    });
    const { data } = await legacy.charges.create(await chargeBody());
    await fault(sb, { path: `/api2/v2/charges/${data.id}`, delayMs: 2000 });
    const started = performance.now();
    const error = await quick.charges.retrieve(data.id).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    assert.ok(error instanceof TimeoutError, String(error));
    assert.equal(error.code, 'TESSERA_TIMEOUT');
    assert.equal(error.phase, 'response');
    assert.equal(error.timeoutMs, 150);
    assert.ok(elapsed >= 140 && elapsed < 1000, `took ${elapsed} ms`);
    await quick.close();
  });

  it('retries a timed-out charge with the same idempotency key and charges once', async () => {
    const quick = createLegacyClient({
      secretKey: sb.credentials.secretKey,
      baseUrl: sb.url,
      timeoutMs: 600,
      dispatcher: wire.dispatcher,
      ...FAST_RETRY,
    });
    const body = await chargeBody();
    wire.sent.length = 0;
    await fault(sb, { path: CHARGES, delayMs: 5000 });
    const result = await quick.charges.create(body);
    const keys = keysSentTo(CHARGES);
    assert.equal(keys.length, 2);
    assert.equal(keys[0], keys[1]);
    assert.equal((result.data as Charge).status, 'Captured');
    await quick.close();
  });

  it('times out a response whose body stalls', async () => {
    const quick = createLegacyClient({
      secretKey: sb.credentials.secretKey,
      baseUrl: sb.url,
      timeoutMs: 200,
      maxRetries: 0,
    });
    const { data } = await legacy.charges.create(await chargeBody());
    await fault(sb, { path: `/api2/v2/charges/${data.id}`, stallBody: true });
    const started = performance.now();
    const error = await quick.charges.retrieve(data.id).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    assert.ok(error instanceof TimeoutError, String(error));
    assert.equal(error.phase, 'response');
    assert.ok(elapsed >= 190 && elapsed < 1000, `took ${elapsed} ms`);
    await quick.close();
  });

  it('says a timed-out write has an unknown outcome and a timed-out read a known one', async () => {
    const quick = createLegacyClient({
      secretKey: sb.credentials.secretKey,
      baseUrl: sb.url,
      timeoutMs: 100,
      maxRetries: 0,
    });
    await fault(sb, { path: '/api2/v2/tokens/payment', delayMs: 1000 });
    const write = await quick.paymentTokens.create({ value: 1, currency: 'EUR' }).catch((e: unknown) => e);
    assert.ok(write instanceof TimeoutError);
    assert.equal(write.outcomeKnown, false);
    await fault(sb, { path: '/api2/v2/charges/*', delayMs: 1000 });
    const read = await quick.charges.retrieve('charge_x').catch((e: unknown) => e);
    assert.ok(read instanceof TimeoutError);
    assert.equal(read.outcomeKnown, true);
    await quick.close();
  });

  it("stops waiting when the caller's signal aborts, with the signal's reason", async () => {
    const { data } = await legacy.charges.create(await chargeBody());
    await fault(sb, { path: `/api2/v2/charges/${data.id}`, delayMs: 2000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user gave up')), 50);
    await assert.rejects(legacy.charges.retrieve(data.id, { signal: controller.signal }), /user gave up/);
  });

  it("sends nothing when the caller's signal is already aborted, and rejects with its reason", async () => {
    const body = await chargeBody();
    const reason = new Error('aborted before the call');
    await assert.rejects(legacy.charges.create(body, { signal: AbortSignal.abort(reason) }), (err) => err === reason);
    assert.equal((await requests(sb, CHARGES)).length, 0, 'the sandbox saw no charge');
  });

  it("ignores the caller's signal once the call has answered: a later abort changes nothing", async () => {
    const controller = new AbortController();
    const first = await legacy.charges.create(await chargeBody(), { signal: controller.signal });
    controller.abort(new Error('too late'));
    const again = await legacy.charges.retrieve(first.data.id);
    assert.equal(again.data.id, first.data.id);
    assert.equal((await requests(sb, CHARGES)).length, 1, 'one charge, not aborted or retried');
  });

  it('reports a refused connection as a NetworkError whose outcome is known', async () => {
    const closed = await sandbox();
    const url = closed.url;
    await closed.close();
    const offline = createLegacyClient({ secretKey: sb.credentials.secretKey, baseUrl: url, maxRetries: 0 });
    const error = await offline.paymentTokens.create({ value: 1, currency: 'EUR' }).catch((e: unknown) => e);
    assert.ok(error instanceof NetworkError);
    assert.equal(error.outcomeKnown, true);
    assert.match(error.message, /could not connect \(ECONNREFUSED\)/);
    await offline.close();
  });

  it('does not retry a request undici refuses before sending, and says its outcome is known', async () => {
    // A merchant's dispatcher whose interceptor adds a header value undici cannot send: refused at dispatch, before
    // a byte leaves. Nothing was charged and every attempt would be refused the same.
    const agent = new Agent();
    const traced = agent.compose(
      (dispatch) => (opts, handler) =>
        dispatch(
          { ...opts, headers: { ...(opts.headers as Record<string, string>), 'x-trace': 'caf\u00e9 \u2603' } },
          handler,
        ),
    );
    const client = createLegacyClient({
      secretKey: sb.credentials.secretKey,
      baseUrl: sb.url,
      dispatcher: traced,
      maxRetries: 2,
    });
    const body = await chargeBody();
    const error = await client.charges.create(body, { idempotencyKey: 'refused-1' }).catch((e: unknown) => e);
    assert.ok(error instanceof NetworkError, String(error));
    assert.equal(error.outcomeKnown, true);
    assert.equal(error.attempts, 1, 'not retried');
    assert.match(error.message, /was not sent: the HTTP client refused the request \(UND_ERR_INVALID_ARG\)/);
    assert.equal((await requests(sb, CHARGES)).length, 0, 'the sandbox saw no charge');
    await client.close();
    await agent.close();
  });

  it('times out a connection that is never established (TLS handshake unanswered) on time', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const client = createLegacyClient({
      secretKey: sb.credentials.secretKey,
      baseUrl: `https://127.0.0.1:${port}`,
      connectTimeoutMs: 150,
      maxRetries: 0,
    });
    const started = performance.now();
    const error = await client.paymentTokens.create({ value: 1, currency: 'EUR' }).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    assert.ok(error instanceof TimeoutError, String(error));
    assert.equal(error.phase, 'connect');
    assert.equal(error.timeoutMs, 150);
    assert.equal(error.outcomeKnown, true, 'nothing was sent');
    assert.ok(elapsed >= 140 && elapsed < 800, `took ${elapsed} ms`);
    await client.close();
    await client.close();
    for (const socket of sockets) socket.destroy();
    silent.close();
  });

  it('refuses a response body over 4 MiB (chunked or announced) and does not follow redirects', async () => {
    // No sandbox fault produces these; a bare server stands in for a broken provider endpoint.
    let captured = 0;
    const elsewhere = createHttpServer((_req, res) => {
      captured++;
      res.end('{}');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    const elsewherePort = (elsewhere.address() as AddressInfo).port;
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const huge = createHttpServer((req, res) => {
      if (req.url?.includes('redirect')) {
        res.writeHead(307, { location: `http://127.0.0.1:${elsewherePort}/capture` });
        res.end();
      } else if (req.url?.includes('announced')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(64 * 1024 * 1024) });
        res.write(chunk);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        for (let i = 0; i < 9; i++) res.write(chunk);
        res.end();
      }
    });
    await new Promise<void>((resolve) => huge.listen(0, '127.0.0.1', resolve));
    const { port } = huge.address() as AddressInfo;
    const client = createLegacyClient({ secretKey: sb.credentials.secretKey, baseUrl: `http://127.0.0.1:${port}` });
    for (const id of ['charge_chunked', 'charge_announced']) {
      const error = await client.charges.retrieve(id).catch((e: unknown) => e);
      assert.ok(error instanceof InvalidResponseError, String(error));
      assert.equal(error.code, 'TESSERA_INVALID_RESPONSE');
      assert.match(error.message, /larger than 4194304 bytes/);
      assert.equal(error.attempts, 1);
    }
    // A redirect is not followed: the key never goes to the other address.
    const redirected = await client.charges.retrieve('charge_redirect').catch((e: unknown) => e);
    assert.ok(redirected instanceof RequestRejectedError, String(redirected));
    assert.equal(redirected.status, 307);
    assert.match(redirected.message, /redirect, which is not followed/);
    assert.equal(captured, 0);
    await client.close();
    huge.closeAllConnections();
    huge.close();
    elsewhere.close();
  });

  it('uses the configured idempotency header name', async () => {
    const custom = createLegacyClient({
      secretKey: sb.credentials.secretKey,
      baseUrl: sb.url,
      idempotencyHeader: 'X-Request-Key',
      dispatcher: wire.dispatcher,
    });
    const body = await chargeBody();
    wire.sent.length = 0;
    await custom.charges.create(body, { idempotencyKey: 'k-1' });
    assert.equal(wire.sent[0]?.headers['x-request-key'], 'k-1');
    assert.equal(wire.sent[0]?.headers['idempotency-key'], undefined);
  });

  it('sends through a dispatcher the caller passes: an egress proxy (ProxyAgent, HTTP CONNECT)', async (t) => {
    const tunnels: string[] = [];
    const proxy = createHttpServer();
    proxy.on('connect', (req, client: Socket, head: Buffer) => {
      tunnels.push(req.url!);
      const [host, port] = req.url!.split(':');
      const upstream = connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const dispatcher = new ProxyAgent(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
    const client = createLegacyClient({ secretKey: sb.credentials.secretKey, baseUrl: sb.url, dispatcher });
    t.after(async () => {
      await dispatcher.close();
      proxy.close();
    });
    const created = await client.charges.create(await chargeBody(), { idempotencyKey: 'k-proxy' });
    assert.equal(created.status, 200);
    assert.equal((await client.charges.retrieve(created.data.id)).data.id, created.data.id);
    // Every call went through the proxy to the sandbox (one tunnel per connection the pool opened).
    assert.deepEqual(new Set(tunnels), new Set([new URL(sb.url).host]));
  });

  it('says a 409 for an idempotency key still in flight leaves the outcome unknown', async () => {
    const body = await chargeBody();
    // A first request with the key whose body is still arriving holds the key at the provider.
    const url = new URL(`${sb.url}${CHARGES}`);
    const first = request(url, {
      method: 'POST',
      headers: {
        authorization: sb.credentials.secretKey,
        'content-type': 'application/json',
        'content-length': '1000',
        'idempotency-key': 'order-in-flight',
      },
    });
    first.on('error', () => {});
    first.write('{"cardToken":');
    // Wait until the provider holds the key: a probe with an invalid body gets 409 from then on (before that, it
    // fails validation, which releases the key again).
    for (let i = 0; i < 200; i++) {
      const probe = await call(url.href, {
        headers: { authorization: sb.credentials.secretKey, 'idempotency-key': 'order-in-flight' },
        body: {},
      });
      if (probe.status === 409) break;
    }
    const error = await legacy.charges.create(body, { idempotencyKey: 'order-in-flight' }).catch((e: unknown) => e);
    first.destroy();
    assert.ok(error instanceof ConflictError, String(error));
    assert.equal(error.outcomeKnown, false);
    assert.equal(error.idempotencyKey, 'order-in-flight');
    assert.equal(error.headers['retry-after'], '1');
    assert.equal(error.attempts, 1, '409 is not retried');
  });

  it("waits for a 429's Retry-After before the retry, instead of its own short backoff", async () => {
    const { data } = await legacy.charges.create(await chargeBody());
    await fault(sb, { path: `/api2/v2/charges/${data.id}`, status: 429, retryAfter: 1 });
    wire.sent.length = 0;
    const started = performance.now();
    const read = await legacy.charges.retrieve(data.id);
    const waitedMs = performance.now() - started;
    assert.equal(read.data.id, data.id);
    assert.equal(wire.sent.filter((s) => s.path === `/api2/v2/charges/${data.id}`).length, 2);
    // FAST_RETRY's backoff is a few milliseconds: only Retry-After explains a wait of a second.
    assert.ok(waitedMs >= 950, `retried after ${waitedMs.toFixed(0)} ms, before Retry-After: 1 had passed`);
  });

  it('does not wait a Retry-After longer than an attempt may last: the error goes to the caller at once', async (t) => {
    // The Express helper gives each attempt 10 s because a shopper waits; a minute's Retry-After twice kept the
    // shopper two minutes.
    const quick = createLegacyClient({
      secretKey: sb.credentials.secretKey,
      baseUrl: sb.url,
      timeoutMs: 2000,
      ...FAST_RETRY,
    });
    t.after(() => quick.close());
    const { data } = await legacy.charges.create(await chargeBody());
    await fault(sb, { path: `/api2/v2/charges/${data.id}`, status: 503, retryAfter: 5 });
    const started = performance.now();
    const error = await quick.charges.retrieve(data.id).catch((e: unknown) => e);
    const waitedMs = performance.now() - started;
    assert.ok(error instanceof ProviderServerError, String(error));
    assert.equal(error.attempts, 1);
    assert.equal(error.headers['retry-after'], '5');
    assert.ok(waitedMs < 2000, `answered after ${waitedMs.toFixed(0)} ms`);
  });

  it('keeps a charge whose first attempt may have taken effect unknown, whatever 4xx its retries end with', async () => {
    // The first attempt charges and then fails; the retries are refused before they reach the charge. A 4xx alone
    // says "nothing was done", but not after an attempt that may have charged.
    for (const [status, type, count] of [
      [429, RateLimitError, 2],
      [403, PermissionError, 1],
    ] as const) {
      const body = await chargeBody();
      await fault(sb, { path: CHARGES, status: 503, phase: 'after' });
      await fault(sb, { path: CHARGES, status, count });
      const error = await legacy.charges.create(body).catch((e: unknown) => e);
      assert.ok(error instanceof type, `${status}: ${String(error)}`);
      assert.ok(error.attempts > 1, `${status}: retried`);
      assert.equal(error.outcomeKnown, false, `${status} after a 503 that charged`);
      const made = (await requests(sb, CHARGES)).filter((r) => r.status === 503);
      assert.equal(made.length, 1, 'the first attempt reached the charge');
      const resolved = await legacy.charges.create(body, { idempotencyKey: error.idempotencyKey });
      assert.equal((resolved.data as Charge).status, 'Captured', 'the idempotency key finds the charge made');
      await reset(sb);
    }
  });

  it('maps 429 to RateLimitError when retries are exhausted', async () => {
    const { data } = await legacy.charges.create(await chargeBody());
    await fault(sb, { path: `/api2/v2/charges/${data.id}`, status: 429, count: 3 });
    const error = await legacy.charges.retrieve(data.id).catch((e: unknown) => e);
    assert.ok(error instanceof RateLimitError);
    assert.equal(error.code, 'TESSERA_RATE_LIMITED');
    assert.equal(error.attempts, 3);
  });
});

describe('HTTP core: connections and bodies (bare servers standing in for a broken provider)', () => {
  const SECRET = 'sk_test_transport_0123456789';
  const listen = bareServer;

  it('reuses kept-alive connections for sequential calls', async (t) => {
    const server = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'svc-request-id': 'req_1', etag: '"v1"' });
      res.end('{"id":"charge_1","status":"Captured"}');
    });
    const client = createLegacyClient({ secretKey: SECRET, baseUrl: server.url });
    t.after(async () => {
      await client.close();
      server.close();
    });
    for (let i = 0; i < 10; i++) {
      const result = await client.charges.retrieve('charge_1');
      assert.equal(result.requestId, 'req_1');
      assert.equal(result.etag, '"v1"');
      assert.equal(result.data.id, 'charge_1');
    }
    // undici hands a connection back to its pool a tick after the body ends, so the next call may open a second
    // one; after that the two are reused (a client that did not keep connections alive would open ten).
    assert.ok(server.sockets.size <= 2, `${server.sockets.size} connections for 10 calls`);
  });

  it('keeps no key, card number or security code that a provider echoes in an error body on the error it throws', async (t) => {
    // Some APIs echo the request in their errors; the error is what a merchant logs (pino writes `body` whole).
    const server = await listen((req, res) => {
      res.writeHead(req.url?.includes('bad') ? 400 : 500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          errorCode: 'request_invalid',
          message: `key ${SECRET} cannot charge 4242 4242 4242 4242`,
          errors: [{ field: 'number', code: 'invalid', message: 'card 4242424242424242 refused' }],
          request: { authorization: SECRET, number: '4242424242424242', cvv: '737', note: `sent by ${SECRET}` },
        }),
      );
    });
    const client = createLegacyClient({ secretKey: SECRET, baseUrl: server.url, maxRetries: 0 });
    t.after(async () => {
      await client.close();
      server.close();
    });
    for (const id of ['charge_bad', 'charge_broken']) {
      const error = await client.charges.retrieve(id).catch((e: unknown) => e);
      assert.ok(error instanceof ValidationError || error instanceof ProviderServerError, String(error));
      const logged = JSON.stringify({ ...error, message: error.message });
      for (const leak of [SECRET, '4242424242424242', '4242 4242 4242 4242', '737']) {
        assert.ok(!logged.includes(leak), `${id}: ${leak} in ${logged}`);
      }
      // What the caller reads of the body is still there.
      assert.equal((error.body as { errorCode: string }).errorCode, 'request_invalid');
      if (error instanceof ValidationError) {
        assert.deepEqual(
          error.fieldErrors.map((f) => [f.field, f.code]),
          [['number', 'invalid']],
        );
      }
    }
  });

  it('reads an answer whole: after 1xx informational responses, across chunks that split a character, without a BOM', async (t) => {
    const euro = Buffer.from('€', 'utf8');
    const server = await listen((_req, res) => {
      res.writeEarlyHints({ link: '</styles.css>; rel=preload; as=style' });
      res.writeHead(200, { 'content-type': 'application/json', 'svc-request-id': 'req_chunks' });
      res.write(
        Buffer.concat([
          Buffer.from('\ufeff{"id":"charge_1","status":"Captured","description":"5 '),
          euro.subarray(0, 1),
        ]),
      );
      setTimeout(() => res.end(Buffer.concat([euro.subarray(1), Buffer.from('"}')])), 5);
    });
    const client = createLegacyClient({ secretKey: SECRET, baseUrl: server.url });
    t.after(async () => {
      await client.close();
      server.close();
    });
    const result = await client.charges.retrieve('charge_1');
    assert.equal(result.status, 200);
    assert.equal(result.requestId, 'req_chunks');
    assert.deepEqual(result.data, { id: 'charge_1', status: 'Captured', description: '5 €' });
  });

  it('never sends a call stopped while it waited for a free connection', async (t) => {
    const seen: string[] = [];
    // The first call is held until the test lets it go, and the second starts once the first has arrived: no timing
    // race on a busy machine.
    let arrived!: () => void;
    const slowArrived = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const server = await listen((req, res) => {
      seen.push(req.url!);
      const answer = () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{"id":"${req.url!.split('/').pop()}","status":"Captured"}`);
      };
      if (req.url!.endsWith('charge_slow')) {
        arrived();
        void held.then(answer);
      } else answer();
    });
    // One connection, so the second call queues behind the first.
    const dispatcher = new Agent({ connections: 1 });
    const client = createLegacyClient({ secretKey: SECRET, baseUrl: server.url, dispatcher, maxRetries: 0 });
    t.after(async () => {
      await client.close();
      await dispatcher.close();
      server.close();
    });
    const slow = client.charges.retrieve('charge_slow');
    await slowArrived;
    // Stopped by the caller while the first call holds the only connection: rejected at once with the reason.
    const stopped = await client.charges
      .retrieve('charge_queued', { signal: AbortSignal.timeout(50) })
      .catch((e: unknown) => e);
    assert.equal((stopped as Error).name, 'TimeoutError', String(stopped));
    const ids = () => seen.map((url) => url.split('/').pop());
    assert.deepEqual(ids(), ['charge_slow']);
    release();
    assert.equal((await slow).data.id, 'charge_slow');
    // When the connection frees up, the stopped call is dropped, not sent late; the next call goes through.
    assert.equal((await client.charges.retrieve('charge_next')).data.id, 'charge_next');
    assert.deepEqual(ids(), ['charge_slow', 'charge_next']);
  });

  it('says a write answered with a redirect has an unknown outcome, and never follows it', async (t) => {
    // A 303 is how HTTP answers a POST carried out elsewhere ("see the result there"): the charge may exist.
    let elsewhere = 0;
    const other = await listen((_req, res) => {
      elsewhere++;
      res.end('{}');
    });
    let status = 303;
    const server = await listen((_req, res) => {
      res.writeHead(status, { location: `${other.url}/api2/v2/charges/charge_elsewhere` });
      res.end();
    });
    const client = createLegacyClient({ secretKey: SECRET, baseUrl: server.url, maxRetries: 0 });
    t.after(async () => {
      await client.close();
      server.close();
      other.close();
    });
    const body = { cardToken: 'card_tok_abcdefgh', value: 1999, currency: 'EUR', email: 'a@shop.example' };
    for (status of [301, 302, 303, 307, 308]) {
      const error = await client.charges
        .create(body, { idempotencyKey: `redirect-${status}` })
        .catch((e: unknown) => e);
      assert.ok(error instanceof RequestRejectedError, `${status}: ${String(error)}`);
      assert.equal(error.status, status);
      assert.equal(error.outcomeKnown, false, `${status}: a POST answered with a redirect may have been carried out`);
      assert.equal(error.idempotencyKey, `redirect-${status}`);
    }
    // A read that was redirected changed nothing.
    status = 307;
    const read = await client.charges.retrieve('charge_1').catch((e: unknown) => e);
    assert.ok(read instanceof RequestRejectedError, String(read));
    assert.equal(read.outcomeKnown, true);
    assert.equal(elsewhere, 0, 'the key never went to the address of the redirect');
  });

  it('reports a body cut off mid-stream (chunked or with a length) as a NetworkError, once per attempt', async (t) => {
    let hits = 0;
    const server = await listen((req, res) => {
      hits++;
      const chunked = req.url?.includes('chunked');
      res.writeHead(200, { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': '100' }) });
      res.write('{"id":"charge_');
      setTimeout(() => res.socket?.destroy(), 10);
    });
    const client = createLegacyClient({ secretKey: SECRET, baseUrl: server.url, maxRetries: 1, ...FAST_RETRY });
    t.after(async () => {
      await client.close();
      server.close();
    });
    for (const id of ['charge_chunked', 'charge_length']) {
      hits = 0;
      const error = await client.charges.retrieve(id).catch((e: unknown) => e);
      assert.ok(error instanceof NetworkError, String(error));
      assert.equal(error.code, 'TESSERA_NETWORK');
      assert.equal(error.outcomeKnown, true, 'a read');
      assert.equal(error.attempts, 2);
      assert.equal(hits, 2);
    }
  });
});
