import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Env } from './env.js';
import { expectApprovedMugAndTiles, expectDeclinedThenApproved } from './expect.js';
import { challengeNotice, checkout, fillCard, payButton, payMessage, result, screenshot } from './shop.js';

/** A shopper pays a 3-D Secure order (€69) with the 3-D Secure test card and lands on the sandbox's challenge page. */
async function startChallenge(env: Env) {
  const page = await env.page();
  const order = await checkout(env, page, ['Framed mosaic print']);
  await fillCard(page, '4000000000003220');
  await payButton(page).click();
  await page.waitForURL(`${env.demo.sandbox.url}/_sandbox/3ds/**`);
  return { page, order };
}

/**
 * The sandbox console switches on the fault named by `fault` for the next payment; a shopper then pays a mug with an
 * approved card and is told `said`.
 */
async function payMugAfterFault(env: Env, fault: RegExp, said: RegExp) {
  const console = await env.page();
  await console.goto(`${env.demo.url}/sandbox`);
  await console.getByRole('button', { name: fault }).click();
  await console.waitForURL(/\/sandbox#faults$/);
  const page = await env.page();
  const order = await checkout(env, page, ['Tessera mug']);
  await fillCard(page, '4242424242424242');
  await payButton(page).click();
  await payMessage(page).getByText(said).waitFor();
  return { page, order };
}

/** Shop checkouts, each ending on the right page with the right sandbox state. */
export function shopTests(env: () => Env): void {
  it('buys with an approved card: result page with charge id, status and card; the sandbox holds that charge', async () => {
    const page = await env().page();
    const order = await checkout(env(), page, ['Tessera mug', 'Glass tile set'], () => screenshot(page, 'shop'));
    await fillCard(page, '4242424242424242');
    await screenshot(page, 'checkout');
    await payButton(page).click();
    const shown = await result(page);
    await screenshot(page, 'result');
    await expectApprovedMugAndTiles(env().sandbox, shown, order);
  });

  it('an amount or currency added to the charge request by the page is ignored: the server prices the order', async () => {
    const page = await env().page();
    const order = await checkout(env(), page, ['Framed mosaic print', 'Tessera mug']);
    await page.route('**/api/charges', async (route) => {
      const body = { ...JSON.parse(route.request().postData() ?? '{}'), amount: 1, value: 1, currency: 'USD' };
      await route.continue({ postData: JSON.stringify(body) });
    });
    await fillCard(page, '4242424242424242');
    await payButton(page).click();
    await page.waitForURL(`${env().demo.sandbox.url}/_sandbox/3ds/**`); // €81 asks for 3-D Secure
    await page.getByRole('button', { name: 'Pass' }).click();
    const charge = await env().sandbox.charge((await result(page)).chargeId);
    assert.deepEqual([charge.value, charge.currency, charge.trackId], [6900 + 1200, 'EUR', order]);
  });

  it('a declined card shows one generic message and an empty card form; another card then pays the order', async () => {
    const page = await env().page();
    const order = await checkout(env(), page, ['Tessera mug']);
    await fillCard(page, '4000000000009995'); // insufficient funds
    await payButton(page).click();
    await assert.doesNotReject(
      payMessage(page).getByText('The payment was declined. Check the card details or use another card.').waitFor(),
    );
    assert.doesNotMatch((await payMessage(page).textContent()) ?? '', /funds/i, 'the reason is not shown');
    assert.equal(page.url().includes('/checkout/'), true);
    assert.equal(await page.locator('tessera-card-form').getByLabel('Card number').inputValue(), '');
    await fillCard(page, '5555555555554444');
    await payButton(page).click();
    await expectDeclinedThenApproved(env().sandbox, await result(page), order);
  });

  it('a 3-D Secure card goes through the sandbox challenge (pass) and comes back to an approved result', async () => {
    const { page, order } = await startChallenge(env());
    await page.getByRole('button', { name: 'Pass' }).click();
    const shown = await result(page);
    assert.equal(shown.status, 'Authorised');
    const charge = await env().sandbox.charge(shown.chargeId);
    assert.deepEqual([charge.status, charge.chargeMode, charge.trackId, charge.value], ['Authorised', 2, order, 6900]);
  });

  it('a failed 3-D Secure challenge comes back to a declined result that offers another card', async () => {
    const { page, order } = await startChallenge(env());
    await page.getByRole('button', { name: 'Fail' }).click();
    const shown = await result(page);
    assert.equal(shown.status, 'Declined');
    await page.getByRole('link', { name: 'Try another card' }).click();
    await page.waitForURL(`**/checkout/${order}`);
    await page.waitForFunction(() => customElements.get('tessera-card-form') !== undefined);
    assert.equal(await payMessage(page).textContent(), '', 'no offer to go back to a challenge that has ended');
    const charge = await env().sandbox.charge(shown.chargeId);
    assert.deepEqual([charge.status, charge.responseCode, charge.trackId], ['Declined', '20151', order]);
  });

  it('a shopper who leaves the bank page unconfirmed (Back) is offered the same challenge again, and it pays the order', async () => {
    const { page, order } = await startChallenge(env());
    const challenge = page.url();
    await page.goBack();
    await page.waitForURL(`**/checkout/${order}`);
    await challengeNotice(page).getByText('Your bank is still checking this order’s payment.').waitFor();
    assert.equal(await payButton(page).isEnabled(), true, 'Pay works again, for another card');
    const link = page.getByRole('link', { name: 'Continue to your bank' });
    assert.equal(await link.getAttribute('href'), challenge);
    await link.click();
    await page.waitForURL(challenge);
    await page.getByRole('button', { name: 'Pass' }).click();
    const shown = await result(page);
    assert.equal(shown.status, 'Authorised');
    const charge = await env().sandbox.charge(shown.chargeId);
    assert.deepEqual([charge.status, charge.chargeMode, charge.trackId], ['Authorised', 2, order]);
    // The order is paid: the checkout sends the shopper to the result, with no offer left behind.
    await page.goto(`${env().demo.url}/checkout/${order}`);
    await page.waitForURL(`**/orders/${order}`);
  });

  it('another card while the bank check is still open: the checkout says so, offers the bank again and says when another card can be used; after it lapses another card pays', async () => {
    const { page, order } = await startChallenge(env());
    const challenge = page.url();
    await page.goBack();
    await page.waitForURL(`**/checkout/${order}`);
    const notice = /Your bank is still checking this order’s payment\./;
    await challengeNotice(page).getByText(notice).waitFor();
    assert.match((await challengeNotice(page).textContent()) ?? '', /another card in 15 minutes/);
    await page.waitForFunction(() => customElements.get('tessera-card-form') !== undefined);
    // The provider keeps the order's trackId for the open challenge: another card is refused (409), and the page
    // says why and stays, where it sent the shopper to the result page and back here with nothing said.
    await fillCard(page, '5555555555554444');
    await payButton(page).click();
    await page.waitForURL(`**/checkout/${order}`);
    await challengeNotice(page).getByText(notice).waitFor();
    assert.equal(await payMessage(page).textContent(), '', 'the server’s notice says it; nothing more');
    const text = (await challengeNotice(page).textContent()) ?? '';
    assert.match(text, /pay with another card in 1[45] minutes, when it lapses/, text);
    const link = page.getByRole('link', { name: 'Continue to your bank' });
    assert.equal(await link.getAttribute('href'), challenge);
    assert.deepEqual(
      (await env().sandbox.chargesFor(order)).map((c) => c.status),
      ['Pending'],
      'the second card made no charge',
    );
    const visited = env().traffic.sent.filter((r) => r.url.endsWith(`/orders/${order}`));
    assert.deepEqual(visited, [], 'no trip through the result page');
    // 16 minutes later on the sandbox clock the bank check has lapsed: no offer, and another card pays.
    await env().sandbox.advanceClock(16 * 60);
    await page.reload();
    await page.waitForFunction(() => customElements.get('tessera-card-form') !== undefined);
    assert.equal(await payMessage(page).textContent(), '', 'nothing left to continue');
    assert.equal(await challengeNotice(page).count(), 0);
    await fillCard(page, '4000000000003220');
    await payButton(page).click();
    await page.waitForURL(`${env().demo.sandbox.url}/_sandbox/3ds/**`);
    assert.notEqual(page.url(), challenge, 'a new challenge');
    await page.getByRole('button', { name: 'Pass' }).click();
    assert.equal((await result(page)).status, 'Authorised');
  });

  it('the open bank check’s minutes count down without a reload, silently, and the page says once when another card can be used', async () => {
    const { page, order } = await startChallenge(env());
    // The browser's clock, under the test's control from here on (the page counts on it; the sandbox's is the server's).
    await page.clock.install();
    await page.goBack();
    await page.waitForURL(`**/checkout/${order}`);
    const notice = challengeNotice(page);
    await notice.getByText('another card in 15 minutes').waitFor();
    // The minutes change in an element no live region holds: a screen reader is not told every minute.
    const live = '[aria-live], [role="alert"], [role="status"], [role="log"], [role="timer"], [role="marquee"]';
    assert.equal(
      await notice.evaluate((el, selector) => el.closest(selector) === null && !el.querySelector(selector), live),
      true,
    );
    await page.clock.runFor('05:00');
    await notice.getByText('another card in 10 minutes, when it lapses').waitFor();
    await page.clock.runFor('09:00');
    await notice.getByText('another card in 1 minute, when it lapses').waitFor();
    assert.equal(await payMessage(page).textContent(), '', 'nothing announced while it counts');
    // The challenge lapses (the provider's clock too): the notice goes, the live message says so once.
    await env().sandbox.advanceClock(16 * 60);
    await page.clock.runFor('01:00');
    await payMessage(page).getByText('you can pay with another card now').waitFor();
    assert.equal(await notice.count(), 0);
    assert.equal(await payMessage(page).getAttribute('role'), 'alert');
    assert.equal(
      await page.getByRole('link', { name: 'Continue to your bank' }).count(),
      0,
      'no lapsed challenge offered',
    );
    // And it is true: another card pays the order.
    await page.waitForFunction(() => customElements.get('tessera-card-form') !== undefined);
    await fillCard(page, '5555555555554444');
    await payButton(page).click();
    await page.waitForURL(`${env().demo.sandbox.url}/_sandbox/3ds/**`);
    await page.getByRole('button', { name: 'Pass' }).click();
    assert.equal((await result(page)).status, 'Authorised');
  });

  it('another card while a bank check the shop never heard of is open (its onChallenge failed): the checkout says so and offers the bank again', async () => {
    const sandbox = env().sandbox;
    // The helper's read of the new challenge's charge fails (every retry), so onChallenge is not delivered: the
    // shopper still gets the challenge, and the shop has no record of it.
    await sandbox.json('/_sandbox/faults', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ method: 'GET', path: '/api2/v2/charges/pay_tok_*', status: 500, count: 10 }),
    });
    let started: Awaited<ReturnType<typeof startChallenge>>;
    try {
      started = await startChallenge(env());
    } finally {
      await sandbox.json('/_sandbox/faults', { method: 'DELETE' });
    }
    const { page, order } = started;
    const failed = env().logs.filter((l) => l.includes('"tessera.on_challenge.failed"'));
    assert.ok(failed.length > 0, 'the onChallenge delivery failed');
    const challenge = page.url();
    await page.goBack();
    await page.waitForURL(`**/checkout/${order}`);
    await page.waitForFunction(() => customElements.get('tessera-card-form') !== undefined);
    assert.equal(await challengeNotice(page).count(), 0, 'the shop knows of no open challenge');
    // The provider refuses another card (409): the page reloads and says why, where it said nothing.
    await fillCard(page, '5555555555554444');
    await payButton(page).click();
    await payMessage(page).getByText('An earlier payment of this order is still held by the card provider').waitFor();
    assert.match(
      (await payMessage(page).textContent()) ?? '',
      /your bank may still be checking it, .* If you did not confirm it with your bank, continue it there, or try again in a few minutes\./,
    );
    assert.deepEqual(
      (await sandbox.chargesFor(order)).map((c) => c.status),
      ['Pending'],
      'the second card made no charge',
    );
    const link = page.getByRole('link', { name: 'Continue to your bank' });
    assert.equal(await link.getAttribute('href'), challenge);
    await link.click();
    await page.waitForURL(challenge);
    await page.getByRole('button', { name: 'Pass' }).click();
    assert.equal((await result(page)).status, 'Authorised');
  });

  it('a card token that expired before paying (sandbox clock moved 16 minutes) asks for the card again; nothing is charged', async () => {
    const page = await env().page();
    const order = await checkout(env(), page, ['Tessera mug']);
    await fillCard(page, '4242424242424242');
    // Tokenize now (what the first press of Pay does), then let the token's 15 minutes pass on the sandbox clock.
    const token = await page
      .locator('tessera-card-form')
      .evaluate((el) =>
        (el as HTMLElement & { tokenize(): Promise<{ token: string }> }).tokenize().then((t) => t.token),
      );
    assert.match(token, /^card_tok_/);
    await env().sandbox.advanceClock(16 * 60);
    await payButton(page).click();
    await payMessage(page).getByText('Your card details timed out').waitFor();
    assert.equal(await page.locator('tessera-card-form').getByLabel('Card number').inputValue(), '');
    assert.deepEqual(await env().sandbox.chargesFor(order), []);
  });

  it('a double click on Pay charges once', async () => {
    const page = await env().page();
    const order = await checkout(env(), page, ['Glass tile set']);
    await fillCard(page, '4242424242424242');
    await payButton(page).dblclick();
    const shown = await result(page);
    assert.equal(shown.status, 'Authorised');
    const charges = await env().sandbox.chargesFor(order);
    assert.deepEqual(
      charges.map((c) => c.id),
      [shown.chargeId],
    );
    const chargeRequests = (await env().sandbox.requests()).filter(
      (r) => r.path === '/api2/v2/charges/token' && r.requestBody?.trackId === order,
    );
    assert.equal(chargeRequests.length, 1, 'the provider was asked once');
  });

  it('the provider failing during payment (a fault switched on in the sandbox console) shows a clear message and charges nothing; paying again charges once', async () => {
    const console = await env().page();
    await console.goto(`${env().demo.url}/sandbox`);
    await console.getByRole('button', { name: /Next payment: provider unavailable/ }).click();
    await console.waitForURL(/\/sandbox#faults$/);
    assert.match((await console.locator('[data-faults]').getAttribute('data-faults')) ?? '', /^1$/);

    const page = await env().page();
    const order = await checkout(env(), page, ['Tessera mug']);
    await fillCard(page, '4242424242424242');
    await payButton(page).click();
    await payMessage(page)
      .getByText(/not available right now\. Nothing was charged|could not confirm/)
      .waitFor();
    assert.deepEqual(await env().sandbox.chargesFor(order), []);
    await payButton(page).click();
    const shown = await result(page);
    assert.equal(shown.status, 'Authorised');
    assert.equal((await env().sandbox.chargesFor(order)).length, 1);
  });

  it('the shop failing to record a payment (a shop fault in the sandbox console) never says nothing was charged; paying again shows the one charge', async () => {
    const console = await env().page();
    await console.goto(`${env().demo.url}/sandbox`);
    await console.getByRole('button', { name: /Next payment: charged, but the shop cannot record it/ }).click();
    await console.waitForURL(/\/sandbox#faults$/);
    assert.equal(await console.locator('[data-faults]').getAttribute('data-faults'), '1');
    await console.getByText(/The shop: the next payment's record fails/).waitFor();

    const page = await env().page();
    const order = await checkout(env(), page, ['Tessera mug']);
    await fillCard(page, '4242424242424242');
    await payButton(page).click();
    const said = payMessage(page).getByText(/could not record your payment yet/);
    await said.waitFor();
    assert.ok(!/Nothing was charged/.test((await payMessage(page).textContent()) ?? ''));
    const charged = await env().sandbox.chargesFor(order);
    assert.equal(charged.length, 1, 'the provider charged once');
    await payButton(page).click();
    const shown = await result(page);
    assert.equal(shown.status, 'Authorised');
    assert.equal(shown.chargeId, charged[0]!.id, 'the result is the charge the first payment made');
    assert.deepEqual(
      (await env().sandbox.chargesFor(order)).map((c) => c.id),
      [shown.chargeId],
      'paying again made no second charge',
    );
  });

  it('another card after a payment the shop could not record (shop fault) is refused without claiming the bank is still checking it', async () => {
    const { page, order } = await payMugAfterFault(
      env(),
      /Next payment: charged, but the shop cannot record it/,
      /could not record your payment yet/,
    );
    // The shopper reloads the checkout (the card form is empty again) and types another card: the provider refuses it
    // (409, the approved charge holds the order's trackId), and the shop has no record of any charge of the order.
    await page.reload();
    await page.waitForFunction(() => customElements.get('tessera-card-form') !== undefined);
    await fillCard(page, '5555555555554444');
    await payButton(page).click();
    await payMessage(page).getByText('An earlier payment of this order is still held by the card provider').waitFor();
    const text = (await payMessage(page).textContent()) ?? '';
    assert.doesNotMatch(text, /Your bank is still checking/, 'no bank check is open: the first card was approved');
    assert.match(text, /or it went through and the shop has not recorded it yet/);
    assert.deepEqual(
      (await env().sandbox.chargesFor(order)).map((c) => c.status),
      ['Authorised'],
      'the second card made no charge',
    );
  });

  it('a charge whose answer is lost (fault after the charge) tells the shopper the outcome is unknown; paying again shows the one charge', async () => {
    const { page, order } = await payMugAfterFault(
      env(),
      /Next payment: charged, but the answer is lost/,
      /could not confirm your payment/,
    );
    await payButton(page).click();
    const shown = await result(page);
    assert.equal(shown.status, 'Authorised');
    const charges = await env().sandbox.chargesFor(order);
    assert.deepEqual(
      charges.map((c) => c.id),
      [shown.chargeId],
    );
  });
}
