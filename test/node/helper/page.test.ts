import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { tesseraCsp, tesseraHelper } from '../../../server/helper/index.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { captureLogger, cardToken } from './support.js';

/**
 * A merchant app that writes the mount path once (`mountPath`) and builds its page from `helper.page()`;
 * `parent` mounts the whole app under a prefix, as a shop inside a bigger site would be.
 */
async function merchant(sb: RunningSandbox, mountPath: string, parent?: string, mountAt?: string) {
  const { logger, log } = captureLogger();
  const helper = tesseraHelper({
    mountPath,
    publicKey: sb.credentials.publicKey,
    secretKey: sb.credentials.secretKey,
    legacyBaseUrl: sb.url,
    now: () => sb.clock.nowMs(),
    resolveCharge: () => ({ amount: 1000, currency: 'EUR' }),
    logger,
  });
  const app = express();
  app.use(mountAt ?? helper.mountPath!, helper);
  app.get('/checkout', tesseraCsp({ cardTokenUrl: helper.cardTokenUrl }), (req, res) => {
    const page = helper.page(req, res);
    res.json({ ...page, nonce: res.locals.cspNonce });
  });
  const root = parent ? express().use(parent, app) : app;
  const server = createServer(root);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('helper.page: one mount path for the script tag, config and charge URLs', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await startSandbox();
  });
  after(() => sb.close());

  for (const [mountPath, parent, expected] of [
    ['/api', undefined, '/api'],
    ['/pay/v1', undefined, '/pay/v1'],
    ['/pay/v1', '/shop', '/shop/pay/v1'],
  ] as const) {
    it(`mounted at ${mountPath}${parent ? ` in an app under ${parent}` : ''}: every URL it builds answers`, async () => {
      const m = await merchant(sb, mountPath, parent);
      try {
        const page = (await call(`${m.origin}${parent ?? ''}/checkout`)).json;
        assert.equal(page.baseUrl, expected);
        assert.equal(page.configUrl, `${expected}/config`);
        assert.equal(page.chargesUrl, `${expected}/charges`);
        // The tag loads the URL it names, with the SRI of the bundle it gets and the page's nonce.
        const src = /src="([^"]+)"/.exec(page.scriptTag)![1]!.replace(/&amp;/g, '&');
        assert.equal(src, page.widgetUrl);
        assert.ok(page.scriptTag.includes(`nonce="${page.nonce}"`), page.scriptTag);
        const bundle = await call(`${m.origin}${src}`);
        assert.equal(bundle.status, 200);
        assert.match(bundle.headers.get('cache-control')!, /immutable/);
        const config = await call(`${m.origin}${page.configUrl}`);
        assert.equal(config.status, 200);
        assert.equal(config.json.publicKey, sb.credentials.publicKey);
        assert.ok(page.scriptTag.includes(`integrity="${config.json.widgetIntegrity}"`));
        const charge = await call(`${m.origin}${page.chargesUrl}`, {
          body: { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' },
        });
        assert.equal(charge.status, 201, charge.text);
        assert.equal(m.log.lines.filter((l) => l.event === 'tessera.mount_mismatch').length, 0);
      } finally {
        await m.close();
      }
    });
  }

  it('warns once in the log when the helper is mounted somewhere other than mountPath', async () => {
    const m = await merchant(sb, '/api', undefined, '/elsewhere');
    try {
      assert.equal((await call(`${m.origin}/elsewhere/config`)).status, 200);
      assert.equal((await call(`${m.origin}/elsewhere/config`)).status, 200);
      const warnings = m.log.lines.filter((l) => l.event === 'tessera.mount_mismatch');
      assert.equal(warnings.length, 1);
      assert.equal(warnings[0]!.baseUrl, '/elsewhere');
      assert.equal(warnings[0]!.mountPath, '/api');
    } finally {
      await m.close();
    }
  });

  it('takes a first request in another case (Express routes case-insensitively) as no mismatch', async () => {
    const m = await merchant(sb, '/api');
    try {
      // Anyone may send the first request: it must not put a false warning in the log.
      assert.equal((await call(`${m.origin}/API/config`)).status, 200);
      assert.equal((await call(`${m.origin}/api/config`)).status, 200);
      assert.deepEqual(
        m.log.lines.filter((l) => l.event === 'tessera.mount_mismatch'),
        [],
      );
    } finally {
      await m.close();
    }
  });

  it('refuses a mountPath that is not a plain path, and page() without one', () => {
    const base = {
      publicKey: sb.credentials.publicKey,
      secretKey: sb.credentials.secretKey,
      legacyBaseUrl: sb.url,
      resolveCharge: () => undefined,
      logger: captureLogger().logger,
    };
    for (const mountPath of [
      'api',
      '/api/',
      '/:id',
      '/pay*',
      '/a b',
      '',
      '//api',
      `/${'a'.repeat(101)}`,
      // Dot segments: a browser resolves them before it asks, so the page's URLs would miss the helper.
      '/..',
      '/.',
      '/shop/../payments',
      '/shop/./payments',
      '/payments/..',
    ]) {
      assert.throws(() => tesseraHelper({ ...base, mountPath }), /mountPath/, mountPath);
    }
    for (const mountPath of ['/.well-known', '/...', '/v1.2/pay', '/a..b']) {
      assert.equal(tesseraHelper({ ...base, mountPath, startupKeyCheck: false }).mountPath, mountPath);
    }
    const helper = tesseraHelper(base);
    assert.equal(helper.mountPath, undefined);
    assert.throws(() => helper.page({ app: express() } as never), /needs the `mountPath` option/);
  });
});

