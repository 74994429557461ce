/** Slow, endless and oversized connections against a real sandbox over raw sockets (docs/decisions/sandbox.md#server-timeouts). */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { TEST_TLS_CERT, TEST_TLS_KEY } from './tls-fixture.js';

const PATH = '/api2/v2/tokens/card';

/** A raw connection: everything the server sent, and a promise that settles when the socket closes. */
function open(sb: RunningSandbox): { socket: Socket; received: () => string; closed: Promise<number> } {
  const { port } = new URL(sb.url);
  const socket = connect(Number(port), '127.0.0.1');
  let text = '';
  socket.on('data', (d) => {
    text += d.toString('latin1');
  });
  socket.on('error', () => {});
  const started = Date.now();
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - started)));
  return { socket, received: () => text, closed };
}

function head(sb: RunningSandbox, extra: string): string {
  return `POST ${PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${sb.credentials.publicKey}\r\nContent-Type: application/json\r\n${extra}\r\n`;
}

/** The JSON body of a raw HTTP answer. */
function jsonOf(raw: string): Record<string, unknown> {
  return JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
}

/** Asserts that `raw` is a legacy-shaped JSON refusal: its status, `errorCode` and the one field it names. */
function assertRefused(raw: string, status: number, code: string, field: string, label: string): void {
  assert.match(raw, new RegExp(`^HTTP/1\\.1 ${status} `), label);
  const body = jsonOf(raw);
  assert.equal(body.errorCode, code, label);
  assert.deepEqual(
    (body.errors as { field: string }[]).map((e) => e.field),
    [field],
    label,
  );
}

