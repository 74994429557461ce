import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { it } from 'node:test';
import type { Page } from 'playwright-core';
import type { Env } from './env.js';
import { checkout, fillCard, payButton, result } from './shop.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface AxeResult {
  violations: { id: string; help: string; nodes: { target: string[] }[] }[];
}

/** axe-core's violations on the page as one line each (the page's CSP is bypassed for the injected script only). */
async function axe(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const found = await page.evaluate(async () => {
    const run = (window as unknown as { axe: { run(ctx: Document): Promise<AxeResult> } }).axe.run;
    return (await run(document)).violations;
  });
  return found.map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Every kind of page the demo serves, reached as a user would; `visit` leaves `page` on each in turn. */
async function eachPage(env: Env, page: Page, visit: (name: string) => Promise<void>): Promise<void> {
  await page.goto(`${env.demo.url}/`);
  await visit('shop');
  await checkout(env, page, ['Tessera mug']);
  await visit('checkout');
  await fillCard(page, '4242424242424242');
  await payButton(page).click();
  await result(page);
  await visit('result');
  await page.goto(`${env.demo.url}/platform`);
  await visit('platform: pick a user');
  await page.getByLabel(/^Ada Lovelace/).check();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#instruments table').waitFor();
  await visit('platform dashboard');
  await page.goto(`${env.demo.url}/sandbox`);
  await visit('sandbox console');
}

/** Accessibility, small screens and keyboard use. */
export function qualityTests(env: () => Env): void {
  it('every page passes an axe check', async () => {
    const page = await env().page({ bypassCSP: true });
    const problems: string[] = [];
    await eachPage(env(), page, async (name) => {
      for (const v of await axe(page)) problems.push(`${name}: ${v}`);
    });
    assert.deepEqual(problems, []);
  });

  it('every page fits a 360 px wide screen without sideways scrolling, of the page or of a box in it', async () => {
    const page = await env().page({ width: 360 });
    const wide: string[] = [];
    await eachPage(env(), page, async (name) => {
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      if (width > 360) wide.push(`${name}: ${width}px`);
      // A table that scrolls inside its own box (the payout instruments once did) is not usable either.
      const boxes = await page.evaluate(() =>
        [...document.body.querySelectorAll<HTMLElement>('*')]
          .filter((e) => /auto|scroll/.test(getComputedStyle(e).overflowX) && e.scrollWidth > e.clientWidth + 1)
          .map(
            (e) =>
              `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${e.className} ${e.scrollWidth}/${e.clientWidth}px`,
          ),
      );
      for (const box of boxes) wide.push(`${name}: ${box}`);
    });
    assert.deepEqual(wide, []);
  });

  it('a shopper can pay with the keyboard alone', async () => {
    const page = await env().page();
    await page.goto(`${env().demo.url}/`);
    await page.getByRole('button', { name: 'Add Glass tile set to cart' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/#cart$/);
    await page.getByRole('button', { name: 'Check out' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/checkout\/ord_/);
    await page.waitForFunction(() => customElements.get('tessera-card-form') !== undefined);
    await page.getByLabel('Email for the receipt').focus();
    for (const text of ['4242424242424242', '1234', '123']) {
      await page.keyboard.press('Tab');
      await page.keyboard.type(text);
    }
    await page.keyboard.press('Enter');
    assert.equal((await result(page)).status, 'Authorised');
  });
}
