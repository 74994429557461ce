import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = resolve('.');
const SOURCE_DIRS = ['server', 'widget', 'react', 'demo', 'scripts', 'test', 'bench', 'bin', 'docs', '.ci'];

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|js|mjs|md|html)$|^run$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

/** Every `<a id="…">` and Markdown heading slug of a Markdown file. */
function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8');
  const ids = new Set<string>();
  for (const m of text.matchAll(/<a id="([^"]+)"><\/a>/g)) ids.add(m[1]!);
  for (const m of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = m[1]!
      .replace(/<[^>]*>/g, '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s-]/gu, '')
      .replace(/\s/g, '-');
    ids.add(slug);
  }
  return ids;
}

describe('documentation links', () => {
  it('every docs/DECISIONS.md#anchor cited in code, tests and docs exists', () => {
    const anchors = anchorsOf(join(ROOT, 'docs', 'DECISIONS.md'));
    const missing: string[] = [];
    for (const file of [...SOURCE_DIRS.flatMap((d) => files(join(ROOT, d))), join(ROOT, 'README.md')]) {
      if (file.endsWith('docs-links.test.ts')) continue;
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/DECISIONS\.md#([A-Za-z0-9_-]+)/g)) {
        if (!anchors.has(m[1]!)) missing.push(`${relative(ROOT, file)}: #${m[1]}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('every relative link in README.md and docs/*.md points at a file (and heading) that exists', () => {
    const broken: string[] = [];
    for (const file of [join(ROOT, 'README.md'), ...files(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))]) {
      const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target)) continue;
        const [path = '', hash] = target.split('#');
        const dest = path ? resolve(dirname(file), path) : file;
        if (!existsSync(dest)) {
          broken.push(`${relative(ROOT, file)}: ${target}`);
          continue;
        }
        if (hash && dest.endsWith('.md') && !anchorsOf(dest).has(hash))
          broken.push(`${relative(ROOT, file)}: ${target}`);
      }
    }
    assert.deepEqual(broken, []);
  });
});
