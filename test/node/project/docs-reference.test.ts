import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { tesseraHelper } from '../../../server/helper/index.js';
import { createAccountsClient, createLegacyClient, createTokenSource } from '../../../server/provider/index.js';
import { TEST_CARDS, UPDATER_TEST_CARDS } from '../../../server/sandbox/index.js';
import { LOCALE_CODES } from '../../../widget/i18n/load.js';

// The references under docs/ state facts the code decides; these tests fail when one of them drifts.
const ROOT = resolve('.');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The option names a factory knows at `path` (top level, or `hostAuth` of the helper), from its own error. */
function knownOptions(path: readonly string[], factory: (options: never) => unknown = tesseraHelper): string[] {
  const unknown = 'qqqqqqqqqqqqqqqqqqqq';
  let options: Record<string, unknown> = { [unknown]: 1 };
  for (const key of [...path].reverse()) options = { [key]: options };
  try {
    factory(options as never);
  } catch (err) {
    const list = /Known options: ([^.\n]+)\./.exec((err as Error).message)?.[1];
    assert.ok(list, `${factory.name} no longer lists the known options: ${(err as Error).message}`);
    return list.split(', ');
  }
  assert.fail(`${factory.name} accepted an unknown option`);
}

/**
 * The names the entry point at `path` exports, types included, read from our own source: `export { … }` lists
 * (`type X`, `X as Y` → `Y`), declarations (`export const`, `function`, `class`, `type`, `interface`, …), and the
 * modules `export * from` and `export type * from` pull in, followed to their own exports. The patterns read our
 * own source, not attacker text.
 */
function exportedNames(path: string, seen = new Set<string>()): string[] {
  if (seen.has(path)) return [];
  seen.add(path);
  const source = read(path);
  const names: string[] = [];
  for (const m of source.matchAll(/^export (?:type )?\{([^}]*)\}/gm)) {
    for (const part of m[1]!.split(',')) {
      const name = part
        .trim()
        .replace(/^type /, '')
        .split(' as ')
        .pop()!
        .trim();
      if (name) names.push(name);
    }
  }
  for (const m of source.matchAll(
    /^export (?:declare )?(?:async )?(?:abstract )?(?:const|let|function\*?|class|type|interface|enum) ([A-Za-z_$][\w$]*)/gm,
  )) {
    names.push(m[1]!);
  }
  for (const m of source.matchAll(/^export (?:type )?\* from '(\.[^']+)\.js';/gm)) {
    names.push(...exportedNames(join(dirname(path), `${m[1]}.ts`), seen));
  }
  return names;
}

/**
 * Fails unless the part of `doc` from its `heading` line on names, in code, every export of `entry` (the package
 * entry point `tessera-pay/…` whose source is `source`): `` `Name` ``, `` `Name(…)` `` or `` `Name<…>` ``.
 */
function assertEveryExportNamed(entry: string, source: string, doc: string, heading: string, atLeast: number): void {
  const names = exportedNames(source);
  assert.ok(names.length >= atLeast, `too few exports found in ${source}: ${names}`);
  const page = read(doc);
  const start = page.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `${doc} has no "${heading}" section`);
  const end = page.indexOf('\n## ', start + heading.length + 1);
  const section = page.slice(start, end < 0 ? undefined : end);
  const named = new Set([...section.matchAll(/`([A-Za-z_$][\w$]*)/g)].map((m) => m[1]));
  assert.deepEqual(
    names.filter((name) => !named.has(name)),
    [],
    `${doc} (${heading}) does not name these exports of ${entry}`,
  );
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

  it('names every export of tessera-pay/server, types included (Other exports)', () => {
    assertEveryExportNamed('tessera-pay/server', 'server/helper/index.ts', 'docs/helper.md', '## Other exports', 40);
  });

  it('names every rate limit among those counted in the shared store (Running several instances)', () => {
    const start = page.indexOf('**Limits across instances.**');
    assert.ok(start >= 0, 'docs/helper.md has no "Limits across instances" item');
    const item = page.slice(start, page.indexOf('\n- **', start));
    assert.deepEqual(
      knownOptions(['rateLimits']).filter((name) => !item.includes(`\`${name}\``)),
      [],
    );
  });

  it('holds the error-code table of the helper, and docs/clients.md that of the clients (npm run docs:errors fills them)', () => {
    const between = (text: string, name: string) => {
      const start = text.indexOf(`<!-- ${name}:start -->`);
      const end = text.indexOf(`<!-- ${name}:end -->`);
      return start >= 0 && end > start ? text.slice(start, end) : '';
    };
    assert.match(between(page, 'error-codes'), /\| `TESSERA_CARD_DECLINED` \| 402 \|/);
    assert.match(between(read('docs/clients.md'), 'provider-error-codes'), /\| `TESSERA_TIMEOUT` \| `TimeoutError` \|/);
  });
});

describe('docs/clients.md', () => {
  const page = read('docs/clients.md');

  for (const factory of [createLegacyClient, createAccountsClient, createTokenSource]) {
    it(`names every option of ${factory.name}`, () => {
      const names = knownOptions([], factory as (options: never) => unknown);
      assert.ok(names.length >= 10, `too few options found: ${names}`);
      assert.deepEqual(
        names.filter((name) => !page.includes(`\`${name}\``)),
        [],
      );
    });
  }

  it('names every export of tessera-pay/provider, types included (Exports)', () => {
    assertEveryExportNamed('tessera-pay/provider', 'server/provider/index.ts', 'docs/clients.md', '## Exports', 70);
  });
});

describe('docs/sandbox.md', () => {
  const page = read('docs/sandbox.md');

  it('names every export of tessera-pay/sandbox, types included (Exports)', () => {
    assertEveryExportNamed('tessera-pay/sandbox', 'server/sandbox/index.ts', 'docs/sandbox.md', '## Exports', 15);
  });

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

describe('docs/widget.md', () => {
  it('names every export of tessera-pay/widget, types included (Exports)', () => {
    assertEveryExportNamed('tessera-pay/widget', 'widget/index.ts', 'docs/widget.md', '## Exports', 10);
  });
});

describe('docs/frameworks.md', () => {
  it('names every export of tessera-pay/react, types included (React, Exports)', () => {
    assertEveryExportNamed('tessera-pay/react', 'react/index.ts', 'docs/frameworks.md', '### Exports', 15);
  });
});

describe('README.md', () => {
  const readme = read('README.md');

  it('counts and names every locale the widget ships', () => {
    assert.equal(Number(/form-associated, in (\d+)\s+locales/.exec(readme)?.[1]), LOCALE_CODES.length);
    const start = readme.indexOf('\nLocales: ');
    const list = readme.slice(start, readme.indexOf('(`locale` attribute', start));
    const named = new Set([...list.matchAll(/`([A-Za-z-]+)`/g)].map((m) => m[1]!.toLowerCase()));
    assert.deepEqual(
      LOCALE_CODES.filter((code) => !named.has(code)),
      [],
    );
  });
});
