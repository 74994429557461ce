import assert from 'node:assert/strict';
import { it } from 'node:test';
import { decodeJwt } from 'jose';
import { HOST_ISSUER } from '../../../demo/host-tokens.js';
import type { Env } from './env.js';

/** Every card number the tests type into the widget. */
const PANS = [
  '4242424242424242',
  '4000000000009995',
  '5555555555554444',
  '4000000000003220',
  // the account updater's cards live in the sandbox: they must not reach the browser or the demo's logs either
  '4000000000001000',
  '4000000000009003',
  '4000000000002008',
  '5100000000003002',
  '340000000000405',
];
const CVV = '123';
const grouped = (pan: string) => pan.replace(/(\d{4})(?=\d)/g, '$1 ');
const JWT = /eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g;

/** The card data (a tested card number plain or grouped, a CVV field or value) found in `text`. */
export function cardDataIn(text: string): string[] {
  const hits = PANS.filter((pan) => text.includes(pan) || text.includes(grouped(pan)));
  if (/"(cvv|cvc|securityCode)"\s*:/i.test(text) || /\b(cvv|cvc)=/i.test(text)) hits.push('a CVV field');
  if (new RegExp(`"${CVV}"|=${CVV}(&|$)`).test(text)) hits.push('the CVV value');
  return hits;
}

/** Checked last, over everything the run did: the demo server's logs and the browser's real traffic. */
export function invariantTests(env: () => Env): void {
  it('no card number or CVV in any request the browser sent to the demo server, nor in its logs', async () => {
    const { traffic, logs } = env();
    // The detector finds what it must: a number plain or grouped, a CVV field or value, in JSON or a form.
    assert.equal(cardDataIn('{"pan":"4242 4242 4242 4242"}').length, 1);
    assert.equal(cardDataIn('{"cvv":"999"}').length, 1);
    assert.equal(cardDataIn('cardToken=card_tok_1&code=123').length, 1);
    assert.deepEqual(cardDataIn('{"cardToken":"card_tok_1","orderReference":"ord_1"}'), []);
    await Promise.all(traffic.pending);
    assert.ok(
      traffic.sent.some((r) => r.body.includes('card_tok_')),
      'the run sent card tokens to the demo server (the traffic was recorded)',
    );
    const sent = traffic.sent.flatMap((r) => cardDataIn(r.body).map((hit) => `${r.method} ${r.url}: ${hit}`));
    assert.deepEqual(sent, []);
    assert.ok(logs.length > 50, 'the demo server logged the run');
    const logged = logs.flatMap((line) => cardDataIn(line).map((hit) => `${hit} in ${line.slice(0, 200)}`));
    assert.deepEqual(logged, []);
  });

  it('no page, script or response the browser received holds the secret key, the client secret or an access token', async () => {
    const { traffic, demo, logs } = env();
    await Promise.all(traffic.pending);
    const { secretKey, clientSecret } = demo.sandbox.credentials;
    assert.ok(traffic.received.length > 100, 'the run received pages, scripts and API answers');
    assert.ok(
      traffic.received.some((r) => r.url.endsWith('/static/platform.js')),
      'page scripts are among them',
    );
    const leaks: string[] = [];
    let hostTokens = 0;
    for (const { url, body } of traffic.received) {
      if (body.includes(secretKey)) leaks.push(`secret key in ${url}`);
      if (body.includes(clientSecret)) leaks.push(`client secret in ${url}`);
      for (const [jwt] of body.matchAll(JWT)) {
        let issuer: unknown;
        try {
          issuer = decodeJwt(jwt).iss;
        } catch {
          issuer = 'unreadable';
        }
        // The only tokens a page may hold are the dashboard's short-lived host tokens from the demo back end.
        if (issuer === HOST_ISSUER) hostTokens++;
        else leaks.push(`a token of issuer ${String(issuer)} in ${url}`);
      }
    }
    assert.deepEqual(leaks, []);
    assert.ok(hostTokens > 0, 'host tokens were seen, so the JWT scan works');
    for (const line of logs) {
      assert.ok(
        !line.includes(secretKey) && !line.includes(clientSecret),
        `a secret in the log: ${line.slice(0, 200)}`,
      );
    }
  });

  it('no page broke its CSP or Trusted Types, and no script threw, in the whole run', () => {
    assert.deepEqual(env().traffic.pageErrors, []);
  });
}
