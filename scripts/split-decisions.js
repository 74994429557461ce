#!/usr/bin/env node
// Files the decision entries of docs/DECISIONS.md into one file per part, docs/decisions/<part>.md, leaves
// docs/DECISIONS.md as the index (one line per entry with its link), gives every entry a status line, and rewrites
// every citation of a moved anchor (`docs/DECISIONS.md` + `#anchor` in code, tests and docs, and relative Markdown
// links to it) to the entry's new file.
//
// Idempotent: on a tree that is already split it changes nothing; an entry appended to docs/DECISIONS.md under the
// heading of its part (after a merge, say) is moved into that part on the next run. Entries keep their text and
// order; `### <a id="…"></a>Title` starts an entry, `## Section` names its part (the table below).
//
// Usage: node scripts/split-decisions.js [--root DIR]     (DIR defaults to the current folder)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoFiles } from './repo-files.js';

/** Each section heading of the decisions, in order, and the part (file) it belongs to. */
/** @type {[string, string][]} */
const SECTIONS = [
  ['Tooling', 'tooling'],
  ['CI', 'tooling'],
  ['Widget', 'widget'],
  ['React and other frameworks', 'widget'],
  ['Provider clients', 'provider'],
  ['Helper', 'helper'],
  ['Sandbox core', 'sandbox'],
  ['Sandbox: legacy API', 'sandbox'],
  ['Sandbox: Account Services', 'sandbox'],
  ['Demo', 'demo'],
];
const PART_OF = new Map(SECTIONS);

/** @typedef {{ section: string, anchor: string, lines: string[] }} Entry */

/** Entries that sat in the wrong section of the single file: anchor → the section they belong to. */
/** @type {Map<string, string>} */
const MOVED = new Map([
  ['server-timeouts', 'Sandbox core'],
  ['sandbox-memory', 'Sandbox core'],
]);

/** @type {Record<string, [title: string, about: string]>} */
const PARTS = {
  tooling: ['Tooling decisions', 'Build, tests, linting, packaging and CI.'],
  widget: ['Widget decisions', '`<tessera-card-form>` and `tessera-pay/widget`.'],
  provider: ['Provider client decisions', 'The clients of `tessera-pay/provider`.'],
  helper: ['Helper decisions', 'The Express helper, `tessera-pay/server`.'],
  sandbox: ['Sandbox decisions', 'The local provider, `tessera-pay/sandbox` and `tessera-pay sandbox`.'],
  demo: ['Demo decisions', 'The demo that `npm start` runs.'],
};

const INDEX_INTRO = `# Decisions

Choices the provider's API specifications and the design leave open, one entry per decision with
its reason and a status line (\`Status: accepted\`, \`proposed\` or \`superseded by …\`), in one file per part under
[decisions/](decisions/). Code that implements one cites it as \`docs/decisions/<part>.md#<anchor>\`.

To add an entry, append it below under the heading of its part (\`### <a id="anchor"></a>Title\`, a status line,
then the reason) and run \`node scripts/split-decisions.js\`: it moves the entry into its part's file, lists it
here and rewrites citations of \`docs/DECISIONS.md\` + \`#anchor\` to the new file
([CONTRIBUTING.md](../CONTRIBUTING.md#decisions)).
`;

const args = process.argv.slice(2);
const rootArg = args.indexOf('--root');
const ROOT = resolve((rootArg >= 0 && args[rootArg + 1]) || '.');
const INDEX = join(ROOT, 'docs', 'DECISIONS.md');
const PART_DIR = join(ROOT, 'docs', 'decisions');
const partFile = (/** @type {string} */ part) => join(PART_DIR, `${part}.md`);

/** @param {string} message @returns {never} */
function fail(message) {
  console.error(`split-decisions: ${message}`);
  process.exit(1);
}

/**
 * Reads the sections and entries of a decisions file (the single file, the index or a part file): entries are
 * `### ` headings with the lines up to the next `##`/`###` heading, outside code fences; anything else is skipped.
 */
