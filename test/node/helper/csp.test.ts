import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import express from 'express';
import { loadWidgetAsset, tesseraCsp, widgetScriptTag, widgetVersion } from '../../../server/helper/index.js';
import { call } from '../../support/http.js';

async function page(csp: express.RequestHandler): Promise<{ url: string; close(): void }> {
  const app = express();
  app.get('/checkout', csp, (_req, res) => {
    res.send(`<!doctype html>${widgetScriptTag({ src: '/payments/widget.js', nonce: res.locals.cspNonce })}`);
  });
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/checkout`,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}

describe('tesseraCsp', () => {
  it('sends a strict nonce policy with a fresh nonce per response, matching the script tag', async () => {
    const p = await page(tesseraCsp({ cardTokenUrl: 'https://api.provider.example/api2/v2/tokens/card' }));
    try {
      const a = await call(p.url);
      const b = await call(p.url);
      const policy = a.headers.get('content-security-policy')!;
      const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(policy)![1]!;
      assert.equal(
        policy,
        [
          "default-src 'self'",
          `script-src 'nonce-${nonce}'`,
          `style-src 'self' 'nonce-${nonce}'`,
          "connect-src 'self' https://api.provider.example",
          "img-src 'self' data:",
          "object-src 'none'",
          "base-uri 'none'",
          "form-action 'self'",
          "frame-ancestors 'none'",
          "require-trusted-types-for 'script'",
        ].join('; '),
      );
      assert.ok(a.text.includes(`nonce="${nonce}"`));
      assert.notEqual(b.headers.get('content-security-policy'), policy);
      assert.ok(nonce.length >= 24);
    } finally {
      p.close();
    }
  });

  it('adds strict-dynamic, extra origins, frame ancestors and report-only when asked', async () => {
    const p = await page(
      tesseraCsp({
        cardTokenUrl: 'http://127.0.0.1:4010/api2/v2/tokens/card',
        strictDynamic: true,
        connectSrc: ['https://analytics.example'],
        frameAncestors: ['https://platform.example'],
        reportUri: 'https://shop.example/csp-reports',
        reportOnly: true,
      }),
    );
    try {
      const r = await call(p.url);
      assert.equal(r.headers.get('content-security-policy'), null);
      const policy = r.headers.get('content-security-policy-report-only')!;
      assert.match(policy, /script-src 'nonce-[^']+' 'strict-dynamic';/);
      assert.match(policy, /connect-src 'self' http:\/\/127\.0\.0\.1:4010 https:\/\/analytics\.example;/);
      assert.match(policy, /frame-ancestors https:\/\/platform\.example;/);
      assert.match(policy, /report-uri https:\/\/shop\.example\/csp-reports$/);
    } finally {
      p.close();
    }
  });

  it('refuses bad options and being mounted uncalled, naming the option', () => {
    assert.throws(() => tesseraCsp({ cardTokenUrl: 'ftp://x' }), /option `cardTokenUrl` must be an http\(s\) URL/);
    // URLs take these in a host; in the header the origin would start another directive or policy.
    for (const cardTokenUrl of ['https://x;form-action/tokens', 'https://x,sandbox/tokens', "https://x'none'/t"]) {
      assert.throws(
        () => tesseraCsp({ cardTokenUrl }),
        /option `cardTokenUrl` must be an http\(s\) URL whose host is ASCII without/,
        cardTokenUrl,
      );
    }
    assert.throws(
      () => tesseraCsp({ cardTokenUrl: 'https://a.example', connectSrc: ["'unsafe-inline'"] }),
      /option `connectSrc` holds "'unsafe-inline'"/,
    );
    assert.throws(() => tesseraCsp(undefined as never), /call it with options/);
    for (const reportUri of [
      "https://shop.example/r; script-src 'unsafe-inline'",
      'https://shop.example/r,x',
      "/r; script-src 'unsafe-inline'",
      '//other.example/r',
      'csp-reports',
      'javascript:alert(1)',
    ]) {
      assert.throws(() => tesseraCsp({ cardTokenUrl: 'https://a.example', reportUri }), /option `reportUri` must be/);
    }
  });

  it("takes a path on the page's own site as reportUri, as CSP does", async () => {
    const p = await page(tesseraCsp({ cardTokenUrl: 'https://a.example', reportUri: '/csp-reports' }));
    try {
      const r = await call(p.url);
      assert.match(r.headers.get('content-security-policy') ?? '', /report-uri \/csp-reports(;|$)/);
    } finally {
      p.close();
    }
  });
  it("takes 'self' in frameAncestors and connectSrc (a checkout framed by the shop's own pages), and says what to do for 'none'", async () => {
    const p = await page(
      tesseraCsp({ cardTokenUrl: 'https://a.example/t', frameAncestors: ["'self'"], connectSrc: ["'self'", 'blob:'] }),
    );
    try {
      const policy = (await call(p.url)).headers.get('content-security-policy')!;
      assert.match(policy, /frame-ancestors 'self';/);
      assert.match(policy, /connect-src 'self' https:\/\/a\.example 'self' blob:;/);
    } finally {
      p.close();
    }
    assert.throws(
      () => tesseraCsp({ cardTokenUrl: 'https://a.example', frameAncestors: ["'none'"] }),
      /option `frameAncestors` holds "'none'"; leave the list out \(or empty\) for 'none', the default/,
    );
    for (const quoted of ["'self", "https://a.example'", "'unsafe-inline'", "'self' https://b.example"]) {
      assert.throws(
        () => tesseraCsp({ cardTokenUrl: 'https://a.example', connectSrc: [quoted] }),
        /connectSrc/,
        quoted,
      );
    }
  });

  it('refuses a source or reportUri that cannot go in a header, rather than failing every page', () => {
    // Node refuses a header holding a character above U+00FF or a control character: each page would be a 500.
    for (const [name, value] of [
      ['reportUri', '/rapports/報告'],
      ['reportUri', 'https://例え.jp/csp'],
      ['reportUri', '/r\u0000'],
      ['connectSrc', ['https://例え.jp']],
      ['connectSrc', ['https://café.example']],
      ['frameAncestors', ['https://a.example\u007f']],
    ] as const) {
      assert.throws(
        () => tesseraCsp({ cardTokenUrl: 'https://a.example', [name]: value }),
        new RegExp(`option \`${name}\` .*(ASCII|xn--)`),
        `${name}: ${JSON.stringify(value)}`,
      );
    }
    // Their ASCII forms are taken.
    tesseraCsp({
      cardTokenUrl: 'https://a.example',
      reportUri: '/rapports/%E5%A0%B1%E5%91%8A',
      connectSrc: ['https://xn--r8jz45g.jp'],
    });
  });

  it('keeps one nonce per response when a second tesseraCsp adds a report-only policy', async () => {
    const app = express();
    app.use(tesseraCsp({ cardTokenUrl: 'https://a.example' }));
    app.get(
      '/checkout',
      tesseraCsp({ cardTokenUrl: 'https://a.example', strictDynamic: true, reportOnly: true }),
      (_req, res) => {
        res.send(`<script nonce="${res.locals.cspNonce}"></script>`);
      },
    );
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const a = await call(`http://127.0.0.1:${port}/checkout`);
      const b = await call(`http://127.0.0.1:${port}/checkout`);
      const nonceOf = (policy: string | null) => /'nonce-([^']+)'/.exec(policy ?? '')?.[1];
      const script = /nonce="([^"]+)"/.exec(a.text)![1];
      // The enforced policy names the nonce the script carries: otherwise it blocks every script on the page.
      assert.equal(nonceOf(a.headers.get('content-security-policy')), script);
      assert.equal(nonceOf(a.headers.get('content-security-policy-report-only')), script);
      assert.notEqual(nonceOf(b.headers.get('content-security-policy')), script, 'still fresh per response');
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });

  it('keeps a page carrying the nonce out of caches, unless the route sets its own caching', async () => {
    const app = express();
    app.use(tesseraCsp({ cardTokenUrl: 'https://a.example' }));
    app.get('/checkout', (_req, res) => {
      res.send(`<script nonce="${res.locals.cspNonce}"></script>`);
    });
    app.get('/cached', (_req, res) => {
      res.setHeader('Cache-Control', 'private, max-age=60');
      res.send('not a nonce page');
    });
    app.use('/assets', express.static(new URL('.', import.meta.url).pathname));
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      // A shared cache may otherwise store a 200 without Cache-Control and give every visitor the same nonce.
      assert.equal((await call(`${origin}/checkout`)).headers.get('cache-control'), 'no-store');
      assert.equal((await call(`${origin}/cached`)).headers.get('cache-control'), 'private, max-age=60');
      const asset = await call(`${origin}/assets/csp.test.ts`);
      assert.equal(asset.status, 200);
      assert.equal(asset.headers.get('cache-control'), 'public, max-age=0', "express.static's own caching");
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });
});

