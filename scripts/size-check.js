#!/usr/bin/env node
// Fails when the script-tag bundle (Lit + the widget + English) is above its budget:
// 12 KB = 12 × 1024 bytes of gzip at level 9 (what gzip-size and bundlesize measure).
// `npm test` runs it after the build; run `npm run build` first when calling it alone.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const FILE = 'dist/widget/tessera-card-form.js';
const BUDGET = 12 * 1024;

let body;
try {
  body = readFileSync(FILE);
} catch {
  console.error(`size-check: ${FILE} is missing; run \`npm run build\` first`);
  process.exit(1);
}
const gzip = gzipSync(body, { level: 9 }).length;
const line = `size-check: ${FILE} is ${gzip} B gzip (${body.length} B raw), budget ${BUDGET} B`;
if (gzip > BUDGET) {
  console.error(`${line}: over by ${gzip - BUDGET} B`);
  process.exit(1);
}
console.log(`${line}: ${BUDGET - gzip} B left`);
