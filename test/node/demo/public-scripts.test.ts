import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../../../server/common/package-root.js';

const dir = join(packageRoot(), 'demo', 'public');

describe('the demo pages’ scripts (demo/public)', () => {
  it('put a value into a CSS selector only through CSS.escape', () => {
    let selectors = 0;
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.js'))) {
      const text = readFileSync(join(dir, name), 'utf8');
      // Each selector given as a template literal, and each value put into it.
      for (const call of text.matchAll(/\b(?:querySelector(?:All)?|closest|matches)\(\s*`([^`]*)`/g)) {
        selectors++;
        for (const value of call[1]!.matchAll(/\$\{([^}]*)\}/g)) {
          assert.match(value[1]!, /^CSS\.escape\([^()]*\)$/, `${name}: ${call[0]}`);
        }
      }
    }
    assert.ok(selectors > 0, 'the check reads the selectors it is about');
  });
});
