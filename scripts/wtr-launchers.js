// @web/test-runner launchers for the three engines (see scripts/engines.js for where each comes from):
// Chromium through playwright-core, Firefox ESR through puppeteer-core over WebDriver BiDi, WebKitGTK's
// MiniBrowser through WebKitWebDriver (WebDriver classic, webdriverio). Nothing downloads a browser.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { chromeLauncher } from '@web/test-runner-chrome';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { WebdriverLauncher } from '@web/test-runner-webdriver';
import * as puppeteer from 'puppeteer-core';
import { CHROMIUM_ARGS, findChromium } from './chromium.js';
import { findFirefox, findWebKit, selectedEngines } from './engines.js';

/** Firefox prefs: no traffic of its own on this closed network, and no first-run pages. */
export const FIREFOX_PREFS = {
  'app.update.enabled': false,
  'browser.shell.checkDefaultBrowser': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'network.captive-portal-service.enabled': false,
  'browser.safebrowsing.malware.enabled': false,
  'browser.safebrowsing.phishing.enabled': false,
  'extensions.update.enabled': false,
};

/** @returns {Promise<number>} a free loopback port. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

/**
 * Starts WebKitWebDriver on a free loopback port and waits until it answers `/status`.
 * @returns {Promise<{ port: number, stop(): void }>}
 */
export async function startWebKitDriver() {
  const webkit = findWebKit();
  if (!webkit) throw new Error('WebKitWebDriver not found: run `node scripts/engines.js` (npm test does).');
  const port = await freePort();
  const child = spawn(webkit.driver, [`--port=${port}`, '--host=127.0.0.1'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`WebKitWebDriver exited (${child.exitCode}): ${stderr}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/status`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    stop() {
      child.kill();
    },
  };
}

/** WebDriver capabilities for WebKitGTK's MiniBrowser in automation mode. */
export function webkitCapabilities() {
  const webkit = findWebKit();
  return {
    browserName: 'MiniBrowser',
    'webkitgtk:browserOptions': { binary: webkit?.miniBrowser, args: ['--automation'] },
    'wdio:enforceWebDriverClassic': true,
  };
}

const KEY_CODES = /** @type {Record<string, string>} */ ({
  Backspace: '\uE003',
  Tab: '\uE004',
  Enter: '\uE007',
  Shift: '\uE008',
  Control: '\uE009',
  Alt: '\uE00A',
  Escape: '\uE00C',
  Space: ' ',
  End: '\uE010',
  Home: '\uE011',
  ArrowLeft: '\uE012',
  ArrowUp: '\uE013',
  ArrowRight: '\uE014',
  ArrowDown: '\uE015',
  Delete: '\uE017',
  Meta: '\uE03D',
});

/**
 * WebDriver key actions for `sendKeys`: one down/up pair per character for `type` (webdriverio's
 * `keys()` presses every key down and then every key up, which drops repeated letters in WebKit),
 * and modifier chords such as `Shift+Tab` for `press`.
 * @param {string[]} keys what the commands plugin passes: the characters of `type`, or `[press]`
 */
export function keyActions(keys) {
  /** @type {{ type: 'keyDown' | 'keyUp', value: string }[]} */
  const actions = [];
  if (keys.length === 1 && keys[0] && keys[0].length > 1 && [...keys[0]].length > 1) {
    const parts = keys[0].split('+').map((k) => KEY_CODES[k] ?? k);
    for (const p of parts) actions.push({ type: 'keyDown', value: p });
    for (const p of parts.reverse()) actions.push({ type: 'keyUp', value: p });
    return actions;
  }
  for (const k of keys) {
    const v = KEY_CODES[k] ?? k;
    actions.push({ type: 'keyDown', value: v }, { type: 'keyUp', value: v });
  }
  return actions;
}

/** WebKit through WebKitWebDriver, which this launcher starts and stops itself. */
class WebKitLauncher extends WebdriverLauncher {
  /** @type {{ port: number, stop(): void } | undefined} */
  server;

  constructor() {
    super({ hostname: '127.0.0.1', port: 0, capabilities: webkitCapabilities() });
  }

  /**
   * @override
   * @param {any} config
   */
  async initialize(config) {
    this.server = await startWebKitDriver();
    /** @type {any} */ (this).options.port = this.server.port;
    await super.initialize(config);
    this.name = 'WebKit';
  }

  /** @override */
  async stop() {
    await super.stop();
    this.server?.stop();
  }

  /**
   * @override
   * @param {string} _sessionId
   * @param {string[]} keys
   */
  sendKeys(_sessionId, keys) {
    const driver = /** @type {any} */ (this).driver;
    return driver
      .performActions([{ type: 'key', id: 'keyboard', actions: keyActions(keys) }])
      .then(() => driver.releaseActions());
  }
}

/** @returns {import('@web/test-runner').BrowserLauncher[]} one launcher per selected engine. */
export function launchers() {
  const engines = selectedEngines();
  /** @type {import('@web/test-runner').BrowserLauncher[]} */
  const list = [];
  if (engines.includes('chromium')) {
    list.push(
      playwrightLauncher({
        product: 'chromium',
        launchOptions: { executablePath: findChromium(), args: CHROMIUM_ARGS, headless: true },
      }),
    );
  }
  if (engines.includes('firefox')) {
    const firefox = chromeLauncher({
      puppeteer: /** @type {any} */ (puppeteer),
      launchOptions: {
        browser: 'firefox',
        executablePath: findFirefox(),
        protocol: 'webDriverBiDi',
        headless: true,
        extraPrefsFirefox: FIREFOX_PREFS,
      },
      // A page that is not the active one gets no focus or blur events from element.focus()/blur().
      async createPage({ context }) {
        const page = await context.newPage();
        await page.bringToFront();
        return page;
      },
    });
    // Every test file gets a fresh, active page: a reused one can be left without focus by the file
    // before it (3-D Secure windows, iframes), and then element.blur() fires no blur event.
    const stopSession = firefox.stopSession.bind(firefox);
    firefox.stopSession = async (/** @type {string} */ id) => {
      const result = await stopSession(id);
      for (const page of /** @type {any} */ (firefox).inactivePages.splice(0)) await page.puppeteerPage.close();
      return result;
    };
    list.push(firefox);
  }
  if (engines.includes('webkit')) list.push(new WebKitLauncher());
  return list;
}
