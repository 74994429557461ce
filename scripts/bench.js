#!/usr/bin/env node
// `npm run bench [-- <part>… [--minutes=N]]`: runs every bench/*.bench.ts (or those whose file name contains one
// of the parts named) in turn and writes docs/benchmarks.md. Each bench module exports `run(): Promise<string>`
// returning one Markdown section whose numbers are ratios against a baseline measured in the same run.
// A run of some parts replaces only their sections; the others stay as the last run left them.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';

const OUTPUT = 'docs/benchmarks.md';
const args = process.argv.slice(2);
const only = args.filter((a) => !a.startsWith('--'));
for (const flag of args.filter((a) => a.startsWith('--'))) {
  const minutes = /^--minutes=(\d+(?:\.\d+)?)$/.exec(flag);
  if (minutes) process.env.TESSERA_BENCH_SOAK_MINUTES = minutes[1];
  else {
    console.error(`bench: unknown option ${flag} (known: --minutes=N, the soak's length)`);
    process.exit(2);
  }
}
const all = readdirSync('bench').filter((f) => f.endsWith('.bench.ts'));
const files = all.filter((f) => only.length === 0 || only.some((o) => f.includes(o))).sort();
if (files.length === 0) {
  console.error(`bench: no bench/*.bench.ts matches ${only.join(', ')} (there are: ${all.join(', ')})`);
  process.exit(2);
}
const outDir = '.tmp/bench';
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });

/** Each section is kept between markers naming its bench file, so a partial run can replace just its own. */
const marker = (/** @type {string} */ file) => `<!-- bench: ${file} -->`;
/** @type {Map<string, string>} */
const sections = new Map();
if (existsSync(OUTPUT)) {
  for (const part of readFileSync(OUTPUT, 'utf8')
    .split(/^(?=<!-- bench: )/m)
    .slice(1)) {
    const file = /^<!-- bench: (\S+) -->/.exec(part)?.[1];
    if (file && all.includes(file)) sections.set(file, part.trimEnd());
  }
}

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(', ');
let failed = false;
for (const file of files) {
  console.log(`bench: ${file}`);
  const out = join(outDir, `${file}.md`);
  const before = load();
  const started = new Date();
  const runner = `const m = await import(${JSON.stringify(`./bench/${file}`)}); (await import('node:fs')).writeFileSync(${JSON.stringify(out)}, await m.run());`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', runner], { stdio: 'inherit' });
  const when = `Run ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC; load average (1, 5, 15 min) before: ${before}; after: ${load()}.`;
  if (r.status !== 0) {
    failed = true;
    sections.set(file, `${marker(file)}\n## ${file}\n\nFailed to run (exit ${r.status}). ${when}`);
  } else {
    sections.set(file, `${marker(file)}\n${readFileSync(out, 'utf8').trimEnd()}\n\n_${when}_`);
  }
}

const header = `# Benchmarks

Written by \`npm run bench\`, Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}).
Every figure that has a target is a ratio against a baseline measured in the same run on the same machine,
so the numbers compare across machines even though the absolute values do not.

## Running the benchmarks

\`npm run bench\` builds the package if needed and runs every \`bench/*.bench.ts\` (about 20 minutes, 10 of them the
soak); \`npm run bench -- helper inflight\` runs only the parts whose file names contain those words and replaces
only their sections here. \`npm run bench -- soak --minutes=1\` shortens the soak (or \`TESSERA_BENCH_SOAK_MINUTES\`).
The benchmarks are not part of \`npm test\`; they start their own servers (the sandbox, the helper, reference
servers, \`redis-server\`) as child processes on loopback, the load generator in a process of its own. Each section
ends with the machine's load average before and after it: on a shared machine, read the figures with it.

- **helper**: \`POST /charges\` through the helper (MemoryStore, RedisStore) against a ten-line Express proxy and
  against the same proxy with the stack every helper needs (store in memory, store in Redis), one at a time
  (latency) and with autocannon (throughput).
- **inflight**: 2,000 charges in flight through one helper against a provider that takes its time (the sandbox's
  \`delayMs\` fault), against the same charges straight to the sandbox; the helper's peak RSS.
- **provider**: per-call overhead of the typed provider clients against bare undici.
- **sandbox**: the sandbox's card-token and charge throughput against a bare \`node:http\` server, and its own router
  against the \`router\` package.
- **soak**: charges at a steady rate through the helper for 10 minutes while the sandbox injects faults; double
  charges, lost results, and the helper's memory over time.
- **widget**: keystroke-to-formatted-value time of \`<tessera-card-form>\` in Chromium against a plain input.
`;
const ordered = all
  .sort()
  .filter((f) => sections.has(f))
  .map((f) => sections.get(f));
writeFileSync(OUTPUT, `${[header.trimEnd(), ...ordered].join('\n\n')}\n`);
console.log(`bench: wrote ${OUTPUT}`);
process.exit(failed ? 1 : 0);
