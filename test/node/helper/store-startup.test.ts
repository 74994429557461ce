import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import {
  MemoryStore,
  RedisStore,
  type TesseraHelperOptions,
  type TesseraStore,
  tesseraHelper,
} from '../../../server/helper/index.js';
import { STORE_CALL_TIMEOUT_MS } from '../../../server/helper/store-guard.js';
import { call } from '../../support/http.js';
import { freePort, RedisServer } from './redis-server.js';
import { captureLogger, requiredMethods, startHelper } from './support.js';

const BASE = {
  publicKey: 'pk_sbox_startupstorecheck',
  secretKey: 'sk_sbox_startupstorecheck',
  resolveCharge: () => undefined,
  // The provider is not what these tests are about: its key check would add warnings of its own.
  startupKeyCheck: false,
} as const;

/** A helper built as a merchant's server would, its log captured. */
function start(extra: Partial<TesseraHelperOptions>) {
  const { logger, log } = captureLogger();
  const helper = tesseraHelper({ ...BASE, logger, ...extra });
  const warnings = () => log.lines.filter((l) => (l.level as number) >= 40);
  return { helper, log, warnings };
}

/** A merchant's store (the required methods over a MemoryStore) that records every call, by method name. */
function recorded(replace: Partial<TesseraStore> = {}) {
  const calls: string[] = [];
  const inner = requiredMethods(new MemoryStore(), replace);
  const store = Object.fromEntries(
    Object.entries(inner).map(([name, method]) => [
      name,
      (...args: unknown[]) => {
        calls.push(`${name} ${String(args[0])}`);
        return (method as (...a: unknown[]) => unknown)(...args);
      },
    ]),
  ) as unknown as TesseraStore;
  return { store, calls };
}

