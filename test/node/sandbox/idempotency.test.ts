import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createIdempotency } from '../../../server/sandbox/core/idempotency.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import {
  advance,
  cardBody,
  chargeBody,
  fromXml,
  getCharge,
  postCardToken,
  postCharge,
  SANDBOX,
} from './legacy-support.js';

/** Starts a POST whose body is only half sent; resolves once the server has its headers. */
function halfSentPost(sb: RunningSandbox, path: string, headers: Record<string, string>, body: string) {
  const url = new URL(`${sb.url}${path}`);
  const req = request({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
  });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
  });
  req.flushHeaders();
  const sent = new Promise<void>((resolve) => req.write(body.slice(0, 10), () => resolve()));
  return { finish: () => req.end(body.slice(10)), abort: () => req.destroy(), answer, sent };
}

describe('Idempotency-Key', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await startSandbox();
  });
  after(() => sb.close());

  it('replays the first answer for the same key and body, and charges once', async () => {
    const body = await chargeBody(sb);
    const first = await postCharge(sb, body, { 'idempotency-key': 'order-1-attempt' });
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const replay = await postCharge(sb, body, { 'idempotency-key': 'order-1-attempt' });
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(replay.json, first.json);
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const replayXml = await postCharge(sb, reordered, {
      'idempotency-key': 'order-1-attempt',
      accept: 'application/xml',
    });
    assert.equal(
      (fromXml(replayXml.text) as { id: string }).id,
      first.json.id,
      'key order does not matter; format is renegotiated',
    );
    const withoutKey = await postCharge(sb, body);
    assert.equal(withoutKey.json.errorCode, 'card_token_used', 'the token was used once, by the first request');
  });

  it('refuses the same key with another body (422)', async () => {
    const body = await chargeBody(sb);
    await postCharge(sb, body, { 'idempotency-key': 'k-422' });
    const other = await postCharge(sb, { ...body, value: 2 }, { 'idempotency-key': 'k-422' });
    assert.equal(other.status, 422);
    assert.equal(other.json.errorCode, 'idempotency_key_reused');
    assert.equal(other.json.errors[0].field, 'Idempotency-Key');
  });

  it('answers 409 while the first request with the key is still in flight', async () => {
    const body = JSON.stringify(await chargeBody(sb));
    const headers = { authorization: sb.credentials.secretKey, 'idempotency-key': 'k-409' };
    const first = halfSentPost(sb, `${SANDBOX}/charges/token`, headers, body);
    // Network ordering, not time control: let the server read the first request's headers before the twin.
    await first.sent;
    await new Promise((r) => setTimeout(r, 50));
    const twin = await call(`${sb.url}${SANDBOX}/charges/token`, {
      method: 'POST',
      raw: body,
      headers: { ...headers, 'content-type': 'application/json' },
    });
    assert.equal(twin.status, 409);
    assert.equal(twin.json.errorCode, 'idempotency_key_in_use');
    assert.equal(twin.headers.get('retry-after'), '1');
    first.finish();
    const done = await first.answer;
    assert.equal(done.status, 200, done.body);
    const after = await call(`${sb.url}${SANDBOX}/charges/token`, {
      method: 'POST',
      raw: body,
      headers: { ...headers, 'content-type': 'application/json' },
    });
    assert.equal(after.headers.get('idempotent-replayed'), 'true');
    assert.equal(after.json.id, JSON.parse(done.body).id);
  });

  it('releases a key whose request dropped before an answer', async () => {
    const body = JSON.stringify(await chargeBody(sb));
    const headers = { authorization: sb.credentials.secretKey, 'idempotency-key': 'k-drop' };
    const first = halfSentPost(sb, `${SANDBOX}/charges/token`, headers, body);
    first.answer.catch(() => {});
    await first.sent;
    await new Promise((r) => setTimeout(r, 50));
    first.abort();
    let retry = await call(`${sb.url}${SANDBOX}/charges/token`, {
      method: 'POST',
      raw: body,
      headers: { ...headers, 'content-type': 'application/json' },
    });
    for (let i = 0; i < 20 && retry.status === 409; i++) {
      await new Promise((r) => setTimeout(r, 10));
      retry = await call(`${sb.url}${SANDBOX}/charges/token`, {
        method: 'POST',
        raw: body,
        headers: { ...headers, 'content-type': 'application/json' },
      });
    }
    assert.equal(retry.status, 200, retry.text);
  });

  it('does not record refused requests: a corrected request may reuse the key', async () => {
    const body = await chargeBody(sb);
    const bad = await postCharge(sb, { ...body, currency: 'XXX' }, { 'idempotency-key': 'k-fix' });
    assert.equal(bad.status, 400);
    const fixed = await postCharge(sb, body, { 'idempotency-key': 'k-fix' });
    assert.equal(fixed.status, 200);
    assert.equal(fixed.headers.get('idempotent-replayed'), null);
  });

  it('records business outcomes (a declined charge is replayed, not re-run)', async () => {
    const body = await chargeBody(sb, '4000000000000002');
    const first = await postCharge(sb, body, { 'idempotency-key': 'k-declined' });
    assert.equal(first.json.status, 'Declined');
    const replay = await postCharge(sb, body, { 'idempotency-key': 'k-declined' });
    assert.equal(replay.json.id, first.json.id);
  });

  it('scopes keys per path: the same key on another endpoint is another key', async () => {
    const key = { 'idempotency-key': 'shared-key' };
    const token = await postCardToken(sb, cardBody(sb), key);
    const charged = await postCharge(sb, await chargeBody(sb), key);
    assert.equal(token.status, 200);
    assert.equal(charged.status, 200, 'same key on another path is another key');
  });

  it('scopes keys per route, not per spelling: a retry to /charges/token/ or /Charges/Token replays', async () => {
    const body = await chargeBody(sb);
    const key = { 'idempotency-key': 'order-spelling' };
    const first = await postCharge(sb, body, key);
    assert.equal(first.status, 200, first.text);
    for (const path of [`${SANDBOX}/charges/token/`, `${SANDBOX}/Charges/Token`, '/API2/V2/CHARGES/TOKEN/']) {
      const retry = await call(`${sb.url}${path}`, {
        body,
        headers: { authorization: sb.credentials.secretKey, ...key },
      });
      assert.equal(retry.status, 200, `${path}: ${retry.text}`);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true', path);
      assert.equal(retry.json.id, first.json.id, path);
    }
  });

  it('keeps a key 24 hours of sandbox clock, then runs the request anew', async () => {
    const body = await chargeBody(sb, '4242424242424242', { autoCapture: 'n' });
    const first = await postCharge(sb, body, { 'idempotency-key': 'k-24h' });
    await advance(sb, 24 * 3600 - 1);
    const replay = await postCharge(sb, body, { 'idempotency-key': 'k-24h' });
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.json.status, 'Authorised', 'the first answer, not the current state');
    assert.equal((await getCharge(sb, first.json.id)).json.status, 'Authorised');
    await advance(sb, 1);
    const anew = await postCharge(sb, body, { 'idempotency-key': 'k-24h' });
    assert.equal(anew.status, 422);
    assert.equal(anew.json.errorCode, 'card_token_used', 'ran again: the token is spent');
  });

  it('checks its options when created, naming the option', () => {
    assert.throws(() => createIdempotency(sb.context, { ttlSeconds: 0 }), /ttlSeconds must be a positive number/);
    assert.throws(() => createIdempotency(sb.context, { ttlSeconds: Number.NaN }), TypeError);
    assert.throws(() => createIdempotency(sb.context, { maxKeys: 1.5 }), /maxKeys must be a positive integer/);
  });

  it('refuses a malformed key with 400', async () => {
    for (const key of ['x'.repeat(256), 'naïve-key']) {
      const r = await postCharge(sb, await chargeBody(sb), { 'idempotency-key': key });
      assert.equal(r.status, 400);
      assert.equal(r.json.errorCode, 'idempotency_key_invalid');
      assert.equal(r.json.errors[0].field, 'Idempotency-Key');
    }
  });

  it('lets a retry after an "after"-phase fault learn the outcome', async () => {
    const body = await chargeBody(sb);
    await call(`${sb.url}/_sandbox/faults`, {
      body: { path: `${SANDBOX}/charges/token`, reset: true, phase: 'after' },
    });
    await assert.rejects(postCharge(sb, body, { 'idempotency-key': 'k-after' }));
    const retry = await postCharge(sb, body, { 'idempotency-key': 'k-after' });
    assert.equal(retry.status, 200);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal((await getCharge(sb, retry.json.id)).status, 200);
  });
});
