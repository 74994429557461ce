import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Page } from 'playwright-core';
import type { Env } from './env.js';
import { checkout, fillCard, payButton, result, screenshot } from './shop.js';

async function buy(env: Env, product: string): Promise<string> {
  const page = await env.page();
  await checkout(env, page, [product]);
  await fillCard(page, '4242424242424242');
  await payButton(page).click();
  return (await result(page)).chargeId;
}

const statusIn = (page: Page, chargeId: string) =>
  page.locator(`tr[data-charge="${chargeId}"] td.status`).getAttribute('data-status');

/** The sandbox console: the clock drives the charges' states; the request log is masked. */
export function consoleTests(env: () => Env): void {
  it('advancing the sandbox clock captures an ordinary order after a day and lets a pre-order authorisation lapse after 7', async () => {
    const shipped = await buy(env(), 'Tessera mug');
    const preorder = await buy(env(), 'Starter kit (pre-order)');
    const page = await env().page();
    await page.goto(`${env().demo.url}/sandbox`);
    assert.equal(await statusIn(page, shipped), 'Authorised');
    assert.equal(await statusIn(page, preorder), 'Authorised');

    await page.getByRole('button', { name: 'Advance 1 day' }).click();
    await page.waitForURL(/#clock$/);
    assert.equal(await statusIn(page, shipped), 'Captured');
    assert.equal(await statusIn(page, preorder), 'Authorised');
    await page.getByRole('button', { name: 'Advance 8 days' }).click();
    await page.waitForURL(/#clock$/);
    assert.equal(await statusIn(page, preorder), 'Expired');
    await screenshot(page, 'console');

    assert.equal((await env().sandbox.charge(shipped)).status, 'Captured');
    assert.equal((await env().sandbox.charge(preorder)).status, 'Expired');
  });

  it('the request log shows card-token requests with the card number masked', async () => {
    await buy(env(), 'Glass tile set');
    const page = await env().page();
    await page.goto(`${env().demo.url}/sandbox`);
    const log = (await page.locator('#requests').textContent()) ?? '';
    assert.match(log, /POST \/api2\/v2\/tokens\/card/);
    assert.match(log, /424242\*{6}4242/);
    assert.doesNotMatch(log, /4242424242424242/);
  });

  it('a card-token fault reaches the shopper through the widget; the next try works', async () => {
    const console = await env().page();
    await console.goto(`${env().demo.url}/sandbox`);
    await console.getByRole('button', { name: /Next card token: provider unavailable/ }).click();
    await console.waitForURL(/#faults$/);
    const page = await env().page();
    const order = await checkout(env(), page, ['Tessera mug']);
    await fillCard(page, '4242424242424242');
    await payButton(page).click();
    await page.locator('#pay-message').getByText('Card payments are unavailable right now.').waitFor();
    assert.deepEqual(await env().sandbox.chargesFor(order), []);
    await payButton(page).click();
    assert.equal((await result(page)).status, 'Authorised');
  });

  it('reset clears charges, faults and the clock offset and reloads the platform fixtures', async () => {
    const page = await env().page();
    await page.goto(`${env().demo.url}/sandbox`);
    await page.getByRole('button', { name: /Next payment: provider unavailable/ }).click();
    await page.waitForURL(/#faults$/);
    await page.getByRole('button', { name: 'Reset the sandbox' }).click();
    await page.waitForURL(/\/sandbox$/);
    assert.equal(await page.locator('[data-faults]').getAttribute('data-faults'), '0');
    await page.getByText('No charges yet').waitFor();
    const now = Date.parse((await env().sandbox.json<{ now: string }>('/_sandbox/clock')).now);
    assert.ok(Math.abs(now - Date.now()) < 60_000, 'the clock is back to the wall clock');
    const instrument = await env().sandbox.paymentInstrument('ent_demo_a', 'ppi_demo_a_bank_unverified');
    assert.equal(instrument.label, 'New savings account', 'the dashboard’s rename is undone');
  });
}
