import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express, { type Request, type Response } from 'express';
import { selectedEngines } from '../../scripts/engines.js';
import { tesseraHelper } from '../../server/helper/index.js';
import { type RunningSandbox, startSandbox } from '../../server/sandbox/index.js';
import { cardToken } from '../node/helper/support.js';
import { permissiveCors } from '../support/permissive-cors.js';
import { ENGINES } from './lib/engines/all.js';
import type { Engine } from './lib/engines/driver.js';

/**
 * A page whose script posts a charge to `target` with `fetch`, as the shop's checkout does, and writes the status
 * and the answer's code (or charge id) into #result.
 */
const PAGE = `<!doctype html><title>Pay</title><p id="result">waiting</p>
<script type="module">
  const query = new URLSearchParams(location.search);
  const body = { cardToken: query.get('token'), orderReference: 'order-1', email: 'a@shop.example' };
  try {
    const r = await fetch(query.get('target'), {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    const answer = await r.json();
    document.getElementById('result').textContent = 'answered ' + r.status + ' ' + (answer.code ?? answer.id);
  } catch (error) {
    document.getElementById('result').textContent = 'failed ' + error;
  }
</script>`;

const page = (_req: Request, res: Response) => res.type('html').send(PAGE);

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

// The shop (helper and checkout page) on 127.0.0.1 behind an app-wide permissive CORS, and another site on
// localhost (a different site to every engine) with the same page. The browser, not the test, says where each
// request comes from.
describe('a charge posted from another site, in every browser engine', { timeout: 180_000 }, () => {
  let sb: RunningSandbox;
  let shop: Server;
  let other: Server;
  let shopUrl: string;
  let otherUrl: string;

  before(async () => {
    sb = await startSandbox({ port: 0 });
    const app = express();
    app.use(permissiveCors);
    app.get('/checkout', page);
    app.use(
      '/payments',
      tesseraHelper({
        publicKey: sb.credentials.publicKey,
        secretKey: sb.credentials.secretKey,
        legacyBaseUrl: sb.url,
        startupKeyCheck: false,
        resolveCharge: () => ({ amount: 1999, currency: 'EUR' }),
        logger: { debug() {}, info() {}, warn() {}, error() {} },
      }),
    );
    shop = createServer(app);
    shopUrl = `http://127.0.0.1:${await listen(shop)}`;
    const hostile = express();
    hostile.get('/', page);
    other = createServer(hostile);
    otherUrl = `http://localhost:${await listen(other)}`;
  });
  after(async () => {
    for (const server of [shop, other]) {
      server?.closeAllConnections();
      server?.close();
    }
    await sb?.close();
  });

  for (const name of selectedEngines()) {
    const { title, launch } = ENGINES[name]!;
    describe(title, () => {
      let engine: Engine;
      before(async () => {
        engine = await launch({ demoUrl: shopUrl });
      });
      after(async () => {
        await engine?.close();
      });

      it('is refused with 403 though the app answered the preflight, and the same page on the shop is charged', async () => {
        const target = encodeURIComponent(`${shopUrl}/payments/charges`);
        const hostile = await engine.newPage();
        await hostile.goto(`${otherUrl}/?target=${target}&token=${await cardToken(sb)}`);
        const refused = await hostile.waitForText('#result', /^(answered|failed) /);
        assert.equal(refused, 'answered 403 TESSERA_CROSS_SITE_REFUSED');
        const own = await engine.newPage();
        await own.goto(
          `${shopUrl}/checkout?target=${encodeURIComponent('/payments/charges')}&token=${await cardToken(sb)}`,
        );
        assert.match(await own.waitForText('#result', /^(answered|failed) /), /^answered 201 charge_/);
      });
    });
  }
});