describe('startup store check', () => {
  let redis: RedisServer;
  let admin: Redis;
  const stores: RedisStore[] = [];
  const open = (url: string) => {
    const store = new RedisStore({ url });
    stores.push(store);
    return store;
  };
  before(async () => {
    redis = await RedisServer.start();
    admin = new Redis(redis.url);
    await admin.call('ACL', 'SETUSER', 'shop', 'on', '>right-pass-0a9b8c7d', '~*', '+@all');
  });
  after(async () => {
    for (const store of stores) await store.close();
    admin.disconnect();
    await redis.stop();
  });

  it('a Redis that answers: available, no warning, and nothing written', async () => {
    const { helper, warnings } = start({ store: open(redis.url) });
    assert.deepEqual(await helper.storeCheck, { outcome: 'available' });
    assert.deepEqual(warnings(), []);
    assert.equal(await admin.dbsize(), 0, 'the check wrote nothing');
  });

  it('a client of the merchant’s with lazyConnect: connected and checked, no warning', async () => {
    const client = new Redis(redis.url, { lazyConnect: true });
    try {
      const store = new RedisStore({ client, keyPrefix: 'lazy:' });
      const { helper, warnings } = start({ store });
      assert.deepEqual(await helper.storeCheck, { outcome: 'available' });
      assert.equal(client.status, 'ready');
      assert.deepEqual(warnings(), []);
      await store.close();
    } finally {
      client.disconnect();
    }
  });

  it('a wrong Redis password: one warning naming WRONGPASS, never the password, startup not held', async () => {
    const password = 'wrong-pass-6f1c2e9d';
    const started = Date.now();
    const { helper, log, warnings } = start({
      store: open(`redis://shop:${password}@127.0.0.1:${redis.port}`),
    });
    assert.equal(typeof helper, 'function', 'the helper exists before the check answers');
    assert.deepEqual(await helper.storeCheck, { outcome: 'unavailable' });
    assert.ok(Date.now() - started < 3000, `answered in ${Date.now() - started} ms`);
    const lines = warnings();
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.equal(lines[0]!.event, 'tessera.store_check');
    assert.equal(lines[0]!.outcome, 'unavailable');
    assert.equal(lines[0]!.code, 'WRONGPASS');
    assert.match(String(lines[0]!.msg), /WRONGPASS/);
    assert.ok(!log.text().includes(password), 'the password is never logged');
  });

  it('a Redis that is down: one warning naming the refused connection', async () => {
    const { helper, warnings } = start({ store: open(`redis://127.0.0.1:${await freePort()}`) });
    assert.deepEqual(await helper.storeCheck, { outcome: 'unavailable' });
    const lines = warnings();
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.equal(lines[0]!.event, 'tessera.store_check');
    assert.equal(lines[0]!.code, 'ECONNREFUSED');
    assert.match(String(lines[0]!.msg), /ECONNREFUSED/);
  });

  it('startupStoreCheck: false makes no store call and logs nothing', async () => {
    const { store, calls } = recorded({ get: () => Promise.reject(new Error('down')) });
    const { helper, warnings } = start({ store, startupStoreCheck: false });
    assert.deepEqual(await helper.storeCheck, {});
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(calls, []);
    assert.deepEqual(warnings(), []);
  });

  it('the in-process MemoryStore is not asked: it always answers', async () => {
    const { helper, warnings } = start({});
    assert.deepEqual(await helper.storeCheck, {});
    assert.deepEqual(warnings(), []);
  });

  it('a store of the merchant’s own is read once, under a key of the helper’s own, and nothing written', async () => {
    const { store, calls } = recorded();
    const { helper, warnings } = start({ store });
    assert.deepEqual(await helper.storeCheck, { outcome: 'available' });
    assert.deepEqual(calls, ['get startup']);
    assert.deepEqual(warnings(), []);
  });

  it('a store of the merchant’s own that fails: one warning with its error’s code and message, no URL password', async () => {
    const driverError = Object.assign(new Error('connect to postgres://shop:pg-pass-77aa99cc@db.internal failed'), {
      code: 'ECONNRESET',
    });
    const { store } = recorded({ get: () => Promise.reject(driverError) });
    const { helper, log, warnings } = start({ store });
    assert.deepEqual(await helper.storeCheck, { outcome: 'unavailable' });
    const lines = warnings();
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.equal(lines[0]!.event, 'tessera.store_check');
    assert.equal(lines[0]!.code, 'ECONNRESET');
    assert.match(String(lines[0]!.msg), /db\.internal failed/);
    // The error itself as every log line writes one: the guard's, and the driver's under it with its code.
    const err = lines[0]!.err as Record<string, unknown> & { cause: Record<string, unknown> };
    assert.equal(err.type, 'StoreUnavailableError');
    assert.equal(err.code, 'TESSERA_STORE_UNAVAILABLE');
    assert.equal(err.message, 'the store could not be used');
    assert.deepEqual(
      { ...err.cause, stack: undefined },
      {
        type: 'Error',
        message: 'connect to postgres://shop:[redacted]@db.internal failed',
        code: 'ECONNRESET',
        stack: undefined,
      },
    );
    assert.match(
      String(err.cause.stack),
      /^Error: connect to postgres:\/\/shop:\[redacted\]@db\.internal failed\n {4}at /,
    );
    assert.ok(!log.text().includes('pg-pass-77aa99cc'), 'the URL password is never logged');
  });

  it('a store of the merchant’s own that never answers: one warning within the guard’s bound, requests answered meanwhile', async () => {
    const { store } = recorded({ get: () => new Promise<string | undefined>(() => undefined) });
    const started = Date.now();
    const h = await startHelper({ ...BASE, store, startupStoreCheck: true });
    try {
      let checked = false;
      void h.helper.storeCheck.then(() => {
        checked = true;
      });
      // A request the store has no part in (the store would hold any charge up to the same bound).
      const answered = await call(`${h.url}/no-such-route`);
      assert.equal(answered.status, 404, answered.text);
      assert.equal(answered.json.code, 'TESSERA_ROUTE_NOT_FOUND');
      assert.equal(checked, false, 'answered while the check still waits');
      assert.deepEqual(await h.helper.storeCheck, { outcome: 'unavailable' });
      const took = Date.now() - started;
      assert.ok(took >= STORE_CALL_TIMEOUT_MS - 100 && took < STORE_CALL_TIMEOUT_MS + 1500, `answered in ${took} ms`);
      const lines = h.log.lines.filter((l) => (l.level as number) >= 40);
      assert.equal(lines.length, 1, JSON.stringify(lines));
      assert.equal(lines[0]!.event, 'tessera.store_check');
      assert.equal(lines[0]!.code, 'TESSERA_STORE_UNAVAILABLE');
      assert.match(String(lines[0]!.msg), new RegExp(`did not answer within ${STORE_CALL_TIMEOUT_MS} ms`));
    } finally {
      await h.close();
    }
  });
});
