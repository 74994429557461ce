import { findChromium } from '../../scripts/chromium.js';

/** Flags every Chromium we start uses: headless, and no traffic of its own on this closed network. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The Chromium binary (`CHROME_PATH`, then `/usr/bin/chromium`); `npm test`'s pretest installs it when missing. */
export function chromiumPath(): string {
  const path = findChromium();
  if (!path) throw new Error('Chromium not found: run `node scripts/chromium.js` (npm test does) or set CHROME_PATH.');
  return path;
}
