import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { callWithHost, FORM, form } from './accounts-support.js';

describe('sandbox OAuth: POST /connect/token', () => {
  let sb: RunningSandbox;
  let good: Record<string, string>;
  before(async () => {
    sb = await startSandbox();
    good = {
      grant_type: 'client_credentials',
      client_id: sb.credentials.clientId,
      client_secret: sb.credentials.clientSecret,
    };
  });
  after(() => sb.close());

  const token = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    call(`${sb.url}/connect/token`, { method: 'POST', raw: form(fields), headers: { ...FORM, ...headers } });

  it('issues a Bearer JWT with every allowed scope when none is asked, on the sandbox clock', async () => {
    const r = await token(good);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.token_type, 'Bearer');
    assert.equal(r.json.expires_in, 3600);
    assert.equal(r.json.scope, 'accounts vault:real-time-account-updater vault:instruments');
    assert.equal(r.headers.get('svc-version'), '1.0.0');
    assert.match(r.headers.get('svc-request-id') ?? '', /^req_/);
    assert.equal(r.headers.get('cache-control'), 'no-store');
    assert.equal(decodeProtectedHeader(r.json.access_token).alg, 'HS256');
    const claims = decodeJwt(r.json.access_token);
    assert.equal(claims.sub, sb.credentials.clientId);
    assert.equal(claims.scope, r.json.scope);
    sb.clock.advance(7200);
    const later = decodeJwt((await token(good)).json.access_token);
    assert.ok(later.iat! - claims.iat! >= 7200, 'iat follows the sandbox clock');
  });

  it('grants exactly the asked scopes, and accepts HTTP Basic client authentication', async () => {
    const basic = Buffer.from(`${sb.credentials.clientId}:${sb.credentials.clientSecret}`).toString('base64');
    const r = await token({ grant_type: 'client_credentials', scope: 'accounts' }, { authorization: `Basic ${basic}` });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.scope, 'accounts');
    assert.equal(decodeJwt(r.json.access_token).scope, 'accounts');
  });

  it('answers bad requests in the RFC 6749 §5.2 shape with the request id', async () => {
    const basic = (s: string) => ({ authorization: `Basic ${Buffer.from(s).toString('base64')}` });
    const cases: [string, Record<string, string>, Record<string, string>, number, string][] = [
      ['wrong secret', { ...good, client_secret: 'nope' }, {}, 401, 'invalid_client'],
      ['unknown client', { ...good, client_id: 'cli_someoneelse0001' }, {}, 401, 'invalid_client'],
      ['no client', { grant_type: 'client_credentials' }, {}, 401, 'invalid_client'],
      [
        'wrong basic secret',
        { grant_type: 'client_credentials' },
        basic('cli_tessdemo0000000000000001:x'),
        401,
        'invalid_client',
      ],
      ['no grant_type', { client_id: good.client_id!, client_secret: good.client_secret! }, {}, 400, 'invalid_request'],
      ['password grant', { ...good, grant_type: 'password' }, {}, 400, 'unsupported_grant_type'],
      ['unknown scope', { ...good, scope: 'accounts payments' }, {}, 400, 'invalid_scope'],
      ['hostile scope', { ...good, scope: 'acc"ounts' }, {}, 400, 'invalid_scope'],
      ['basic and form', good, basic('a:b'), 400, 'invalid_request'],
      ['basic without colon', { grant_type: 'client_credentials' }, basic('nocolon'), 400, 'invalid_request'],
      [
        'bearer instead of basic',
        { grant_type: 'client_credentials' },
        { authorization: 'Bearer x' },
        400,
        'invalid_request',
      ],
    ];
    for (const [name, fields, headers, status, error] of cases) {
      const r = await token(fields, headers);
      assert.equal(r.status, status, `${name}: ${r.text}`);
      assert.equal(r.json.error, error, name);
      assert.equal(r.json.request_id, r.headers.get('svc-request-id'), name);
      assert.equal(r.headers.get('svc-version'), '1.0.0', name);
      assert.equal(typeof r.json.error_description, 'string', name);
    }
    const challenged = await token({ grant_type: 'client_credentials' }, basic(`${good.client_id}:bad`));
    assert.equal(challenged.headers.get('www-authenticate'), 'Basic realm="tessera-sandbox"');
  });

  it('refuses non-form, malformed and oversized bodies with 4xx invalid_request', async () => {
    const url = `${sb.url}/connect/token`;
    const json = await call(url, { body: good });
    assert.equal(json.status, 415);
    assert.equal(json.json.error, 'invalid_request');
    const big = await call(url, { method: 'POST', raw: `scope=${'a'.repeat(70_000)}`, headers: FORM });
    assert.equal(big.status, 413);
    assert.equal(big.json.error, 'invalid_request');
    const proto = await call(url, { method: 'POST', raw: `${form(good)}&__proto__=x`, headers: FORM });
    assert.equal(proto.status, 400);
    assert.match(proto.json.error_description, /"__proto__" is not allowed/);
    // RFC 6749 §3.1: a parameter sent twice is invalid_request, whichever copy would have won.
    for (const extra of ['grant_type=password', `client_id=${good.client_id}`, 'client_secret=nope']) {
      const twice = await call(url, { method: 'POST', raw: `${form(good)}&${extra}`, headers: FORM });
      assert.equal(twice.status, 400, `${extra}: ${twice.text}`);
      assert.equal(twice.json.error, 'invalid_request', extra);
      assert.match(twice.json.error_description, new RegExp(`"${extra.split('=')[0]}" is sent twice`), extra);
    }
    const latin1 = await call(url, {
      method: 'POST',
      raw: form(good),
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=ISO-8859-1' },
    });
    assert.equal(latin1.status, 415, latin1.text);
    assert.equal(latin1.json.error, 'invalid_request');
    const get = await call(url);
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    assert.equal(get.json.error, 'invalid_request');
  });

  it('honours the host prefix rule: first label must be the client id prefix unless reached by IP or localhost', async () => {
    const port = new URL(sb.url).port;
    const cases: [string, number][] = [
      [`tessdemo.api.sandbox.example:${port}`, 200],
      ['TESSDEMO.access.sandbox.example', 200],
      [`127.0.0.1:${port}`, 200],
      [`localhost:${port}`, 200],
      ['[::1]', 200],
      ['otherpfx.api.sandbox.example', 421],
      ['api.sandbox.example', 421],
    ];
    for (const [host, status] of cases) {
      const r = await callWithHost(`${sb.url}/connect/token`, host, {
        method: 'POST',
        body: form(good),
        headers: FORM,
      });
      assert.equal(r.status, status, `${host}: ${r.text}`);
      if (status === 421) {
        // RFC 6749 §5.2 has no name for a wrong host: invalid_request, the status kept, the reason described.
        assert.equal(r.json.error, 'invalid_request');
        assert.match(r.json.error_description, /hosts start with "tessdemo"/);
      }
    }
  });

  it('names every error with an RFC 6749 §5.2 code, whatever the status (an injected 404 included)', async () => {
    const fault = await call(`${sb.url}/_sandbox/faults`, { body: { path: '/connect/token', status: 404 } });
    assert.equal(fault.status, 201, fault.text);
    const r = await token(good);
    assert.equal(r.status, 404);
    assert.equal(r.json.error, 'invalid_request');
    assert.match(r.json.error_description, /fault injected/);
  });
});

describe('sandbox OAuth with fixtures', () => {
  it('limits the client to the scopes of fixtures accounts.oauth.scopes', async () => {
    const sb = await startSandbox({ fixtures: { accounts: { oauth: { scopes: ['accounts'] } } } });
    try {
      const base = {
        grant_type: 'client_credentials',
        client_id: sb.credentials.clientId,
        client_secret: sb.credentials.clientSecret,
      };
      const none = await call(`${sb.url}/connect/token`, { method: 'POST', raw: form(base), headers: FORM });
      assert.equal(none.json.scope, 'accounts');
      const r = await call(`${sb.url}/connect/token`, {
        method: 'POST',
        raw: form({ ...base, scope: 'vault:real-time-account-updater' }),
        headers: FORM,
      });
      assert.equal(r.status, 400);
      assert.equal(r.json.error, 'invalid_scope');
    } finally {
      await sb.close();
    }
  });
});
