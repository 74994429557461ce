#!/usr/bin/env node
// Runs Node test files (`*.test.ts`) under a folder, or named one by one, with node:test and tsx.
// Node 20's `--test` does not expand globs or pick up .ts files, so we list them.
// `--express=4` runs them on Express 4 (the `express4` dev alias; test/support/express-version.mjs).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const express = args.find((a) => a.startsWith('--express='))?.slice('--express='.length);
if (express !== undefined && express !== '4' && express !== '5') {
  console.error(`--express must be 4 or 5, got ${JSON.stringify(express)}`);
  process.exit(2);
}
const dirs = args.filter((a) => !a.startsWith('--express='));
if (dirs.length === 0) {
  console.error('usage: node scripts/test-node.js <dir or file> [...]');
  process.exit(2);
}
// A folder stands for its test files; a file is run as named (`node scripts/test-node.js test/e2e/demo.test.ts`).
const files = dirs
  .flatMap((dir) =>
    statSync(dir).isDirectory() ? readdirSync(dir, { recursive: true }).map((f) => join(dir, String(f))) : [dir],
  )
  .filter((f) => f.endsWith('.test.ts'))
  .sort();
if (files.length === 0) {
  console.error(`no *.test.ts files under ${dirs.join(', ')}`);
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--import',
    './test/support/express-version.mjs',
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-reporter=spec',
    ...files,
  ],
  { stdio: 'inherit', env: express ? { ...process.env, TESSERA_TEST_EXPRESS: express } : process.env },
);
process.exit(result.status ?? 1);
