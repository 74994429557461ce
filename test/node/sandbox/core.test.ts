import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { SandboxValidationError } from '../../../server/sandbox/core/errors.js';
import { parseWith } from '../../../server/sandbox/core/validate.js';
import { createSandboxApp, type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { callWithHost } from './accounts-support.js';

/** A request exactly as given (method, request target), for what fetch will not send: HEAD bodies, absolute-form. */
function raw(
  sb: RunningSandbox,
  method: string,
  target: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const { port } = new URL(sb.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: target }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('sandbox validation errors', () => {
  /** The issues parseWith throws for `value`, as [field, code, message]. */
  const issuesOf = (schema: z.ZodType, value: unknown) => {
    try {
      parseWith(schema, value);
    } catch (e) {
      assert.ok(e instanceof SandboxValidationError);
      return e.issues.map((i) => [i.field, i.code, i.message]);
    }
    assert.fail('expected a validation error');
  };

  it("builds codes from the schema's field names only: a record's keys never become part of a code", () => {
    const schema = z.object({
      tags: z.record(z.string().regex(/^[a-z]+$/, { error: 'must be lower-case letters' }), z.number()).optional(),
      items: z.array(z.object({ attrs: z.record(z.string(), z.object({ size: z.number() })) })).optional(),
    });
    assert.deepEqual(issuesOf(schema, { tags: { 'A\u202eB': 1 } }), [
      ['tags', 'tags_key_invalid', 'tags: the key "A\\u202EB" must be lower-case letters'],
    ]);
    assert.deepEqual(issuesOf(schema, { tags: { ok: 'one' } }), [
      ['tags.ok', 'tags_invalid', 'tags.ok: Invalid input: expected number, received string'],
    ]);
    assert.deepEqual(issuesOf(schema, { items: [{ attrs: { ['w'.repeat(40)]: {} } }] }), [
      [
        `items.0.attrs.${'w'.repeat(32)}….size`,
        'items.attrs.size_required',
        `items.0.attrs.${'w'.repeat(32)}….size: Invalid input: expected number, received undefined`,
      ],
    ]);
  });
});

describe('sandbox core', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await startSandbox();
  });
  after(() => sb.close());

  it('binds loopback on an ephemeral port and answers a request id on every response', async () => {
    assert.match(sb.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const a = await call(`${sb.url}/_sandbox/clock`);
    const b = await call(`${sb.url}/nowhere`);
    assert.match(a.headers.get('svc-request-id') ?? '', /^req_[a-z2-7]{26}$/);
    assert.notEqual(a.headers.get('svc-request-id'), b.headers.get('svc-request-id'));
    assert.equal(b.status, 404);
    assert.equal(b.json.requestId, b.headers.get('svc-request-id'));
    assert.equal(b.json.errorCode, 'not_found');
  });

  it('advances the virtual clock over HTTP and in-process', async () => {
    const before = Date.parse((await call(`${sb.url}/_sandbox/clock`)).json.now);
    const r = await call(`${sb.url}/_sandbox/clock/advance`, { body: { seconds: 3600 } });
    assert.equal(r.status, 200);
    assert.ok(Date.parse(r.json.now) - before >= 3600_000);
    sb.clock.advance(60);
    assert.ok(Date.parse((await call(`${sb.url}/_sandbox/clock`)).json.now) - before >= 3660_000);
  });

  it('rejects bad control input with 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ seconds: -1 }, 'seconds'],
      [{ seconds: 'ten' }, 'seconds'],
      [{}, 'seconds'],
    ];
    for (const [body, field] of cases) {
      const r = await call(`${sb.url}/_sandbox/clock/advance`, { body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.json.errors[0].field, field);
    }
    const fault = await call(`${sb.url}/_sandbox/faults`, { body: { path: '/x', status: 200 } });
    assert.equal(fault.status, 400);
    assert.equal(fault.json.errors[0].field, 'status');
    const lone = await call(`${sb.url}/_sandbox/faults`, { body: { path: '/x', delayMs: 5, retryAfter: 1 } });
    assert.equal(lone.status, 400);
    assert.equal(lone.json.errors[0].field, 'retryAfter');
  });

  it('answers malformed, hostile and oversized bodies with a 4xx naming the problem', async () => {
    const url = `${sb.url}/_sandbox/clock/advance`;
    const cases: [Parameters<typeof call>[1], number, string][] = [
      [{ raw: '{"seconds":', headers: { 'content-type': 'application/json' } }, 400, 'body_malformed'],
      [{ raw: '[1,2]', headers: { 'content-type': 'application/json' } }, 400, 'body_not_object'],
      [{ raw: '{"__proto__":{"polluted":1}}', headers: { 'content-type': 'application/json' } }, 400, 'forbidden_key'],
      [{ raw: '{"a":{"constructor":{}}}', headers: { 'content-type': 'application/json' } }, 400, 'forbidden_key'],
      [
        { raw: `${'['.repeat(5000)}${']'.repeat(5000)}`, headers: { 'content-type': 'application/json' } },
        400,
        'body_not_object',
      ],
      [
        { raw: `{"a":${'{"a":'.repeat(40)}1${'}'.repeat(41)}`, headers: { 'content-type': 'application/json' } },
        400,
        'body_too_deep',
      ],
      [{ raw: Buffer.from([0x7b, 0xff, 0x7d]), headers: { 'content-type': 'application/json' } }, 400, 'body_encoding'],
      [{ raw: 'seconds=1', headers: { 'content-type': 'text/plain' } }, 415, 'unsupported_media_type'],
      [
        { raw: `{"seconds":1,"pad":"${'x'.repeat(70_000)}"}`, headers: { 'content-type': 'application/json' } },
        413,
        'body_too_large',
      ],
    ];
    for (const [init, status, code] of cases) {
      const r = await call(url, { method: 'POST', ...init });
      assert.equal(r.status, status, `${code}: ${r.text.slice(0, 200)}`);
      assert.equal(r.json.errorCode, code);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('reads bodies as UTF-8 and refuses another declared charset with 415 naming Content-Type', async () => {
    const url = `${sb.url}/_sandbox/clock/advance`;
    for (const type of [
      'application/json; charset=utf-8',
      'application/json;charset="UTF-8"',
      'application/json; charset=us-ascii',
    ]) {
      const r = await call(url, { method: 'POST', raw: '{"seconds":1}', headers: { 'content-type': type } });
      assert.equal(r.status, 200, `${type}: ${r.text}`);
    }
    for (const type of [
      'application/json; charset=utf-16',
      'application/json; charset="iso-8859-1"',
      'application/json; charset=',
    ]) {
      const r = await call(url, { method: 'POST', raw: '{"seconds":1}', headers: { 'content-type': type } });
      assert.equal(r.status, 415, `${type}: ${r.text}`);
      assert.equal(r.json.errorCode, 'charset_unsupported', type);
      assert.equal(r.json.errors[0].field, 'Content-Type', type);
    }
    // A compressed body is refused, not read as plain bytes: here the bytes would even parse as the JSON they claim.
    for (const encoding of ['gzip', 'br', 'deflate, gzip']) {
      const r = await call(url, {
        method: 'POST',
        raw: '{"seconds":1}',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      });
      assert.equal(r.status, 415, `${encoding}: ${r.text}`);
      assert.equal(r.json.errorCode, 'content_encoding_unsupported', encoding);
      assert.equal(r.json.errors[0].field, 'Content-Encoding', encoding);
    }
    const identity = await call(url, {
      method: 'POST',
      raw: '{"seconds":1}',
      headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
    });
    assert.equal(identity.status, 200, identity.text);
  });

  it('matches fault globs in time linear in glob × path, so no glob can stall the sandbox', async () => {
    const hostile = `/${'**a'.repeat(12)}!`;
    assert.equal((await call(`${sb.url}/_sandbox/faults`, { body: { path: hostile, status: 500 } })).status, 201);
    assert.equal(
      (await call(`${sb.url}/_sandbox/faults`, { body: { path: '/api2/**/ch?rges/*/x', status: 503 } })).status,
      201,
    );
    try {
      const started = Date.now();
      // Before: the glob became /^\/.*a.*a…!$/ and this request never got an answer.
      const res = await fetch(`${sb.url}/api2/v2/charges/${'a'.repeat(200)}`, {
        headers: { authorization: sb.credentials.secretKey },
        signal: AbortSignal.timeout(5000),
      });
      assert.equal(res.status, 404);
      assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
      // The same glob semantics as before: `**` spans segments, `*` and `?` stay within one.
      const unmatched = await call(`${sb.url}/api2/v2/charges/charge_x/y`, { method: 'PUT' });
      assert.equal(unmatched.status, 404);
      const matched = await call(`${sb.url}/api2/v2/charges/charge_x/x`, { method: 'PUT' });
      assert.equal(matched.status, 503);
      assert.equal(matched.json.errorCode, 'injected_fault');
      const deeper = await call(`${sb.url}/api2/v2/charges/a/b/x`, { method: 'PUT' });
      assert.equal(deeper.status, 404, 'a single * does not span segments');
    } finally {
      await call(`${sb.url}/_sandbox/faults`, { method: 'DELETE' });
    }
  });

  it("answers a known path asked with another method with 405 and Allow in the area's shape, an unknown path 404", async () => {
    const key = { authorization: sb.credentials.secretKey };
    const legacyCases: [string, string, string][] = [
      ['GET', '/api2/v2/tokens/card', 'POST'],
      ['PUT', '/api2/v2/charges/token', 'POST'],
      // A literal path outranks `GET /charges/{id}`: "token" is no charge id.
      ['GET', '/api2/v2/charges/token', 'POST'],
      ['GET', '/api2/v2/Charges/Token/', 'POST'],
      ['HEAD', '/api2/v2/charges/token', 'POST'],
      ['DELETE', '/api2/v2/charges/charge_x', 'GET, HEAD'],
      ['PATCH', '/_sandbox/3ds/pay_tok_x', 'GET, HEAD, POST'],
      ['PUT', '/_sandbox/clock', 'GET, HEAD'],
      ['GET', '/_sandbox/reset', 'POST'],
    ];
    for (const [method, path, allow] of legacyCases) {
      const r = await call(`${sb.url}${path}`, { method, headers: key });
      assert.equal(r.status, 405, `${method} ${path}: ${r.text}`);
      assert.equal(r.headers.get('allow'), allow, `${method} ${path}`);
      if (method === 'HEAD') continue;
      assert.equal(r.json.errorCode, 'method_not_allowed', `${method} ${path}`);
      assert.equal(r.json.errors[0].field, 'method', `${method} ${path}`);
    }
    const accounts = await call(`${sb.url}/accounts/entities`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${sb.credentials.secretKey}` },
    });
    assert.equal(accounts.status, 405, accounts.text);
    assert.equal(accounts.headers.get('allow'), 'POST');
    assert.equal(accounts.headers.get('svc-version'), '1.0.0');
    assert.deepEqual(accounts.json.error_codes, ['method_not_allowed']);
    for (const path of ['/api2/v2/nowhere', '/_sandbox/nowhere', '/accounts/nowhere', '/nowhere']) {
      const r = await call(`${sb.url}${path}`, { method: 'PUT', headers: key });
      assert.equal(r.status, 404, `${path}: ${r.text}`);
    }
  });

  it('answers malformed percent-encoding in a path with 400 path_malformed naming the path, in each area', async () => {
    const legacy = await call(`${sb.url}/api2/v2/charges/%E0%A4%A`, {
      headers: { authorization: sb.credentials.secretKey },
    });
    assert.equal(legacy.status, 400, legacy.text);
    assert.equal(legacy.json.errorCode, 'path_malformed');
    assert.deepEqual(
      legacy.json.errors.map((e: { field: string }) => e.field),
      ['path'],
    );
    const challenge = await call(`${sb.url}/_sandbox/3ds/%ff`);
    assert.equal(challenge.status, 400, challenge.text);
    assert.equal(challenge.json.errorCode, 'path_malformed');
    const accounts = await call(`${sb.url}/accounts/entities/%E0%A4%A/members`, {
      headers: { authorization: `Bearer ${sb.credentials.secretKey}` },
    });
    assert.equal(accounts.status, 400, accounts.text);
    assert.deepEqual(accounts.json.error_codes, ['path_malformed']);
  });

  it('routes HEAD like GET without a body, lists methods for OPTIONS, and takes a trailing slash and an absolute-form target', async () => {
    const head = await raw(sb, 'HEAD', '/_sandbox/clock');
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assert.match(head.headers['content-type'] ?? '', /^application\/json/);
    const options = await raw(sb, 'OPTIONS', '/_sandbox/faults');
    assert.equal(options.status, 204);
    assert.equal(options.headers.allow, 'DELETE, GET, HEAD, POST');
    assert.equal((await raw(sb, 'OPTIONS', '/_sandbox/nowhere')).status, 404);
    assert.equal((await raw(sb, 'OPTIONS', '/api2/v2/charges/token')).headers.allow, 'POST');
    assert.equal((await raw(sb, 'OPTIONS', '/api2/v2/charges/charge_x')).headers.allow, 'GET, HEAD');
    const slash = await raw(sb, 'GET', '/_sandbox/clock/');
    assert.equal(slash.status, 200, slash.body);
    assert.ok(JSON.parse(slash.body).now);
    // A proxy-style request target (RFC 9112 §3.2.2) routes by its path.
    const absolute = await raw(sb, 'GET', `${sb.url}/_sandbox/clock?x=1`);
    assert.equal(absolute.status, 200, absolute.body);
    assert.ok(JSON.parse(absolute.body).now);
  });

  it('sends a path in any case or with a trailing slash to the area whose router takes it, so errors keep its shape', async () => {
    const bearer = { authorization: `Bearer ${sb.credentials.secretKey}` };
    for (const path of [
      '/ACCOUNTS/ENTITIES/ent_demo_a/PAYMENT-INSTRUMENTS/x',
      '/Accounts/Entities/ent_nope/Members/',
      '/Onboarding-Simulator/entities/ent_nope',
    ]) {
      const r = await call(`${sb.url}${path}`, { headers: bearer });
      assert.equal(r.status, 404, `${path}: ${r.text}`);
      assert.deepEqual(Object.keys(r.json).sort(), ['error_codes', 'error_type', 'request_id'], path);
      assert.deepEqual(r.json.error_codes, ['entity_not_found'], path);
      assert.equal(r.headers.get('svc-version'), '1.0.0', path);
    }
    const legacy = await call(`${sb.url}/API2/V2/Charges/charge_x`, {
      headers: { authorization: sb.credentials.secretKey },
    });
    assert.equal(legacy.status, 404, legacy.text);
    assert.equal(legacy.json.errorCode, 'charge_not_found');
    const clock = await call(`${sb.url}/_SANDBOX/Clock`);
    assert.equal(clock.status, 200, clock.text);
    const token = await call(`${sb.url}/Connect/Token/`, {
      method: 'POST',
      raw: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: sb.credentials.clientId,
        client_secret: sb.credentials.clientSecret,
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(token.status, 200, token.text);
    assert.equal(token.json.token_type, 'Bearer');
  });

  it('negotiates Accept as a list of ranges: +json and +xml types, parameters and weights', async () => {
    const cases: [string, number, RegExp][] = [
      ['application/problem+json', 200, /^application\/json/],
      ['application/json; charset=utf-8', 200, /^application\/json/],
      ['text/html;q=0.9, application/vnd.tessera+json;q=0.5', 200, /^application\/json/],
      ['application/json;q=0', 406, /^application\/json/],
      ['text/html', 406, /^application\/json/],
    ];
    for (const [accept, status, type] of cases) {
      const r = await call(`${sb.url}/_sandbox/clock`, { headers: { accept } });
      assert.equal(r.status, status, `${accept}: ${r.text}`);
      assert.match(r.headers.get('content-type') ?? '', type, accept);
    }
    const key = { authorization: sb.credentials.secretKey };
    const xml = await call(`${sb.url}/api2/v2/charges/charge_x`, {
      headers: { ...key, accept: 'application/json;q=0.1, application/vnd.tessera+xml' },
    });
    assert.equal(xml.status, 404);
    assert.match(xml.headers.get('content-type') ?? '', /^application\/xml/);
    // text/xml is taken for a request body, so it is taken in Accept too; the answer is the spec's application/xml.
    for (const accept of ['text/xml', 'text/xml; charset=utf-8', 'application/json;q=0.5, text/xml']) {
      const asked = await call(`${sb.url}/api2/v2/charges/charge_x`, { headers: { ...key, accept } });
      assert.equal(asked.status, 404, `${accept}: ${asked.text}`);
      assert.match(asked.headers.get('content-type') ?? '', /^application\/xml/, accept);
      assert.match(asked.text, /<errorCode>charge_not_found<\/errorCode>/, accept);
    }
    const jsonFirst = await call(`${sb.url}/api2/v2/charges/charge_x`, {
      headers: { ...key, accept: 'text/xml;q=0.5, application/json' },
    });
    assert.match(jsonFirst.headers.get('content-type') ?? '', /^application\/json/);
    const jsonOnly = await call(`${sb.url}/_sandbox/clock`, { headers: { accept: 'text/xml' } });
    assert.equal(jsonOnly.status, 406, 'an area that answers JSON only still refuses text/xml');
    const long = await call(`${sb.url}/_sandbox/clock`, {
      headers: { accept: `application/json${', a/b'.repeat(1000)}` },
    });
    assert.equal(long.status, 400, long.text);
    assert.equal(long.json.errorCode, 'accept_too_long');
    assert.equal(long.json.errors[0].field, 'Accept');
  });

  it('keeps the last 200 requests, newest first, each answer as it was sent, errors included', async () => {
    await call(`${sb.url}/_sandbox/reset`, { method: 'POST' });
    await call(`${sb.url}/first-of-many`);
    for (let i = 0; i < 200; i++) await call(`${sb.url}/later-${i}`);
    const log = await call(`${sb.url}/_sandbox/requests?limit=200`);
    assert.equal(log.json.data.length, 200);
    assert.equal(log.json.data[0].path, '/later-199');
    assert.equal(log.json.data[199].path, '/later-0');
    assert.ok(!log.text.includes('/first-of-many'), 'the oldest request is dropped');
    const entry = log.json.data[0];
    assert.equal(entry.status, 404);
    assert.equal(entry.responseBody.errorCode, 'not_found');
    assert.equal(entry.responseBody.requestId, entry.requestId);
    assert.ok(!Number.isNaN(Date.parse(entry.at)));
    assert.deepEqual(
      (await call(`${sb.url}/_sandbox/requests?limit=2`)).json.data.map((e: { path: string }) => e.path),
      ['/later-199', '/later-198'],
    );
    assert.equal((await call(`${sb.url}/_sandbox/requests`)).json.data.length, 50, 'fifty without a limit');
    for (const bad of ['0', '201', 'abc', '1.5', '-1', '', '1e2', '1&limit=2', '9'.repeat(400)]) {
      const r = await call(`${sb.url}/_sandbox/requests?limit=${bad}`);
      assert.equal(r.status, 400, `limit=${bad.slice(0, 20)}: ${r.text}`);
      assert.equal(r.json.errorCodes?.[0] ?? r.json.errorCode, 'limit_invalid', r.text);
    }
  });

  it('serves as a plain request listener on a server of your own', async () => {
    const { app, context } = createSandboxApp();
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const clock = await call(`${base}/_sandbox/clock`);
      assert.equal(clock.status, 200);
      const token = await call(`${base}/api2/v2/tokens/card`, {
        headers: { authorization: context.credentials.publicKey },
        body: { number: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 1, cvv: '123' },
      });
      assert.equal(token.status, 200, token.text);
      assert.match(token.json.id, /^card_tok_/);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses state-changing controls from another origin or with a non-JSON body, so no web page can drive them', async () => {
    const own = new URL(sb.url).host;
    const controls: [string, string, string?][] = [
      ['POST', '/_sandbox/reset'],
      ['POST', '/_sandbox/faults', '{"path":"/x","status":503}'],
      ['POST', '/_sandbox/clock/advance', '{"seconds":60}'],
      ['DELETE', '/_sandbox/faults'],
    ];
    const before = (await call(`${sb.url}/_sandbox/clock`)).json.now;
    for (const [method, path, body] of controls) {
      // A page on evil.example posting a simple (no-preflight) request, and the Fetch Metadata form of it.
      for (const headers of <Record<string, string>[]>[
        { origin: 'https://evil.example', 'content-type': 'text/plain' },
        { origin: 'http://localhost:3000', 'content-type': 'text/plain' },
        { origin: 'null', 'content-type': 'text/plain' },
        { 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' },
      ]) {
        const r = await call(`${sb.url}${path}`, { method, headers, ...(body ? { raw: body } : {}) });
        assert.equal(r.status, 403, `${method} ${path} ${JSON.stringify(headers)}: ${r.text}`);
        assert.equal(r.json.errorCode, 'origin_refused');
      }
      if (body) {
        // Same origin, but a form or text body: 415, never read as a command.
        const r = await call(`${sb.url}${path}`, { method, headers: { 'content-type': 'text/plain' }, raw: body });
        assert.equal(r.status, 415, `${method} ${path}: ${r.text}`);
      }
    }
    assert.equal((await call(`${sb.url}/_sandbox/faults`)).json.data.length, 0);
    assert.ok(Date.parse((await call(`${sb.url}/_sandbox/clock`)).json.now) - Date.parse(before) < 30_000);
    // The sandbox's own origin, scripts without Origin (curl, tests, the demo console's server) still work.
    const same = await call(`${sb.url}/_sandbox/reset`, { method: 'POST', headers: { origin: `http://${own}` } });
    assert.equal(same.status, 204);
    assert.equal((await call(`${sb.url}/_sandbox/reset`, { method: 'POST' })).status, 204);
    const fault = await call(`${sb.url}/_sandbox/faults`, {
      body: { path: '/x', status: 503 },
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    assert.equal(fault.status, 201);
    assert.equal((await call(`${sb.url}/_sandbox/faults`, { method: 'DELETE' })).status, 204);
  });

  it('answers the controls only at an IP address, localhost or *.localhost: a page that rebinds its own name here gets 421', async () => {
    const port = new URL(sb.url).port;
    const JSON_BODY = { 'content-type': 'application/json' };
    // A page at the attacker's name, re-resolved to 127.0.0.1: same-origin with the sandbox as far as the browser
    // knows, so it sends `Sec-Fetch-Site: same-origin` and its own origin; only Host tells it apart.
    const page = (host: string) => ({ origin: `http://${host}`, 'sec-fetch-site': 'same-origin' });
    const controls: [string, string, string?][] = [
      ['POST', '/_sandbox/reset'],
      ['POST', '/_sandbox/faults', '{"path":"/**","status":503,"count":100}'],
      ['POST', '/_sandbox/clock/advance', '{"seconds":86400}'],
      ['DELETE', '/_sandbox/faults'],
      ['GET', '/_sandbox/requests'],
      ['GET', '/_sandbox/clock'],
      ['GET', '/_sandbox/faults'],
      ['GET', '/_sandbox/test-cards'],
      ['GET', '/_SANDBOX/Requests/'],
    ];
    // Something in the request log and the settings, to see that no refused reset or write touched them.
    await call(`${sb.url}/nowhere-logged`);
    await call(`${sb.url}/_sandbox/accounts/settings`, { method: 'PUT', body: { hosted_onboarding: true } });
    const clockBefore = (await call(`${sb.url}/_sandbox/clock`)).json.now;
    const refusedHosts = [
      'evil.example',
      `evil.example:${port}`,
      // The API's prefix rule is no defence here: the attacker picks the first label.
      `tessdemo.evil.example:${port}`,
      `localhost.evil.example:${port}`,
      `127.0.0.1.evil.example:${port}`,
      `localhost:${port}.evil.example`,
      'sandbox.internal',
      'localhost.',
    ];
    for (const host of refusedHosts) {
      for (const [method, path, body] of controls) {
        const r = await callWithHost(`${sb.url}${path}`, host, {
          method,
          headers: { ...page(host), ...(body ? JSON_BODY : {}) },
          ...(body ? { body } : {}),
        });
        assert.deepEqual(
          [r.status, r.json?.errorCode, r.json?.errors?.[0]?.field],
          [421, 'control_host_refused', 'Host'],
          `${method} ${path} at ${host}: ${r.text}`,
        );
        assert.ok(!r.text.includes('"data"') && !r.text.includes('"now"'), `${host} read nothing: ${r.text}`);
      }
      // The Account Services controls too, in that area's shape.
      const settings = await callWithHost(`${sb.url}/_sandbox/accounts/settings`, host, {
        method: 'PUT',
        headers: { ...page(host), ...JSON_BODY },
        body: '{"hosted_onboarding":false}',
      });
      assert.equal(settings.status, 421, `${host}: ${settings.text}`);
      assert.deepEqual(settings.json.error_codes, ['control_host_refused']);
      assert.equal(settings.json.error_type, 'misdirected_request');
    }
    assert.equal((await call(`${sb.url}/_sandbox/faults`)).json.data.length, 0, 'no fault was added');
    const moved = Date.parse((await call(`${sb.url}/_sandbox/clock`)).json.now) - Date.parse(clockBefore);
    assert.ok(moved < 3_600_000, `the clock was not moved (${moved} ms)`);
    const log = (await call(`${sb.url}/_sandbox/requests?limit=200`)).json.data as { path: string }[];
    assert.ok(
      log.some((e) => e.path === '/nowhere-logged'),
      'the sandbox was not reset',
    );
    assert.deepEqual((await call(`${sb.url}/_sandbox/accounts/settings`)).json, { hosted_onboarding: true });

    // Names no other site can point here: IP addresses, localhost and *.localhost (RFC 6761), in any case.
    for (const host of [
      `127.0.0.1:${port}`,
      '127.0.0.1',
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      `[::1]:${port}`,
      `foo.localhost:${port}`,
      'tessdemo.api.localhost',
      `10.0.0.7:${port}`,
    ]) {
      const clock = await callWithHost(`${sb.url}/_sandbox/clock`, host);
      assert.equal(clock.status, 200, `${host}: ${clock.text}`);
      const requests = await callWithHost(`${sb.url}/_sandbox/requests`, host);
      assert.equal(requests.status, 200, `${host}: ${requests.text}`);
      const fault = await callWithHost(`${sb.url}/_sandbox/faults`, host, {
        method: 'POST',
        headers: JSON_BODY,
        body: '{"path":"/x","status":503}',
      });
      assert.equal(fault.status, 201, `${host}: ${fault.text}`);
      assert.equal((await callWithHost(`${sb.url}/_sandbox/faults`, host, { method: 'DELETE' })).status, 204);
    }
    // The API keeps its own rule (docs/decisions/sandbox.md#host-prefix): the legacy API answers any name.
    const token = await callWithHost(`${sb.url}/api2/v2/tokens/card`, `evil.example:${port}`, {
      method: 'POST',
      headers: { ...JSON_BODY, authorization: sb.credentials.publicKey },
      body: JSON.stringify({
        number: '4242424242424242',
        expiryMonth: 12,
        expiryYear: new Date().getUTCFullYear() + 1,
        cvv: '123',
      }),
    });
    assert.equal(token.status, 200, token.text);
  });

  it('keeps the 3-D Secure challenge page reachable by the name the legacy API was called by', async () => {
    const port = new URL(sb.url).port;
    // No such challenge (a made-up reference): 404, not the controls' 421.
    for (const host of [`tessdemo.api.sandbox.example:${port}`, `127.0.0.1:${port}`]) {
      const r = await callWithHost(`${sb.url}/_sandbox/3ds/pay_tok_${'a'.repeat(26)}`, host);
      assert.equal(r.status, 404, `${host}: ${r.text}`);
      assert.equal(r.json.errorCode, 'challenge_not_found');
    }
  });

  it('applies a fault to the next matching request only', async () => {
    const { url } = sb;
    const add = await call(`${url}/_sandbox/faults`, { body: { path: '/api2/**', status: 503 } });
    assert.equal(add.status, 201);
    assert.equal((await call(`${url}/_sandbox/faults`)).json.data.length, 1);
    const del = await call(`${url}/_sandbox/faults`, { method: 'DELETE' });
    assert.equal(del.status, 204);
    assert.equal((await call(`${url}/_sandbox/faults`)).json.data.length, 0);
  });
});

describe('sandbox start options', () => {
  it('refuses to bind a non-loopback address without TLS', async () => {
    await assert.rejects(startSandbox({ host: '0.0.0.0' }), /refusing to bind "0\.0\.0\.0" without TLS/);
  });

  it('takes credentials from TESSERA_SANDBOX_* variables, options first, and refuses unusable ones naming them', async () => {
    const vars = {
      TESSERA_SANDBOX_PUBLIC_KEY: 'pk_sbox_from_env_public_0001',
      TESSERA_SANDBOX_SECRET_KEY: 'sk_sbox_from_env_secret_0001',
      TESSERA_SANDBOX_CLIENT_ID: 'cli_envprefx000000000001',
      TESSERA_SANDBOX_CLIENT_SECRET: 'env-client-secret-0001',
    };
    const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
    Object.assign(process.env, vars);
    try {
      const env = await startSandbox({ credentials: { clientSecret: 'option-client-secret-01' } });
      try {
        assert.deepEqual(env.credentials, {
          publicKey: vars.TESSERA_SANDBOX_PUBLIC_KEY,
          secretKey: vars.TESSERA_SANDBOX_SECRET_KEY,
          clientId: vars.TESSERA_SANDBOX_CLIENT_ID,
          clientSecret: 'option-client-secret-01',
        });
        const card = {
          number: '4242424242424242',
          expiryMonth: 6,
          expiryYear: env.clock.now().getUTCFullYear() + 2,
          cvv: '123',
        };
        const url = `${env.url}/api2/v2/tokens/card`;
        const ok = await call(url, { body: card, headers: { authorization: vars.TESSERA_SANDBOX_PUBLIC_KEY } });
        assert.equal(ok.status, 200, ok.text);
        const old = await call(url, {
          body: card,
          headers: { authorization: 'pk_sbox_tessera0demo0public0key0000001' },
        });
        assert.equal(old.status, 401);
      } finally {
        await env.close();
      }
      process.env.TESSERA_SANDBOX_PUBLIC_KEY = 'pk sbox with spaces';
      await assert.rejects(startSandbox(), /TESSERA_SANDBOX_PUBLIC_KEY must be 8 to 200 printable ASCII/);
      process.env.TESSERA_SANDBOX_PUBLIC_KEY = vars.TESSERA_SANDBOX_SECRET_KEY;
      await assert.rejects(startSandbox(), /TESSERA_SANDBOX_SECRET_KEY must differ from TESSERA_SANDBOX_PUBLIC_KEY/);
      process.env.TESSERA_SANDBOX_PUBLIC_KEY = vars.TESSERA_SANDBOX_PUBLIC_KEY;
      await assert.rejects(
        startSandbox({ credentials: { clientId: 'client-0001' } }),
        /credentials\.clientId must be cli_/,
      );
      await assert.rejects(
        startSandbox({ credentials: { clientId: 'cli_short' } }),
        /credentials\.clientId must be cli_/,
      );
      await assert.rejects(startSandbox({ credentials: { secretKey: 'sk\nx' } }), /credentials\.secretKey must be/);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('answers the controls at the names given in controlHosts too, and refuses a bad controlHosts naming it', async () => {
    const named = await startSandbox({ controlHosts: ['sandbox.internal', 'Tessera_SB'] });
    try {
      const port = new URL(named.url).port;
      for (const [host, status] of [
        [`sandbox.internal:${port}`, 200],
        ['SANDBOX.Internal', 200],
        [`tessera_sb:${port}`, 200],
        [`127.0.0.1:${port}`, 200],
        [`other.internal:${port}`, 421],
        [`sandbox.internal.evil.example:${port}`, 421],
        [`tessdemo.sandbox.internal:${port}`, 421],
      ] as const) {
        const r = await callWithHost(`${named.url}/_sandbox/reset`, host, {
          method: 'POST',
          headers: { origin: `http://${host}`, 'sec-fetch-site': 'same-origin' },
        });
        assert.equal(r.status, status === 200 ? 204 : 421, `${host}: ${r.text}`);
        const read = await callWithHost(`${named.url}/_sandbox/requests`, host);
        assert.equal(read.status, status, `${host}: ${read.text}`);
      }
    } finally {
      await named.close();
    }
    // The request listener alone takes the option as well.
    const { app } = createSandboxApp({ controlHosts: ['sandbox.internal'] });
    const server = createServer(app).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      assert.equal((await callWithHost(`${url}/_sandbox/clock`, 'sandbox.internal')).status, 200);
      assert.equal((await callWithHost(`${url}/_sandbox/clock`, 'evil.example')).status, 421);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    const bad: [unknown, RegExp][] = [
      ['sandbox.internal', /option `controlHosts` must be an array of host names such as \["sandbox\.internal"\]/],
      [[''], /option `controlHosts\.0` must be a host name without scheme, port or path, such as "sandbox\.internal"/],
      [
        ['http://sandbox.internal:4010/'],
        /option `controlHosts\.0` must be a host name without scheme, port or path; did you mean "sandbox\.internal"\?; got "http:\/\/sandbox\.internal:4010\/"/,
      ],
      [['sandbox.internal:4010'], /controlHosts\.0` .*did you mean "sandbox\.internal"\?/],
      [['*.internal'], /controlHosts\.0` must name one host: wildcards are not supported/],
      [['a..b'], /controlHosts\.0` must be a host name/],
      [[`${'a'.repeat(64)}.example`], /controlHosts\.0` must be a host name/],
      [[42], /controlHosts\.0` must be a string/],
      [Array.from({ length: 101 }, (_, i) => `h${i}.example`), /controlHosts` must list at most 100 host names/],
    ];
    for (const [controlHosts, message] of bad) {
      await assert.rejects(
        startSandbox({ controlHosts: controlHosts as string[] }),
        message,
        JSON.stringify(controlHosts),
      );
      assert.throws(() => createSandboxApp({ controlHosts: controlHosts as string[] }), message);
    }
    await assert.rejects(
      startSandbox({ controlHost: ['sandbox.internal'] } as never),
      /unknown option `controlHost`\. Did you mean `controlHosts`\?/,
    );
  });

  it('hides the sandbox controls in production mode', async () => {
    const prod = await startSandbox({ mode: 'production' });
    try {
      const r = await call(`${prod.url}/_sandbox/clock`);
      assert.equal(r.status, 404);
      // Not a 405: in production the controls do not exist for any method.
      assert.equal((await call(`${prod.url}/_sandbox/clock`, { method: 'PUT' })).status, 404);
      assert.equal((await call(`${prod.url}/_sandbox/reset`)).status, 404);
    } finally {
      await prod.close();
    }
  });
});
