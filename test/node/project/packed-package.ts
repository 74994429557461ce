import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository: what `npm pack` packs. */
export const repo = resolve('.');

export function run(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
}

/**
 * Installed scratch projects, by what went into them (docs/decisions/tooling.md#packed-install-cache): the Node layer
 * runs on Node 20, 22 and 24 in one CI run, and each run would otherwise install the same tarball with the same
 * packages three times. Git ignores `.cache/`, so a fresh clone starts with none.
 */
const CACHE = join(repo, '.cache', 'packed');
/** An install older than this is made again, so a long-lived checkout does not keep yesterday's `express@5`. */
const MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** Whether `path` exists and was made less than {@link MAX_AGE_MS} ago. */
function fresh(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < MAX_AGE_MS;
  } catch {
    return false;
  }
}

let packed: { readonly tarball: string; readonly hash: string } | undefined;

/**
 * The package packed as `npm publish` would (`npm pack`, without the build: run `npm run build` first), once per test
 * file: the tarball's path and the SHA-256 of its bytes. The tarball holds every file the package ships, so its hash
 * changes whenever anything a user would install does.
 */
export function packedTarball(): { readonly tarball: string; readonly hash: string } {
  if (!packed) {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-pack-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], repo);
    const file = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    assert.ok(file, 'npm pack wrote no tarball');
    const tarball = join(dir, file);
    packed = { tarball, hash: createHash('sha256').update(readFileSync(tarball)).digest('hex') };
  }
  return packed;
}

/**
 * A new scratch project (`"type": "module"`, named `name`) in the system's temp folder where the packed package and
 * `extra` packages are installed, as a user would (`npm install ./tessera-pay-<version>.tgz ...extra`). Needs
 * `npm run build` first. Returns the project's folder, the caller's own to write into; remove it with
 * {@link removeScratch}.
 *
 * The install itself is made once per tarball, package list and name, in `.cache/packed/<key>/`, and each call gets
 * a fresh copy of it: the same files `npm install` wrote, outside the repository (so nothing resolves through the
 * repository's own node_modules), none of a previous test's files.
 */
export function installPacked(prefix: string, extra: readonly string[] = [], name = 'consumer'): string {
  const { tarball, hash } = packedTarball();
  const key = createHash('sha256')
    .update(JSON.stringify({ tarball: hash, extra, name }))
    .digest('hex')
    .slice(0, 32);
  const cached = join(CACHE, `${hash.slice(0, 16)}-${key}`);
  if (!fresh(cached)) {
    mkdirSync(CACHE, { recursive: true });
    // Installs of an older tarball (the sources changed since), and any of another day, are not needed any more; a
    // folder still being made (by a test file running beside this one) is left alone unless it is that old.
    for (const entry of readdirSync(CACHE)) {
      const path = join(CACHE, entry);
      const older = !entry.startsWith('making-') && !entry.startsWith(hash.slice(0, 16));
      if (older || !fresh(path)) rmSync(path, { recursive: true, force: true });
    }
    // Made in a folder of its own and renamed into place whole, so a test never copies a half-made install.
    const making = mkdtempSync(join(CACHE, 'making-'));
    try {
      const file = tarball.slice(tarball.lastIndexOf('/') + 1);
      copyFileSync(tarball, join(making, file));
      writeFileSync(join(making, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
      run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--silent', `./${file}`, ...extra], making);
      if (!fresh(cached)) rmSync(cached, { recursive: true, force: true });
      try {
        renameSync(making, cached);
      } catch (error) {
        // Another test process made the same install meanwhile: use that one.
        if (!fresh(cached)) throw error;
      }
    } finally {
      rmSync(making, { recursive: true, force: true });
    }
  }
  const scratch = mkdtempSync(join(tmpdir(), prefix));
  // `cp -a`, not fs.cpSync, which takes ten times as long over node_modules' thousands of files; node_modules/.bin's
  // relative links stay relative, pointing into the copy.
  run('cp', ['-a', `${cached}/.`, scratch], repo);
  return scratch;
}

export function removeScratch(scratch: string | undefined): void {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}
