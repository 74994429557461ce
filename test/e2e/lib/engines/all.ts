import { launchChromiumEngine } from './chromium.js';
import type { Engine, EngineOptions } from './driver.js';
import { launchFirefoxEngine } from './firefox.js';
import { launchWebKitEngine } from './webkit.js';

/** Every engine the e2e suites run in, by the name `$TESSERA_BROWSERS` uses (scripts/engines.js), with its driver. */
export const ENGINES: Readonly<
  Record<string, { readonly title: string; readonly launch: (options: EngineOptions) => Promise<Engine> }>
> = {
  chromium: { title: 'Chromium (playwright-core)', launch: launchChromiumEngine },
  firefox: { title: 'Firefox ESR (puppeteer-core over WebDriver BiDi)', launch: launchFirefoxEngine },
  webkit: { title: 'WebKit (WebKitGTK MiniBrowser through WebKitWebDriver, webdriverio)', launch: launchWebKitEngine },
};
