import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { runDemoCommand } from '../../demo/cli.js';
import { type RunningDemo, startDemo } from '../../demo/server.js';
import { containsPan } from '../../server/common/pan.js';
import { readableUrl } from '../../server/common/url-pans.js';
import { RedisServer } from '../node/helper/redis-server.js';
import { cardToken } from '../node/helper/support.js';
import { call } from '../support/http.js';
import { ODD_VALUES, picker, seededRandom, urlEncoded } from '../support/random.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

const FORM = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
const JSON_ACCEPT = { accept: 'application/json' };

/** Signs in as a demo user (the session given, or a new one): the session cookie the sign-in answers with. */
async function signIn(demo: RunningDemo, cookie: string | undefined, user: string): Promise<string> {
  const res = await fetch(`${demo.url}/platform/sign-in`, {
    method: 'POST',
    headers: { ...FORM, ...(cookie ? { cookie } : {}) },
    body: `user=${user}`,
    redirect: 'manual',
  });
  assert.deepEqual([res.status, res.headers.get('location')], [303, '/platform']);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

/**
 * A new visitor's session, as the demo issues it: when something is first stored under it (here an empty cart: the
 * remove of a line it does not have), never on a page that stores nothing.
 */
async function visitor(demo: RunningDemo): Promise<string> {
  const res = await fetch(`${demo.url}/cart`, {
    method: 'POST',
    headers: FORM,
    body: 'product=mug&action=remove',
    redirect: 'manual',
  });
  assert.equal(res.status, 303);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

describe('the demo server over HTTP (no browser)', { timeout: 60_000 }, () => {
  let demo: RunningDemo;
  before(async () => {
    demo = await startDemo({ port: 0, sandboxPort: 0, logger: quiet });
  });
  after(async () => {
    await demo?.close();
  });

  it('answers /favicon.ico with an icon (no 404 and console error on every page)', async () => {
    const icon = await call(`${demo.url}/favicon.ico`);
    assert.equal(icon.status, 200);
    assert.equal(icon.headers.get('content-type'), 'image/svg+xml; charset=utf-8');
    assert.match(icon.text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg".*<\/svg>$/s);
  });

  it('sets a session cookie only when it stores something, never on an answer a shared cache may keep, and serves its files with security headers', async () => {
    const cookie = await visitor(demo);
    await call(`${demo.url}/cart`, { method: 'POST', headers: { ...FORM, cookie }, raw: 'product=mug&action=add' });
    const placed = await fetch(`${demo.url}/checkout`, { method: 'POST', headers: { cookie }, redirect: 'manual' });
    const checkout = await call(`${demo.url}${placed.headers.get('location')}`, { headers: { cookie } });
    const widget = /src="(\/api\/widget\.js\?v=[^"]+)"/.exec(checkout.text)![1]!;
    // A first visit with no cookie: the widget bundle is `public` for a year, the files for minutes. A cookie on any
    // of them could be kept by a proxy and handed to every visitor after, all in one session.
    for (const path of [
      widget,
      '/static/checkout.js',
      '/static/demo.css',
      '/favicon.ico',
      '/',
      '/platform',
      '/sandbox',
    ]) {
      for (const method of ['GET', 'HEAD']) {
        const r = await call(`${demo.url}${path}`, { method });
        assert.equal(r.status, 200, `${method} ${path}`);
        assert.equal(r.headers.get('set-cookie'), null, `${method} ${path}: ${r.headers.get('cache-control')}`);
      }
    }
    assert.match((await call(`${demo.url}${widget}`)).headers.get('cache-control')!, /public/);
    for (const path of ['/static/checkout.js', '/static/platform.js', '/static/demo.css', '/favicon.ico']) {
      const r = await call(`${demo.url}${path}`);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(r.headers.get('content-security-policy'), "default-src 'none';frame-ancestors 'none'", path);
    }
  });

  it('refuses its own forms from another site: no page a visitor has open can drive the console, the cart or the sign-in', async () => {
    // The sandbox's clock runs with real time; only the console's steps move it by a minute or more at once.
    const clock = async () => Date.parse((await call(`${demo.sandbox.url}/_sandbox/clock`)).json.now as string);
    const before = await clock();
    const faults = async () => (await call(`${demo.sandbox.url}/_sandbox/faults`)).json.data.length as number;
    const posts: [string, string][] = [
      ['/sandbox/clock', 'seconds=86400'],
      ['/sandbox/faults', 'preset=charge-unavailable'],
      ['/sandbox/faults', 'preset=record-fails'],
      ['/sandbox/faults/clear', ''],
      ['/sandbox/reset', ''],
      ['/cart', 'product=mug&action=add'],
      ['/checkout', ''],
      ['/platform/token', '{"user":"usr_demo_ada"}'],
      ['/platform/sign-in', 'user=usr_demo_ada'],
      ['/platform/sign-out', ''],
    ];
    const strangers: Record<string, string>[] = [
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      { origin: 'http://localhost:1', 'sec-fetch-site': 'same-site' },
      // A browser too old for Sec-Fetch-Site still sends Origin; a sandboxed frame sends `null`.
      { origin: 'https://evil.example' },
      { origin: 'null' },
    ];
    for (const [path, raw] of posts) {
      for (const stranger of strangers) {
        const r = await call(`${demo.url}${path}`, { method: 'POST', headers: { ...FORM, ...stranger }, raw });
        assert.deepEqual(
          [r.status, r.json?.code, r.json?.field],
          [403, 'DEMO_CROSS_SITE_REFUSED', 'origin'],
          `${path} ${JSON.stringify(stranger)}`,
        );
      }
    }
    assert.ok((await clock()) - before < 30_000, 'the sandbox clock was not moved');
    assert.equal(await faults(), 0, 'no fault was switched on');
    // The console's own page posts the same forms.
    const own = { 'sec-fetch-site': 'same-origin', origin: demo.url };
    const moved = await fetch(`${demo.url}/sandbox/clock`, {
      method: 'POST',
      headers: { ...FORM, ...own },
      body: 'seconds=60',
      redirect: 'manual',
    });
    assert.equal(moved.status, 303);
    assert.ok((await clock()) - before >= 60_000, 'moved by the console’s own form');
    await fetch(`${demo.url}/sandbox/reset`, { method: 'POST', headers: own, redirect: 'manual' });
  });

  it('answers only a loopback Host: a page that rebinds its own name to 127.0.0.1 is same-origin in name only', async () => {
    const { port } = new URL(demo.url);
    /** A request with a Host header of our choosing (fetch does not let a caller set it). */
    const withHost = (host: string, method = 'GET', path = '/', body = '') =>
      new Promise<{ status: number; json: Record<string, unknown> | undefined }>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, method, path, headers: { host, origin: `http://${host}`, ...FORM } },
          (res) => {
            let text = '';
            res.on('data', (chunk) => {
              text += String(chunk);
            });
            res.on('end', () => {
              let json: Record<string, unknown> | undefined;
              try {
                json = JSON.parse(text) as Record<string, unknown>;
              } catch {
                json = undefined;
              }
              resolve({ status: res.statusCode ?? 0, json });
            });
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const faults = async () => (await call(`${demo.sandbox.url}/_sandbox/faults`)).json.data.length as number;
    for (const host of [
      `evil.example:${port}`,
      'evil.example',
      `127.0.0.1.evil.example:${port}`,
      `localhost.evil:${port}`,
      // Not an IPv6 literal with a port: no rule may take it for the [::1] inside.
      `[::1]evil.example:${port}`,
      `[::1`,
    ]) {
      const page = await withHost(host);
      assert.deepEqual([page.status, page.json?.code, page.json?.field], [421, 'DEMO_HOST_REFUSED', 'host'], host);
      const fault = await withHost(host, 'POST', '/sandbox/faults', 'preset=charge-unavailable');
      assert.equal(fault.status, 421, host);
    }
    assert.equal(await faults(), 0, 'no fault was switched on');
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      assert.equal((await withHost(host)).status, 200, host);
    }
    const refused = await withHost(`evil.example:${port}`);
    assert.match(
      String(refused.json?.message),
      /TESSERA_DEMO_ALLOWED_HOSTS=evil\.example/,
      'the message names the way out',
    );
  });

  it('answers a missing, repeated or empty Host, an absolute-form target, a transfer coding and CONNECT as JSON naming the field', async () => {
    const { port } = new URL(demo.url);
    /** Sends `text` on a raw connection; resolves with what came back once the server closes it (or after 2 s). */
    const exchange = (text: string) =>
      new Promise<{ status: number; json: Record<string, unknown> | undefined }>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1');
        let received = '';
        socket.on('data', (d) => {
          received += d.toString('latin1');
        });
        socket.on('error', () => {});
        const done = () => {
          socket.destroy();
          const body = received.slice(received.indexOf('\r\n\r\n') + 4);
          resolve({
            status: Number(received.slice(9, 12)),
            json: body.startsWith('{') ? (JSON.parse(body) as Record<string, unknown>) : undefined,
          });
        };
        socket.once('close', done);
        setTimeout(done, 2_000).unref();
        socket.write(text);
      });
    const J = 'Accept: application/json\r\n';
    for (const [text, status, code, field] of [
      // Node's own 400 for these had no body (requireHostHeader); HTTP/1.0 may leave Host out, but the demo needs one.
      [`GET / HTTP/1.1\r\n${J}\r\n`, 400, 'host_missing', 'host'],
      [`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nHost: evil.example\r\n${J}\r\n`, 400, 'host_repeated', 'host'],
      [`GET / HTTP/1.0\r\n${J}\r\n`, 400, 'DEMO_HOST_MISSING', 'host'],
      [`GET / HTTP/1.1\r\nHost:\r\n${J}\r\n`, 400, 'host_missing', 'host'],
      [`GET / HTTP/1.0\r\nHost: \r\n${J}\r\n`, 400, 'DEMO_HOST_MISSING', 'host'],
      // An absolute-form target names the authority (RFC 9112 §3.2.2): the loopback rule judges that one.
      [
        `GET http://evil.example/ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${J}Connection: close\r\n\r\n`,
        421,
        'DEMO_HOST_REFUSED',
        'host',
      ],
      [`GET ftp://127.0.0.1/ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${J}\r\n`, 400, 'target_invalid', 'target'],
      // Node decodes chunked only: the rest was read as plain bytes.
      [
        `POST /cart HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${J}Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\na=b\r\n0\r\n\r\n`,
        501,
        'transfer_encoding_unsupported',
        'transfer-encoding',
      ],
      // Node closed the connection without a word.
      [`CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n`, 501, 'method_not_implemented', 'method'],
    ] as const) {
      const answer = await exchange(text);
      assert.deepEqual([answer.status, answer.json?.code, answer.json?.field], [status, code, field], text);
    }
    const served = await exchange(
      `GET http://127.0.0.1:${port}/favicon.ico HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    );
    assert.equal(served.status, 200);
  });

  it('answers the host names it is told to (a proxy of the developer’s), and still no other', async () => {
    const proxied = await startDemo({ port: 0, sandboxPort: 0, allowedHosts: ['demo.dev.example'], logger: quiet });
    try {
      const { port } = new URL(proxied.url);
      const status = (host: string) =>
        new Promise<number>((resolve, reject) => {
          request({ host: '127.0.0.1', port, path: '/', headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
            .on('error', reject)
            .end();
        });
      assert.equal(await status('demo.dev.example'), 200);
      assert.equal(await status(`DEMO.dev.example:${port}`), 200);
      assert.equal(await status('evil.example'), 421);
    } finally {
      await proxied.close();
    }
    await assert.rejects(
      startDemo({ allowedHosts: 'demo.dev.example' as never }),
      /option `allowedHosts` must be an array/,
    );
  });

  it('marks the session cookie Secure when the request came over HTTPS: X-Forwarded-Proto from a trusted proxy, never from another address', async () => {
    // The proxy is 127.0.0.1; a client at 127.0.0.2 (loopback too, so the host rule lets it in) is no proxy of ours.
    const proxied = await startDemo({ port: 0, sandboxPort: 0, trustProxy: ['127.0.0.1'], logger: quiet });
    try {
      const { port } = new URL(proxied.url);
      /** The session cookie a new visitor's first cart post gets (or a sign-in, with `path`), sent from `from`. */
      const cookieFrom = (
        from: string,
        headers: Record<string, string>,
        path = '/cart',
        body = 'product=mug&action=add',
      ) =>
        new Promise<string>((resolve, reject) => {
          const req = request(
            { host: '127.0.0.1', port, path, method: 'POST', localAddress: from, headers: { ...FORM, ...headers } },
            (res) => {
              res.resume();
              const cookies = [res.headers['set-cookie'] ?? []].flat();
              assert.equal(res.statusCode, 303, `${from} ${path}: ${res.statusCode}`);
              resolve(cookies.find((c) => c.startsWith('tessera_demo='))!);
            },
          );
          req.on('error', reject).end(body);
        });
      const https = { 'x-forwarded-proto': 'https' };
      const flags = (cookie: string) =>
        cookie
          .split(';')
          .slice(1)
          .map((a) => a.trim());
      assert.deepEqual(flags(await cookieFrom('127.0.0.1', https)), ['Path=/', 'HttpOnly', 'SameSite=Lax', 'Secure']);
      assert.deepEqual(flags(await cookieFrom('127.0.0.1', {})), ['Path=/', 'HttpOnly', 'SameSite=Lax'], 'plain HTTP');
      assert.deepEqual(
        flags(await cookieFrom('127.0.0.1', { 'x-forwarded-proto': 'http' })),
        ['Path=/', 'HttpOnly', 'SameSite=Lax'],
        'the proxy was reached over plain HTTP',
      );
      assert.deepEqual(
        flags(await cookieFrom('127.0.0.2', https)),
        ['Path=/', 'HttpOnly', 'SameSite=Lax'],
        'an untrusted address cannot say HTTPS',
      );
      // Every cookie the demo issues: the sign-in's new id too.
      const signedIn = await cookieFrom('127.0.0.1', https, '/platform/sign-in', 'user=usr_demo_grace');
      assert.ok(flags(signedIn).includes('Secure'), signedIn);
    } finally {
      await proxied.close();
    }
    // The default trusts no proxy: X-Forwarded-Proto from anyone is ignored.
    const res = await fetch(`${demo.url}/cart`, {
      method: 'POST',
      headers: { ...FORM, 'x-forwarded-proto': 'https' },
      body: 'product=mug&action=add',
      redirect: 'manual',
    });
    assert.doesNotMatch(res.headers.get('set-cookie') ?? '', /Secure/i);
    for (const trustProxy of [true, ['true'], [], ['not an address'], -1, 1.5, 'loopback']) {
      await assert.rejects(startDemo({ trustProxy: trustProxy as never }), {
        name: 'TypeError',
        message: /option `trustProxy` must be the number of proxies .* never true; got /,
      });
    }
  });

  it('serves every page with the helper’s strict CSP (nonce scripts, Trusted Types) and the widget with its SRI hash', async () => {
    const cookie = await visitor(demo);
    await call(`${demo.url}/cart`, { method: 'POST', headers: { ...FORM, cookie }, raw: 'product=mug&action=add' });
    const placed = await fetch(`${demo.url}/checkout`, { method: 'POST', headers: { cookie }, redirect: 'manual' });
    const checkout = await call(`${demo.url}${placed.headers.get('location')}`, { headers: { cookie } });
    const grace = await signIn(demo, cookie, 'usr_demo_grace');
    for (const [path, headers] of [
      ['/', {}],
      ['/platform', {}],
      ['/platform/sign-in', {}],
      ['/platform', { cookie: grace }],
      ['/sandbox', {}],
    ] as const) {
      const page = await call(`${demo.url}${path}`, { headers });
      const csp = page.headers.get('content-security-policy') ?? '';
      assert.match(csp, /script-src 'nonce-[^']+'(;|$)/, path);
      assert.match(csp, /require-trusted-types-for 'script'/, path);
      assert.doesNotMatch(
        page.text,
        /\son[a-z]+=|style=|<script(?![^>]*nonce=)/i,
        `${path}: no inline handler or style`,
      );
    }
    assert.equal(checkout.status, 200);
    const nonce = /'nonce-([^']+)'/.exec(checkout.headers.get('content-security-policy')!)![1]!;
    const tag =
      /<script type="module" src="\/api\/widget\.js\?v=[^"]+" integrity="(sha384-[^"]+)" crossorigin="anonymous" nonce="([^"]+)">/.exec(
        checkout.text,
      );
    assert.ok(tag, 'the widget script tag');
    assert.equal(tag[2], nonce);
    assert.equal(tag[1], (await call(`${demo.url}/api/config`)).json.widgetIntegrity);
  });

  it('answers bad input to its own routes with a 4xx naming the field', async () => {
    const cases: [string, string, Record<string, string>, string | undefined, number, string, string][] = [
      ['POST', '/cart', FORM, 'product=caviar&action=add', 400, 'DEMO_INVALID', 'product'],
      ['POST', '/cart', FORM, 'product=mug&action=steal', 400, 'DEMO_INVALID', 'action'],
      ['POST', '/cart', FORM, `product=${'m'.repeat(5000)}`, 413, 'DEMO_TOO_LARGE', 'body'],
      [
        'POST',
        '/cart',
        { 'content-type': 'application/json', ...JSON_ACCEPT },
        '{"product":"mug"}',
        400,
        'DEMO_INVALID',
        'product',
      ],
      [
        'POST',
        '/platform/token',
        { 'content-type': 'application/json' },
        '{"user":"usr_root"}',
        400,
        'DEMO_INVALID',
        'user',
      ],
      ['POST', '/platform/token', { 'content-type': 'application/json' }, '{"user":', 400, 'DEMO_MALFORMED', 'body'],
      ['POST', '/platform/token', { 'content-type': 'application/json' }, '[1,2]', 400, 'DEMO_INVALID', 'user'],
      ['POST', '/platform/token', { 'content-type': 'text/plain' }, 'usr_demo_ada', 400, 'DEMO_INVALID', 'user'],
      ['POST', '/platform/sign-in', FORM, 'user=usr_root', 400, 'DEMO_INVALID', 'user'],
      ['POST', '/platform/sign-in', FORM, 'user=usr_demo_ada&user=usr_demo_grace', 400, 'DEMO_INVALID', 'user'],
      ['POST', '/platform/sign-in', JSON_ACCEPT, undefined, 400, 'DEMO_INVALID', 'user'],
      ['POST', '/sandbox/clock', FORM, 'seconds=-5', 400, 'DEMO_INVALID', 'seconds'],
      ['POST', '/sandbox/clock', FORM, 'seconds=soon', 400, 'DEMO_INVALID', 'seconds'],
      ['POST', '/sandbox/clock', FORM, 'seconds=1e12', 400, 'DEMO_INVALID', 'seconds'],
      ['POST', '/sandbox/faults', FORM, 'preset=meltdown', 400, 'DEMO_INVALID', 'preset'],
      // A path that does not decode is about the path, not a body (a GET has none).
      ['GET', '/checkout/%', JSON_ACCEPT, undefined, 400, 'DEMO_MALFORMED', 'path'],
      ['GET', '/orders/%E0%A4%A', JSON_ACCEPT, undefined, 400, 'DEMO_MALFORMED', 'path'],
    ];
    for (const [method, path, headers, raw, status, code, field] of cases) {
      const answer = await call(`${demo.url}${path}`, { method, headers, ...(raw === undefined ? {} : { raw }) });
      assert.deepEqual(
        [answer.status, answer.json?.code, answer.json?.field],
        [status, code, field],
        `${method} ${path} ${raw ?? ''}`,
      );
    }
    for (const path of ['/checkout/ord_0000000000000000', '/orders/<script>', '/checkout/..%2f..%2fetc', '/nowhere']) {
      const answer = await call(`${demo.url}${path}`, { headers: JSON_ACCEPT });
      assert.deepEqual([answer.status, answer.json?.code], [404, 'DEMO_NOT_FOUND'], path);
    }
  });

  it('answers a wrong method on its own routes with 405 and Allow (JSON or its error page), OPTIONS with 204 and Allow, HEAD wherever GET works', async () => {
    const routes: [string, string][] = [
      ['/', 'GET, HEAD'],
      ['/cart', 'POST'],
      ['/checkout', 'POST'],
      ['/checkout/ord_0000000000000000', 'GET, HEAD'],
      ['/orders/ord_0000000000000000', 'GET, HEAD'],
      ['/platform', 'GET, HEAD'],
      ['/platform/token', 'POST'],
      ['/platform/sign-in', 'GET, HEAD, POST'],
      ['/platform/sign-out', 'POST'],
      ['/sandbox', 'GET, HEAD'],
      ['/sandbox/clock', 'POST'],
      ['/sandbox/faults', 'POST'],
      ['/sandbox/faults/clear', 'POST'],
      ['/sandbox/reset', 'POST'],
      ['/favicon.ico', 'GET, HEAD'],
      ['/static/demo.css', 'GET, HEAD'],
    ];
    for (const [path, allow] of routes) {
      const wrong = [
        ...['PUT', 'DELETE', 'PATCH'],
        ...(allow === 'POST' ? ['GET', 'HEAD'] : allow.includes('POST') ? [] : ['POST']),
      ];
      for (const method of wrong) {
        const r = await call(`${demo.url}${path}`, { method, headers: JSON_ACCEPT });
        const label = `${method} ${path}`;
        assert.equal(r.status, 405, label);
        assert.equal(r.headers.get('allow'), allow, label);
        if (method === 'HEAD') continue;
        assert.deepEqual([r.json?.code, r.json?.field], ['DEMO_METHOD_NOT_ALLOWED', 'method'], label);
        assert.match(r.json.message, new RegExp(`^${method} is not allowed here; use ${allow}\\.$`), label);
      }
      const options = await call(`${demo.url}${path}`, { method: 'OPTIONS' });
      assert.deepEqual(
        [options.status, options.headers.get('allow'), options.text],
        [204, allow, ''],
        `OPTIONS ${path}`,
      );
      if (allow !== 'POST') {
        const head = await call(`${demo.url}${path}`, { method: 'HEAD', headers: JSON_ACCEPT });
        assert.equal(head.status, path.includes('ord_') ? 404 : 200, `HEAD ${path}`);
      }
    }
    // A browser that navigates with another method gets the demo's error page, as for a 404.
    const page = await call(`${demo.url}/platform`, { method: 'DELETE', headers: { accept: 'text/html' } });
    assert.equal(page.status, 405);
    assert.equal(page.headers.get('allow'), 'GET, HEAD');
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(page.text, /<h1>That did not work<\/h1><p>DELETE is not allowed here; use GET, HEAD\.<\/p>/);
    // Paths no route takes stay 404 for every method, files under /static that do not exist included.
    for (const [method, path] of [
      ['PUT', '/nowhere'],
      ['POST', '/checkout/ord_0000000000000000/pay'],
      ['DELETE', '/static/missing.css'],
      ['OPTIONS', '/nowhere'],
      ['GET', '/static'],
    ]) {
      const r = await call(`${demo.url}${path}`, { method, headers: JSON_ACCEPT });
      assert.deepEqual(
        [r.status, r.json?.code, r.headers.get('allow')],
        [404, 'DEMO_NOT_FOUND', null],
        `${method} ${path}`,
      );
    }
  });

  it('answers a body over its limit with 413 at once, without reading the rest, and a charset or compression it does not read with 415 naming the header', async () => {
    const { port } = new URL(demo.url);
    /** Sends the head and `first` bytes of a body that never ends; what came back within 3 s, and whether the demo closed the connection. */
    const oversized = (path: string, type: string, head: string, first: string) =>
      new Promise<{ answer: string; closed: boolean }>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1');
        let answer = '';
        let closed = false;
        socket.on('data', (d) => {
          answer += d.toString('latin1');
        });
        socket.on('error', () => {});
        socket.once('close', () => {
          closed = true;
        });
        const timer = setInterval(() => {
          // Keeps sending while the demo still reads: body-parser read every byte of a body it had refused.
          if (!socket.destroyed)
            socket.write(head.includes('chunked') ? '400\r\n' + 'x'.repeat(1024) + '\r\n' : 'x'.repeat(1024));
        }, 50);
        setTimeout(() => {
          clearInterval(timer);
          socket.destroy();
          resolve({ answer, closed });
        }, 3_000);
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: application/json\r\nContent-Type: ${type}\r\n${head}\r\n${first}`,
        );
      });
    const form = 'application/x-www-form-urlencoded';
    for (const [path, type, head, first] of [
      ['/cart', form, 'Content-Length: 1000000000\r\n', 'product=mug&action=add&x='],
      ['/platform/token', 'application/json', 'Content-Length: 1000000000\r\n', '{"user":"'],
      ['/sandbox/clock', form, 'Content-Length: 1000000000\r\n', 'seconds=1&x='],
      ['/cart', form, 'Transfer-Encoding: chunked\r\n', '19\r\nproduct=mug&action=add&x=\r\n'],
      ['/platform/token', 'application/json', 'Transfer-Encoding: chunked\r\n', '9\r\n{"user":"\r\n'],
    ] as const) {
      const { answer, closed } = await oversized(path, type, head, first);
      const label = `${path} ${head.trim()}`;
      assert.match(answer, /^HTTP\/1\.1 413 /, label);
      assert.match(answer, /"code":"DEMO_TOO_LARGE"/, label);
      assert.match(answer, /"field":"body"/, label);
      assert.match(answer, /\r\nConnection: close\r\n/i, label);
      assert.ok(closed, `${label}: the demo closed the connection instead of reading on`);
    }
    for (const [path, headers, raw, field] of [
      ['/cart', { ...FORM, 'content-type': `${form}; charset=utf-16` }, 'product=mug&action=add', 'content-type'],
      ['/cart', { ...FORM, 'content-type': `${form}; charset=iso-8859-1` }, 'product=mug&action=add', 'content-type'],
      ['/cart', { ...FORM, 'content-encoding': 'gzip' }, 'product=mug&action=add', 'content-encoding'],
      ['/cart', { ...FORM, 'content-encoding': 'compress' }, 'product=mug&action=add', 'content-encoding'],
      [
        '/platform/token',
        { 'content-type': 'application/json; charset=latin1' },
        '{"user":"usr_demo_ada"}',
        'content-type',
      ],
      ['/sandbox/faults', { ...FORM, 'content-encoding': 'br' }, 'preset=charge-unavailable', 'content-encoding'],
    ] as const) {
      const r = await call(`${demo.url}${path}`, { method: 'POST', headers, raw });
      assert.deepEqual(
        [r.status, r.json?.code, r.json?.field],
        [415, 'DEMO_UNSUPPORTED_MEDIA_TYPE', field],
        `${path} ${field}`,
      );
    }
    // What the pages send still works: a UTF-8 form, repeated fields refused by the route, too many fields 413.
    const ok = await call(`${demo.url}/cart`, {
      method: 'POST',
      headers: { ...FORM, 'content-type': `${form}; charset=UTF-8` },
      raw: 'product=mug&action=add',
    });
    assert.equal(ok.status, 200, 'followed the 303 to the shop');
    const twice = await call(`${demo.url}/cart`, {
      method: 'POST',
      headers: FORM,
      raw: 'product=mug&product=mug&action=add',
    });
    assert.deepEqual([twice.status, twice.json?.field], [400, 'product']);
    const many = await call(`${demo.url}/cart`, { method: 'POST', headers: FORM, raw: 'a=1&'.repeat(11) });
    assert.deepEqual([many.status, many.json?.code, many.json?.field], [413, 'DEMO_TOO_LARGE', 'body']);
    const cookie = await signIn(demo, undefined, 'usr_demo_grace');
    const token = await call(`${demo.url}/platform/token`, { body: { user: 'usr_demo_grace' }, headers: { cookie } });
    assert.equal(token.status, 200);
  });

  it('answers seeded random hostile requests to its own routes below 500, as JSON naming the field', async () => {
    const next = seededRandom(20261123);
    const pick = picker(next);
    const odd = () => urlEncoded(pick(ODD_VALUES));
    const fields = ['product', 'action', 'user', 'seconds', 'preset', 'product[]', 'product[a]', '__proto__[x]'];
    const form = () => Array.from({ length: 1 + Math.floor(next() * 3) }, () => `${pick(fields)}=${odd()}`).join('&');
    const cookie = await visitor(demo);
    const requests: (() => [string, string, Record<string, string>, string | undefined])[] = [
      () => ['POST', '/cart', FORM, next() < 0.3 ? `product=mug&action=add&${form()}` : form()],
      () => ['POST', '/cart', { ...FORM, 'content-type': pick(['application/json', 'text/plain', '']) }, form()],
      () => [
        'POST',
        '/platform/token',
        { 'content-type': 'application/json' },
        JSON.stringify({ user: pick(ODD_VALUES) }),
      ],
      () => [
        'POST',
        '/platform/token',
        { 'content-type': 'application/json' },
        pick(['{', '[]', 'null', '"x"', '{"user":{"$gt":""}}']),
      ],
      () => ['POST', '/platform/sign-in', FORM, `user=${odd()}${next() < 0.3 ? `&user=${odd()}` : ''}`],
      () => ['POST', '/sandbox/clock', FORM, `seconds=${odd()}`],
      () => ['POST', '/sandbox/faults', FORM, `preset=${odd()}`],
      () => ['GET', `/checkout/${odd()}`, JSON_ACCEPT, undefined],
      () => ['GET', `/orders/${odd()}`, pick([JSON_ACCEPT, { accept: 'text/html' }]), undefined],
      () => [
        pick(['PUT', 'DELETE', 'PATCH']),
        pick(['/', '/cart', '/checkout', '/platform', '/sandbox']),
        JSON_ACCEPT,
        form(),
      ],
    ];
    const statuses = new Map<number, number>();
    for (let i = 0; i < 150; i++) {
      const [method, path, headers, raw] = pick(requests)();
      const answer = await call(`${demo.url}${path}`, {
        method,
        headers: { ...headers, cookie },
        ...(raw === undefined ? {} : { raw }),
      });
      const label = `#${i} ${method} ${path.slice(0, 120)} ${raw?.slice(0, 120) ?? ''}: ${answer.status} ${answer.text.slice(0, 200)}`;
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      assert.ok(answer.status < 500, label);
      assert.doesNotMatch(answer.text, /\n\s+at |node_modules|TypeError|SyntaxError/, label);
      if (answer.status >= 400 && answer.headers.get('content-type')?.startsWith('application/json')) {
        assert.match(answer.json.code, /^DEMO_[A-Z_]+$/, label);
        if (answer.status === 400 || answer.status === 413) assert.equal(typeof answer.json.field, 'string', label);
      }
    }
    // The corpus reaches the refusals and the pages that still work between them.
    assert.ok((statuses.get(400) ?? 0) >= 30 && (statuses.get(404) ?? 0) >= 10, JSON.stringify([...statuses]));
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });

  it('an order belongs to the session that placed it: another visitor cannot see or pay it', async () => {
    const mine = await visitor(demo);
    await call(`${demo.url}/cart`, {
      method: 'POST',
      headers: { ...FORM, cookie: mine },
      raw: 'product=mug&action=add',
    });
    const placed = await fetch(`${demo.url}/checkout`, {
      method: 'POST',
      headers: { cookie: mine },
      redirect: 'manual',
    });
    const path = placed.headers.get('location')!;
    assert.match(path, /^\/checkout\/ord_/);
    assert.equal((await call(`${demo.url}${path}`, { headers: { cookie: mine } })).status, 200);
    assert.equal((await call(`${demo.url}${path}`, { headers: JSON_ACCEPT })).status, 404);
    const order = path.split('/').pop();
    // The helper's resolveCharge refuses it too, before any card token is looked at.
    const charge = await call(`${demo.url}/api/charges`, {
      body: { cardToken: 'card_tok_0000', orderReference: order, email: 'x@example.com' },
    });
    assert.deepEqual(
      [charge.status, charge.json.code, charge.json.field],
      [400, 'TESSERA_UNKNOWN_ORDER', 'orderReference'],
    );
  });

  it('adopts no session id it did not issue (session fixation): a planted one gets a fresh id, and sign-in another', async () => {
    const idOf = (setCookie: string | null) => /^tessera_demo=([^;]+);/.exec(setCookie ?? '')?.[1];
    // Well-formed ids a visitor's browser could have been given by someone else: the old shape, and the new one with a forged MAC.
    for (const planted of ['AAAAAAAAAAAAAAAAAAAAAA', `${'A'.repeat(22)}.${'B'.repeat(22)}`]) {
      const cookie = `tessera_demo=${planted}`;
      // What a request with the planted id stores is kept under a fresh id, never under the planted one.
      const first = await fetch(`${demo.url}/cart`, {
        method: 'POST',
        headers: { ...FORM, cookie },
        body: 'product=mug&action=add',
        redirect: 'manual',
      });
      const issued = idOf(first.headers.get('set-cookie'));
      assert.ok(issued && issued !== planted, `${planted}: a fresh id was issued (${first.headers.get('set-cookie')})`);
      assert.match(first.headers.get('set-cookie')!, /; Path=\/; HttpOnly; SameSite=Lax$/);
      const again = await call(`${demo.url}/`, { headers: { cookie } });
      assert.match(again.text, /Your cart is empty\./, planted);
      assert.equal(again.headers.get('set-cookie'), null, `${planted}: a page stores nothing, so it sets no cookie`);
    }
    // An id it issued is kept, and carries the cart.
    const mine = await visitor(demo);
    await call(`${demo.url}/cart`, {
      method: 'POST',
      headers: { ...FORM, cookie: mine },
      raw: 'product=mug&action=add',
    });
    const kept = await call(`${demo.url}/`, { headers: { cookie: mine } });
    assert.equal(kept.headers.get('set-cookie'), null);
    assert.doesNotMatch(kept.text, /Your cart is empty\./);
    const placed = await fetch(`${demo.url}/checkout`, {
      method: 'POST',
      headers: { cookie: mine },
      redirect: 'manual',
    });
    const order = placed.headers.get('location')!;
    // Signing in gives the session a new id; the cart and orders follow it, the old id no longer names them.
    const signedIn = await signIn(demo, mine, 'usr_demo_ada');
    assert.notEqual(signedIn, mine);
    assert.equal((await call(`${demo.url}${order}`, { headers: { ...JSON_ACCEPT, cookie: signedIn } })).status, 200);
    assert.equal((await call(`${demo.url}${order}`, { headers: { ...JSON_ACCEPT, cookie: mine } })).status, 404);
    assert.match((await call(`${demo.url}/platform`, { headers: { cookie: signedIn } })).text, /id="dashboard"/);
    assert.doesNotMatch((await call(`${demo.url}/platform`, { headers: { cookie: mine } })).text, /id="dashboard"/);
  });

  it('issues a host token only for the user the session signed in as', async () => {
    const token = (cookie: string | undefined, user: string) =>
      call(`${demo.url}/platform/token`, { body: { user }, headers: cookie ? { cookie } : {} });
    const refused = (r: Awaited<ReturnType<typeof token>>) => [r.status, r.json?.code, r.json?.field];
    const NOT = [403, 'DEMO_NOT_SIGNED_IN', 'user'];
    assert.deepEqual(refused(await token(undefined, 'usr_demo_ada')), NOT, 'no session');
    const guest = await visitor(demo);
    assert.deepEqual(refused(await token(guest, 'usr_demo_ada')), NOT, 'a session that did not sign in');
    const grace = await signIn(demo, guest, 'usr_demo_grace');
    const issued = await token(grace, 'usr_demo_grace');
    assert.equal(issued.status, 200, issued.text);
    const claims = JSON.parse(Buffer.from(String(issued.json.token).split('.')[1]!, 'base64url').toString());
    assert.deepEqual([claims.sub, claims.entities], ['usr_demo_grace', ['ent_demo_b']]);
    const other = await token(grace, 'usr_demo_ada');
    assert.deepEqual(refused(other), NOT, 'another user than the one signed in');
    assert.match(other.json.message, /signed in as usr_demo_grace, not usr_demo_ada/);
    // Switching user signs in again: the new session's user only.
    const ada = await signIn(demo, grace, 'usr_demo_ada');
    assert.equal((await token(ada, 'usr_demo_ada')).status, 200);
    assert.deepEqual(refused(await token(ada, 'usr_demo_grace')), NOT);
    assert.deepEqual(refused(await token(grace, 'usr_demo_grace')), NOT, 'the id before the switch');
  });

  it('binds each host token to the session it was issued to: refused without it, from another, after a sign-out or a user switch', async () => {
    const tokenFor = async (cookie: string, user: string) => {
      const r = await call(`${demo.url}/platform/token`, { body: { user }, headers: { cookie } });
      assert.equal(r.status, 200, r.text);
      return String(r.json.token);
    };
    const dashboard = (token: string, cookie: string | undefined, entity = 'ent_demo_a') =>
      call(`${demo.url}/api/entities/${entity}/payment-instruments`, {
        headers: { authorization: `Bearer ${token}`, ...(cookie ? { cookie } : {}) },
      });
    const unbound = (r: Awaited<ReturnType<typeof dashboard>>) => [r.status, r.json?.code, r.json?.field];
    const UNBOUND = [401, 'TESSERA_HOST_AUTH_UNBOUND', 'authorization'];

    const ada = await signIn(demo, undefined, 'usr_demo_ada');
    const token = await tokenFor(ada, 'usr_demo_ada');
    // The claim is a keyed hash of the session id, not the id: the page's scripts can read the token, not the cookie.
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    const id = ada.split('=')[1]!;
    assert.match(claims.sid, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(!token.includes(id) && !claims.sid.includes(id.split('.')[0]), 'the session id is not in the token');
    assert.equal((await dashboard(token, ada)).status, 200, 'with its session');
    assert.deepEqual(unbound(await dashboard(token, undefined)), UNBOUND, 'without the cookie');
    const stranger = await signIn(demo, undefined, 'usr_demo_ada');
    assert.deepEqual(unbound(await dashboard(token, stranger)), UNBOUND, 'another session, even of the same user');
    assert.equal((await dashboard(await tokenFor(stranger, 'usr_demo_ada'), stranger)).status, 200);

    // A user switch on this browser: the new session's id, and the earlier token is refused with either cookie.
    const grace = await signIn(demo, ada, 'usr_demo_grace');
    assert.deepEqual(unbound(await dashboard(token, grace)), UNBOUND, 'after the switch, with the new cookie');
    assert.deepEqual(unbound(await dashboard(token, ada)), UNBOUND, 'after the switch, with the old cookie');
    const graceToken = await tokenFor(grace, 'usr_demo_grace');
    assert.equal((await dashboard(graceToken, grace, 'ent_demo_b')).status, 200);

    // Signing out: a new id, no user; every token issued before is refused, with the old cookie or the new one.
    const out = await fetch(`${demo.url}/platform/sign-out`, {
      method: 'POST',
      headers: { ...FORM, cookie: grace },
      redirect: 'manual',
    });
    assert.deepEqual([out.status, out.headers.get('location')], [303, '/platform']);
    const signedOut = out.headers.get('set-cookie')!.split(';')[0]!;
    assert.notEqual(signedOut, grace);
    assert.deepEqual(unbound(await dashboard(graceToken, grace, 'ent_demo_b')), UNBOUND, 'the signed-out cookie');
    assert.deepEqual(
      unbound(await dashboard(graceToken, signedOut, 'ent_demo_b')),
      UNBOUND,
      'the cookie after sign-out',
    );
    assert.doesNotMatch(
      (await call(`${demo.url}/platform`, { headers: { cookie: signedOut } })).text,
      /id="dashboard"/,
    );
    const none = await call(`${demo.url}/platform/token`, {
      body: { user: 'usr_demo_grace' },
      headers: { cookie: signedOut },
    });
    assert.deepEqual([none.status, none.json.code], [403, 'DEMO_NOT_SIGNED_IN']);
    // A visitor without a session has nothing to sign out.
    const anonymous = await fetch(`${demo.url}/platform/sign-out`, {
      method: 'POST',
      headers: FORM,
      redirect: 'manual',
    });
    assert.deepEqual([anonymous.status, anonymous.headers.get('set-cookie')], [303, null]);
  });

  it('keeps a bounded number of open orders per session: the next checkout is 429 and keeps the cart, until one is paid or abandoned', async () => {
    const cookie = await visitor(demo);
    const checkout = async () => {
      await call(`${demo.url}/cart`, { method: 'POST', headers: { ...FORM, cookie }, raw: 'product=mug&action=add' });
      return fetch(`${demo.url}/checkout`, { method: 'POST', headers: { ...JSON_ACCEPT, cookie }, redirect: 'manual' });
    };
    for (let i = 0; i < 20; i++) assert.equal((await checkout()).status, 303, `order ${i + 1}`);
    const refused = await checkout();
    const body = (await refused.json()) as Record<string, unknown>;
    assert.deepEqual([refused.status, body.code, body.field], [429, 'DEMO_TOO_MANY_ORDERS', 'session']);
    assert.equal(refused.headers.get('retry-after'), '3600');
    assert.doesNotMatch((await call(`${demo.url}/`, { headers: { cookie } })).text, /Your cart is empty\./);
    // Another visitor is not held back by it.
    const other = await visitor(demo);
    await call(`${demo.url}/cart`, {
      method: 'POST',
      headers: { ...FORM, cookie: other },
      raw: 'product=mug&action=add',
    });
    const theirs = await fetch(`${demo.url}/checkout`, {
      method: 'POST',
      headers: { cookie: other },
      redirect: 'manual',
    });
    assert.equal(theirs.status, 303);
    // An hour on (sandbox clock), the unpaid orders are abandoned: the cart can be checked out.
    await call(`${demo.sandbox.url}/_sandbox/clock/advance`, { body: { seconds: 3600 } });
    try {
      const later = await fetch(`${demo.url}/checkout`, { method: 'POST', headers: { cookie }, redirect: 'manual' });
      assert.equal(later.status, 303);
      assert.match(later.headers.get('location')!, /^\/checkout\/ord_/);
    } finally {
      await call(`${demo.sandbox.url}/_sandbox/reset`, { method: 'POST' });
    }
  });
});

