import * as puppeteer from 'puppeteer-core';
import { findFirefox } from '../../../../scripts/engines.js';
import { FIREFOX_PREFS } from '../../../../scripts/wtr-launchers.js';
import {
  type Engine,
  type EngineOptions,
  type EngineTraffic,
  readCardStyles,
  readCardValue,
  readText,
  WAIT_MS,
  waitFor,
} from './driver.js';

/**
 * Firefox ESR (Debian's, or $FIREFOX_PATH) through puppeteer-core over WebDriver BiDi, headless, as the browser
 * suite launches it (scripts/wtr-launchers.js). playwright-core cannot drive Debian's Firefox. Its traffic is
 * observed by BiDi's network events; request bodies are read with `network.getData`.
 */
export async function launchFirefoxEngine({ demoUrl }: EngineOptions): Promise<Engine> {
  const executablePath = findFirefox();
  if (!executablePath)
    throw new Error('Firefox not found: run `node scripts/engines.js` (npm test does) or set FIREFOX_PATH.');
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath,
    protocol: 'webDriverBiDi',
    headless: true,
    extraPrefsFirefox: FIREFOX_PREFS,
  });
  const traffic: EngineTraffic = {
    observedBy: "WebDriver BiDi's network events (puppeteer-core)",
    sent: [],
    answers: [],
    pageErrors: [],
    pending: [],
  };
  return {
    name: 'Firefox',
    version: await browser.version(),
    traffic,
    shopUrl: demoUrl,
    asksForFavicon: true,
    async newPage() {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      page.setDefaultTimeout(WAIT_MS);
      await page.setViewport({ width: 1100, height: 900 });
      page.on('request', (req) => {
        if (!req.url().startsWith(demoUrl)) return;
        const entry = { url: req.url(), method: req.method(), body: '' };
        traffic.sent.push(entry);
        if (req.hasPostData()) {
          traffic.pending.push(
            req.fetchPostData().then((body) => {
              entry.body = body ?? '';
            }),
          );
        }
      });
      page.on('response', (res) => {
        if (res.url().startsWith(demoUrl)) traffic.answers.push({ url: res.url(), status: res.status() });
      });
      page.on('pageerror', (err) =>
        traffic.pageErrors?.push(`${page.url()}: ${(err as Error).message ?? String(err)}`),
      );
      page.on('console', (msg) => {
        if (msg.type() === 'error') {
          traffic.pageErrors?.push(`${page.url()}: console: ${msg.text()} (${msg.location().url ?? ''})`);
        }
      });
      return {
        async goto(url) {
          await page.goto(url);
        },
        async click(selector) {
          await (await page.waitForSelector(selector))!.click();
        },
        async typeCard(field, text) {
          // Found first by asking the current document each time: a waitForSelector begun right after the URL
          // changed can sit on the realm of the page being replaced until it times out (one CI run, 2026-11-23:
          // the checkout page was whole, the wait for its first card field lapsed after 15 s).
          await waitFor(`the card form's #${field}`, () => page.evaluate(readCardValue, field));
          // `>>>` is puppeteer's selector that pierces shadow roots.
          const input = (await page.waitForSelector(`tessera-card-form >>> #${field}`))!;
          await input.click();
          await input.type(text);
        },
        cardValue: (field) => page.evaluate(readCardValue, field),
        cardStyles: () => page.evaluate(readCardStyles),
        waitForText: (selector, text) =>
          waitFor(`${selector} to show ${text}`, async () => {
            const shown = await page.evaluate(readText, selector);
            return shown !== null && text.test(shown) ? shown : undefined;
          }),
        url: async () => page.url(),
      };
    },
    async close() {
      await browser.close();
    },
  };
}
