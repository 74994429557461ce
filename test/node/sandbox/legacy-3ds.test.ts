import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { paymentTokenResponseSchema } from '../../../server/provider/schemas/legacy.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { cardToken, chargeBody, getCharge, postCharge } from './legacy-support.js';

/** Submits the challenge form as a browser would; returns status, Location and page text. */
async function complete(url: string, outcome: string) {
  const res = await fetch(url, {
    method: 'POST',
    body: new URLSearchParams({ outcome }),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    redirect: 'manual',
  });
  return { status: res.status, location: res.headers.get('location'), text: await res.text(), headers: res.headers };
}

describe('legacy API: 3-D Secure', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await startSandbox();
  });
  after(() => sb.close());

  const urls = { successUrl: 'https://shop.example/paid?order=9', failUrl: 'https://shop.example/failed' };

  async function start3ds(number = '4242424242424242', extra: Record<string, unknown> = {}) {
    const r = await postCharge(sb, await chargeBody(sb, number, { chargeMode: 2, ...urls, ...extra }));
    assert.equal(r.status, 200, r.text);
    return paymentTokenResponseSchema.parse(r.json);
  }

  it('answers a chargeMode 2 charge with a payment token and the challenge URL, the charge Pending', async () => {
    const token = await start3ds();
    assert.match(token.id, /^pay_tok_[a-z2-7]{26}$/);
    assert.equal(token.liveMode, false);
    assert.equal(token.redirectUrl, `${sb.url}/_sandbox/3ds/${token.id}`);
    const pending = await getCharge(sb, token.id);
    assert.equal(pending.status, 200);
    assert.equal(pending.json.status, 'Pending');
    assert.equal(pending.json.chargeMode, 2);
    assert.match(pending.json.id, /^charge_/);
  });

  it('serves a script-free challenge page under a strict CSP', async () => {
    const token = await start3ds();
    const page = await call(token.redirectUrl!, { headers: { accept: 'text/html' } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /form-action 'self' https:\/\/shop\.example/);
    assert.doesNotMatch(csp, /script-src|unsafe-inline/);
    assert.doesNotMatch(page.text, /<script/i);
    assert.match(page.text, /<form method="post">/);
    assert.match(page.text, /value="pass"/);
    assert.match(page.text, /value="fail"/);
    assert.doesNotMatch(page.text, /4242424242424242/);
  });

  it('keeps a successUrl or failUrl whose host holds ";", "," or "\'" out of the challenge page’s CSP (no directive or policy injected)', async () => {
    // WHATWG URLs (and so the charge schema) take these in a host: its origin put in the header as it was made
    // `;sandbox` a directive of its own (the page's form could no longer submit) and `,` a second policy.
    for (const [successUrl, failUrl] of [
      ['https://x;sandbox/', 'https://shop.example/failed'],
      ['https://shop.example/paid', 'https://x,frame-ancestors/'],
      ["https://x'none'/", 'https://shop.example/failed'],
    ]) {
      const token = await start3ds('4242424242424242', { successUrl, failUrl });
      const page = await call(token.redirectUrl!, { headers: { accept: 'text/html' } });
      assert.equal(page.status, 200);
      const csp = page.headers.get('content-security-policy') ?? '';
      assert.doesNotMatch(csp, /sandbox|,|'none'\//, `${successUrl} ${failUrl}: ${csp}`);
      assert.match(csp, /; form-action 'self'(?: https:\/\/shop\.example)?; base-uri 'none'; frame-ancestors \*$/, csp);
    }
  });

  it('gives the challenge page an inline icon that its CSP allows (no /favicon.ico request refused by the CSP)', async () => {
    const token = await start3ds();
    const page = await call(token.redirectUrl!, { headers: { accept: 'text/html' } });
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /(^|; )img-src data:(;|$)/, 'images: data: URLs only');
    assert.match(page.text, /<link rel="icon" href="data:image\/svg\+xml,[^"]+">/);
  });

  it('passing redirects to successUrl with cko-payment-token and settles the charge', async () => {
    const token = await start3ds();
    const done = await complete(token.redirectUrl!, 'pass');
    assert.equal(done.status, 303);
    const location = new URL(done.location!);
    assert.equal(`${location.origin}${location.pathname}`, 'https://shop.example/paid');
    assert.equal(location.searchParams.get('order'), '9');
    assert.equal(location.searchParams.get('cko-payment-token'), token.id);
    const final = await getCharge(sb, token.id);
    assert.equal(final.json.status, 'Captured');
    assert.equal(final.json.responseCode, '10000');
    assert.match(final.json.authCode, /^\d{6}$/);
    assert.deepEqual((await getCharge(sb, final.json.id)).json, final.json, 'same charge by charge_ id');
    const again = await complete(token.redirectUrl!, 'fail');
    assert.equal(again.status, 409, 'a challenge completes once');
    assert.equal((await getCharge(sb, token.id)).json.status, 'Captured');
  });

  it('offers the way back to the shop on a closed challenge: a double-clicked Pass, the Back button, a lapsed one', async () => {
    const link = (text: string) => {
      const href = /<a href="([^"<>]{1,4096})">Return to the shop<\/a>/.exec(text)?.[1];
      return href === undefined ? undefined : new URL(href.replaceAll('&amp;', '&'));
    };
    // A double click submits the form twice and the browser shows the second answer: it must lead somewhere.
    const token = await start3ds();
    const [first, second] = await Promise.all([
      complete(token.redirectUrl!, 'pass'),
      complete(token.redirectUrl!, 'pass'),
    ]);
    const answers = [first, second].sort((a, b) => a.status - b.status);
    assert.deepEqual(
      answers.map((a) => a.status),
      [303, 409],
    );
    const back = link(answers[1]!.text);
    assert.ok(back, answers[1]!.text);
    assert.equal(back.href, answers[0]!.location, 'the same URL the first answer redirected to');
    // The Back button to the page of a challenge that passed.
    const page = await call(token.redirectUrl!, { headers: { accept: 'text/html' } });
    assert.equal(page.status, 409);
    assert.equal(link(page.text)?.href, answers[0]!.location);
    // A challenge left open past its 15 minutes declined by itself: the way back is to failUrl.
    const lapsed = await start3ds();
    sb.clock.advance(15 * 60);
    const closed = await call(lapsed.redirectUrl!, { headers: { accept: 'text/html' } });
    assert.equal(closed.status, 409);
    const failed = link(closed.text);
    assert.equal(`${failed?.origin}${failed?.pathname}`, 'https://shop.example/failed');
    assert.equal(failed?.searchParams.get('cko-payment-token'), lapsed.id);
    // Without URLs there is nowhere to go back to: no link.
    const bare = await postCharge(sb, await chargeBody(sb, '4242424242424242', { chargeMode: 2 }));
    await complete(bare.json.redirectUrl, 'pass');
    const none = await complete(bare.json.redirectUrl, 'pass');
    assert.equal(none.status, 409);
    assert.equal(link(none.text), undefined);
  });

  it('failing redirects to failUrl and declines the charge with 20151', async () => {
    const token = await start3ds();
    const done = await complete(token.redirectUrl!, 'fail');
    assert.equal(done.status, 303);
    assert.equal(new URL(done.location!).searchParams.get('cko-payment-token'), token.id);
    assert.match(done.location!, /^https:\/\/shop\.example\/failed\?/);
    const final = (await getCharge(sb, token.id)).json;
    assert.equal(final.status, 'Declined');
    assert.equal(final.responseCode, '20151');
  });

  it('declines the 3-D Secure test card without a challenge and approves it after one', async () => {
    const direct = await postCharge(sb, await chargeBody(sb, '4000000000003220'));
    assert.equal(direct.json.status, 'Declined');
    assert.equal(direct.json.responseCode, '20154');
    const token = await start3ds('4000000000003220', { autoCapture: 'y', autoCapTime: 2 });
    await complete(token.redirectUrl!, 'pass');
    assert.equal((await getCharge(sb, token.id)).json.status, 'Authorised');
  });

  it('still declines a declining card after a passed challenge, and goes to failUrl', async () => {
    const token = await start3ds('4000000000009995');
    const done = await complete(token.redirectUrl!, 'pass');
    assert.match(done.location ?? '', /^https:\/\/shop\.example\/failed/);
    assert.equal((await getCharge(sb, token.id)).json.responseCode, '20051');
  });

  it('shows the result itself when the charge has no redirect URL', async () => {
    const r = await postCharge(sb, await chargeBody(sb, '4242424242424242', { chargeMode: '2' }));
    const done = await complete(r.json.redirectUrl, 'pass');
    assert.equal(done.status, 200);
    assert.match(done.text, new RegExp(r.json.id));
    assert.match(done.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  });

  it('declines a charge whose challenge stays open 15 minutes, and frees its trackId', async () => {
    const token = await start3ds('4242424242424242', { trackId: 'order-3ds-abandoned' });
    sb.clock.advance(15 * 60 - 1);
    assert.equal((await getCharge(sb, token.id)).json.status, 'Pending');
    sb.clock.advance(1);
    const closed = (await getCharge(sb, token.id)).json;
    assert.equal(closed.status, 'Declined');
    assert.equal(closed.responseCode, '20151');
    assert.match(closed.responseAdvancedInfo, /not completed within 15 minutes/);
    const page = await call(token.redirectUrl!, { headers: { accept: 'text/html' } });
    assert.equal(page.status, 409);
    assert.equal((await complete(token.redirectUrl!, 'pass')).status, 409);
    const retry = await postCharge(sb, await chargeBody(sb, '4242424242424242', { trackId: 'order-3ds-abandoned' }));
    assert.equal(retry.status, 200, 'the declined attempt no longer holds the trackId');
  });

  it('holds the trackId while the challenge is open', async () => {
    await start3ds('4242424242424242', { trackId: 'order-3ds-open' });
    const twin = await postCharge(sb, await chargeBody(sb, '4242424242424242', { trackId: 'order-3ds-open' }));
    assert.equal(twin.status, 422);
    assert.equal(twin.json.errorCode, 'track_id_duplicate');
  });

  it('refuses an unknown challenge and a bad outcome', async () => {
    assert.equal((await call(`${sb.url}/_sandbox/3ds/pay_tok_unknown`)).status, 404);
    const token = await start3ds();
    const bad = await complete(token.redirectUrl!, 'maybe');
    assert.equal(bad.status, 400);
    assert.equal(JSON.parse(bad.text).errors[0].field, 'outcome');
    assert.equal((await getCharge(sb, token.id)).json.status, 'Pending');
  });

  it('hides /_sandbox/3ds in production mode and plays the issuer under /v2/3ds', async () => {
    const prod = await startSandbox({ mode: 'production' });
    try {
      const r = await call(`${prod.url}/v2/charges/token`, {
        body: { cardToken: await cardToken(prod), value: 100, currency: 'USD', email: 'p@example.com', chargeMode: 2 },
        headers: { authorization: prod.credentials.secretKey },
      });
      assert.equal(r.json.liveMode, true);
      assert.equal(r.json.redirectUrl, `${prod.url}/v2/3ds/${r.json.id}`);
      assert.equal((await call(`${prod.url}/_sandbox/3ds/${r.json.id}`)).status, 404);
      assert.equal((await complete(r.json.redirectUrl, 'pass')).status, 200);
    } finally {
      await prod.close();
    }
  });
});
