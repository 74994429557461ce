import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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
