#!/usr/bin/env node
// Runs Node test files (`*.test.ts`) under a folder with node:test and tsx.
// Node 20's `--test` does not expand globs or pick up .ts files, so we list them.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  console.error('usage: node scripts/test-node.js <dir> [dir...]');
  process.exit(2);
}
const files = dirs
  .flatMap((dir) => readdirSync(dir, { recursive: true }).map((f) => join(dir, String(f))))
  .filter((f) => f.endsWith('.test.ts'))
  .sort();
if (files.length === 0) {
  console.error(`no *.test.ts files under ${dirs.join(', ')}`);
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
