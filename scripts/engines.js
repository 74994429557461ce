#!/usr/bin/env node
// The three browser engines the browser and end-to-end suites drive, all from Debian packages:
// Chromium (`chromium`, or $CHROME_PATH), Firefox (`firefox-esr`, or $FIREFOX_PATH) and WebKit
// (`webkit2gtk-driver`'s WebKitWebDriver with WebKitGTK's MiniBrowser, which needs a display:
// `xvfb` + `xauth` give one). Nothing here downloads a browser build.
//
// `node scripts/engines.js` installs the missing packages with apt-get (Debian, as root) or says
// which to install; Debian's `redis-server` (for the store tests) is installed the same way. `node scripts/engines.js run <command...>` runs a command with a display for
// WebKit: under `xvfb-run -a` when $DISPLAY is unset.
// $TESSERA_BROWSERS (e.g. `chromium,firefox`) narrows the engines; the default is all three.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { executable, findChromium } from './chromium.js';

export const ENGINES = /** @type {const} */ (['chromium', 'firefox', 'webkit']);

/** @returns {('chromium' | 'firefox' | 'webkit')[]} the engines this run drives ($TESSERA_BROWSERS, default all). */
export function selectedEngines() {
  const raw = process.env.TESSERA_BROWSERS?.trim();
  if (!raw) return [...ENGINES];
  const names = raw.split(',').map((s) => s.trim().toLowerCase());
  for (const n of names) {
    if (!ENGINES.includes(/** @type {any} */ (n))) {
      throw new Error(`TESSERA_BROWSERS names ${JSON.stringify(n)}; known engines: ${ENGINES.join(', ')}`);
    }
  }
  return /** @type {any} */ (ENGINES.filter((e) => names.includes(e)));
}

/** @returns {string | undefined} Firefox ESR: $FIREFOX_PATH, then Debian's /usr/bin/firefox-esr. */
export function findFirefox() {
  const fromEnv = process.env.FIREFOX_PATH;
  if (fromEnv) {
    if (executable(fromEnv)) return fromEnv;
    throw new Error(`FIREFOX_PATH is set to ${JSON.stringify(fromEnv)}, which is not an executable file.`);
  }
  for (const p of ['/usr/bin/firefox-esr', '/usr/bin/firefox']) if (executable(p)) return p;
  return undefined;
}

const MINIBROWSER_PATHS = [
  '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
  '/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
  '/usr/lib/x86_64-linux-gnu/webkitgtk-6.0/MiniBrowser',
  '/usr/lib/aarch64-linux-gnu/webkitgtk-6.0/MiniBrowser',
];

/** @returns {{ driver: string, miniBrowser: string } | undefined} WebKitGTK's WebDriver and MiniBrowser. */
export function findWebKit() {
  const driver = ['/usr/bin/WebKitWebDriver'].find(executable);
  const miniBrowser = process.env.MINIBROWSER_PATH ?? MINIBROWSER_PATHS.find(executable);
  return driver && miniBrowser ? { driver, miniBrowser } : undefined;
}

/** @returns {string[]} Debian packages missing for the selected engines (and a display for WebKit). */
export function missingPackages(engines = selectedEngines()) {
  const missing = [];
  if (engines.includes('chromium') && !findChromium()) missing.push('chromium');
  if (engines.includes('firefox') && !findFirefox()) missing.push('firefox-esr');
  if (engines.includes('webkit')) {
    if (!findWebKit()) missing.push('webkit2gtk-driver');
    if (!process.env.DISPLAY && !executable('/usr/bin/xvfb-run')) missing.push('xvfb');
    if (!process.env.DISPLAY && !executable('/usr/bin/xauth')) missing.push('xauth');
  }
  // Not an engine, but the same kind of need: the store tests run a real Redis (test/node/helper/redis-server.ts).
  if (!process.env.REDIS_SERVER && !['/usr/bin/redis-server', '/usr/local/bin/redis-server'].some(executable)) {
    missing.push('redis-server');
  }
  return missing;
}

function install() {
  const missing = missingPackages();
  if (missing.length === 0) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !existsSync('/etc/debian_version')) {
    throw new Error(
      `test dependencies missing. Install them (Debian/Ubuntu: \`sudo apt-get install -y ${missing.join(' ')}\`), set CHROME_PATH / FIREFOX_PATH / REDIS_SERVER, or narrow the browsers with TESSERA_BROWSERS=chromium.`,
    );
  }
  console.log(`tessera: installing Debian packages ${missing.join(' ')} with apt-get...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { stdio: 'inherit', env });
  const still = missingPackages();
  if (still.length > 0) throw new Error(`apt-get finished but ${still.join(' ')} is still missing.`);
}

/** Runs a command, under `xvfb-run -a` when WebKit is selected and there is no display. */
function run(/** @type {string[]} */ command) {
  const needsDisplay = selectedEngines().includes('webkit') && !process.env.DISPLAY;
  const [cmd, ...args] = needsDisplay ? ['xvfb-run', '-a', '-s', '-screen 0 1280x1024x24', ...command] : command;
  const r = spawnSync(/** @type {string} */ (cmd), args, { stdio: 'inherit' });
  if (r.error) throw r.error;
  process.exit(r.status ?? 1);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    if (process.argv[2] === 'run') {
      run(process.argv.slice(3));
    } else {
      install();
      const engines = selectedEngines();
      console.log(
        `tessera: browser engines ${engines.join(', ')}: ${[
          engines.includes('chromium') && findChromium(),
          engines.includes('firefox') && findFirefox(),
          engines.includes('webkit') && findWebKit()?.driver,
        ]
          .filter(Boolean)
          .join(', ')}`,
      );
    }
  } catch (error) {
    console.error(`tessera: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