describe('widgetScriptTag', () => {
  it('writes the SRI hash, crossorigin, the nonce and a versioned src', () => {
    const { integrity } = loadWidgetAsset();
    assert.equal(
      widgetScriptTag({ src: '/payments/widget.js', nonce: 'abc123' }),
      `<script type="module" src="/payments/widget.js?v=${widgetVersion(integrity)}" integrity="${integrity}" crossorigin="anonymous" nonce="abc123"></script>`,
    );
  });

  it('escapes attributes and refuses values that are not what they claim', () => {
    const tag = widgetScriptTag({ src: '/w.js?a=1&b="2"', integrity: 'sha384-abc' });
    assert.ok(tag.includes('src="/w.js?a=1&amp;b=&quot;2&quot;"'), tag);
    assert.throws(() => widgetScriptTag({ src: '', integrity: 'sha384-abc' }), /option `src`/);
    assert.throws(() => widgetScriptTag({ src: '/w.js', integrity: 'md5-x' }), /option `integrity`/);
    assert.throws(() => widgetScriptTag({ src: '/w.js', nonce: '"><script>' }), /option `nonce`/);
  });
});

describe('loadWidgetAsset', () => {
  it('hashes the bundle it read, whatever the .sri file beside it says', () => {
    // A package whose .sri file is not the bundle's (read mid-build, or a deploy that copied one and not the other).
    const root = mkdtempSync(join(tmpdir(), 'tessera-sri-'));
    try {
      writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'tessera-pay', type: 'module' }));
      for (const file of ['helper/widget-asset.ts', 'helper/package-root.ts', 'common/package-root.ts']) {
        mkdirSync(join(root, 'server', file, '..'), { recursive: true });
        copyFileSync(join('server', file), join(root, 'server', file));
      }
      mkdirSync(join(root, 'dist', 'widget'), { recursive: true });
      const bundle = 'customElements.define("tessera-card-form", class extends HTMLElement {});\n';
      writeFileSync(join(root, 'dist', 'widget', 'tessera-card-form.js'), bundle);
      writeFileSync(join(root, 'dist', 'widget', 'tessera-card-form.js.sri'), 'sha384-stalestalestale\n');
      // Asked twice (read once: the same asset), then after a rebuild in the same process (read again).
      const file = join(root, 'dist', 'widget', 'tessera-card-form.js');
      const rebuilt = `${bundle}// rebuilt\n`;
      const loader = `import(${JSON.stringify(join(root, 'server', 'helper', 'widget-asset.ts'))}).then((m) => {
          const first = m.loadWidgetAsset();
          console.log(first.integrity, m.loadWidgetAsset() === first);
          require('node:fs').writeFileSync(${JSON.stringify(file)}, ${JSON.stringify(rebuilt)});
          console.log(m.loadWidgetAsset().integrity);
        })`;
      const lines = execFileSync(process.execPath, ['--import', 'tsx', '-e', loader], { encoding: 'utf8' })
        .trim()
        .split('\n');
      const sri = (text: string) => `sha384-${createHash('sha384').update(text).digest('base64')}`;
      assert.deepEqual(lines, [`${sri(bundle)} true`, sri(rebuilt)]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
