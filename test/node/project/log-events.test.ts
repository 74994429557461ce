import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT, sourceFiles } from './architecture/imports.js';

// docs/helper.md's "Log events" table is what operations people alert on: these tests fail when the helper or the
// provider clients it builds log an event the table lacks, or the table lists one nothing logs. The patterns read our
// own sources and docs (not attacker text); each is anchored on a keyword or a quote and has one unbounded part.

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** What the helper runs: its own code, the provider clients and the neutral server modules. */
const SOURCES = [...sourceFiles('server/helper'), ...sourceFiles('server/provider'), ...sourceFiles('server/common')];

/** An event name in quotes: `tessera.` or `provider.` and dotted words. */
const NAME = /'((?:tessera|provider)\.[a-z][\w.-]*)'/g;
/** The value of an `event` property, up to the end of its expression on that line (a literal or a `? :` of two). */
const PROPERTY = /\bevent:\s*([^,}\n]*)/g;
/** A function declaration and its parameter list. */
const FUNCTION = /\bfunction\s+(\w+)\s*\(([^)]*)\)/g;

function namesIn(text: string): string[] {
  return [...text.matchAll(NAME)].map((m) => m[1]!);
}

/** Every event the sources log, with the file that logs it. */
function loggedEvents(): Map<string, string> {
  const found = new Map<string, string>();
  const texts = SOURCES.map((file) => ({ file, text: read(file) }));
  for (const { file, text } of texts) {
    for (const m of text.matchAll(PROPERTY)) for (const name of namesIn(m[1]!)) found.set(name, file);
  }
  // A function that logs an event it is given by name (`keepClaim(…, event: string)`): the literal of each call.
  const takers: { name: string; index: number }[] = [];
  for (const { text } of texts) {
    for (const m of text.matchAll(FUNCTION)) {
      const index = m[2]!.split(',').findIndex((p) => /^\s*event\s*:\s*string\s*$/.test(p));
      if (index >= 0) takers.push({ name: m[1]!, index });
    }
  }
  for (const { name, index } of takers) {
    const call = new RegExp(`(?<!function\\s+)\\b${name}\\(([^)]*)\\)`, 'g');
    for (const { file, text } of texts) {
      for (const m of text.matchAll(call)) {
        const arg = m[1]!.split(',')[index]?.trim() ?? '';
        const [event] = namesIn(arg);
        assert.ok(event, `${file}: ${name}(…) is called with an event that is not a literal name: ${m[0]}`);
        found.set(event, file);
      }
    }
  }
  return found;
}

/** The event names in the first column of the "Log events" table of docs/helper.md. */
function documentedEvents(): string[] {
  const page = read('docs/helper.md');
  const start = page.indexOf('\n## Log events\n');
  assert.ok(start >= 0, 'docs/helper.md has no "## Log events" section');
  const end = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^\| `([a-z][\w.-]*)` \|/gm)].map((m) => m[1]!);
}

describe('docs/helper.md log events', () => {
  it('lists every event the helper and its provider clients log', () => {
    const logged = loggedEvents();
    // Far fewer would mean the patterns above no longer find them, not that the code logs less.
    assert.ok(logged.size >= 25, `too few events found: ${[...logged.keys()]}`);
    const documented = new Set(documentedEvents());
    assert.deepEqual(
      [...logged].filter(([name]) => !documented.has(name)).map(([name, file]) => `${name} (${file})`),
      [],
      'logged but missing from the table',
    );
  });

  it('lists only events that something logs, each once', () => {
    const logged = loggedEvents();
    const documented = documentedEvents();
    assert.deepEqual(
      documented.filter((name) => !logged.has(name)),
      [],
      'in the table but logged nowhere',
    );
    assert.deepEqual(
      documented.filter((name, i) => documented.indexOf(name) !== i),
      [],
      'listed twice',
    );
  });
});
