// Writes the error-code tables of the docs from the typed catalogues (server/helper/error-codes.ts,
// server/provider/error-codes.ts), between marker comments, so the docs and the codes cannot drift apart:
// test/node/project/error-codes.test.ts fails when a committed table is not what this script makes.
//   <!-- error-codes:start --> … <!-- error-codes:end -->                    the helper's codes
//   <!-- provider-error-codes:start --> … <!-- provider-error-codes:end -->  the provider clients' codes
// Usage: npm run docs:errors            (rewrites every README.md / docs/**/*.md block)
//        npm run docs:errors -- --check (exits 1 when a block is stale)
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HELPER_ERROR_CODES } from '../server/helper/error-codes.js';
import { PROVIDER_ERROR_CODES } from '../server/provider/error-codes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const cell = (text: string | number) => String(text).replaceAll('|', '\\|');

/** The Markdown table of the helper's codes, by status. */
export function helperTable(): string {
  const rows = Object.entries(HELPER_ERROR_CODES)
    .sort(([a, x], [b, y]) => x.status - y.status || a.localeCompare(b))
    .map(([code, { status, meaning }]) => `| \`${code}\` | ${status} | ${cell(meaning)} |`);
  return ['| code | status | meaning |', '| --- | --- | --- |', ...rows].join('\n');
}

/** The Markdown table of the provider clients' codes, with the error class of each. */
export function providerTable(): string {
  const rows = Object.entries(PROVIDER_ERROR_CODES).map(
    ([code, { error, status, meaning }]) => `| \`${code}\` | \`${error}\` | ${cell(status)} | ${cell(meaning)} |`,
  );
  return ['| code | error class | HTTP status | meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** Each block name and the table that goes in it. */
export const BLOCKS: Readonly<Record<string, () => string>> = {
  'error-codes': helperTable,
  'provider-error-codes': providerTable,
};

/** The Markdown files that may hold a block: README.md and everything under docs/. */
export function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f));
  return ['README.md', ...docs].sort();
}

/** `text` with every block's content replaced by the current table; the blocks found, by name. */
export function render(text: string): { text: string; found: string[] } {
  const found: string[] = [];
  let out = text;
  for (const [name, table] of Object.entries(BLOCKS)) {
    const start = `<!-- ${name}:start -->`;
    const end = `<!-- ${name}:end -->`;
    let from = 0;
    for (;;) {
      const i = out.indexOf(start, from);
      if (i === -1) break;
      const j = out.indexOf(end, i);
      if (j === -1) throw new Error(`${start} without ${end}`);
      out = `${out.slice(0, i + start.length)}\n${table()}\n${out.slice(j)}`;
      found.push(name);
      from = out.indexOf(end, i) + end.length;
    }
  }
  return { text: out, found };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const file of markdownFiles()) {
    const path = join(ROOT, file);
    const before = readFileSync(path, 'utf8');
    const { text } = render(before);
    if (text === before) continue;
    if (check) {
      console.error(`${file}: error-code table is stale; run \`npm run docs:errors\``);
      stale++;
    } else {
      writeFileSync(path, text);
      console.log(`wrote ${file}`);
    }
  }
  process.exit(stale > 0 ? 1 : 0);
}
