import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { cardBody, charge, chargeBody, getCharge, postCardToken, postCharge, SANDBOX } from './legacy-support.js';

describe('legacy API: injected faults', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await startSandbox();
  });
  after(() => sb.close());
  beforeEach(async () => {
    await call(`${sb.url}/_sandbox/faults`, { method: 'DELETE' });
  });

  const fault = async (rule: Record<string, unknown>) => {
    const r = await call(`${sb.url}/_sandbox/faults`, { body: rule });
    assert.equal(r.status, 201, r.text);
  };

  it('status, before phase: fails with that status and no effect (the token stays usable)', async () => {
    const body = await chargeBody(sb);
    await fault({ path: `${SANDBOX}/charges/token`, status: 503 });
    const r = await postCharge(sb, body);
    assert.equal(r.status, 503);
    assert.equal(r.json.errorCode, 'injected_fault');
    assert.equal(r.json.requestId, r.headers.get('svc-request-id'));
    assert.equal((await postCharge(sb, body)).status, 200, 'nothing happened, and the fault was used up');
  });

  it('status, after phase: the charge happens, then the answer fails', async () => {
    const body = await chargeBody(sb, '4242424242424242', { trackId: 'after-phase-1' });
    await fault({ path: `${SANDBOX}/charges/token`, status: 502, phase: 'after' });
    const r = await postCharge(sb, body);
    assert.equal(r.status, 502);
    const again = await postCharge(sb, body);
    assert.equal(again.json.errorCode, 'card_token_used', 'the first request took effect');
    const log = await call(`${sb.url}/_sandbox/requests?limit=5`);
    const entry = log.json.data.find((e: { fault?: string }) => e.fault === 'status 502');
    assert.ok(entry, 'the request log records the fault');
  });

  it('delayMs: answers normally, late', async () => {
    await fault({ path: `${SANDBOX}/tokens/card`, delayMs: 300 });
    const started = performance.now();
    const r = await postCardToken(sb, cardBody(sb));
    assert.equal(r.status, 200);
    assert.ok(performance.now() - started >= 290);
  });

  it('reset: drops the connection; before the request took effect', async () => {
    const body = await chargeBody(sb);
    await fault({ path: `${SANDBOX}/charges/token`, reset: true });
    await assert.rejects(postCharge(sb, body));
    assert.equal((await postCharge(sb, body)).status, 200);
  });

  it('stallBody: sends headers and part of a body, then nothing', async () => {
    await fault({ path: `${SANDBOX}/tokens/card`, stallBody: true });
    const ac = new AbortController();
    const res = await fetch(`${sb.url}${SANDBOX}/tokens/card`, {
      method: 'POST',
      headers: { authorization: sb.credentials.publicKey, 'content-type': 'application/json' },
      body: JSON.stringify(cardBody(sb)),
      signal: ac.signal,
    });
    assert.equal(res.status, 200);
    const reading = res.text().then(
      () => 'complete',
      () => 'aborted',
    );
    const outcome = await Promise.race([reading, new Promise((r) => setTimeout(() => r('stalled'), 300))]);
    assert.equal(outcome, 'stalled');
    ac.abort();
    assert.equal(await reading, 'aborted');
  });

  it('matches by method and path glob, and applies count times', async () => {
    const c = await charge(sb);
    await fault({ method: 'get', path: `${SANDBOX}/charges/*`, status: 500, count: 2 });
    assert.equal((await postCharge(sb, await chargeBody(sb))).status, 200, 'a POST does not match a GET rule');
    assert.equal((await getCharge(sb, c.id)).status, 500);
    assert.equal((await getCharge(sb, c.id)).status, 500);
    assert.equal((await getCharge(sb, c.id)).status, 200);
  });

  it('renders an injected fault in XML when XML is asked for', async () => {
    await fault({ path: `${SANDBOX}/tokens/payment`, status: 429 });
    const r = await call(`${sb.url}${SANDBOX}/tokens/payment`, {
      body: { value: 1, currency: 'USD' },
      headers: { authorization: sb.credentials.secretKey, accept: 'application/xml' },
    });
    assert.equal(r.status, 429);
    assert.match(r.text, /<errorCode>injected_fault<\/errorCode>/);
  });
});
