import type { Page } from 'playwright-core';
import { type Env, SCREENSHOTS } from './env.js';

/** Visits the shop, adds products to the cart and checks out; answers the order id (the checkout page is open). */
export async function checkout(
  env: Env,
  page: Page,
  products: readonly string[],
  withCart?: () => Promise<void>,
): Promise<string> {
  await page.goto(`${env.demo.url}/`);
  for (const name of products) {
    await page.getByRole('button', { name: `Add ${name} to cart` }).click();
    await page.waitForURL(/\/#cart$/);
  }
  await withCart?.();
  await page.getByRole('button', { name: 'Check out' }).click();
  await page.waitForURL(/\/checkout\/ord_/);
  await page.waitForFunction(() => customElements.get('tessera-card-form') !== undefined);
  return new URL(page.url()).pathname.split('/').pop()!;
}

/** Saves a screenshot of the page's content (not the empty viewport below it) under test-results/. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.locator('body').screenshot({ path: `${SCREENSHOTS}/${name}.png` });
}

/** Types a card into the widget (inside its shadow root), as a shopper would. */
export async function fillCard(page: Page, number: string, expiry = '12/34', cvv = '123'): Promise<void> {
  const card = page.locator('tessera-card-form');
  await card.getByLabel('Card number').fill(number);
  await card.getByLabel('Expiry date').fill(expiry);
  await card.getByLabel('Security code').fill(cvv);
}

export const payButton = (page: Page) => page.getByRole('button', { name: /^Pay / });
export const payMessage = (page: Page) => page.locator('#pay-message');
/** The checkout's notice of a 3-D Secure challenge of the order still open (server-rendered, counted down by the page). */
export const challengeNotice = (page: Page) => page.locator('#challenge-notice');

/** The result page's facts. */
export async function result(page: Page): Promise<{ chargeId: string; status: string; card: string }> {
  await page.waitForURL(/\/orders\/ord_/);
  return {
    chargeId: (await page.locator('[data-charge-id]').textContent()) ?? '',
    status: (await page.locator('[data-charge-status]').textContent()) ?? '',
    card: (await page.locator('[data-card]').textContent()) ?? '',
  };
}
