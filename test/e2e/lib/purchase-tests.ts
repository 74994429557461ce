import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Engine, ShopperPage } from './engines/driver.js';
import { waitFor } from './engines/driver.js';
import type { SandboxReader } from './env.js';
import { expectApprovedMugAndTiles, expectDeclinedThenApproved } from './expect.js';
import { cardDataIn } from './invariant-tests.js';

/** What the purchase flows need besides the engine: the demo's sandbox and the demo server's log. */
export interface PurchaseEnv {
  readonly sandbox: SandboxReader;
  /** The sandbox's base URL (its 3-D Secure page lives there). */
  readonly sandboxUrl: string;
  /** Raw log lines of the demo server, in order. */
  readonly logs: string[];
}

const PRODUCTS = { 'Tessera mug': 'mug', 'Glass tile set': 'tiles', 'Framed mosaic print': 'print' } as const;
type Product = keyof typeof PRODUCTS;

async function waitForUrl(page: ShopperPage, pattern: RegExp | string): Promise<string> {
  const matches = (url: string) => (typeof pattern === 'string' ? url.startsWith(pattern) : pattern.test(url));
  return waitFor(
    `the URL to ${typeof pattern === 'string' ? `start with ${pattern}` : `match ${pattern}`}`,
    async () => {
      const url = await page.url();
      return matches(url) ? url : undefined;
    },
  );
}

/** Visits the shop, adds the products to the cart and checks out; answers the order id (the checkout page is open). */
async function checkout(shop: string, page: ShopperPage, products: readonly Product[]): Promise<string> {
  await page.goto(`${shop}/`);
  for (const name of products) {
    await page.click(`.products input[name="product"][value="${PRODUCTS[name]}"] ~ button`);
    await page.waitForText('#cart', new RegExp(name));
  }
  await page.click('#cart form[action="/checkout"] button');
  const url = await waitForUrl(page, /\/checkout\/ord_\w+$/);
  return new URL(url).pathname.split('/').pop()!;
}

/** Types a card into the widget with real key presses, as a shopper would (the widget puts in the expiry's slash). */
async function fillCard(page: ShopperPage, number: string): Promise<void> {
  await page.typeCard('number', number);
  await page.typeCard('expiry', '1234');
  await page.typeCard('cvv', '123');
}

/** The result page's facts. */
async function result(page: ShopperPage): Promise<{ chargeId: string; status: string; card: string }> {
  await waitForUrl(page, /\/orders\/ord_/);
  return {
    chargeId: await page.waitForText('[data-charge-id]', /\S/),
    status: await page.waitForText('[data-charge-status]', /\S/),
    card: await page.waitForText('[data-card]', /\S/),
  };
}

const DECLINED = 'The payment was declined. Check the card details or use another card.';

/**
 * The demo purchase (approved, declined then another card, 3-D Secure passed) in one engine, asserting what the
 * Chromium shop tests (shop-tests.ts) assert for these flows, then the card-data invariant over what this engine's
 * shoppers sent to the demo server and what the server logged.
 */
export function purchaseTests(engine: () => Engine, env: () => PurchaseEnv): void {
  it('buys with an approved card: result page with charge id, status and card; the sandbox holds that charge', async (t) => {
    t.diagnostic(`${engine().name} ${engine().version}`);
    const page = await engine().newPage();
    const order = await checkout(engine().shopUrl, page, ['Tessera mug', 'Glass tile set']);
    await fillCard(page, '4242424242424242');
    // The built bundle (Lit trimmed of its <style>-element fallback) styles the element with one adopted sheet.
    assert.deepEqual(await page.cardStyles(), { adoptedSheets: 1, styleElements: 0, layout: 'grid' });
    await page.click('#pay-button');
    const shown = await result(page);
    await expectApprovedMugAndTiles(env().sandbox, shown, order);
  });

  it('a declined card shows one generic message and an empty card form; another card then pays the order', async () => {
    const page = await engine().newPage();
    const order = await checkout(engine().shopUrl, page, ['Tessera mug']);
    await fillCard(page, '4000000000009995'); // insufficient funds
    await page.click('#pay-button');
    const message = await page.waitForText('#pay-message', /declined/);
    assert.equal(message.trim(), DECLINED, 'one generic message');
    assert.doesNotMatch(message, /funds/i, 'the reason is not shown');
    assert.match(await page.url(), /\/checkout\/ord_/);
    assert.equal(await page.cardValue('number'), '');
    await fillCard(page, '5555555555554444');
    await page.click('#pay-button');
    await expectDeclinedThenApproved(env().sandbox, await result(page), order);
  });

  it('a 3-D Secure card goes through the sandbox challenge (pass) and comes back to an approved result', async () => {
    const page = await engine().newPage();
    const order = await checkout(engine().shopUrl, page, ['Framed mosaic print']);
    await fillCard(page, '4000000000003220');
    await page.click('#pay-button');
    await waitForUrl(page, `${env().sandboxUrl}/_sandbox/3ds/`);
    await page.click('button[name="outcome"][value="pass"]');
    const shown = await result(page);
    assert.equal(shown.status, 'Authorised');
    const charge = await env().sandbox.charge(shown.chargeId);
    assert.deepEqual([charge.status, charge.chargeMode, charge.trackId, charge.value], ['Authorised', 2, order, 6900]);
  });

  it('no card number or CVV reached the demo server in these purchases, nor its logs', async () => {
    const { traffic } = engine();
    await Promise.all(traffic.pending);
    const how = `requests observed by ${traffic.observedBy}`;
    assert.ok(
      traffic.sent.some((r) => r.method === 'POST' && r.body.includes('card_tok_')),
      `the card tokens sent to the demo server were recorded (${how})`,
    );
    const sent = traffic.sent.flatMap((r) => cardDataIn(r.body).map((hit) => `${r.method} ${r.url}: ${hit}`));
    assert.deepEqual(sent, [], how);
    const { logs } = env();
    assert.ok(
      logs.some((line) => line.includes('"event":"demo.request"')),
      'the demo server logged the requests',
    );
    const logged = logs.flatMap((line) => cardDataIn(line).map((hit) => `${hit} in ${line.slice(0, 200)}`));
    assert.deepEqual(logged, []);
  });

  it('every page loaded whole: the demo server answered every request (the favicon too) and no page reported an error', async (t) => {
    const { traffic, name, asksForFavicon } = engine();
    await Promise.all(traffic.pending);
    const path = (url: string) => new URL(url).pathname;
    // The one error answer these flows expect: the charge endpoint's 402 for the declined card.
    const decline = (a: { url: string; status: number }) => a.status === 402 && path(a.url) === '/api/charges';
    const how = `answers observed by ${traffic.observedBy}`;
    assert.ok(traffic.answers.some(decline), `the decline's 402 was observed (${how})`);
    assert.deepEqual(
      traffic.answers.filter((a) => a.status >= 400 && !decline(a)),
      [],
      how,
    );
    const icons = traffic.answers.filter((a) => path(a.url) === '/favicon.ico');
    if (asksForFavicon) assert.ok(icons.length > 0, `${name} asked the demo for its favicon`);
    if (traffic.pageErrors === undefined) {
      t.diagnostic(
        `${name}'s driver reports no console messages or page errors; only the server's answers were checked`,
      );
      return;
    }
    // Chromium reports the decline's 402 as a console error of its own ("Failed to load resource").
    const errors = traffic.pageErrors.filter(
      (e) => !/Failed to load resource: the server responded with a status of 402 .*\/api\/charges\)$/.test(e),
    );
    assert.deepEqual(errors, []);
  });
}
