import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository: what `npm pack` packs. */
export const repo = resolve('.');

export function run(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
}

/**
 * Packs the package as `npm publish` would and installs the tarball, with `extra` packages, into a new scratch
 * project (`"type": "module"`), as a user would. Needs `npm run build` first. Returns the project's folder; remove
 * it with {@link removeScratch}.
 */
export function installPacked(prefix: string, extra: readonly string[] = []): string {
  const scratch = mkdtempSync(join(tmpdir(), prefix));
  run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', scratch], repo);
  const tarball = readdirSync(scratch).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball, 'npm pack wrote no tarball');
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--silent', `./${tarball}`, ...extra], scratch);
  return scratch;
}

export function removeScratch(scratch: string | undefined): void {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}
