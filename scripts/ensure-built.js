#!/usr/bin/env node
// Builds the package when dist/ is missing or older than a source file, so that
// `npm start` on a fresh clone works after `npm install` alone.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const OUTPUTS = ['dist/widget/tessera-card-form.js', 'dist/server/cli/main.js', 'dist/demo/cli.js'];
const SOURCES = ['shared', 'widget', 'server', 'demo', 'package.json', 'vite.config.ts', 'tsconfig.build.json'];

/** @param {string} path @returns {number} */
function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const entry of readdirSync(path)) max = Math.max(max, newest(join(path, entry)));
  return max;
}

const built = OUTPUTS.every((f) => existsSync(f));
const stale =
  built && Math.max(...SOURCES.filter(existsSync).map(newest)) > Math.min(...OUTPUTS.map((f) => statSync(f).mtimeMs));
if (!built || stale) {
  console.log(built ? 'tessera: sources changed since the last build; rebuilding...' : 'tessera: building...');
  execSync('npm run --silent build', { stdio: 'inherit' });
}
