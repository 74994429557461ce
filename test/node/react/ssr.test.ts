import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';

// `tessera-pay/react` on the server: the built module (dist/react, from `npm run build`) imported by plain Node
// (no tsx, no DOM), as a framework's server render does.
const repo = resolve('.');
const built = resolve(repo, 'dist/react/index.js');

function node(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('tessera-pay/react on the server', () => {
  it('is built (npm run build)', () => {
    assert.ok(existsSync(built), `${built} is missing: run npm run build first`);
  });

  it('imports in plain Node without a DOM, defines no element, and renders to a string', () => {
    const out = node([
      '--input-type=module',
      '-e',
      `const hadDocument = typeof document !== 'undefined';
const m = await import(${JSON.stringify(built)});
const { createElement } = await import('react');
const { renderToString } = await import('react-dom/server');
const html = renderToString(createElement(m.TesseraCardForm, {
  id: 'card', className: 'pay', publicKey: 'pk_test_123', tokenUrl: 'https://sandbox.example/api2/v2/tokens/card',
  hideName: true, onTesseraToken: () => {}, onTesseraError: () => {},
}));
console.log(JSON.stringify({
  hadDocument,
  exports: Object.keys(m).sort(),
  displayName: m.TesseraCardForm.displayName,
  defined: globalThis.customElements?.get('tessera-card-form') !== undefined,
  html,
}));`,
    ]);
    const result = JSON.parse(out);
    assert.equal(result.hadDocument, false);
    assert.deepEqual(result.exports, [
      'TesseraCardError',
      'TesseraCardForm',
      'TesseraChangeEvent',
      'TesseraErrorEvent',
      'TesseraReadyEvent',
      'TesseraTokenEvent',
    ]);
    assert.equal(result.displayName, 'TesseraCardForm');
    assert.equal(result.defined, false, 'the element must be defined only in a browser');
    // Element properties and listeners are set by the client after hydration; the server writes the plain tag.
    assert.equal(result.html, '<tessera-card-form id="card" class="pay"></tessera-card-form>');
  });

  it('is a client module for React Server Components: its first statement is the "use client" directive', () => {
    const lines = readFileSync(built, 'utf8').split('\n');
    const first = lines.find((line) => line.trim() !== '' && !line.trimStart().startsWith('//'));
    assert.equal(first, "'use client';");
  });

  it('is required from CommonJS (require(esm))', () => {
    const out = node([
      '-e',
      `const m = require(${JSON.stringify(built)}); console.log(typeof m.TesseraCardForm, typeof m.TesseraCardError);`,
    ]);
    assert.equal(out, 'object function\n');
  });
});
