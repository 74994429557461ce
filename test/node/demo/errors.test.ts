import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import express from 'express';
import { errorHandler } from '../../../demo/errors.js';
import { containsPan } from '../../../server/common/pan.js';
import { readableUrl } from '../../../server/common/url-pans.js';
import { HelperHttpError } from '../../../server/helper/index.js';
import { call } from '../../support/http.js';

/** The demo's error handler behind routes that fail as the demo's can, on a loopback port; what it logged. */
async function withHandler(run: (url: string, logged: Record<string, unknown>[]) => Promise<void>): Promise<void> {
  const logged: Record<string, unknown>[] = [];
  const app = express();
  // What helper.page(req, res) throws in a page route when the widget bundle is not built.
  app.get('/checkout/:id', () => {
    throw new HelperHttpError(503, 'TESSERA_WIDGET_NOT_BUILT', 'the widget bundle is not built; run `npm run build`');
  });
  app.get('/orders/:id', () => {
    throw new Error('a bug');
  });
  app.use(errorHandler({ error: (obj) => logged.push(obj as Record<string, unknown>) }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, logged);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('the demo’s error answers (demo/errors.ts)', () => {
  it('answers a helper error from a page route with its own status and code, not a 500 that hides the fix', async () => {
    await withHandler(async (url, logged) => {
      const r = await call(`${url}/checkout/ord_0000000000000000`, { headers: { accept: 'application/json' } });
      assert.deepEqual(
        [r.status, r.json?.code, r.json?.message],
        [503, 'TESSERA_WIDGET_NOT_BUILT', 'the widget bundle is not built; run `npm run build`'],
      );
      assert.deepEqual(logged, []);
    });
  });

  it('logs an unexpected failure without a card number the path held, in any spelling, and answers 500 without details', async () => {
    await withHandler(async (url, logged) => {
      for (const pan of ['4242424242424242', '4242%204242%204242%204242', '%342%342424242424242']) {
        const r = await call(`${url}/orders/${pan}`, { headers: { accept: 'application/json' } });
        assert.deepEqual(r.json, { code: 'DEMO_INTERNAL', message: 'Something went wrong in the demo server.' });
        assert.equal(r.status, 500);
      }
      assert.equal(logged.length, 3);
      for (const line of logged) {
        assert.ok(!containsPan(readableUrl(String(line.path))), String(line.path));
        assert.match(String(line.path), /^\/orders\//);
      }
    });
  });
});
