import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type RunningDemo, startDemo } from '../../demo/server.js';
import { loadWidgetAsset } from '../../server/helper/index.js';
import { launchChromium } from '../support/browser.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** Puts a mug in the cart and answers the checkout page's URL (the page that loads the widget). */
async function checkoutUrl(page: Page, demo: RunningDemo): Promise<string> {
  await page.goto(`${demo.url}/`);
  await page.getByRole('button', { name: 'Add Tessera mug to cart' }).click();
  await page.getByRole('button', { name: 'Check out' }).click();
  await page.waitForURL(/\/checkout\/ord_/);
  return page.url();
}

describe('the built widget bundle on a page served from localhost', { timeout: 60_000 }, () => {
  let browser: Browser;
  let demo: RunningDemo;

  before(async () => {
    demo = await startDemo({ port: 0, sandboxPort: 0, logger: quiet });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  it('loads through the script tag with its SRI hash and upgrades <tessera-card-form>', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await checkoutUrl(page, demo);
    const script = page.locator('script[type="module"][integrity]');
    assert.equal(await script.getAttribute('integrity'), loadWidgetAsset().integrity);
    await page.waitForFunction(() => customElements.get('tessera-card-form') !== undefined, null, { timeout: 10_000 });
    const label = await page.locator('tessera-card-form').getByLabel('Card number').getAttribute('autocomplete');
    assert.equal(label, 'cc-number');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('shows English when a locale file is refused, and loads it for a later form once it passes', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await checkoutUrl(page, demo);
    let refuse = true;
    let served = 0;
    await page.route('**/locales/de.json', async (route) => {
      served += 1;
      if (!refuse) return route.continue();
      // The answer is altered on the way (a proxy, a wrong deploy): its hash no longer matches the manifest.
      const response = await route.fetch();
      await route.fulfill({ response, body: (await response.text()).replace('Kartennummer', 'Hacked') });
    });
    await page.waitForFunction(() => customElements.get('tessera-card-form') !== undefined, null, { timeout: 10_000 });
    const addForm = (id: string) =>
      page.evaluate(
        (id) =>
          new Promise<string[]>((resolve) => {
            const el = document.createElement('tessera-card-form');
            el.id = id;
            el.setAttribute('locale', 'de-AT');
            el.addEventListener(
              'tessera-ready',
              (e) => resolve([(e as CustomEvent).detail.locale, el.shadowRoot!.querySelector('label')!.textContent!]),
              { once: true },
            );
            document.body.append(el);
          }),
        id,
      );
    assert.deepEqual(await addForm('first'), ['en', 'Card number']);
    // The form in English is not held up by asking for the file again on every keystroke.
    const number = page.locator('#first').getByLabel('Card number');
    await number.pressSequentially('4242 4242');
    await page.waitForTimeout(300);
    assert.equal(await number.inputValue(), '4242 4242');
    assert.equal(served, 1);
    refuse = false;
    // Before, the failure was kept for the page's life: every later German form was English too.
    assert.deepEqual(await addForm('second'), ['de', 'Kartennummer']);
    assert.equal(served, 2);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('is refused by the browser when the SRI hash does not match (so the hash is really checked)', async () => {
    const page = await browser.newPage();
    const url = await checkoutUrl(page, demo);
    await page.route(url, async (route) => {
      const response = await route.fetch();
      const body = (await response.text()).replace(/integrity="sha384-[^"]+"/, `integrity="sha384-${'A'.repeat(64)}"`);
      await route.fulfill({ response, body });
    });
    const refused = page.waitForEvent('console', (m) => m.type() === 'error' && m.text().includes('integrity'));
    await page.goto(url);
    await refused;
    assert.equal(await page.evaluate(() => customElements.get('tessera-card-form') === undefined), true);
    await page.close();
  });
});