describe('sandbox connections', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await startSandbox({ timeouts: { requestTimeout: 800, headersTimeout: 500, keepAliveTimeout: 500 } });
  });
  after(() => sb.close());

  it('cuts off a never-ending chunked body at the request timeout with a JSON 408', async () => {
    const c = open(sb);
    c.socket.write(head(sb, 'Transfer-Encoding: chunked\r\n'));
    const drip = setInterval(() => c.socket.writable && c.socket.write('1\r\n \r\n'), 50);
    const ms = await c.closed;
    clearInterval(drip);
    assert.ok(ms < 5_000, `closed after ${ms} ms`);
    assert.match(c.received(), /^HTTP\/1\.1 408 /);
    assert.equal(jsonOf(c.received()).errorCode, 'request_timeout');
  });

  it('cuts off a short body under a large Content-Length', async () => {
    const c = open(sb);
    c.socket.write(`${head(sb, 'Content-Length: 60000\r\n')}{"number":`);
    const ms = await c.closed;
    assert.ok(ms < 5_000, `closed after ${ms} ms`);
    assert.match(c.received(), /^HTTP\/1\.1 408 /);
  });

  it('cuts off a request whose headers never end', async () => {
    const c = open(sb);
    c.socket.write(`POST ${PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
    const drip = setInterval(() => c.socket.writable && c.socket.write('X-Slow: 1\r\n'), 50);
    const ms = await c.closed;
    clearInterval(drip);
    assert.ok(ms < 5_000, `closed after ${ms} ms`);
    assert.match(c.received(), /^HTTP\/1\.1 408 /);
  });

  for (const [name, extra] of [
    ['declared by Content-Length', `Content-Length: ${64 * 1024 * 1024}\r\n`],
    ['found while streaming a chunked body', 'Transfer-Encoding: chunked\r\n'],
  ] as const) {
    it(`stops reading an oversize body after the 413 (${name}) and closes the connection`, async () => {
      const c = open(sb);
      const chunked = extra.startsWith('Transfer');
      const piece = Buffer.alloc(64 * 1024, 'a');
      const frame = chunked
        ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
        : piece;
      let written = 0;
      let done = false;
      c.closed.then(() => {
        done = true;
      });
      c.socket.write(head(sb, extra));
      // Write as fast as the server takes it, up to 64 MiB; before the fix the server read all of it.
      while (!done && written < 64 * 1024 * 1024) {
        const ok = c.socket.write(frame);
        written += frame.length;
        if (!ok) {
          await Promise.race([new Promise((r) => c.socket.once('drain', r)), c.closed]);
        }
      }
      const ms = await Promise.race([c.closed, new Promise<number>((r) => setTimeout(() => r(-1), 10_000))]);
      assert.notEqual(ms, -1, 'the connection stayed open');
      assert.match(c.received(), /^HTTP\/1\.1 413 /);
      assert.match(c.received(), /\r\nconnection: close\r\n/i);
      assert.equal(jsonOf(c.received()).errorCode, 'body_too_large');
      assert.ok(written < 16 * 1024 * 1024, `the server took ${written} bytes after its 413`);
    });
  }

  it('answers headers that are too large with a JSON 431', async () => {
    const c = open(sb);
    c.socket.write(`GET /_sandbox/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    await c.closed;
    assert.match(c.received(), /^HTTP\/1\.1 431 /);
    assert.match(c.received(), /\r\ncontent-type: application\/json/i);
    assert.equal(jsonOf(c.received()).errorCode, 'headers_too_large');
  });

  it('answers malformed HTTP with a JSON 400', async () => {
    const c = open(sb);
    c.socket.write('NOT HTTP AT ALL\r\n\r\n');
    await c.closed;
    assert.match(c.received(), /^HTTP\/1\.1 400 /);
    assert.equal(jsonOf(c.received()).errorCode, 'bad_request');
  });

  it('answers an unsupported Expect with a JSON 417', async () => {
    const c = open(sb);
    c.socket.write('GET /_sandbox/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: teapot\r\n\r\n');
    await c.closed;
    assert.match(c.received(), /^HTTP\/1\.1 417 /);
    assert.equal(jsonOf(c.received()).errorCode, 'expectation_failed');
  });

  /** Sends `request` on a fresh connection and waits for the server to close it or for `waitMs`. */
  async function exchange(request: string, waitMs = 2_000): Promise<string> {
    const c = open(sb);
    c.socket.write(request);
    await Promise.race([c.closed, new Promise((r) => setTimeout(r, waitMs))]);
    c.socket.destroy();
    return c.received();
  }

  it('answers an HTTP/1.1 request without Host, with an empty one or with two, with a JSON 400 naming Host (RFC 9112 §3.2)', async () => {
    for (const [request, code] of [
      ['GET /_sandbox/clock HTTP/1.1\r\n\r\n', 'host_missing'],
      [`POST ${PATH} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`, 'host_missing'],
      ['GET /_sandbox/clock HTTP/1.1\r\nHost:\r\n\r\n', 'host_missing'],
      ['GET /_sandbox/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nhost: tessdemo.example\r\n\r\n', 'host_repeated'],
      ['GET /_sandbox/clock HTTP/1.0\r\nHost: 127.0.0.1\r\nHost: 127.0.0.1\r\n\r\n', 'host_repeated'],
    ] as const) {
      const answer = await exchange(request);
      assert.match(answer, /\r\ncontent-type: application\/json/i, request);
      assert.match(answer, /\r\nconnection: close\r\n/i, request);
      assertRefused(answer, 400, code, 'Host', request);
    }
  });

  it('serves an HTTP/1.0 request without Host, which that version allows (docs/decisions/sandbox.md#host-header)', async () => {
    for (const request of ['GET /_sandbox/clock HTTP/1.0\r\n\r\n', 'GET /_sandbox/clock\r\n\r\n']) {
      // The second is HTTP/0.9's request line, which Node reads as version 0.9.
      const answer = await exchange(request);
      assert.match(answer, /^HTTP\/1\.1 200 /, request);
      assert.ok(typeof jsonOf(answer).now === 'string', request);
    }
  });

  it('answers the controls at a hostile Host with a JSON 421 naming Host, and judges an absolute-form target by its authority', async () => {
    for (const host of [
      'a'.repeat(15_000),
      `${'a.'.repeat(7_000)}localhost.evil`,
      `${':'.repeat(15_000)}x`,
      `${':1'.repeat(7_000)}x`,
      `${'.'.repeat(15_000)}localhost`,
      '.localhost',
      'foo..localhost',
      '[::1]evil.example',
      '[evil.example]',
      'evil.example:80:80',
      'ev"il\\.example<script>',
      '\u00e9vil.example',
      '%65vil.example',
      'evil.example\t',
    ]) {
      const started = performance.now();
      const answer = await exchange(`GET /_sandbox/requests HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      const label = JSON.stringify(host.slice(0, 40));
      assert.ok(performance.now() - started < 1_000, `${label} answered at once`);
      assertRefused(answer, 421, 'control_host_refused', 'Host', label);
      assert.ok(String(jsonOf(answer).message).length < 600, `${label}: the name is not repeated whole`);
    }
    // RFC 9112 §3.2.2: the authority in the target, not Host, is the name the request is for.
    const absolute = await exchange(
      'GET http://evil.example/_sandbox/requests HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    );
    assertRefused(absolute, 421, 'control_host_refused', 'Host', 'absolute-form');
  });

  it('answers CONNECT with a JSON 501 instead of closing the connection without a word', async () => {
    for (const target of ['127.0.0.1:443', 'tessdemo.example:443']) {
      const answer = await exchange(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
      assertRefused(answer, 501, 'method_not_implemented', 'method', target);
    }
  });

  it('judges an absolute-form request by the authority of its target, not its Host (RFC 9112 §3.2.2)', async () => {
    for (const host of ['127.0.0.1', '']) {
      const clock = await exchange(
        `GET http://127.0.0.1/_sandbox/clock HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      assert.match(clock, /^HTTP\/1\.1 200 /, host);
    }
    // The host prefix rule (docs/decisions/sandbox.md#host-prefix) sees the name the target gives.
    const misdirected = await exchange(
      'GET http://wrongpfx.api.example/accounts/entities/ent_x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    );
    assert.match(misdirected, /^HTTP\/1\.1 421 /);
    assert.deepEqual(jsonOf(misdirected).error_codes, ['host_prefix_mismatch']);
    for (const target of [
      'ftp://127.0.0.1/_sandbox/clock',
      'http://user:pw@127.0.0.1/_sandbox/clock',
      'http://127.0.0.1:99999/',
    ]) {
      const answer = await exchange(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      assertRefused(answer, 400, 'target_invalid', 'target', target);
    }
  });

  it('refuses a transfer coding other than chunked with a JSON 501 instead of reading the body as plain', async () => {
    for (const coding of ['gzip, chunked', 'deflate, chunked', 'identity, chunked', 'gzip']) {
      // `{}` under `gzip, chunked` used to be read as plain JSON (and answered as a card request missing its fields).
      const answer = await exchange(`${head(sb, `Transfer-Encoding: ${coding}\r\n`)}2\r\n{}\r\n0\r\n\r\n`);
      assertRefused(answer, 501, 'transfer_encoding_unsupported', 'Transfer-Encoding', coding);
    }
    const plain = await exchange(
      `${head(sb, 'Transfer-Encoding: Chunked\r\nConnection: close\r\n')}2\r\n{}\r\n0\r\n\r\n`,
    );
    assert.match(plain, /^HTTP\/1\.1 400 /);
    assert.equal(jsonOf(plain).errorCode, 'number_required', 'a chunked body is still read');
  });

  it('answers pipelined requests in order when a later one is malformed: the 400 comes after, not in place of, their answers', async () => {
    // Delayed answers, so both are still being worked on when the parser meets the malformed third request.
    const fault = await fetch(`${sb.url}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'GET', path: '/_sandbox/test-cards', delayMs: 200, count: 2 }),
    });
    assert.equal(fault.status, 201);
    const get = 'GET /_sandbox/test-cards HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    const answer = await exchange(`${get}${get}NOT HTTP AT ALL\r\n\r\n`);
    // Before, the first request (which ran) was answered "could not be parsed" and the others were lost.
    assert.deepEqual(
      [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]),
      ['200', '200', '400'],
    );
    assert.match(
      answer,
      /\{"errorCode":"bad_request","message":"the request could not be parsed as HTTP","errors":\[\]\}$/,
    );
  });

  it('answers a pipelined CONNECT after the answers of the requests before it, not in their place', async () => {
    // A delayed answer, so the first request is still being worked on when the parser meets the CONNECT.
    const fault = await fetch(`${sb.url}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'GET', path: '/_sandbox/test-cards', delayMs: 200, count: 1 }),
    });
    assert.equal(fault.status, 201);
    const get = 'GET /_sandbox/test-cards HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    const answer = await exchange(`${get}CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n`);
    // Before, the 501 was written at once and the connection closed: the first request ran and its answer was lost.
    assert.deepEqual(
      [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]),
      ['200', '501'],
    );
    assert.match(answer, /"errorCode":"method_not_implemented"/);
  });

  it('still answers an ordinary request on a keep-alive connection', async () => {
    const r = await fetch(`${sb.url}/_sandbox/clock`);
    assert.equal(r.status, 200);
  });
});

describe('sandbox connections over TLS', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await startSandbox({
      tls: { cert: TEST_TLS_CERT, key: TEST_TLS_KEY },
      timeouts: { requestTimeout: 800, headersTimeout: 500, keepAliveTimeout: 500 },
    });
  });
  after(() => sb.close());

  it('closes a connection whose TLS handshake never ends at the headers timeout (it was held open for good)', async () => {
    for (const first of ['', '\x16\x03\x01\x02\x00\x01']) {
      // Nothing at all, then the first bytes of a ClientHello that never comes whole.
      const c = open(sb);
      if (first) c.socket.write(Buffer.from(first, 'latin1'));
      const ms = await Promise.race([c.closed, new Promise<number>((r) => setTimeout(() => r(-1), 10_000))]);
      c.socket.destroy();
      assert.ok(ms !== -1 && ms < 5_000, `closed after ${ms} ms`);
    }
  });
});
