#!/usr/bin/env node
// `npm run bench`: runs every bench/*.bench.ts in turn and writes docs/benchmarks.md.
// Each bench module exports `run(): Promise<string>` returning one Markdown section
// whose numbers are ratios against a baseline measured in the same run.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

const only = process.argv.slice(2);
const files = readdirSync('bench')
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
const outDir = '.tmp/bench';
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });

const sections = [];
let failed = false;
for (const file of files) {
  console.log(`bench: ${file}`);
  const out = join(outDir, `${file}.md`);
  const runner = `const m = await import(${JSON.stringify(`./bench/${file}`)}); (await import('node:fs')).writeFileSync(${JSON.stringify(out)}, await m.run());`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', runner], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed = true;
    sections.push(`## ${file}\n\nFailed to run (exit ${r.status}).\n`);
  } else {
    sections.push(readFileSync(out, 'utf8'));
  }
}

const header = `# Benchmarks

Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}).
Every figure that has a target is a ratio against a baseline measured in the same run on the same machine,
so the numbers compare across machines even though the absolute values do not.
`;
writeFileSync('docs/benchmarks.md', [header, ...sections].join('\n'));
console.log('bench: wrote docs/benchmarks.md');
process.exit(failed ? 1 : 0);