describe('the demo with TESSERA_REDIS_URL (RedisStore)', { timeout: 60_000 }, () => {
  it('starts, charges an order and keeps the helper state in Redis', async () => {
    const redis = await RedisServer.start();
    const demo = await startDemo({ port: 0, sandboxPort: 0, logger: quiet, redisUrl: redis.url });
    const client = new Redis(redis.url);
    try {
      const cookie = await visitor(demo);
      await call(`${demo.url}/cart`, { method: 'POST', headers: { ...FORM, cookie }, raw: 'product=mug&action=add' });
      const placed = await fetch(`${demo.url}/checkout`, { method: 'POST', headers: { cookie }, redirect: 'manual' });
      const order = placed.headers.get('location')!.split('/').pop();
      const token = await cardToken(demo.sandbox);
      const charge = await call(`${demo.url}/api/charges`, {
        body: { cardToken: token, orderReference: order, email: 'x@example.com' },
        headers: { cookie },
      });
      assert.equal(charge.status, 201, charge.text);
      assert.match(charge.json.id, /^charge_/);
      const keys = await client.keys('tessera:*');
      assert.ok(keys.length > 0, 'the helper wrote to Redis');
      const values = await Promise.all(
        keys.map(async (k) => ((await client.type(k)) === 'string' ? client.get(k) : '')),
      );
      assert.ok(
        values.some((v) => v?.includes(charge.json.id)),
        'the charge result is in Redis',
      );
      assert.ok(!JSON.stringify([keys, values]).includes(token), 'no card token in Redis');
    } finally {
      client.disconnect();
      await demo.close();
      await redis.stop();
    }
  });
});

