import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { STRICT_NODE_PROJECT } from '../../support/tsconfig.js';
import { installPacked, removeScratch, repo, run } from './packed-package.js';

// Packs the package as `npm publish` would, installs the tarball into a scratch
// project (with Express 5, and React for `tessera-pay/react`) and uses every subpath the way a user would, from ES
// modules and from CommonJS; a second scratch project mounts the helper on Express 4, and a third has no Express
// (a front end's). Needs `npm run build` first. Each project is a fresh copy of an install cached by the tarball's hash
// (installPacked in packed-package.ts), so the Node 22 and 24 runs of this file do not install it again.
let scratch: string;

/**
 * A merchant's Express app as the README shows it, against the packed sandbox: mounts the helper at /payments,
 * makes a card token as the widget does, charges it through the helper, and sends one bad request.
 */
const HELPER_APP = `import { createRequire } from 'node:module';
import express from 'express';
import { startSandbox } from 'tessera-pay/sandbox';
import { tesseraHelper } from 'tessera-pay/server';

const sb = await startSandbox({ port: 0 });
const app = express();
app.use('/payments', tesseraHelper({
  publicKey: sb.credentials.publicKey,
  secretKey: sb.credentials.secretKey,
  legacyBaseUrl: sb.url,
  startupKeyCheck: false,
  resolveCharge: (_req, { orderReference }) => orderReference === 'order-1' ? { amount: 1999, currency: 'EUR' } : undefined,
}));
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = 'http://127.0.0.1:' + server.address().port + '/payments';
const answer = async (res) => ({ status: res.status, body: await res.json() });
const post = (url, body, headers = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
try {
  const config = await answer(await fetch(base + '/config'));
  const token = await answer(await post(config.body.cardTokenUrl,
    { number: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getFullYear() + 2, cvv: '123' },
    { authorization: config.body.publicKey }));
  const charge = await answer(await post(base + '/charges',
    { cardToken: token.body.id, orderReference: 'order-1', email: 'shopper@example.com' }));
  const badCharge = await answer(await post(base + '/charges', { orderReference: 'order-1', email: 'shopper@example.com' }));
  const express = createRequire(import.meta.url)('express/package.json').version;
  console.log('RESULT ' + JSON.stringify({ express, config, charge, badCharge }));
} finally {
  server.close();
  server.closeAllConnections?.();
  await sb.close();
}
`;

/** A scratch project with the packed package on Express 4 and its types: made once, for the tests that need it. */
let express4: string | undefined;
function express4Project(): string {
  express4 ??= installPacked(
    'tessera-consumer-express4-',
    ['express@4', '@types/express@4', '@types/node@20'],
    'consumer4',
  );
  return express4;
}