function parse(/** @type {string} */ file) {
  /** @type {Entry[]} */
  const entries = [];
  /** @type {string | undefined} */
  let section;
  /** @type {Entry | undefined} */
  let current;
  let fence = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^(```|~~~)/.test(line)) fence = !fence;
    const heading = fence ? undefined : /^(##|###) (.*)$/.exec(line);
    if (heading?.[1] === '##') {
      section = (heading[2] ?? '').trim();
      current = undefined;
      continue;
    }
    if (heading?.[1] === '###') {
      const anchor = /^<a id="([^"]+)"><\/a>/.exec(heading[2] ?? '')?.[1];
      if (!anchor) fail(`${relative(ROOT, file)}: the entry "${line}" has no <a id="…"></a> anchor`);
      if (section === undefined) fail(`${relative(ROOT, file)}: the entry #${anchor} is under no "## Section" heading`);
      current = { section: MOVED.get(anchor) ?? section, anchor, lines: [line] };
      entries.push(current);
      continue;
    }
    if (/^#{1,2} /.test(line) && !fence) current = undefined;
    else if (current) current.lines.push(line);
  }
  for (const e of entries) {
    while (e.lines.length > 1 && e.lines.at(-1)?.trim() === '') e.lines.pop();
    if (!PART_OF.has(e.section)) {
      fail(
        `${relative(ROOT, file)}: #${e.anchor} is under "## ${e.section}", which is no part; use one of: ${SECTIONS.map(([s]) => s).join(', ')}`,
      );
    }
  }
  return entries;
}