/**
 * A clone of the repository's server sources with no dist/, inside the repository (so its packages resolve): the
 * caller removes it.
 */
function unbuiltClone(): string {
  const repo = fileURLToPath(new URL('../../../', import.meta.url));
  mkdirSync(join(repo, '.tmp'), { recursive: true });
  const clone = mkdtempSync(join(repo, '.tmp', 'unbuilt-'));
  for (const part of ['server', 'shared']) cpSync(join(repo, part), join(clone, part), { recursive: true });
  writeFileSync(join(clone, 'package.json'), JSON.stringify({ name: 'tessera-pay', type: 'module', private: true }));
  return clone;
}

describe('helper.page in a clone where the widget is not built', () => {
  it('fails when the helper is created with mountPath, saying to run npm run build; without mountPath it starts', () => {
    // A clone without `npm run build`: the server's sources and no dist/. helper.page() threw inside the merchant's
    // page route, on the first request, a 503 that named neither the file nor that the npm package ships it.
    const clone = unbuiltClone();
    try {
      writeFileSync(
        join(clone, 'probe.ts'),
        `import { tesseraHelper } from './server/helper/index.js';
const options = { publicKey: 'pk_sbox_probe', secretKey: 'sk_sbox_probe', startupKeyCheck: false, resolveCharge: () => ({ amount: 1, currency: 'EUR' }) } as const;
const outcome = (make: () => unknown) => { try { make(); return 'created'; } catch (e) { return (e as Error).message; } };
console.log(JSON.stringify({ withMountPath: outcome(() => tesseraHelper({ ...options, mountPath: '/payments' })), without: outcome(() => tesseraHelper(options)) }));
`,
      );
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'probe.ts'], {
        cwd: clone,
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(run.status, 0, run.stderr);
      const { withMountPath, without } = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, string>;
      assert.equal(without, 'created', 'a helper that serves no page needs no bundle to start');
      assert.match(
        withMountPath!,
        /^tesseraHelper: option `mountPath` \(for helper\.page\(\)\): the widget bundle is missing at /,
      );
      assert.ok(withMountPath!.includes(join(clone, 'dist', 'widget', 'tessera-card-form.js')), withMountPath);
      assert.match(withMountPath!, /run `npm run build`/);
      assert.match(withMountPath!, /the npm package ships it/);
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  });
});

/** The unprivileged user (`nobody`) a probe runs as when the tests run as root. */
const NOBODY = 65534;

describe('a widget bundle that is there but cannot be read', () => {
  it('names the error code and the path, and does not say to build, where a missing bundle says to build', () => {
    // Every read error was reported as a missing bundle, "run `npm run build`", which does not help with EACCES,
    // EMFILE or a folder in the bundle's place. A folder where the file should be (EISDIR) is a real error root meets
    // too; a file with mode 000 (EACCES) is read by an unprivileged user, so under root the probe runs as `nobody`
    // (where chmod stops no read of root's). tesseraHelper({ mountPath }) only looked at the file then, and started
    // with a bundle it could not read, whose routes answered 503 for good.
    const clone = unbuiltClone();
    const asRoot = process.getuid?.() === 0;
    if (asRoot) chmodSync(clone, 0o755);
    try {
      const bundle = join(clone, 'dist', 'widget', 'tessera-card-form.js');
      writeFileSync(
        join(clone, 'probe.ts'),
        `import { loadWidgetAsset, tesseraHelper } from './server/helper/index.js';
import { widgetLoader } from './server/helper/widget-routes.js';
const options = { publicKey: 'pk_sbox_probe', secretKey: 'sk_sbox_probe', startupKeyCheck: false, resolveCharge: () => ({ amount: 1, currency: 'EUR' }) } as const;
const outcome = (make: () => unknown) => { try { make(); return { ok: true }; } catch (e) { const err = e as { message: string; code?: string; cause?: { message: string } }; return { message: err.message, code: err.code, cause: err.cause?.message }; } };
console.log(JSON.stringify({ load: outcome(loadWidgetAsset), route: outcome(widgetLoader()), helper: outcome(() => tesseraHelper({ ...options, mountPath: '/payments' })) }));
`,
      );
      const probe = (user: { uid?: number; gid?: number } = {}) => {
        const run = spawnSync(process.execPath, ['--import', 'tsx', 'probe.ts'], {
          cwd: clone,
          encoding: 'utf8',
          timeout: 60_000,
          ...user,
        });
        assert.equal(run.status, 0, run.stderr);
        type Outcome = { message: string; code?: string; cause?: string };
        return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<'load' | 'route' | 'helper', Outcome>;
      };
      // Missing: build it.
      const missing = probe();
      for (const what of [missing.load.message, missing.route.cause!, missing.helper.message]) {
        assert.match(what, /the widget bundle is missing at /);
        assert.match(what, /run `npm run build`/);
      }
      assert.equal(missing.route.code, 'TESSERA_WIDGET_NOT_BUILT');
      const cases: [string, () => void, { uid?: number; gid?: number }][] = [
        ['EISDIR', () => mkdirSync(bundle, { recursive: true }), {}],
        [
          'EACCES',
          () => {
            rmSync(bundle, { recursive: true, force: true });
            writeFileSync(bundle, 'customElements.define("tessera-card-form", class extends HTMLElement {});\n', {
              mode: 0o000,
            });
          },
          asRoot ? { uid: NOBODY, gid: NOBODY } : {},
        ],
      ];
      for (const [code, make, user] of cases) {
        make();
        const found = probe(user);
        for (const [who, what] of Object.entries({
          loadWidgetAsset: found.load.message,
          'the widget route': found.route.cause,
          'tesseraHelper({ mountPath })': found.helper.message,
        })) {
          assert.ok(what !== undefined, `${code}: ${who} did not fail`);
          assert.ok(what.includes(bundle), `${code}: ${what}`);
          assert.ok(what.includes(code), `${code}: ${what}`);
          assert.doesNotMatch(what, /npm run build|missing|install it again/, `${code}: ${what}`);
        }
        assert.equal(found.route.code, 'TESSERA_WIDGET_UNREADABLE', code);
        // What may reach a browser names no path.
        assert.equal(found.route.message, 'the widget bundle could not be read', code);
      }
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  });
});
