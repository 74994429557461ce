#!/usr/bin/env node
// The `tessera-pay` command: a thin launcher for the compiled CLI in dist/.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/server/cli/main.js', import.meta.url);
if (!existsSync(cli)) {
  console.error('tessera-pay: not built yet; run `npm run build` in the package folder first.');
  process.exit(1);
}
const { main } = await import(cli.href);
const code = await main(process.argv.slice(2));
if (code !== 0) process.exitCode = code;
