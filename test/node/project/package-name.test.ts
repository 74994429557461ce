import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { repoFiles } from '../../../scripts/repo-files.js';

// The package and its command are `tessera-pay`; the name tessera on the npm registry is someone else's package, so a
// line that tells a merchant to install, import or run that name installs the other package on a payment server
// (docs/decisions/tooling.md#tooling-package-name). The product keeps its name: `<tessera-card-form>`, `tessera.*`
// events, the `tessera:` Redis prefix and the like are not the package's name and are not matched here.

const ROOT = resolve('.');

/** Uses of the old package name, each with what it is. */
const OLD_NAME: readonly [RegExp, string][] = [
  [/(?<![\w.@/-])tessera\/(?:server|provider|sandbox|widget|react|package\.json)(?![\w-])/, 'a subpath specifier'],
  [/(?:\bfrom|\bimport\(?|\brequire\()\s*(['"`])tessera\1/, 'a bare specifier'],
  [/\bnpm (?:install|i|add)\b[^\n`;&|#]*? tessera(?=$|[\s`;&|)'",])/, 'npm install'],
  [/\bnpx(?: +-{1,2}[\w=-]+)* +tessera(?=$|[\s`;&|)'".,:])/, 'npx'],
  [/node_modules(?:\/|\\\/)(?:\.bin(?:\/|\\\/))?tessera(?![\w.-])/, 'a node_modules path'],
  [/(['"`])(?:node_modules|\.bin)\1\s*,\s*(['"`])tessera\2/, 'a node_modules path'],
  [/(["'])tessera\1\s*:/, 'a dependency or bin key'],
  [/(?<![\w.@/\\-])tessera(?= (?:sandbox|demo|--help|<command>)(?![\w-]))/, 'the command'],
];

/**
 * Lines that may name the old package: the released sections of CHANGELOG.md (history), the decision entry that
 * records the rename, and lines that cite it.
 */
function checkedLines(file: string): [number, string][] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: [number, string][] = [];
  let inEntry = false;
  for (const [i, line] of lines.entries()) {
    if (file.endsWith('CHANGELOG.md') && /^## \[\d/.test(line)) break;
    if (line.includes('id="tooling-package-name"')) inEntry = true;
    else if (inEntry && /^#{1,3} /.test(line)) inEntry = false;
    if (inEntry || line.includes('#tooling-package-name')) continue;
    out.push([i + 1, line]);
  }
  return out;
}

describe('the package name', () => {
  it('is tessera-pay, and so is the only command', () => {
    const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
      name: string;
      bin: Record<string, string>;
    };
    assert.equal(pkg.name, 'tessera-pay');
    assert.deepEqual(Object.keys(pkg.bin), ['tessera-pay']);
    const lock = JSON.parse(readFileSync(resolve(ROOT, 'package-lock.json'), 'utf8')) as {
      name: string;
      packages: Record<string, { name?: string; bin?: Record<string, string> }>;
    };
    assert.equal(lock.name, 'tessera-pay');
    assert.equal(lock.packages['']?.name, 'tessera-pay');
    assert.deepEqual(Object.keys(lock.packages['']?.bin ?? {}), ['tessera-pay']);
  });

  it('no file tells anyone to install, import or run the old name tessera', () => {
    const found: string[] = [];
    for (const file of repoFiles(ROOT)) {
      for (const [n, line] of checkedLines(file)) {
        for (const [pattern, what] of OLD_NAME) {
          if (pattern.test(line)) found.push(`${relative(ROOT, file)}:${n}: ${what}: ${line.trim().slice(0, 120)}`);
        }
      }
    }
    assert.deepEqual(found, [], 'the package is tessera-pay: docs/decisions/tooling.md#tooling-package-name');
  });
});