describe('the packed package', { timeout: 240_000 }, () => {
  before(() => {
    scratch = installPacked('tessera-consumer-', [
      '@types/node@20',
      'express@5',
      // tessera-pay/react's optional peers, and what a React app has beside them.
      'react@19',
      'react-dom@19',
      '@lit/react@1',
      '@types/react@19',
    ]);
  });
  after(() => {
    removeScratch(scratch);
    removeScratch(express4);
  });

  it('imports every subpath from an ES module (server, provider, sandbox, widget, react)', () => {
    writeFileSync(
      join(scratch, 'use.mjs'),
      `import * as server from 'tessera-pay/server';
import * as provider from 'tessera-pay/provider';
import * as sandbox from 'tessera-pay/sandbox';
import * as widget from 'tessera-pay/widget';
import * as react from 'tessera-pay/react';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
const keys = (m) => Object.keys(m).sort();
console.log(JSON.stringify({
  server: keys(server), provider: keys(provider), sandbox: keys(sandbox), widget: keys(widget), react: keys(react),
  html: renderToString(createElement(react.TesseraCardForm, { id: 'card', configUrl: '/payments/config' })),
}));`,
    );
    const out = JSON.parse(run(process.execPath, ['use.mjs'], scratch));
    assert.ok(out.server.includes('loadWidgetAsset'), JSON.stringify(out.server));
    assert.ok(out.provider.includes('TesseraError'), JSON.stringify(out.provider));
    // The values of the element's entries and of the sandbox's are exactly those their references list: the card
    // logic and the sandbox's parts are no public surface (docs/decisions/tooling.md#entry-exports).
    const events = [
      'TesseraCardError',
      'TesseraChangeEvent',
      'TesseraErrorEvent',
      'TesseraReadyEvent',
      'TesseraTokenEvent',
    ];
    assert.deepEqual(out.widget, ['TesseraCardForm', ...events].sort());
    assert.deepEqual(out.react, ['TesseraCardForm', ...events].sort());
    assert.deepEqual(out.sandbox, [
      'DEFAULT_CREDENTIALS',
      'TEST_CARDS',
      'UPDATER_TEST_CARDS',
      'VirtualClock',
      'clientPrefix',
      'createSandboxApp',
      'credentialsFromEnv',
      'startSandbox',
    ]);
    // A server render of the wrapper: the plain tag, its properties set by the client after hydration.
    assert.equal(out.html, '<tessera-card-form id="card"></tessera-card-form>');
  });

  it('is required from CommonJS (require(esm), Node ^20.19, ^22.12, >=24), every subpath and the widget asset', () => {
    writeFileSync(
      join(scratch, 'use.cjs'),
      `const server = require('tessera-pay/server');
const provider = require('tessera-pay/provider');
const sandbox = require('tessera-pay/sandbox');
const widget = require('tessera-pay/widget');
const react = require('tessera-pay/react');
const asset = server.loadWidgetAsset();
console.log(JSON.stringify({
  server: Object.keys(server).sort(),
  provider: Object.keys(provider).sort(),
  sandbox: Object.keys(sandbox).sort(),
  helper: typeof server.tesseraHelper,
  clock: new sandbox.VirtualClock().now() instanceof Date,
  error: new provider.TesseraError('TESSERA_X', 'x').code,
  integrity: asset.integrity,
  widget: typeof widget.TesseraCardForm,
  react: react.TesseraCardForm.displayName,
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
    assert.equal(out.widget, 'function');
    assert.equal(out.react, 'TesseraCardForm');
  });

  it('finds the built widget bundle and its SRI hash from the installed package', () => {
    const out = run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { loadWidgetAsset } from 'tessera-pay/server'; const a = loadWidgetAsset(); console.log(a.integrity, a.body.length);`,
      ],
      scratch,
    );
    assert.match(out, /^sha384-[A-Za-z0-9+/]{64} \d+\n$/);
  });

  it('mounts the helper on Express 5 and on Express 4, and both answer /config and a real charge', () => {
    // The helper imports `express` itself (a peer dependency), so Express 4 needs its own project.
    const scratch4 = express4Project();
    const answers = [scratch, scratch4].map((dir) => {
      writeFileSync(join(dir, 'helper-app.mjs'), HELPER_APP);
      // The helper's default logger writes to stdout too; the answer is the RESULT line.
      const line = run(process.execPath, ['helper-app.mjs'], dir)
        .split('\n')
        .find((l) => l.startsWith('RESULT '));
      assert.ok(line, `no RESULT line from the app in ${dir}`);
      return JSON.parse(line.slice('RESULT '.length));
    });
    assert.deepEqual(
      answers.map((a) => Number(a.express.split('.')[0])),
      [5, 4],
    );
    for (const a of answers) {
      assert.equal(a.config.status, 200, JSON.stringify(a));
      assert.deepEqual(Object.keys(a.config.body).sort(), [
        'cardTokenUrl',
        'environment',
        'publicKey',
        'widgetIntegrity',
      ]);
      assert.equal(a.charge.status, 201, JSON.stringify(a));
      assert.equal(a.charge.body.approved, true);
      assert.equal(a.charge.body.last4, '4242');
      assert.match(a.charge.body.id, /^charge_/);
      assert.equal(a.badCharge.status, 400, JSON.stringify(a));
      assert.match(JSON.stringify(a.badCharge.body), /cardToken/);
    }
  });

  it('type-checks the helper on Express 4 with its own types (@types/express 4): one copy, the app’s', () => {
    // A TypeScript app on Express 4 installs @types/express 4. Were the package to keep a copy of @types/express 5
    // of its own, its router and middleware would be typed by that copy, and `app.use(payments.mountPath, payments)`
    // and `app.get(path, tesseraCsp(…), …)` would not compile: the two copies' `Application`s differ.
    const scratch4 = express4Project();
    writeFileSync(
      join(scratch4, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          ...STRICT_NODE_PROJECT,
          lib: ['ES2023'],
          skipLibCheck: false,
        },
        files: ['app.ts'],
      }),
    );
    writeFileSync(
      join(scratch4, 'app.ts'),
      `import express from 'express';
import { tesseraCsp, tesseraHelper } from 'tessera-pay/server';
const payments = tesseraHelper({
  mountPath: '/payments',
  publicKey: 'pk_sbox_x',
  secretKey: 'sk_sbox_x',
  resolveCharge: (req, { orderReference }) => (req.ip && orderReference ? { amount: 1999, currency: 'EUR' } : undefined),
});
const app = express();
app.use(payments.mountPath, payments);
app.use(express.json());
app.get('/checkout', tesseraCsp({ cardTokenUrl: payments.cardTokenUrl }), (req, res) => {
  res.send(payments.page(req, res).scriptTag);
});
app.use('/shops/:shop/payments', payments);
`,
    );
    run(join(repo, 'node_modules', '.bin', 'tsc'), ['-p', '.'], scratch4);
    assert.equal(existsSync(join(scratch4, 'node_modules', 'tessera-pay', 'node_modules', '@types', 'express')), false);
  });

  it('installs without Express where only the widget, the clients or the sandbox are used; the helper and the demo say what is missing', () => {
    const bare = installPacked('tessera-consumer-bare-', [], 'front-end');
    try {
      assert.equal(existsSync(join(bare, 'node_modules', 'express')), false, 'npm installed Express');
      const out = run(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const widget = await import('tessera-pay/widget');
const provider = await import('tessera-pay/provider');
const { startSandbox } = await import('tessera-pay/sandbox');
const sb = await startSandbox({ port: 0 });
const legacy = provider.createLegacyClient({ publicKey: sb.credentials.publicKey, baseUrl: sb.url });
const token = await legacy.cardTokens.create({ number: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getFullYear() + 2, cvv: '123' });
await legacy.close();
await sb.close();
let server = 'loaded';
try { await import('tessera-pay/server'); } catch (err) { server = err.message; }
console.log(JSON.stringify({ widget: typeof widget.TesseraCardForm, token: token.data.id, server }));`,
        ],
        bare,
      );
      const result = JSON.parse(out);
      assert.equal(result.widget, 'function');
      assert.match(result.token, /^card_tok_/);
      assert.match(result.server, /Cannot find package 'express'/);
      const bin = join(bare, 'node_modules', '.bin', 'tessera-pay');
      assert.match(run(bin, ['sandbox', '--help'], bare), /Usage: tessera-pay sandbox/);
      const demo = spawnSync(bin, ['demo'], { cwd: bare, encoding: 'utf8', timeout: 60_000 });
      assert.equal(demo.status, 1, demo.stderr);
      assert.match(
        demo.stderr,
        /^tessera-pay demo: the demo runs on Express, which is not installed here: npm install express$/m,
      );
    } finally {
      removeScratch(bare);
    }
  });

  it('resolves tessera-pay/widget to an ES module for bundlers', () => {
    const out = run(
      process.execPath,
      ['--input-type=module', '-e', `console.log(import.meta.resolve('tessera-pay/widget'))`],
      scratch,
    );
    assert.match(out, /node_modules\/tessera-pay\/dist\/widget\/index\.js\n$/);
  });

  it('type-checks a consumer that uses every subpath, and rejects misuse', () => {
    mkdirSync(join(scratch, 'src'), { recursive: true });
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          ...STRICT_NODE_PROJECT,
          lib: ['ES2023', 'DOM'],
          jsx: 'react-jsx',
          skipLibCheck: false,
        },
        include: ['src'],
      }),
    );
    writeFileSync(
      join(scratch, 'src', 'ok.ts'),
      `import { loadWidgetAsset, type WidgetAsset } from 'tessera-pay/server';
import { TesseraError } from 'tessera-pay/provider';
import { VirtualClock } from 'tessera-pay/sandbox';
import { type BrandId, type CardToken, TesseraCardForm, type TesseraTokenEvent } from 'tessera-pay/widget';
const asset: WidgetAsset = loadWidgetAsset();
const integrity: string = asset.integrity;
const err: string = new TesseraError('TESSERA_X', 'x').code;
const now: Date = new VirtualClock().now();
const el: TesseraCardForm = document.createElement('tessera-card-form');
const key: string = el.publicKey;
const accepted: BrandId[] = ['visa', 'mastercard'];
el.acceptedBrands = accepted;
el.addEventListener('tessera-token', (e: TesseraTokenEvent) => {
  const token: CardToken = e.detail;
  const brand: BrandId = token.brand;
  return brand;
});
export { integrity, err, now, key };
`,
    );
    // tessera-pay/react: the wrapper (props, event props, ref) and the element used directly in React JSX.
    writeFileSync(
      join(scratch, 'src', 'checkout.tsx'),
      `import { useRef } from 'react';
import { TesseraCardForm, type TesseraCardFormElement, TesseraCardError } from 'tessera-pay/react';
export function Checkout({ pay }: { pay: (token: string) => void }) {
  const ref = useRef<TesseraCardFormElement>(null);
  const retry = () => ref.current?.tokenize().catch((e: unknown) => e instanceof TesseraCardError && e.code);
  return (
    <form>
      <TesseraCardForm ref={ref} configUrl="/payments/config" acceptedBrands={['visa']} hideName
        onTesseraToken={(e) => pay(e.detail.token)} onTesseraError={(e) => e.detail.message} onChange={retry} />
      <tessera-card-form config-url="/payments/config" hide-name ontessera-token={(e) => pay(e.detail.token)} />
    </form>
  );
}
`,
    );
    const tsc = join(repo, 'node_modules', '.bin', 'tsc');
    run(tsc, ['-p', '.'], scratch);
    writeFileSync(
      join(scratch, 'src', 'bad.ts'),
      `import { VirtualClock } from 'tessera-pay/sandbox';\nnew VirtualClock().advance('ten');\n`,
    );
    writeFileSync(
      join(scratch, 'src', 'bad-react.tsx'),
      `import { TesseraCardForm } from 'tessera-pay/react';
export const A = () => <TesseraCardForm publicKey={42} />;
export const B = () => <tessera-card-form public-key={42} />;
`,
    );
    let out = '';
    assert.throws(() => {
      try {
        run(tsc, ['-p', '.'], scratch);
      } catch (e) {
        out = (e as { stdout?: string }).stdout ?? '';
        throw e;
      }
    });
    assert.match(out, /bad\.ts\(2,\d+\): error TS2345/);
    assert.match(out, /bad-react\.tsx\(2,\d+\): error TS2322/);
    assert.match(out, /bad-react\.tsx\(3,\d+\): error TS2322/);
  });

  it('ships the demo pages’ scripts once, where the demo serves them (demo/public), and no compiled copy of them', () => {
    const root = join(scratch, 'node_modules', 'tessera-pay');
    assert.ok(existsSync(join(root, 'demo', 'public', 'checkout.js')));
    // tsc copied these browser scripts (and declarations of them) into dist/demo/public: nothing loads them.
    assert.equal(existsSync(join(root, 'dist', 'demo', 'public')), false, 'dist/demo/public is in the package');
  });

  it('ships no source map that points at a file it does not ship, and no reference to a missing map', () => {
    const root = join(scratch, 'node_modules', 'tessera-pay');
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
