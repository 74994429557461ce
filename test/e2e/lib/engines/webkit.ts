import { remote } from 'webdriverio';
import { findWebKit } from '../../../../scripts/engines.js';
import { keyActions, startWebKitDriver, webkitCapabilities } from '../../../../scripts/wtr-launchers.js';
import { startRelay } from '../../../support/relay.js';
import {
  type CardField,
  type Engine,
  type EngineOptions,
  type EngineTraffic,
  readCardStyles,
  readCardValue,
  readText,
  waitFor,
} from './driver.js';

type Browser = Awaited<ReturnType<typeof remote>>;

/** The centre of a card input in viewport coordinates, scrolled into view first (runs in the page). */
function cardInputCentre(field: string): { x: number; y: number } {
  const input = document.querySelector('tessera-card-form')?.shadowRoot?.querySelector<HTMLInputElement>(`#${field}`);
  if (!input) throw new Error(`no #${field} input in <tessera-card-form>`);
  input.scrollIntoView({ block: 'center' });
  const box = input.getBoundingClientRect();
  return { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
}

/**
 * WebKitGTK's MiniBrowser through WebKitWebDriver (classic WebDriver, webdriverio), as the browser suite drives it
 * (scripts/wtr-launchers.js); it needs a display (`npm run test:e2e` runs under `xvfb-run -a` when there is none).
 * Every shopper is a new WebDriver session, so a new MiniBrowser with its own cookies (and the end of the
 * previous shopper's: the driver holds one session at a time).
 *
 * Classic WebDriver reports neither network traffic nor console messages, so this engine's shoppers reach the shop
 * through a recording relay (./relay.ts) that sees every request body and status the demo server got; page errors
 * are not observed (`pageErrors` is undefined).
 */
export async function launchWebKitEngine({ demoUrl }: EngineOptions): Promise<Engine> {
  if (!findWebKit())
    throw new Error('WebKitWebDriver or MiniBrowser not found: run `node scripts/engines.js` (npm test does).');
  if (!process.env.DISPLAY) {
    throw new Error('WebKit needs a display: run through `node scripts/engines.js run …` (npm run test:e2e does).');
  }
  const traffic: EngineTraffic = {
    observedBy: 'a recording relay in front of the demo server (classic WebDriver has no network events)',
    sent: [],
    answers: [],
    pageErrors: undefined,
    pending: [],
  };
  const relay = await startRelay(demoUrl, {
    sent: (url, method, body) => traffic.sent.push({ url, method, body: body.toString('utf8') }),
    answered: (url, status) => traffic.answers.push({ url, status }),
  });
  const driver = await startWebKitDriver();
  let current: Browser | undefined;
  const session = () =>
    remote({ hostname: '127.0.0.1', port: driver.port, capabilities: webkitCapabilities(), logLevel: 'error' });
  let version = '';
  try {
    const probe = await session();
    version = String(probe.capabilities.browserVersion ?? '');
    await probe.deleteSession();
  } catch (error) {
    driver.stop();
    await relay.close();
    throw error;
  }
  return {
    name: 'WebKit',
    version,
    traffic,
    shopUrl: relay.url,
    asksForFavicon: true,
    async newPage() {
      // WebKitWebDriver holds one session at a time: a new shopper ends the previous one's.
      await current?.deleteSession();
      const b = await session();
      current = b;
      await b.setWindowSize(1100, 900);
      const shadowInput = async (field: CardField) => {
        const input = b.$('tessera-card-form').shadow$(`#${field}`);
        await input.waitForExist();
        return input;
      };
      return {
        async goto(url) {
          await b.url(url);
        },
        async click(selector) {
          const element = b.$(selector);
          await element.waitForClickable();
          await element.click();
        },
        async typeCard(field, text) {
          await shadowInput(field);
          // WebKitWebDriver's element click refuses an input in a shadow root ("element click intercepted": its
          // hit test finds the host), so the mouse clicks at the input's centre instead, as a shopper's would.
          const { x, y } = await b.execute(cardInputCentre, field);
          await b.performActions([
            {
              type: 'pointer',
              id: 'mouse',
              parameters: { pointerType: 'mouse' },
              actions: [
                { type: 'pointerMove', origin: 'viewport', x, y },
                { type: 'pointerDown', button: 0 },
                { type: 'pointerUp', button: 0 },
              ],
            },
          ]);
          // One key down/up pair per character: webdriverio's keys() drops repeated letters in WebKit.
          await b.performActions([{ type: 'key', id: 'keyboard', actions: keyActions([...text]) }]);
          await b.releaseActions();
        },
        cardValue: (field) => b.execute(readCardValue, field),
        cardStyles: () => b.execute(readCardStyles),
        waitForText: (selector, text) =>
          waitFor(`${selector} to show ${text}`, async () => {
            const shown = await b.execute(readText, selector);
            return shown !== null && text.test(shown) ? shown : undefined;
          }),
        url: () => b.getUrl(),
      };
    },
    async close() {
      await current?.deleteSession().catch(() => undefined);
      driver.stop();
      await relay.close();
    },
  };
}
