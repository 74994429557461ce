import { type Browser, chromium } from 'playwright-core';
import { CHROMIUM_ARGS, chromiumPath } from './chromium.js';

/** Launches Debian's headless Chromium through playwright-core (never a downloaded browser). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS, headless: true });
}
