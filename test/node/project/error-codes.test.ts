import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BLOCKS, helperTable, markdownFiles, render } from '../../../scripts/error-docs.js';
import { HELPER_ERROR_CODES } from '../../../server/helper/error-codes.js';
import { PROVIDER_ERROR_CODES } from '../../../server/provider/error-codes.js';
import * as providerErrors from '../../../server/provider/errors.js';
import { ROOT, sourceFiles } from './architecture/imports.js';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

// A quoted TESSERA_ literal: each is a code (environment variables are read unquoted, as process.env.TESSERA_…,
// or listed in the sandbox's config, which this does not scan).
const LITERAL = /['"`](TESSERA_[A-Z0-9_]+)['"`]/g;

function literalsIn(files: readonly string[]): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of files) {
    for (const m of read(file).matchAll(LITERAL)) found.set(m[1]!, [...(found.get(m[1]!) ?? []), file]);
  }
  return found;
}

const HELPER = sourceFiles('server/helper').filter((f) => f !== 'server/helper/error-codes.ts');
const PROVIDER = sourceFiles('server/provider').filter((f) => f !== 'server/provider/error-codes.ts');

describe('error-code catalogues', () => {
  it('hold every code the helper and the provider clients use, and only those', () => {
    const known = new Set([...Object.keys(HELPER_ERROR_CODES), ...Object.keys(PROVIDER_ERROR_CODES)]);
    const used = literalsIn([...HELPER, ...PROVIDER, 'demo/public/checkout.js', 'demo/public/platform.js']);
    const unknown = [...used].filter(([code]) => !known.has(code) && code !== 'TESSERA_REDIS_URL');
    assert.deepEqual(unknown, [], 'codes used but not in a catalogue');
    const helperUsed = literalsIn(HELPER);
    const providerUsed = literalsIn(PROVIDER);
    for (const code of Object.keys(HELPER_ERROR_CODES)) {
      assert.ok(helperUsed.has(code) || providerUsed.has(code), `${code} is in the helper's catalogue but unused`);
    }
    for (const code of Object.keys(PROVIDER_ERROR_CODES)) {
      assert.ok(providerUsed.has(code), `${code} is in the provider's catalogue but unused`);
    }
  });

  it('give each code one meaning: no code means one thing in the helper and another in the clients', () => {
    // A code both parts use (TESSERA_NOT_FOUND, TESSERA_RATE_LIMITED, TESSERA_PROVIDER_UNAVAILABLE) is the same fact.
    assert.equal(HELPER_ERROR_CODES.TESSERA_NOT_FOUND.status, 404);
    assert.equal(PROVIDER_ERROR_CODES.TESSERA_NOT_FOUND.status, '404');
    assert.ok(!('TESSERA_RATE_LIMIT' in PROVIDER_ERROR_CODES) && !('TESSERA_RATE_LIMIT' in HELPER_ERROR_CODES));
    assert.equal(HELPER_ERROR_CODES.TESSERA_ROUTE_NOT_FOUND.status, 404);
  });

  it('answer each code with the status the catalogue gives it', () => {
    const wrong: string[] = [];
    for (const file of HELPER) {
      for (const m of read(file).matchAll(/HelperHttpError\(\s*(\d{3}),\s*'(TESSERA_[A-Z0-9_]+)'/g)) {
        const entry = HELPER_ERROR_CODES[m[2] as keyof typeof HELPER_ERROR_CODES];
        if (entry && entry.status !== Number(m[1])) wrong.push(`${file}: ${m[2]} answered ${m[1]}`);
      }
    }
    assert.deepEqual(wrong, []);
    assert.ok(HELPER.some((f) => /HelperHttpError\(\s*409,\s*'TESSERA_CARD_TOKEN_USED'/.test(read(f))));
  });

  it('give each provider error class its code, as a static and on instances', () => {
    const details = { outcomeKnown: true };
    for (const [code, { error }] of Object.entries(PROVIDER_ERROR_CODES)) {
      const Class = (providerErrors as unknown as Record<string, { code: string; new (...a: never[]): Error }>)[error];
      assert.ok(Class, `${error} is exported`);
      assert.equal(Class.code, code, error);
      const args = ['x', { ...details, fieldErrors: [], phase: 'response', timeoutMs: 1 }] as unknown as never[];
      const instance = new Class(...args) as Error & { code: string };
      assert.equal(instance.code, code);
      assert.equal(instance.name, error);
    }
  });

  it('are what the docs tables say (npm run docs:errors writes them)', () => {
    const seen = new Set<string>();
    for (const file of markdownFiles()) {
      const text = read(file);
      const { text: fresh, found } = render(text);
      for (const name of found) seen.add(name);
      assert.equal(text, fresh, `${file}: an error-code table is stale; run \`npm run docs:errors\``);
    }
    assert.deepEqual([...seen].sort(), Object.keys(BLOCKS).sort(), 'every table appears in the docs');
  });

  it('render a block again from stale content', () => {
    const stale = 'a\n<!-- error-codes:start -->\n| old |\n<!-- error-codes:end -->\nb';
    const { text, found } = render(stale);
    assert.deepEqual(found, ['error-codes']);
    assert.equal(text, `a\n<!-- error-codes:start -->\n${helperTable()}\n<!-- error-codes:end -->\nb`);
    assert.match(text, /\| `TESSERA_CARD_TOKEN_USED` \| 409 \|/);
  });
});
