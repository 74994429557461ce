import type { BrowserContext } from 'playwright-core';
import { launchChromium } from '../../../support/browser.js';
import {
  type CardField,
  type Engine,
  type EngineOptions,
  type EngineTraffic,
  readCardStyles,
  WAIT_MS,
} from './driver.js';

/**
 * Chromium through playwright-core, as the rest of the end-to-end suite drives it (test/support/browser.ts).
 * Its traffic is observed by playwright's request and response events.
 */
export async function launchChromiumEngine({ demoUrl }: EngineOptions): Promise<Engine> {
  const browser = await launchChromium();
  const traffic: EngineTraffic = {
    observedBy: "playwright's request and response events",
    sent: [],
    answers: [],
    pageErrors: [],
    pending: [],
  };
  const contexts: BrowserContext[] = [];
  return {
    name: 'Chromium',
    version: browser.version(),
    traffic,
    shopUrl: demoUrl,
    asksForFavicon: false,
    async newPage() {
      const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
      contexts.push(context);
      const page = await context.newPage();
      page.setDefaultTimeout(WAIT_MS);
      page.on('request', (req) => {
        if (req.url().startsWith(demoUrl))
          traffic.sent.push({ url: req.url(), method: req.method(), body: req.postData() ?? '' });
      });
      page.on('response', (res) => {
        if (res.url().startsWith(demoUrl)) traffic.answers.push({ url: res.url(), status: res.status() });
      });
      page.on('pageerror', (err) => traffic.pageErrors?.push(`${page.url()}: ${err.message}`));
      page.on('console', (msg) => {
        if (msg.type() === 'error') {
          traffic.pageErrors?.push(`${page.url()}: console: ${msg.text()} (${msg.location().url})`);
        }
      });
      const input = (field: CardField) => page.locator(`tessera-card-form #${field}`); // CSS pierces open shadow roots
      return {
        async goto(url) {
          await page.goto(url);
        },
        async click(selector) {
          await page.locator(selector).click();
        },
        async typeCard(field, text) {
          await input(field).click();
          await input(field).pressSequentially(text);
        },
        cardValue: (field) => input(field).inputValue(),
        cardStyles: () => page.evaluate(readCardStyles),
        async waitForText(selector, text) {
          const found = page.locator(selector).filter({ hasText: text }).first();
          await found.waitFor();
          return (await found.textContent()) ?? '';
        },
        url: async () => page.url(),
      };
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
    },
  };
}
