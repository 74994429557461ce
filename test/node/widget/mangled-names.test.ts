/**
 * The bundle's private property names that the minifier mangles (vite.config.ts, MANGLED_PROPERTIES). The minifier
 * renames every property of such a name, whoever owns it: a DOM or built-in member of that name would be renamed too
 * and break silently, and so would a field of an event detail or of a locale file. Each name is checked against
 * TypeScript's declarations of the DOM and of ECMAScript, and against the widget's public types and the JSON it reads.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { MANGLED_PROPERTIES } from '../../../vite.config.js';

/** TypeScript's `lib.*.d.ts` (TypeScript 7 ships them in its platform package, TypeScript 5 in `typescript/lib`). */
function libFiles(): string[] {
  const require = createRequire(import.meta.url);
  const roots = [dirname(require.resolve('typescript/package.json')), join('node_modules', '@typescript')];
  const files: string[] = [];
  for (const root of roots) {
    for (const entry of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
      if (/(?:^|[/\\])lib\.(?:dom|es\w*|esnext\w*|webworker)[\w.]*\.d\.ts$/.test(entry)) files.push(join(root, entry));
    }
  }
  return files;
}

/** A member declaration of `name` (`name:`, `name?:`, `name(`, `readonly name:`), outside comments. */
const declares = (text: string, name: string) =>
  new RegExp(`^\\s*(?:readonly\\s+)?${name}\\??\\s*[:(<]`, 'm').test(text.replace(/\/\*[\s\S]*?\*\//g, ''));

describe('the mangled property names', () => {
  const libs = libFiles().map((f) => readFileSync(f, 'utf8'));
  // The event details, the locale files' keys, and the fields the widget reads from the helper's `/config` and the
  // token endpoint's JSON (transport.ts: a mangled name there would read nothing).
  const publicTypes = ['widget/card-form/events.ts', 'widget/i18n/strings.ts', 'widget/card-form/transport.ts'].map(
    (f) => readFileSync(f, 'utf8'),
  );

  it("finds TypeScript's DOM declarations and the widget's public fields (or the checks below check nothing)", () => {
    assert.ok(libs.some((text) => declares(text, 'adoptedStyleSheets')));
    assert.ok(libs.some((text) => declares(text, 'values')));
    assert.ok(libs.some((text) => declares(text, 'month')));
    assert.ok(publicTypes.some((text) => declares(text, 'expiryMonth')));
    assert.ok(publicTypes.some((text) => declares(text, 'numberRequired')));
    assert.ok(publicTypes.some((text) => declares(text, 'cardTokenUrl')));
    assert.ok(publicTypes.some((text) => declares(text, 'last4')));
  });

  for (const name of MANGLED_PROPERTIES) {
    it(`${name} is no DOM or built-in member, event field or locale key`, () => {
      assert.equal(
        libs.some((text) => declares(text, name)),
        false,
      );
      assert.equal(
        publicTypes.some((text) => declares(text, name)),
        false,
      );
    });
  }
});
