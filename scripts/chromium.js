#!/usr/bin/env node
// Finds the Chromium the browser and end-to-end tests drive: $CHROME_PATH, then
// /usr/bin/chromium. On Debian as root it installs Debian's `chromium` package
// when neither exists; otherwise it stops with one line saying how to install it.
// Nothing here downloads a browser of its own.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';

const DEBIAN_PATH = '/usr/bin/chromium';

/** @param {string} path Whether `path` is an executable file. */
export function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

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

/** @returns {string | undefined} */
export function findChromium() {
  const fromEnv = process.env.CHROME_PATH;
  if (fromEnv) {
    if (executable(fromEnv)) return fromEnv;
    throw new Error(`CHROME_PATH is set to ${JSON.stringify(fromEnv)}, which is not an executable file.`);
  }
  if (executable(DEBIAN_PATH)) return DEBIAN_PATH;
  return undefined;
}

function install() {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !existsSync('/etc/debian_version')) {
    console.error(
      'tessera: Chromium not found. Install it (Debian/Ubuntu: `sudo apt-get install -y chromium`) or set CHROME_PATH to a Chromium binary.',
    );
    process.exit(1);
  }
  console.log('tessera: Chromium not found; installing Debian package `chromium` with apt-get...');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    let path = findChromium();
    if (!path) {
      install();
      path = findChromium();
    }
    if (!path) {
      console.error('tessera: apt-get finished but /usr/bin/chromium is still missing.');
      process.exit(1);
    }
    console.log(`tessera: using Chromium at ${path}`);
  } catch (error) {
    console.error(`tessera: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
