import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { tesseraHelper } from '../../../server/helper/index.js';
import { TEST_CARDS, UPDATER_TEST_CARDS } from '../../../server/sandbox/index.js';

// The references under docs/ state facts the code decides; these tests fail when one of them drifts.
const ROOT = resolve('.');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The option names `tesseraHelper` knows at `path` (top level, `hostAuth`, `rateLimits`), from its own error. */
function knownOptions(path: readonly string[]): string[] {
  const unknown = 'qqqqqqqqqqqqqqqqqqqq';
  let options: Record<string, unknown> = { [unknown]: 1 };
  for (const key of [...path].reverse()) options = { [key]: options };
  try {
    tesseraHelper(options as never);
  } catch (err) {
    const list = /Known options: ([^.\n]+)\./.exec((err as Error).message)?.[1];
    assert.ok(list, `tesseraHelper no longer lists the known options: ${(err as Error).message}`);
    return list.split(', ');
  }
  assert.fail('tesseraHelper accepted an unknown option');
}

describe('docs/helper.md', () => {
  const page = read('docs/helper.md');

  for (const path of [[], ['hostAuth'], ['rateLimits']]) {
    it(`names every option of tesseraHelper${path.length ? ` under ${path[0]}` : ''}`, () => {
      const names = knownOptions(path);
      assert.ok(names.length >= (path.length ? 5 : 20), `too few options found: ${names}`);
      assert.deepEqual(
        names.filter((name) => !page.includes(`\`${name}\``)),
        [],
      );
    });
  }

  it('has one error-code table, between its markers, with every code the helper answers and no other', () => {
    const start = page.indexOf('<!-- error-codes:start -->');
    const end = page.indexOf('<!-- error-codes:end -->');
    assert.ok(start > 0 && end > start, 'the error-codes markers are missing or out of order');
    const rows = page
      .slice(start, end)
      .split('\n')
      .filter((line) => line.startsWith('| `TESSERA_'));
    const documented = rows.map(
      (row) => /^\| `(TESSERA_[A-Z_]+)` \| (\d{3}) \| \S/.exec(row)?.[1] ?? `bad row: ${row}`,
    );
    const helperFiles = readdirSync(join(ROOT, 'server/helper'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => read(join('server/helper', f)));
    const answered = new Set(
      helperFiles.flatMap((text) => [...text.matchAll(/'(TESSERA_[A-Z_]+)'/g)].map((m) => m[1]!)),
    );
    assert.deepEqual(new Set(documented), answered);
    assert.equal(documented.length, new Set(documented).size, 'a code is listed twice');
  });
});

describe('docs/sandbox.md', () => {
  const page = read('docs/sandbox.md');

  it('lists every legacy test card exactly as the sandbox serves it', () => {
    const missing = TEST_CARDS.filter(
      (c) => !page.includes(`| \`${c.number}\` | ${c.brand} | ${c.outcome} | ${c.responseCode} | ${c.description} |`),
    );
    assert.deepEqual(missing, []);
  });

  it('lists every account-updater test card with its outcome', () => {
    const missing = UPDATER_TEST_CARDS.filter((c) => {
      const row = page.split('\n').find((line) => line.includes(`\`${c.number}\``));
      return (
        !row?.includes(c.outcome) ||
        (c.newNumber !== undefined && !row.includes(c.newNumber)) ||
        (c.failureCode !== undefined && !row.includes(c.failureCode))
      );
    });
    assert.deepEqual(missing, []);
  });
});
