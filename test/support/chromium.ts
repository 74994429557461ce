import { CHROMIUM_ARGS, findChromium } from '../../scripts/chromium.js';

export { CHROMIUM_ARGS };

/** The Chromium binary (`CHROME_PATH`, then `/usr/bin/chromium`); `npm test`'s pretest installs it when missing. */
export function chromiumPath(): string {
  const path = findChromium();
  if (!path) throw new Error('Chromium not found: run `node scripts/chromium.js` (npm test does) or set CHROME_PATH.');
  return path;
}
