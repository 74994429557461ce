import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/**
 * The folder of the installed `tessera-pay` package (the repository when run from
 * source, `node_modules/tessera-pay` when installed), found by walking up from this
 * file: the first package.json whose `name` is ours (docs/decisions/tooling.md#tooling-package-name).
 * Works the same from `server/` through tsx and from `dist/server/`.
 */
export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'tessera-pay') {
      cached = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error('tessera: cannot find the package root above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}
