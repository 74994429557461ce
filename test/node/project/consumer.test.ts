import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { installPacked, removeScratch, repo, run } from './packed-package.js';

// Packs the package as `npm publish` would, installs the tarball into a scratch
// project and uses every subpath the way a user would. Needs `npm run build` first.
let scratch: string;

describe('the packed package', { timeout: 240_000 }, () => {
  before(() => {
    scratch = installPacked('tessera-consumer-', ['@types/node@20']);
  });
  after(() => removeScratch(scratch));

  it('imports the Node subpaths (server, provider, sandbox)', () => {
    writeFileSync(
      join(scratch, 'use.mjs'),
      `import * as server from 'tessera/server';
import * as provider from 'tessera/provider';
import * as sandbox from 'tessera/sandbox';
console.log(JSON.stringify({ server: Object.keys(server).sort(), provider: Object.keys(provider).sort(), sandbox: Object.keys(sandbox).sort() }));`,
    );
    const out = JSON.parse(run(process.execPath, ['use.mjs'], scratch));
    assert.ok(out.server.includes('loadWidgetAsset'), JSON.stringify(out.server));
    assert.ok(out.provider.includes('TesseraError'), JSON.stringify(out.provider));
    assert.ok(out.sandbox.includes('VirtualClock'), JSON.stringify(out.sandbox));
  });

  it('is required from CommonJS (require(esm), Node ^20.19, ^22.12, >=24), every Node subpath and the widget asset', () => {
    writeFileSync(
      join(scratch, 'use.cjs'),
      `const server = require('tessera/server');
const provider = require('tessera/provider');
const sandbox = require('tessera/sandbox');
const asset = server.loadWidgetAsset();
console.log(JSON.stringify({
  server: Object.keys(server).sort(),
  provider: Object.keys(provider).sort(),
  sandbox: Object.keys(sandbox).sort(),
  helper: typeof server.tesseraHelper,
  clock: new sandbox.VirtualClock().now() instanceof Date,
  error: new provider.TesseraError('TESSERA_X', 'x').code,
  integrity: asset.integrity,
}));`,
    );
    // Node 20 and 22 print an ExperimentalWarning for require(esm) on stderr; stdout is the answer.
    const out = JSON.parse(run(process.execPath, ['use.cjs'], scratch));
    assert.ok(out.server.includes('loadWidgetAsset'), JSON.stringify(out.server));
    assert.ok(out.provider.includes('TesseraError'), JSON.stringify(out.provider));
    assert.ok(out.sandbox.includes('VirtualClock'), JSON.stringify(out.sandbox));
    assert.equal(out.helper, 'function');
    assert.equal(out.clock, true);
    assert.equal(out.error, 'TESSERA_X');
    assert.match(out.integrity, /^sha384-[A-Za-z0-9+/]{64}$/);
  });

  it('finds the built widget bundle and its SRI hash from the installed package', () => {
    const out = run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { loadWidgetAsset } from 'tessera/server'; const a = loadWidgetAsset(); console.log(a.integrity, a.body.length);`,
      ],
      scratch,
    );
    assert.match(out, /^sha384-[A-Za-z0-9+/]{64} \d+\n$/);
  });

  it('resolves tessera/widget to an ES module for bundlers', () => {
    const out = run(
      process.execPath,
      ['--input-type=module', '-e', `console.log(import.meta.resolve('tessera/widget'))`],
      scratch,
    );
    assert.match(out, /node_modules\/tessera\/dist\/widget\/index\.js\n$/);
  });

  it('type-checks a consumer that uses every subpath, and rejects misuse', () => {
    mkdirSync(join(scratch, 'src'), { recursive: true });
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          noEmit: true,
          lib: ['ES2023', 'DOM'],
          skipLibCheck: false,
          types: ['node'],
        },
        include: ['src'],
      }),
    );
    writeFileSync(
      join(scratch, 'src', 'ok.ts'),
      `import { loadWidgetAsset, type WidgetAsset } from 'tessera/server';
import { TesseraError } from 'tessera/provider';
import { VirtualClock } from 'tessera/sandbox';
import { TesseraCardForm, detectBrand } from 'tessera/widget';
const asset: WidgetAsset = loadWidgetAsset();
const integrity: string = asset.integrity;
const err: string = new TesseraError('TESSERA_X', 'x').code;
const now: Date = new VirtualClock().now();
const el: TesseraCardForm = document.createElement('tessera-card-form');
const key: string = el.publicKey;
const brand: string | undefined = detectBrand('4242')?.id;
export { integrity, err, now, key, brand };
`,
    );
    const tsc = join(repo, 'node_modules', '.bin', 'tsc');
    run(tsc, ['-p', '.'], scratch);
    writeFileSync(
      join(scratch, 'src', 'bad.ts'),
      `import { VirtualClock } from 'tessera/sandbox';\nnew VirtualClock().advance('ten');\n`,
    );
    assert.throws(
      () => run(tsc, ['-p', '.'], scratch),
      (e: { stdout?: string }) => /bad\.ts.*TS2345/s.test(e.stdout ?? ''),
    );
  });

  it('ships no source map that points at a file it does not ship, and no reference to a missing map', () => {
    const root = join(scratch, 'node_modules', 'tessera');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).map((f) => join(root, f));
    const maps = files.filter((f) => f.endsWith('.map'));
    const broken: string[] = [];
    for (const map of maps) {
      const { sources = [], sourcesContent = [], sourceRoot = '' } = JSON.parse(readFileSync(map, 'utf8'));
      sources.forEach((source: string, i: number) => {
        if (typeof sourcesContent[i] === 'string') return;
        if (!existsSync(resolve(dirname(map), sourceRoot, source))) broken.push(`${relative(root, map)} → ${source}`);
      });
    }
    assert.deepEqual(broken, [], 'maps whose sources are neither shipped nor embedded');
    // The widget bundle keeps its map (complete: every source embedded); the server build ships none.
    assert.deepEqual(
      maps.map((m) => relative(root, m)),
      [join('dist', 'widget', 'tessera-card-form.js.map')],
    );
    for (const file of files.filter((f) => /\.(?:js|d\.ts)$/.test(f))) {
      const ref = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(file, 'utf8'))?.[1];
      if (ref && !ref.startsWith('data:')) {
        assert.ok(existsSync(resolve(dirname(file), ref)), `${relative(root, file)} names a missing map ${ref}`);
      }
    }
  });
});