describe('startDemo options', () => {
  it('are checked before anything starts, naming the option', async () => {
    await assert.rejects(startDemo({ port: -1 }), { name: 'TypeError', message: /option `port` .* got -1/ });
    await assert.rejects(startDemo({ sandboxPort: 1.5 }), /option `sandboxPort` must be an integer/);
    await assert.rejects(startDemo({ host: '0.0.0.0' }), /option `host` must be a loopback address/);
    await assert.rejects(startDemo({ logger: console.log as never }), /option `logger` must be a pino-compatible/);
    await assert.rejects(
      startDemo({ redisUrl: 'http://x' }),
      /option `redisUrl` must be a redis:\/\/ or rediss:\/\/ URL/,
    );
  });
});

describe('tessera-pay demo (the command)', { timeout: 60_000 }, () => {
  it('refuses bad ports with exit code 2', async () => {
    const errors: string[] = [];
    const original = console.error;
    console.error = (msg: string) => void errors.push(msg);
    try {
      assert.equal(await runDemoCommand(['--port', '70000']), 2);
      assert.equal(await runDemoCommand(['--sandbox-port', 'abc']), 2);
      assert.equal(await runDemoCommand(['--colour']), 2);
    } finally {
      console.error = original;
    }
    assert.match(errors[0]!, /--port \(or PORT\) must be an integer from 0 to 65535, got "70000"/);
    assert.match(errors[1]!, /--sandbox-port .* got "abc"/);
  });

  it('refuses a TESSERA_DEMO_TRUST_PROXY that is no count and no addresses (such as "true") with exit code 1', async () => {
    const errors: string[] = [];
    const original = console.error;
    console.error = (msg: string) => void errors.push(msg);
    process.env.TESSERA_DEMO_TRUST_PROXY = 'true';
    try {
      assert.equal(await runDemoCommand(['--port', '0', '--sandbox-port', '0']), 1);
    } finally {
      console.error = original;
      delete process.env.TESSERA_DEMO_TRUST_PROXY;
    }
    assert.match(errors[0]!, /^tessera-pay demo: startDemo: option `trustProxy` must be .* got \["true"\]$/);
  });

  it('prints the shop, dashboard and sandbox URLs and the test cards, then stops cleanly on Ctrl-C', async () => {
    const child = spawn(process.execPath, ['bin/tessera.js', 'demo'], {
      env: { ...process.env, PORT: '0', TESSERA_SANDBOX_PORT: '0', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    while (!out.includes('full list')) {
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const shop = /Shop:\s+(http:\/\/127\.0\.0\.1:\d+)\//.exec(out)?.[1];
    assert.ok(shop, out);
    assert.match(out, new RegExp(`Platform dashboard:\\s+${shop}/platform`));
    assert.match(out, new RegExp(`Sandbox console:\\s+${shop}/sandbox`));
    assert.match(out, /Sandbox \(provider\):\s+http:\/\/127\.0\.0\.1:\d+/);
    assert.match(out, /4242 4242 4242 4242\s+approved/);
    assert.match(out, /4000 0000 0000 3220\s+3-D Secure/);
    assert.equal((await call(`${shop}/`)).status, 200);
    child.kill('SIGINT');
    assert.equal(await exited, 0);
    assert.match(out, /Tessera demo stopped\./);
    await assert.rejects(fetch(`${shop}/`), 'the site no longer answers');
  });
});

describe('the demo server’s own log lines', { timeout: 60_000 }, () => {
  it('never hold a card number typed into a URL, in any spelling', async () => {
    const lines: string[] = [];
    const capture = (obj: object, msg?: string) => {
      lines.push(JSON.stringify({ ...obj, msg }));
    };
    const demo = await startDemo({
      port: 0,
      sandboxPort: 0,
      logger: { debug: capture, info: capture, warn: capture, error: capture },
    });
    try {
      for (const path of [
        '/api/4242424242424242',
        '/4242-4242-4242-4242',
        '/static/4242%204242%204242%204242.js',
        '/orders/5555_5555_5555_4444/receipt',
        '/x/4242%E2%80%8B4242%E2%80%8B4242%E2%80%8B4242',
        '/4242%204242%204242%204242',
        '/4242+4242+4242+4242',
        '/checkout/ord_%2F4242424242424242',
      ]) {
        const r = await call(`${demo.url}${path}`);
        assert.ok(r.status >= 400 && r.status < 500, `${path}: ${r.status}`);
      }
      const requestLines = lines.filter((l) => l.includes('demo.request') || l.includes('tessera.request'));
      assert.ok(requestLines.length >= 5, `logged ${requestLines.length} request lines`);
      const digits = lines.join('\n').replace(/\D/g, '');
      for (const pan of ['4242424242424242', '5555555555554444']) assert.ok(!digits.includes(pan), `log holds ${pan}`);
      // Read as a route reads a URL, too: `%20` between the groups puts digits between them in the raw text.
      for (const line of lines) assert.equal(containsPan(readableUrl(line)), false, line);
      // Each line names the whole path, the mount point included (Express strips it from req.path).
      const paths = requestLines.map((l) => (JSON.parse(l) as { path?: string }).path);
      assert.ok(
        paths.some((path) => path?.startsWith('/api/')),
        JSON.stringify(paths),
      );
    } finally {
      await demo.close();
    }
  });
});
