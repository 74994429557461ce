// The repository's own text files, for the scripts and tests that read or rewrite every one of them
// (scripts/split-decisions.js, test/node/project/docs-links.test.ts).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Folders that are not the repository's own text: installed, built, cached or written by test runs. */
export const NOT_OURS = new Set(['node_modules', 'dist', '.git', '.cache', 'coverage', 'test-results', '.tmp']);

/** File names that hold text we write (sources, docs, configuration, the CI script). */
const TEXT = /\.(?:[cm]?[jt]s|md|html|json|css|ya?ml|sh)$|^run$/;

/**
 * Every text file under `dir`, outside the folders in {@link NOT_OURS} and the lock file.
 * @param {string} dir
 * @returns {string[]}
 */
export function repoFiles(dir) {
  /** @type {string[]} */
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (NOT_OURS.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...repoFiles(path));
    else if (entry.isFile() && TEXT.test(entry.name) && entry.name !== 'package-lock.json') out.push(path);
  }
  return out;
}
