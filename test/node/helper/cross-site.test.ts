import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import { type TesseraHelperOptions, tesseraHelper } from '../../../server/helper/index.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { permissiveCors } from '../../support/permissive-cors.js';
import { captureLogger, cardToken, sandboxCharges } from './support.js';

describe('writes a browser sends from another site', () => {
  let sb: RunningSandbox;
  let server: Server;
  let base: string;
  let host: string;

  before(async () => {
    sb = await startSandbox({ port: 0 });
    const options: TesseraHelperOptions = {
      publicKey: sb.credentials.publicKey,
      secretKey: sb.credentials.secretKey,
      legacyBaseUrl: sb.url,
      providerMaxRetries: 0,
      startupKeyCheck: false,
      resolveCharge: () => ({ amount: 1999, currency: 'EUR' }),
      corsOrigins: ['https://partner.example'],
      publicUrl: 'https://shop.example/payments',
      logger: captureLogger().logger,
    };
    // The app opens CORS to everyone before the helper, as many apps do for their own APIs.
    const app = express();
    app.use(permissiveCors);
    app.use('/payments', tesseraHelper(options));
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    base = `http://${host}/payments`;
  });
  after(async () => {
    server.closeAllConnections();
    server.close();
    await sb.close();
  });

  const charge = async (headers: Record<string, string>) =>
    call(`${base}/charges`, {
      body: { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' },
      headers,
    });

  it('refuses them with 403 before the body is read or the provider called, whatever CORS the app answered', async () => {
    const preflight = await call(`${base}/charges`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*', 'the app let the preflight through');
    const cases: [string, Record<string, string>][] = [
      ['cross-site', { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }],
      ['same-site, not listed', { 'sec-fetch-site': 'same-site', origin: 'https://www.shop.example' }],
      ['cross-site without an Origin', { 'sec-fetch-site': 'cross-site' }],
      ['no Sec-Fetch-Site, another Origin', { origin: 'https://evil.example' }],
      ['no Sec-Fetch-Site, another port of this host', { origin: `http://${host.replace(/:\d+$/, ':1')}` }],
      ['an opaque Origin', { origin: 'null' }],
    ];
    for (const [what, headers] of cases) {
      const r = await charge(headers);
      assert.equal(r.status, 403, `${what}: ${r.text}`);
      assert.equal(r.json.code, 'TESSERA_CROSS_SITE_REFUSED', what);
      assert.equal(r.json.field, 'origin', what);
    }
    // Refused before anything else: a card number in the body is not even looked at, the host token not asked for.
    const pan = await call(`${base}/charges`, {
      body: { cardToken: 'card_tok_x', orderReference: '4242424242424242' },
      headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
    });
    assert.equal(pan.json.code, 'TESSERA_CROSS_SITE_REFUSED');
    for (const [method, path] of [
      ['POST', '/account-updater'],
      ['PATCH', '/entities/ent_a/payment-instruments/ppi_a'],
    ] as const) {
      const r = await call(`${base}${path}`, {
        method,
        body: {},
        headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      });
      assert.equal(r.json.code, 'TESSERA_CROSS_SITE_REFUSED', path);
    }
    assert.deepEqual(await sandboxCharges(sb), [], 'no charge reached the provider');
  });

  it('lets writes from this site, a listed origin, a typed address and non-browsers through', async () => {
    const cases: [string, Record<string, string>][] = [
      ['same-origin', { 'sec-fetch-site': 'same-origin', origin: `http://${host}` }],
      ['typed or bookmarked', { 'sec-fetch-site': 'none' }],
      ['a listed origin, cross-site', { 'sec-fetch-site': 'cross-site', origin: 'https://partner.example' }],
      ['no Sec-Fetch-Site, this host', { origin: `http://${host}` }],
      ['no Sec-Fetch-Site, the origin of publicUrl', { origin: 'https://shop.example' }],
      ['neither header (a server, curl)', {}],
    ];
    for (const [what, headers] of cases) {
      const r = await charge(headers);
      assert.equal(r.status, 201, `${what}: ${r.text}`);
    }
    assert.equal((await sandboxCharges(sb)).length, cases.length);
  });

  it('never refuses reads: the config, the widget and the 3-D Secure return come from other sites by design', async () => {
    const from = { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' };
    assert.equal((await call(`${base}/config`, { headers: from })).status, 200);
    assert.equal((await call(`${base}/widget.js`, { headers: from })).status, 200);
    // The bank's page sends the shopper back with a top-level GET from its own site.
    const back = await call(`${base}/charges/3ds-return?cko-payment-token=pay_tok_nope`, { headers: from });
    assert.equal(back.json.code, 'TESSERA_UNKNOWN_PAYMENT');
  });
});
