import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';

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

  it('hides the sandbox controls in production mode', async () => {
    const prod = await startSandbox({ mode: 'production' });
    try {
      const r = await call(`${prod.url}/_sandbox/clock`);
      assert.equal(r.status, 404);
    } finally {
      await prod.close();
    }
  });
});
