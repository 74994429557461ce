import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The project root (four levels above this file). */
export const ROOT = resolve(import.meta.dirname, '../../../..');

/** One import of a source file: the file it names (root-relative) and whether it is `import type` only. */
export interface Edge {
  readonly to: string;
  readonly typeOnly: boolean;
}

/** Every `.ts` source file under `folder` (root-relative paths), tests excluded. */
export function sourceFiles(folder: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.test.ts'))
        out.push(path);
    }
  };
  walk(folder);
  return out.sort();
}

// Static `import … from '…'`, `export … from '…'`, bare `import '…'` and `import('…')` with a literal. The
// patterns read our own sources (not attacker text); each is anchored on a keyword and a quote.
const STATIC = /^\s*(import|export)\s+(type\s+)?[^'"]*?\bfrom\s+['"]([^'"]+)['"]/gm;
const BARE = /^\s*import\s+['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The relative imports of one file, resolved to root-relative `.ts` paths. Package imports are left out. */
export function importsOf(file: string): Edge[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const edges: Edge[] = [];
  const add = (spec: string, typeOnly: boolean): void => {
    if (!spec.startsWith('.')) return;
    const to = relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.js$/, '.ts');
    edges.push({ to, typeOnly });
  };
  for (const m of text.matchAll(STATIC)) add(m[3] ?? '', m[2] !== undefined);
  for (const m of text.matchAll(BARE)) add(m[1] ?? '', false);
  for (const m of text.matchAll(DYNAMIC)) add(m[1] ?? '', false);
  return edges;
}

/** Package names (`lit`, `@lit/reactive-element`, `node:fs`) a file imports. */
export function packagesOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specs = [...text.matchAll(STATIC)].map((m) => m[3] ?? '');
  specs.push(...[...text.matchAll(BARE)].map((m) => m[1] ?? ''));
  specs.push(...[...text.matchAll(DYNAMIC)].map((m) => m[1] ?? ''));
  return specs.filter((s) => s !== '' && !s.startsWith('.'));
}

/**
 * The strongly connected components of more than one file (or a file importing itself) in the graph of
 * runtime imports: each is an import cycle. Tarjan's algorithm.
 */
export function cycles(files: readonly string[], includeTypeOnly: boolean): string[][] {
  const graph = new Map<string, string[]>();
  for (const f of files) {
    graph.set(
      f,
      importsOf(f)
        .filter((e) => includeTypeOnly || !e.typeOnly)
        .map((e) => e.to),
    );
  }
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, idx.get(w) ?? 0));
      }
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const f of files) if (!idx.has(f)) visit(f);
  return found;
}
