import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cycles, importsOf, packagesOf, ROOT, sourceFiles } from './imports.js';

// The parts and what each may import (DESIGN.md "Parts and where they live"): `shared/` runs in the browser
// and in Node and imports nothing of ours; `widget/` and `server/` both import it and never each other.
// `react/` (the `tessera-pay/react` wrapper) sits on top of the widget: it may import `widget/` and `shared/`.
const SHARED = sourceFiles('shared');
const WIDGET = sourceFiles('widget');
const REACT = sourceFiles('react');
const SERVER = sourceFiles('server');
const DEMO = sourceFiles('demo');

const inside = (path: string, folder: string): boolean => path.startsWith(`${folder}/`);

describe('layering', () => {
  it('finds the sources it checks', () => {
    assert.ok(SHARED.includes('shared/card/luhn.ts'));
    assert.ok(SHARED.includes('shared/url.ts'));
    assert.ok(WIDGET.includes('widget/card-form/card-form.ts'));
    assert.ok(SERVER.includes('server/helper/helper.ts'));
    assert.ok(REACT.includes('react/index.ts'));
  });

  it('shared/ imports nothing outside shared/ and no package at all', () => {
    for (const file of SHARED) {
      for (const { to } of importsOf(file)) assert.ok(inside(to, 'shared'), `${file} imports ${to}`);
      assert.deepEqual(packagesOf(file), [], `${file} imports a package`);
    }
  });

  it('widget/ imports nothing from server/ or demo/, and no server package', () => {
    for (const file of WIDGET) {
      for (const { to } of importsOf(file)) {
        assert.ok(inside(to, 'widget') || inside(to, 'shared'), `${file} imports ${to}`);
      }
      for (const pkg of packagesOf(file)) {
        assert.ok(pkg === 'lit' || pkg.startsWith('lit/') || pkg.startsWith('@lit/'), `${file} imports ${pkg}`);
      }
    }
  });

  it('react/ imports widget/ and shared/ only, nothing from server/ or demo/, and no package but React and @lit/react', () => {
    for (const file of REACT) {
      for (const { to } of importsOf(file)) {
        assert.ok(inside(to, 'react') || inside(to, 'widget') || inside(to, 'shared'), `${file} imports ${to}`);
      }
      for (const pkg of packagesOf(file)) assert.ok(['react', '@lit/react'].includes(pkg), `${file} imports ${pkg}`);
    }
  });

  it('no other part imports react/ (React never enters the widget or its script-tag bundle)', () => {
    for (const file of [...SHARED, ...WIDGET, ...SERVER, ...DEMO]) {
      for (const { to } of importsOf(file)) assert.ok(!inside(to, 'react'), `${file} imports ${to}`);
    }
  });

  it('server/ imports nothing from widget/ or demo/ (the CLI alone starts the demo, lazily)', () => {
    for (const file of SERVER) {
      for (const { to } of importsOf(file)) {
        if (file === 'server/cli/main.ts' && to === 'demo/cli.ts') continue;
        assert.ok(inside(to, 'server') || inside(to, 'shared'), `${file} imports ${to}`);
      }
    }
  });

  it('the demo imports the parts through their public entry points (and the shared server plumbing)', () => {
    const entries = new Set([
      'server/helper/index.ts',
      'server/provider/index.ts',
      'server/sandbox/index.ts',
      'widget/index.ts',
    ]);
    for (const file of DEMO) {
      for (const { to } of importsOf(file)) {
        if (inside(to, 'demo') || inside(to, 'shared') || inside(to, 'server/common')) continue;
        assert.ok(entries.has(to), `${file} imports ${to}, which is not a public entry point`);
      }
    }
  });

  it('sideEffects names only the modules that define the element', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { sideEffects: string[] };
    for (const path of pkg.sideEffects) {
      assert.match(
        path,
        /^\.\/(dist\/)?(widget\/(index|card-form\/define|tessera-card-form)|react\/index)\.(js|ts)$/,
        path,
      );
    }
    assert.ok(!pkg.sideEffects.some((p) => p.includes('shared') || p.includes('server') || p.includes('*')));
  });
});

describe('import cycles', () => {
  it('no file imports itself through others, counting type-only imports', () => {
    assert.deepEqual(cycles([...SHARED, ...WIDGET, ...REACT, ...SERVER, ...DEMO], true), []);
  });

  it('the check finds a cycle when there is one', () => {
    // The test's own module graph: layering.test.ts → imports.ts; a synthetic pair proves the detector.
    const found = cycles(
      ['test/node/project/architecture/fixtures/a.ts', 'test/node/project/architecture/fixtures/b.ts'],
      true,
    );
    assert.deepEqual(found, [
      ['test/node/project/architecture/fixtures/a.ts', 'test/node/project/architecture/fixtures/b.ts'],
    ]);
  });
});
