import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { repoFiles as filesUnder, NOT_OURS } from '../../../scripts/repo-files.js';

const ROOT = resolve('.');
/** Every text file of the repository outside node_modules, dist and the other folders it does not own. */
const repoFiles = (dir = ROOT): string[] => filesUnder(dir);

/** The Markdown files whose links must work on the repository and on the npm page. */
function markdownFiles(): string[] {
  const docs = repoFiles(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
  return [...['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md'].map((f) => join(ROOT, f)), ...docs];
}

/** Every `<a id="…">` and Markdown heading slug (GitHub's rule) of a Markdown file. */
function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8');
  const ids = new Set<string>();
  for (const m of text.matchAll(/<a id="([^"]+)"><\/a>/g)) ids.add(m[1]!);
  for (const m of text.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = m[1]!
      .replace(/<[^>]*>/g, '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    ids.add(slug);
  }
  return ids;
}

describe('documentation links', () => {
  it('every cited decision (docs/DECISIONS.md or docs/decisions/<part>.md, then #anchor) exists, in any file of the repo', () => {
    const anchors = new Map<string, Set<string>>();
    const missing: string[] = [];
    for (const file of repoFiles()) {
      const text = readFileSync(file, 'utf8');
      // In code a citation may leave out the folder; in Markdown a bare one is a relative link, checked below.
      const citation = file.endsWith('.md')
        ? /(?<![\w./-])docs\/(DECISIONS|decisions\/[a-z-]+)\.md#([A-Za-z0-9_-]+)/g
        : /(?<![\w./-])(?:docs\/)?(DECISIONS|decisions\/[a-z-]+)\.md#([A-Za-z0-9_-]+)/g;
      for (const m of text.matchAll(citation)) {
        const target = join(ROOT, 'docs', `${m[1]}.md`);
        if (!anchors.has(target)) anchors.set(target, existsSync(target) ? anchorsOf(target) : new Set());
        if (!anchors.get(target)!.has(m[2]!)) missing.push(`${relative(ROOT, file)}: ${m[0]}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('every relative link in README, CONTRIBUTING, CHANGELOG and docs/**/*.md points at a file (and heading) of the repository', () => {
    const broken: string[] = [];
    const files = markdownFiles();
    assert.ok(files.length >= 8, `too few Markdown files found: ${files.map((f) => relative(ROOT, f))}`);
    for (const file of files) {
      // Code blocks and code spans show Markdown; they link nowhere.
      const text = readFileSync(file, 'utf8')
        .replace(/```[\s\S]*?```/g, '')
        .replace(/`[^`\n]*`/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const [path = '', hash] = target.split('#');
        const dest = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
        const inside = relative(ROOT, dest);
        // On the npm page a relative link resolves against the repository: it must name a file that is in it.
        const outside = inside.startsWith('..') || NOT_OURS.has(inside.split(sep)[0]!);
        if (outside || !existsSync(dest)) {
          broken.push(`${relative(ROOT, file)}: ${target}`);
          continue;
        }
        if (hash && statSync(dest).isFile() && dest.endsWith('.md') && !anchorsOf(dest).has(hash)) {
          broken.push(`${relative(ROOT, file)}: ${target}`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });

  it('finds heading anchors by the slug rule of GitHub (letters, digits, spaces, - and _ kept)', () => {
    // The checks above are only as good as this rule.
    assert.ok(anchorsOf(join(ROOT, 'README.md')).has('embedding-the-widget'));
    assert.ok(anchorsOf(join(ROOT, 'docs', 'helper.md')).has('endpoints-relative-to-the-mount-point'));
    assert.ok(anchorsOf(join(ROOT, 'docs', 'sandbox.md')).has('clock-faults-reset-and-the-request-log'));
  });
});
