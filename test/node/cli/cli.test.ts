import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';

// Runs the real launcher (bin/tessera.js → dist/), so `npm run build` must have run: npm test builds first.
function tessera(...args: string[]) {
  return spawnSync(process.execPath, ['bin/tessera.js', ...args], { encoding: 'utf8', timeout: 20_000 });
}

describe('tessera CLI', () => {
  it('--help lists the subcommands and exits 0', () => {
    const r = tessera('--help');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Usage: tessera-pay <command>/);
    assert.match(r.stdout, /^ {2}demo\s+/m);
  });
  it('an unknown subcommand prints help on stderr and exits 2', () => {
    const r = tessera('frobnicate');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /unknown command "frobnicate"/);
    assert.match(r.stderr, /Usage: tessera-pay <command>/);
  });
  it('a subcommand rejects a bad option with exit 2', () => {
    const r = tessera('demo', '--port', 'eighty');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--port \(or PORT\) must be an integer from 0 to 65535, got "eighty"/);
  });
});