/** The entry with a status line right under its heading (`Status: accepted` unless it already says). */
function withStatus(/** @type {Entry} */ entry) {
  const first = entry.lines.slice(1).find((l) => l.trim() !== '');
  if (first !== undefined && /^(?:<a id="[^"]+"><\/a>)?Status: /.test(first)) return entry;
  return { ...entry, lines: [entry.lines[0] ?? '', 'Status: accepted', ...entry.lines.slice(1)] };
}

function statusOf(/** @type {Entry} */ entry) {
  const line = entry.lines.slice(1).find((l) => l.trim() !== '') ?? '';
  return /Status: ([a-z]+(?: by \S+)?)/.exec(line)?.[1] ?? 'accepted';
}

const titleOf = (/** @type {Entry} */ entry) => (entry.lines[0] ?? '').replace(/^### <a id="[^"]+"><\/a>/, '').trim();
const anchorsIn = (/** @type {Entry} */ entry) =>
  [...entry.lines.join('\n').matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1] ?? '');

// 1. Every entry: those already in part files, then those still in docs/DECISIONS.md (moved into their part).
if (!existsSync(INDEX)) fail(`${relative(ROOT, INDEX)} does not exist`);
/** @type {Map<string, Entry[]>} */
const bySection = new Map(SECTIONS.map(([s]) => [s, []]));
/** @type {Map<string, string>} */
const seen = new Map();
/** @param {Entry} entry @param {string} from */
const add = (entry, from) => {
  for (const anchor of anchorsIn(entry)) {
    if (seen.has(anchor)) fail(`#${anchor} is in both ${seen.get(anchor)} and ${from}`);
    seen.set(anchor, from);
  }
  bySection.get(entry.section)?.push(withStatus(entry));
};
for (const part of Object.keys(PARTS)) {
  const file = partFile(part);
  if (!existsSync(file)) continue;
  for (const entry of parse(file)) {
    if (PART_OF.get(entry.section) !== part) fail(`${relative(ROOT, file)}: "## ${entry.section}" belongs in ${part}`);
    add(entry, relative(ROOT, file));
  }
}
// Relative links in an entry that leaves docs/ for docs/decisions/ are rebased, so they still reach their file.
const rebase = (/** @type {string} */ line) =>
  line.replace(/\]\(([^)\s#][^)\s]*)\)/g, (m, /** @type {string} */ target) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return m;
    const [path, hash] = target.split('#');
    const moved = relative(PART_DIR, resolve(dirname(INDEX), path ?? ''))
      .split(sep)
      .join('/');
    return `](${moved}${hash === undefined ? '' : `#${hash}`})`;
  });
const fresh = parse(INDEX);
for (const entry of fresh) add({ ...entry, lines: entry.lines.map(rebase) }, relative(ROOT, INDEX));

// 2. Where each anchor lives now, and how a citation of one is written: `docs/decisions/<part>.md#<anchor>`.
/** @type {Map<string, string>} */
const home = new Map();
for (const [section, entries] of bySection) {
  for (const entry of entries) for (const anchor of anchorsIn(entry)) home.set(anchor, PART_OF.get(section) ?? '');
}

/** A citation in code (a comment, a test): the index file and an anchor, with or without `docs/`. */
const CITATION = /(?<![\w./-])(?:docs\/)?DECISIONS\.md#([A-Za-z0-9_-]+)/g;
/** A citation in Markdown prose, where the index without `docs/` is a relative link or its text. */
const MD_CITATION = /(?<![\w./-])docs\/DECISIONS\.md#([A-Za-z0-9_-]+)/g;
const cite = (/** @type {string} */ m, /** @type {string} */ anchor) =>
  home.has(anchor) ? `docs/decisions/${home.get(anchor)}.md#${anchor}` : m;

// 3. The part files and the index. Links between entries of different parts point at the other file.
mkdirSync(PART_DIR, { recursive: true });
/** @type {Map<string, string>} */
const written = new Map();
for (const [part, [title, about]] of Object.entries(PARTS)) {
  const sections = SECTIONS.filter(([s, p]) => p === part && (bySection.get(s)?.length ?? 0) > 0);
  if (sections.length === 0) continue;
  let text = `# ${title}\n\n${about} Index of every part: [DECISIONS.md](../DECISIONS.md).\n`;
  for (const [section] of sections) {
    text += `\n## ${section}\n`;
    for (const entry of bySection.get(section) ?? []) {
      const body = entry.lines
        .join('\n')
        .replace(/\]\(#([A-Za-z0-9_-]+)\)/g, (m, /** @type {string} */ a) =>
          home.has(a) && home.get(a) !== part ? `](${home.get(a)}.md#${a})` : m,
        )
        .replace(/\]\(([a-z]+)\.md#([A-Za-z0-9_-]+)\)/g, (m, /** @type {string} */ p, /** @type {string} */ a) =>
          home.get(a) === part && p === part ? `](#${a})` : m,
        )
        .replace(MD_CITATION, cite);
      text += `\n${body}\n`;
    }
  }
  written.set(partFile(part), text);
}
let index = INDEX_INTRO;
for (const [section, entries] of bySection) {
  if (entries.length === 0) continue;
  index += `\n## ${section}\n\n`;
  for (const entry of entries) {
    const status = statusOf(entry);
    const note = status === 'accepted' ? '' : ` (${status})`;
    index += `- [${titleOf(entry)}](decisions/${PART_OF.get(section)}.md#${entry.anchor})${note}\n`;
  }
}
written.set(INDEX, index);

// 4. Citations elsewhere: in any text, and relative Markdown links to the index with an anchor.
const self = fileURLToPath(import.meta.url);
for (const file of repoFiles(ROOT)) {
  if (written.has(file) || file === self) continue;
  const before = readFileSync(file, 'utf8');
  let after = before;
  if (file.endsWith('.md')) {
    after = after.replace(
      /\]\(([^)\s#]*DECISIONS\.md)#([A-Za-z0-9_-]+)\)/g,
      (m, /** @type {string} */ path, /** @type {string} */ anchor) => {
        if (!home.has(anchor) || resolve(dirname(file), path) !== INDEX) return m;
        const target = relative(dirname(file), partFile(home.get(anchor) ?? ''))
          .split(sep)
          .join('/');
        return `](${target}#${anchor})`;
      },
    );
  }
  // In Markdown the index without `docs/`, outside a link target, is link text or prose relative to its own folder.
  after = file.endsWith('.md') ? after.replace(MD_CITATION, cite) : after.replace(CITATION, cite);
  if (after !== before) written.set(file, after);
}

let changed = 0;
for (const [file, text] of written) {
  if (existsSync(file) && readFileSync(file, 'utf8') === text) continue;
  writeFileSync(file, text);
  changed++;
  console.log(`split-decisions: wrote ${relative(ROOT, file)}`);
}
console.log(
  `split-decisions: ${seen.size} anchors in ${home.size ? new Set(home.values()).size : 0} parts; ${fresh.length} entries moved; ${changed} files changed`,
);
