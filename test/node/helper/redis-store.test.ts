import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { Redis as Redis5 } from 'ioredis5';
import {
  RedisStore,
  type RedisStoreClient,
  type RedisStoreOptions,
  StoreUnavailableError,
} from '../../../server/helper/index.js';
import { commitDeclines, releaseDeclines, reserveDeclines } from '../../../server/helper/rate-limit.js';
import { claimAndGet } from '../../../server/helper/store.js';
import { checkClusterNode, checkEviction } from '../../../server/helper/store-eviction.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { until } from '../../support/timing.js';
import { freePort, RedisServer, TcpRelay } from './redis-server.js';
import { reservations, storeContract } from './store-contract.js';
import {
  captureLogger,
  cardToken,
  fault,
  legacyHelperOptions,
  NO_RATE_LIMITS,
  sandboxCharges,
  startHelper,
} from './support.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A charge the store cannot take: 503 `TESSERA_STORE_UNAVAILABLE`, outcome known, answered within `withinMs`. */
async function refusedByStore(url: string, body: object, withinMs: number) {
  const started = Date.now();
  const refused = await call(`${url}/charges`, { body });
  assert.equal(refused.status, 503, refused.text);
  assert.equal(refused.json.code, 'TESSERA_STORE_UNAVAILABLE');
  assert.equal(refused.json.outcomeKnown, true);
  assert.ok(Date.now() - started < withinMs, `answered in ${Date.now() - started} ms`);
  return refused;
}

/**
 * The same charge sent again every 100 ms (40 tries at most) while the store is still away: charged once it is back,
 * the sandbox then holding `charges` charges in all.
 */
async function chargedOnceBack(
  url: string,
  body: object,
  sb: Parameters<typeof sandboxCharges>[0],
  charges = 1,
): Promise<void> {
  let again = await call(`${url}/charges`, { body });
  for (let i = 0; i < 40 && again.status === 503; i++) {
    await sleep(100);
    again = await call(`${url}/charges`, { body });
  }
  assert.equal(again.status, 201, again.text);
  assert.equal((await sandboxCharges(sb)).length, charges);
}

/** A helper on `sb` with `store`, every order priced 25.00 EUR. */
const chargingHelper = (sb: Parameters<typeof legacyHelperOptions>[0], store: RedisStore<RedisStoreClient>) =>
  startHelper({ ...legacyHelperOptions(sb), store, resolveCharge: () => ({ amount: 2500, currency: 'EUR' }) });

/**
 * A second copy of ioredis, with classes of its own: what a project hands the store when its own ioredis is another
 * version (npm then installs Tessera's beside it) or another copy. ioredis is CommonJS: its modules are loaded again
 * past the require cache, which is then put back as it was.
 */
function otherIoredis(): typeof import('ioredis') {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve('ioredis/package.json')) + sep;
  const saved = Object.entries(require.cache).filter(([path]) => path.startsWith(root));
  for (const [path] of saved) delete require.cache[path];
  try {
    return require('ioredis');
  } finally {
    for (const path of Object.keys(require.cache)) if (path.startsWith(root)) delete require.cache[path];
    for (const [path, module] of saved) require.cache[path] = module;
  }
}

let redis: RedisServer | undefined;
const stores: RedisStore[] = [];

storeContract('RedisStore on a real redis-server', {
  shortMs: 80,
  setup: async () => {
    redis = await RedisServer.start();
  },
  teardown: async () => {
    for (const s of stores) await s.close();
    await redis?.stop();
  },
  make: async () => {
    // A fresh key prefix per test: one server, separate key spaces.
    const store = new RedisStore({ url: (redis as RedisServer).url, keyPrefix: `t${randomBytes(4).toString('hex')}:` });
    stores.push(store);
    return { store, advance: (ms) => sleep(ms) };
  },
});

let redis5: RedisServer | undefined;
const clients5: Redis5[] = [];

// A project on ioredis 5 (the major of most existing code) hands the store its own client: every store call the
// helper makes works on it as on Tessera's ioredis 6 one.
storeContract('RedisStore on an ioredis 5 client, against a real redis-server', {
  shortMs: 80,
  setup: async () => {
    redis5 = await RedisServer.start();
  },
  teardown: async () => {
    for (const c of clients5) c.disconnect();
    await redis5?.stop();
  },
  make: async () => {
    const client = new Redis5((redis5 as RedisServer).url);
    clients5.push(client);
    const store = new RedisStore({ client, keyPrefix: `t${randomBytes(4).toString('hex')}:` });
    return { store, advance: (ms) => sleep(ms) };
  },
});

describe('RedisStore against a real redis-server', () => {
  let server: RedisServer;
  const owned: RedisStore[] = [];
  const open = (extra: Partial<RedisStoreOptions> = {}) => {
    const store = new RedisStore({ url: server.url, ...extra });
    owned.push(store);
    return store;
  };
  /**
   * Waits until a new store answers: its client connects on its own time, and on a busy machine that can take longer
   * than a test's short `timeoutMs`, so the first call of a test would time out for that reason, not the one tested.
   */
  const ready = async (store: RedisStore<RedisStoreClient>) => {
    for (let i = 0; ; i++) {
      try {
        return void (await store.get('ready'));
      } catch (err) {
        if (i >= 100) throw err;
        await sleep(50);
      }
    }
  };

  before(async () => {
    // DEBUG SLEEP (a Redis that answers slowly) is refused unless enabled, and then only from loopback.
    server = await RedisServer.start(['--enable-debug-command', 'local']);
  });
  after(async () => {
    for (const s of owned) await s.close();
    await server.stop();
  });

  it('writes only under its key prefix, and uses a client it is given without closing it', async () => {
    const client = new Redis(server.url);
    try {
      const store = new RedisStore({ client, keyPrefix: 'shop-a:' });
      await store.set('k', 'v', 60_000);
      await store.hit('n', 60_000);
      assert.equal(await client.get('shop-a:k'), 'v');
      assert.equal(await client.get('shop-a:n'), '1');
      assert.ok((await client.pttl('shop-a:k')) > 59_000);
      await store.close();
      assert.equal(await client.ping(), 'PONG');
      const plain = open();
      await plain.set('k', 'w', 60_000);
      assert.equal(await client.get('tessera:k'), 'w');
    } finally {
      client.disconnect();
    }
  });

  it('leaves a client it is given without listeners of its own when closed while a call waits for it to be ready', async () => {
    // A client not connected yet (lazyConnect, to a port nothing listens on): the store's call waits for `ready`.
    const client = new Redis(`redis://127.0.0.1:${await freePort()}`, { lazyConnect: true, retryStrategy: () => 1000 });
    try {
      const listeners = () => ({ error: client.listenerCount('error'), ready: client.listenerCount('ready') });
      const before = listeners();
      const store = new RedisStore({ client, timeoutMs: 100 });
      const waiting = store.get('k').catch((err: unknown) => err);
      await store.close();
      assert.ok((await waiting) instanceof StoreUnavailableError);
      assert.deepEqual(listeners(), before);
    } finally {
      client.disconnect();
    }
  });

  it('leaves a client it is given without listeners of its own once closed, however many stores used it', async () => {
    const client = new Redis(server.url);
    const warnings: Error[] = [];
    const warned = (w: Error) => warnings.push(w);
    process.on('warning', warned);
    try {
      const before = { error: client.listenerCount('error'), ready: client.listenerCount('ready') };
      // A store per test, or per tenant, on the project's one client: each closed before the next.
      for (let i = 0; i < 12; i++) {
        const store = new RedisStore({ client, keyPrefix: `each${i}:` });
        await store.set('k', 'v', 60_000);
        await store.close();
      }
      assert.deepEqual({ error: client.listenerCount('error'), ready: client.listenerCount('ready') }, before);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(
        warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message),
        [],
      );
      assert.equal(await client.ping(), 'PONG');
    } finally {
      process.off('warning', warned);
      client.disconnect();
    }
  });

  it('connects a client it is given with lazyConnect, as its first command would, instead of failing every call', async () => {
    // ioredis connects such a client on its first command; the store waits for `ready` before it sends one, so it
    // waited for a connection nobody opened, and every call (every charge) was 503 for good.
    const client = new Redis(server.url, { lazyConnect: true });
    try {
      const store = new RedisStore({ client, keyPrefix: 'lazy:', timeoutMs: 2000 });
      assert.equal(client.status, 'wait', 'not connected before the first call');
      await store.set('k', 'v', 60_000);
      assert.equal(await store.get('k'), 'v');
      assert.equal(client.status, 'ready');
      await store.close();
    } finally {
      client.disconnect();
    }
  });

  it('uses a client of another copy of ioredis (a project whose own ioredis is another version), not refusing it', async () => {
    const other = otherIoredis();
    assert.notEqual(other.Redis, Redis, 'not a second copy');
    const client = new other.Redis(server.url);
    try {
      const store = new RedisStore({ client, keyPrefix: 'copy:' });
      await store.set('k', 'v', 60_000);
      assert.equal(await store.claim('c', 'me', 60_000), true);
      assert.equal(await store.claim('c', 'you', 60_000), false);
      assert.deepEqual(await store.claimAndGet('c2', 'me', 60_000, 'k'), { claimed: true, value: 'v' });
      assert.equal(await client.get('copy:k'), 'v');
      await store.close();
      assert.equal(await client.ping(), 'PONG');
    } finally {
      client.disconnect();
    }
    // Anything else is still refused.
    assert.throws(() => new RedisStore({ client: { isCluster: false } as never }), /must be an ioredis client/);
  });

  it('charges through a client of ioredis 5: claim, stored answer, replay, decline counters, and the client left open', async () => {
    const sb = await startSandbox();
    const client = new Redis5(server.url, { commandTimeout: 500, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    const store = new RedisStore({ client, keyPrefix: 'v5:' });
    const h = await startHelper({
      ...legacyHelperOptions(sb),
      store,
      resolveCharge: () => ({ amount: 2500, currency: 'EUR' }),
      rateLimits: { declinesPerIp: { max: 1, windowMs: 600_000 } },
    });
    try {
      await ready(store);
      const body = { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' };
      const first = await call(`${h.url}/charges`, { body });
      assert.equal(first.status, 201, first.text);
      // The same token again: the stored answer, no second charge; the token's claim was given back.
      const replay = await call(`${h.url}/charges`, { body });
      assert.equal(replay.status, 201, replay.text);
      assert.equal(replay.json.id, first.json.id);
      assert.equal((await sandboxCharges(sb)).length, 1);
      // Given back after the answer left, without holding it up (claim.ts): wait for it, bounded.
      await until(async () => (await client.keys('v5:*:claim')).length === 0, 'the claims were given back');
      // A decline counts in Redis, through the reservation scripts: the next charge from the same IP is refused.
      const declined = await call(`${h.url}/charges`, {
        body: {
          cardToken: await cardToken(sb, '4000000000000002'),
          orderReference: 'order-2',
          email: 'a@shop.example',
        },
      });
      assert.equal(declined.status, 402, declined.text);
      const refused = await call(`${h.url}/charges`, {
        body: { cardToken: await cardToken(sb), orderReference: 'order-3', email: 'a@shop.example' },
      });
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.json.code, 'TESSERA_TOO_MANY_DECLINES');
      await store.close();
      assert.equal(await client.ping(), 'PONG', 'a client passed in stays open');
    } finally {
      await h.close();
      client.disconnect();
      await sb.close();
    }
  });

  it('warns once at startup when Redis may evict the helper keys (a memory limit with any policy but noeviction)', async () => {
    const admin = new Redis(server.url);
    try {
      const quiet = captureLogger();
      const ready = open();
      await ready.get('x');
      assert.equal(await checkClusterNode(ready, quiet.logger), false, 'a single server is no cluster node');
      // The test server's defaults: no memory limit, so nothing can be evicted.
      assert.deepEqual(await checkEviction(ready, quiet.logger), { maxmemory: 0, policy: 'noeviction' });
      await admin.config('SET', 'maxmemory', '100mb');
      assert.deepEqual(await checkEviction(ready, quiet.logger), { maxmemory: 104_857_600, policy: 'noeviction' });
      assert.equal(quiet.log.lines.length, 0, 'a limit with noeviction fails closed: no warning');
      // The default of several managed services: every key with a TTL (all of the helper's) may be evicted.
      await admin.config('SET', 'maxmemory-policy', 'volatile-lru');
      const settings = await checkEviction(ready, quiet.logger);
      assert.deepEqual(settings, { maxmemory: 104_857_600, policy: 'volatile-lru' });
      const warning = quiet.log.lines.find((l) => l.event === 'tessera.store.eviction');
      assert.equal(warning?.level, 40);
      assert.equal(warning?.policy, 'volatile-lru');
      assert.match(String(warning?.msg), /Set maxmemory-policy to noeviction/);
      // A helper on a store that is still connecting checks once it is ready.
      await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
      const sb = await startSandbox();
      try {
        const h = await startHelper({
          publicKey: sb.credentials.publicKey,
          secretKey: sb.credentials.secretKey,
          legacyBaseUrl: sb.url,
          resolveCharge: () => ({ amount: 100, currency: 'EUR' }),
          store: open(),
        });
        for (let i = 0; i < 100 && !h.log.lines.some((l) => l.event === 'tessera.store.eviction'); i++) await sleep(20);
        const lines = h.log.lines.filter((l) => l.event === 'tessera.store.eviction');
        assert.equal(lines.length, 1, 'one warning');
        assert.equal(lines[0]!.policy, 'allkeys-lru');
        await h.close();
      } finally {
        await sb.close();
      }
    } finally {
      await admin.config('SET', 'maxmemory', '0');
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      admin.disconnect();
    }
  });

  it('refuses a construction without exactly one of url and client, or with a bad timeout', () => {
    assert.throws(() => new RedisStore({}), /exactly one of `url` or `client`/);
    assert.throws(() => new RedisStore({ url: server.url, timeoutMs: 0 }), /timeoutMs/);
  });

  it('fails closed fast while Redis is down, and works again by itself when it returns', async () => {
    const store = open({ keyPrefix: 'down:', timeoutMs: 300 });
    await store.set('before', '1', 60_000);
    await server.kill();
    for (const call of [
      () => store.get('before'),
      () => store.set('x', '1', 1000),
      () => store.hit('c', 1000),
      () => store.count('c'),
      () => store.unhit('c'),
      () => store.claim('t', 'me', 1000),
      () => store.release('t', 'me'),
      () => store.claimAndGet('t:claim', 'me', 1000, 't'),
      () => store.setAndRelease('t', '1', 1000, 't:claim', 'me'),
    ]) {
      const started = Date.now();
      await assert.rejects(call(), (err: unknown) => {
        assert.ok(err instanceof StoreUnavailableError, String(err));
        assert.equal(err.code, 'TESSERA_STORE_UNAVAILABLE');
        assert.equal(err.status, 503);
        assert.equal(err.outcomeKnown, true);
        return true;
      });
      assert.ok(Date.now() - started < 1500, 'well under the timeout bound');
    }
    await server.restart();
    let back = false;
    for (let i = 0; i < 100 && !back; i++) {
      back = await store.claim('after', 'me', 60_000).then(
        (v) => v,
        () => false,
      );
      if (!back) await sleep(50);
    }
    assert.equal(back, true, 'the same store works again without being recreated');
    assert.equal((await store.hit('c', 60_000)).count, 1);
  });

  it('charges again by itself when its connection to Redis goes silent without a reset (half-open), over a new one', async () => {
    // The helper's only connection to Redis stops carrying anything and is not closed (Redis's address moved in a
    // failover, a firewall forgot the connection): the kernel retransmits for many minutes before it gives up, and
    // every command timed out on it meanwhile, while a new connection would have worked at once.
    const relay = await TcpRelay.start(server.port);
    const sb = await startSandbox();
    const store = open({ url: relay.url, keyPrefix: 'silent:', timeoutMs: 300 });
    const h = await chargingHelper(sb, store);
    try {
      await ready(store);
      const first = await call(`${h.url}/charges`, {
        body: { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' },
      });
      assert.equal(first.status, 201, first.text);
      relay.silence();
      const body = { cardToken: await cardToken(sb), orderReference: 'order-2', email: 'a@shop.example' };
      await refusedByStore(h.url, body, 1500);
      assert.equal((await sandboxCharges(sb)).length, 1, 'no provider call without a claim');
      await chargedOnceBack(h.url, body, sb, 2);
    } finally {
      await h.close();
      await sb.close();
      await relay.close();
    }
  });

  it('gives back a claim that Redis took after the store call timed out, so a retry is not held up by it', async () => {
    const sb = await startSandbox();
    const store = open({ keyPrefix: 'slow:', timeoutMs: 200 });
    const h = await startHelper({
      ...legacyHelperOptions(sb),
      store,
      // No rate limits: the token's claim is the charge's first store call, the one that meets the slow Redis.
      rateLimits: NO_RATE_LIMITS,
      resolveCharge: () => ({ amount: 2500, currency: 'EUR' }),
    });
    const admin = new Redis(server.url);
    const sleeper = new Redis(server.url);
    try {
      // A helper that has charged before: connected, and Redis has its scripts.
      await ready(store);
      await store.claimAndGet('warm:claim', 'me', 1000, 'warm');
      await store.release('warm:claim', 'me');
      const body = { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' };
      // Redis stalls for 800 ms (a slow command of another user, a fork): the claim times out after 200 ms, and
      // Redis runs it once the stall ends, for an owner that has answered 503 and gone.
      const stall = sleeper.call('DEBUG', 'SLEEP', '0.8');
      await sleep(50);
      const first = await call(`${h.url}/charges`, { body });
      assert.equal(first.status, 503, first.text);
      assert.equal(first.json.code, 'TESSERA_STORE_UNAVAILABLE');
      assert.equal(first.json.outcomeKnown, true);
      await stall;
      await sleep(50);
      assert.deepEqual(await admin.keys('slow:*claim'), [], 'no claim left behind by the request that timed out');
      // The shopper retries after Retry-After: 1 and is answered at once, not after the orphan claim's 10 s.
      const started = Date.now();
      const retry = await call(`${h.url}/charges`, { body });
      assert.equal(retry.status, 201, retry.text);
      assert.ok(Date.now() - started < 2000, `answered in ${Date.now() - started} ms`);
      assert.equal((await sandboxCharges(sb)).length, 1);
    } finally {
      admin.disconnect();
      sleeper.disconnect();
      await h.close();
      await sb.close();
    }
  });

  it('gives back a decline reservation whose store call timed out, so a slow Redis does not use up a shopper’s limit', async () => {
    const store = open({ keyPrefix: 'reserve:', timeoutMs: 200 });
    // What is left is read through a store of its own that waits as long as a busy machine needs: only the tested
    // store's calls are to time out.
    const reader = open({ keyPrefix: 'reserve:', timeoutMs: 10_000 });
    const sleeper = new Redis(server.url);
    const counters = [
      { key: 'declines:session:s', limit: { max: 3, windowMs: 600_000 }, name: 'declinesPerSession' as const },
    ];
    /**
     * Runs `step` while Redis holds every client's commands for 500 ms: its store calls time out, and Redis runs them
     * once the pause ends. The pause is in force once CLIENT PAUSE has answered (a DEBUG SLEEP sent just before the
     * step could reach Redis after it on a busy machine), and the sleeper's PING, held like the rest, says it ended.
     */
    const stalled = async (step: () => Promise<unknown>) => {
      await sleeper.call('CLIENT', 'PAUSE', '500', 'ALL');
      await assert.rejects(step(), StoreUnavailableError);
      await sleeper.ping();
      await sleep(30);
    };
    try {
      // Stores that are connected and have run their scripts before.
      await ready(reader);
      await ready(store);
      await store.hit('warm', 1000);
      await store.count('warm');
      await store.reserve('warm:reserved', 'w', 1000);
      await store.unreserve('warm:reserved', 'w');
      // Three charges meet a stall while they reserve: with their reservations left in place, the fourth was refused
      // 429 TESSERA_TOO_MANY_DECLINES for the rest of the window, with no decline at all.
      for (let i = 0; i < 3; i++) await stalled(() => reserveDeclines(store, counters, Date.now));
      assert.equal(await reservations(reader, 'declines:session:s'), 0, 'no reservation left behind');
      const reserved = await reserveDeclines(store, counters, Date.now);
      assert.deepEqual(
        reserved.map(({ id: _, ...c }) => c),
        counters,
      );
      // A decline committed while Redis stalls: counted once Redis runs it, and its reservation given back all the same.
      await stalled(() => commitDeclines(store, reserved));
      assert.equal(await reservations(reader, 'declines:session:s'), 0, 'the reservation is given back');
      assert.equal((await reader.count('declines:session:s')).count, 1);
    } finally {
      sleeper.disconnect();
    }
  });

  it('gives back nothing of another instance’s decline reservation when its own never reached Redis', async () => {
    // Instance B reaches Redis through a link that is cut while it reserves; instance A is linked directly.
    const relay = await TcpRelay.start(server.port);
    const a = open({ keyPrefix: 'cut:', timeoutMs: 1000 });
    const b = open({ url: relay.url, keyPrefix: 'cut:', timeoutMs: 1000 });
    const counters = [
      { key: 'declines:ip:203.0.113.7', limit: { max: 1, windowMs: 600_000 }, name: 'declinesPerIp' as const },
    ];
    try {
      // Both have charged before: Redis has their scripts.
      for (const s of [a, b]) await releaseDeclines(s, await reserveDeclines(s, counters, Date.now));
      const first = await reserveDeclines(a, counters, Date.now);
      relay.cut();
      // B's reservation waits for a link that does not come back in time, and fails unsent; the link is back while
      // its give-back waits for it, which reached Redis and took A's place.
      await assert.rejects(reserveDeclines(b, counters, Date.now), StoreUnavailableError);
      relay.mend();
      for (let i = 0; i < 100 && b.client.status !== 'ready'; i++) await sleep(20);
      assert.equal(b.client.status, 'ready');
      await sleep(50);
      // The one place is still A's: a third charge, on B, waits for it instead of going through at once.
      let third: unknown;
      const waiting = reserveDeclines(b, counters, Date.now).then((r) => {
        third = r;
        return r;
      });
      await sleep(300);
      assert.equal(third, undefined, 'a second charge in flight on a limit of one');
      await releaseDeclines(a, first);
      await releaseDeclines(b, await waiting);
    } finally {
      await relay.close();
    }
  });

  it('sends no reservation or claim after its give-back when Redis forgot its scripts and answers late (a client of its own without commandTimeout)', async () => {
    // A project's own client, with ioredis's default of no commandTimeout: the store bounds its calls by a timer, and
    // the command it sent goes on. Redis restarted or failed over (its scripts gone: SCRIPT FLUSH) and is slow.
    const client = new Redis(server.url);
    const store = new RedisStore({ client, keyPrefix: 'noscript:', timeoutMs: 200 });
    const admin = new Redis(server.url);
    const sleeper = new Redis(server.url);
    const counters = [
      { key: 'declines:ip:203.0.113.9', limit: { max: 1, windowMs: 600_000 }, name: 'declinesPerIp' as const },
    ];
    /** Runs `step` while Redis stalls for 500 ms, after it forgot its scripts (the owner-only release's loaded again). */
    const stalled = async (step: () => Promise<unknown>) => {
      await admin.call('SCRIPT', 'FLUSH');
      await store.release('other:claim', 'nobody');
      const stall = sleeper.call('DEBUG', 'SLEEP', '0.5');
      await sleep(30);
      await assert.rejects(step(), StoreUnavailableError);
      await stall;
      await sleep(100);
    };
    try {
      await ready(store);
      // The reservation's EVALSHA times out and is given back (ZREM, run at once when Redis wakes), then Redis answers
      // NOSCRIPT: the store sent the script itself (EVAL) after its give-back, and the reservation held the shopper's
      // one place for the window (ten minutes), with no decline at all.
      await stalled(() => reserveDeclines(store, counters, Date.now));
      assert.equal(await reservations(store, 'declines:ip:203.0.113.9'), 0, 'no reservation left behind');
      await releaseDeclines(store, await reserveDeclines(store, counters, Date.now));
      // A card token's claim the same way: its give-back (the owner-only release, whose script Redis has) ran first,
      // and the claim then sent held the token for its 10 s against the shopper's retry.
      await stalled(() => claimAndGet(store, 'charge:t:claim', 'owner-1', 10_000, 'charge:t'));
      assert.equal(await admin.get('noscript:charge:t:claim'), null, 'no claim left behind');
      // What lands late and is not given back is still sent: a count (fail closed).
      await stalled(() => store.hit('requests:ip:203.0.113.9', 600_000));
      assert.equal((await store.count('requests:ip:203.0.113.9')).count, 1);
    } finally {
      await store.close();
      client.disconnect();
      admin.disconnect();
      sleeper.disconnect();
    }
  });

  it('answers outcomeKnown: false to a request waiting for another instance’s charge when Redis goes away meanwhile', async () => {
    const own = await RedisServer.start();
    const sb = await startSandbox();
    const options = {
      ...legacyHelperOptions(sb),
      resolveCharge: () => ({ amount: 2500, currency: 'EUR' as const }),
    };
    const stores = [0, 1].map(() => new RedisStore({ url: own.url, timeoutMs: 300 }));
    const [h1, h2] = await Promise.all(stores.map((store) => startHelper({ ...options, store })));
    try {
      const body = { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' };
      await fault(sb, { method: 'POST', path: '/api2/v2/charges/token', delayMs: 1500, count: 1 });
      // The first instance holds the token's claim while the provider call runs; the second waits for its answer.
      const charging = call(`${h1!.url}/charges`, { body });
      await sleep(300);
      const waiting = call(`${h2!.url}/charges`, { body });
      await sleep(300);
      await own.kill();
      const waited = await waiting;
      assert.equal(waited.status, 503, waited.text);
      assert.equal(waited.json.code, 'TESSERA_STORE_UNAVAILABLE');
      // Another request is charging this token: the waiter cannot say nothing was charged.
      assert.equal(waited.json.outcomeKnown, false, waited.text);
      assert.doesNotMatch(waited.json.message, /nothing was done/);
      const charged = await charging;
      assert.equal(charged.status, 503, charged.text);
      assert.equal(charged.json.outcomeKnown, false, charged.text);
    } finally {
      await Promise.all([h1!.close(), h2!.close()]);
      for (const store of stores) await store.close();
      await sb.close();
      await own.stop();
    }
  });

  it('answers 503 naming the cause in the log when Redis refuses the password, never the password, and recovers by itself', async () => {
    const admin = new Redis(server.url);
    const sb = await startSandbox();
    const password = 'wrong-pass-6f1c2e9d';
    const store = open({
      url: `redis://shop:${password}@127.0.0.1:${server.port}`,
      keyPrefix: 'auth:',
      timeoutMs: 300,
    });
    const h = await chargingHelper(sb, store);
    try {
      await admin.call('ACL', 'SETUSER', 'shop', 'on', '>right-pass-0a9b8c7d', '~*', '+@all');
      const body = { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' };
      const refused = await refusedByStore(h.url, body, 2000);
      assert.ok(!refused.text.includes(password), 'no password in the answer');
      assert.equal((await sandboxCharges(sb)).length, 0, 'no provider call without a claim');
      // The log says why (a timeout alone sent the operator looking for a slow Redis), and never the password that
      // ioredis keeps in the refused command's arguments.
      const errors = h.log.lines.filter((l) => l.event === 'tessera.error');
      assert.equal(errors.length, 1, 'logged once');
      assert.match(JSON.stringify(errors[0]), /WRONGPASS/);
      assert.ok(!h.log.text().includes(password), 'no password in the log');
      // The operator gives the user that password: the store reconnects by itself and charges again.
      await admin.call('ACL', 'SETUSER', 'shop', `>${password}`);
      await chargedOnceBack(h.url, body, sb);
    } finally {
      await admin.call('ACL', 'DELUSER', 'shop');
      admin.disconnect();
      await h.close();
      await sb.close();
    }
  });

  // Redis at maxclients accepts a connection, writes its refusal and closes it. ioredis sends CLIENT SETINFO first by
  // default and ignores its failure, so a client passed in often shows no error at all, only closes; the store's own
  // client sends no SETINFO, so its ready check gets the refusal.
  for (const [who, passed] of [
    ['the store’s own client', false],
    ['a client passed in, with ioredis’s defaults', true],
  ] as const) {
    /** A helper on a store at `url` whose first charge answers 503, logged once with a cause matching `cause`. */
    const refusedNaming = async (
      url: string,
      cause: RegExp,
      then: (h: Awaited<ReturnType<typeof startHelper>>, body: object, sb: RunningSandbox) => Promise<void>,
    ) => {
      const sb = await startSandbox();
      const store = new RedisStore(passed ? { client: new Redis(url), timeoutMs: 300 } : { url, timeoutMs: 300 });
      const h = await startHelper({
        ...legacyHelperOptions(sb),
        store,
        resolveCharge: () => ({ amount: 2500, currency: 'EUR' }),
      });
      try {
        const body = { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' };
        await refusedByStore(h.url, body, 2000);
        const errors = h.log.lines.filter((l) => l.event === 'tessera.error');
        assert.equal(errors.length, 1, 'logged once');
        assert.match(JSON.stringify(errors[0]), cause, 'the log names the failed connection');
        await then(h, body, sb);
      } finally {
        await h.close();
        await store.close();
        if (passed) store.client.disconnect();
        await sb.close();
      }
    };

    it(`answers 503 while Redis is at maxclients, naming the failed connection (${who}), and charges once a connection is free`, async () => {
      const own = await RedisServer.start(['--maxclients', '1']);
      // The one connection Redis allows is another client's.
      const hog = new Redis(own.url);
      try {
        await hog.ping();
        await refusedNaming(own.url, /Redis connection: /, async (h, body, sb) => {
          hog.disconnect();
          await chargedOnceBack(h.url, body, sb);
        });
      } finally {
        hog.disconnect();
        await own.stop();
      }
    });

    it(`answers 503 naming a connection closed before it was ready, with no error of its own (${who})`, async () => {
      // Something at Redis's address that ends every new connection and reads what is sent (a proxy without a
      // backend, say): the client sees only closes, no `error` event, so the 503s said nothing but a timeout.
      const sockets = new Set<Socket>();
      const closer = createServer({ allowHalfOpen: true }, (socket) => {
        sockets.add(socket.on('close', () => sockets.delete(socket)));
        socket.resume();
        socket.end();
      });
      await new Promise<void>((resolve) => closer.listen(0, '127.0.0.1', resolve));
      try {
        const url = `redis://127.0.0.1:${(closer.address() as AddressInfo).port}`;
        await refusedNaming(url, /Redis connection: closed before it was ready/, async (_h, _body, sb) => {
          assert.equal((await sandboxCharges(sb)).length, 0, 'no provider call without a claim');
        });
      } finally {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => closer.close(resolve));
      }
    });
  }

  it('does not blame a connection that was ready when it closes: a client passed in ready, then Redis gone', async () => {
    // The store took a client that was already ready for a connection attempt that had not got ready, so when Redis
    // went away its 503s named "closed before it was ready (as Redis at maxclients …)", sending an operator to look
    // at maxclients while Redis was down, until the next reconnect failure said otherwise.
    const own = await RedisServer.start();
    const client = new Redis(own.url, { retryStrategy: () => 5000 });
    try {
      await client.ping();
      const store = new RedisStore({ client, keyPrefix: 'gone:', timeoutMs: 300 });
      await store.set('k', 'v', 60_000);
      const closed = new Promise((resolve) => client.once('close', resolve));
      await own.kill();
      await closed;
      await assert.rejects(store.get('k'), (err: unknown) => {
        assert.ok(err instanceof StoreUnavailableError, String(err));
        assert.doesNotMatch(String((err.cause as Error | undefined)?.message), /before it was ready|maxclients/);
        return true;
      });
      await store.close();
    } finally {
      client.disconnect();
      await own.stop();
    }
  });

  it('answers the error replies of a full, read-only or restricted Redis with 503 before any provider call, and charges again', async () => {
    const own = await RedisServer.start();
    const primary = await RedisServer.start();
    const admin = new Redis(own.url);
    const sb = await startSandbox();
    await admin.call('ACL', 'SETUSER', 'shop', 'on', '>shop-pass-5d4e3f2a', '~tessera:*', '+@all');
    const store = new RedisStore({ url: `redis://shop:shop-pass-5d4e3f2a@127.0.0.1:${own.port}`, timeoutMs: 300 });
    const h = await chargingHelper(sb, store);
    const charge = async () =>
      call(`${h.url}/charges`, {
        body: { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' },
      });
    /** Redis refuses the store's writes with `reply` while `refuse` holds, then `allow` lifts it: 503, then 201. */
    const refusedThenCharged = async (reply: RegExp, refuse: () => Promise<unknown>, allow: () => Promise<unknown>) => {
      const before = (await sandboxCharges(sb)).length;
      const logged = h.log.lines.filter((l) => l.event === 'tessera.error').length;
      await refuse();
      try {
        const r = await charge();
        assert.equal(r.status, 503, r.text);
        assert.equal(r.json.code, 'TESSERA_STORE_UNAVAILABLE');
        assert.equal(r.json.outcomeKnown, true);
        assert.equal((await sandboxCharges(sb)).length, before, 'no provider call without a claim');
        const errors = h.log.lines.filter((l) => l.event === 'tessera.error').slice(logged);
        assert.equal(errors.length, 1, 'logged once');
        assert.match(JSON.stringify(errors[0]), reply);
      } finally {
        await allow();
      }
      const r = await charge();
      assert.equal(r.status, 201, r.text);
    };
    try {
      assert.equal((await charge()).status, 201);
      // maxmemory reached with noeviction.
      await refusedThenCharged(
        /OOM command not allowed/,
        () => admin.config('SET', 'maxmemory', '1'),
        () => admin.config('SET', 'maxmemory', '0'),
      );
      // A user without a command the store needs, then without its key pattern.
      await refusedThenCharged(
        /NOPERM/,
        () => admin.call('ACL', 'SETUSER', 'shop', '-evalsha'),
        () => admin.call('ACL', 'SETUSER', 'shop', '+evalsha'),
      );
      await refusedThenCharged(
        /NOPERM/,
        () => admin.call('ACL', 'SETUSER', 'shop', 'resetkeys', '~other:*'),
        () => admin.call('ACL', 'SETUSER', 'shop', 'resetkeys', '~tessera:*'),
      );
      // A replica (a failover that left the store on the old primary).
      await refusedThenCharged(
        /READONLY/,
        async () => {
          await admin.call('REPLICAOF', '127.0.0.1', String(primary.port));
          for (let i = 0; i < 100 && !(await admin.info('replication')).includes('master_link_status:up'); i++) {
            await sleep(20);
          }
        },
        () => admin.call('REPLICAOF', 'NO', 'ONE'),
      );
      assert.ok(!h.log.text().includes('shop-pass-5d4e3f2a'), 'no password in the log');
    } finally {
      admin.disconnect();
      await h.close();
      await store.close();
      await sb.close();
      await own.stop();
      await primary.stop();
    }
  });

  it('answers 503 within its bound while a restarted Redis loads its data (LOADING), and charges once it is loaded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-redis-loading-'));
    // Each key loads in 0.5 ms (a debug setting of redis-server): 4,000 keys take about 2 s to load.
    const own = await RedisServer.start(['--dir', dir, '--key-load-delay', '500']);
    const sb = await startSandbox();
    const store = new RedisStore({ url: own.url, timeoutMs: 300 });
    const h = await chargingHelper(sb, store);
    try {
      const admin = new Redis(own.url);
      await admin.eval("for i = 1, 4000 do redis.call('SET', 'filler:' .. i, 'x') end", 0);
      await admin.save();
      admin.disconnect();
      await ready(store);
      const body = { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' };
      await own.kill();
      // restart() waits for PING to answer, which it does only once the data is loaded.
      const restarted = own.restart();
      await sleep(300);
      await refusedByStore(h.url, body, 1200);
      await restarted;
      await chargedOnceBack(h.url, body, sb);
    } finally {
      await h.close();
      await store.close();
      await sb.close();
      await own.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps charging without a 503 when Redis forgot its scripts between two charges (SCRIPT FLUSH)', async () => {
    const sb = await startSandbox();
    const store = open({ keyPrefix: 'flush:' });
    const admin = new Redis(server.url);
    const h = await chargingHelper(sb, store);
    try {
      for (let i = 0; i < 2; i++) {
        const r = await call(`${h.url}/charges`, {
          body: { cardToken: await cardToken(sb), orderReference: `order-${i}`, email: 'a@shop.example' },
        });
        assert.equal(r.status, 201, r.text);
        // EVALSHA of every script now answers NOSCRIPT: the store sends the script itself (EVAL).
        await admin.call('SCRIPT', 'FLUSH');
      }
      assert.equal((await sandboxCharges(sb)).length, 2);
    } finally {
      admin.disconnect();
      await h.close();
      await sb.close();
    }
  });

  it('answers 503 within its bound while Redis pauses writes for longer, and charges the same token after', async () => {
    const sb = await startSandbox();
    const store = open({ keyPrefix: 'pause:', timeoutMs: 300 });
    const admin = new Redis(server.url);
    const h = await chargingHelper(sb, store);
    try {
      await ready(store);
      const body = { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' };
      await admin.call('CLIENT', 'PAUSE', '1500', 'WRITE');
      const started = Date.now();
      const paused = await call(`${h.url}/charges`, { body });
      assert.equal(paused.status, 503, paused.text);
      assert.equal(paused.json.code, 'TESSERA_STORE_UNAVAILABLE');
      assert.equal(paused.json.outcomeKnown, true);
      assert.ok(Date.now() - started < 1200, `answered in ${Date.now() - started} ms`);
      assert.equal((await sandboxCharges(sb)).length, 0, 'no provider call without a claim');
      await sleep(1500 - (Date.now() - started) + 100);
      // The paused claim ran when the pause ended, and its release after it: the token is free again.
      const retry = await call(`${h.url}/charges`, { body });
      assert.equal(retry.status, 201, retry.text);
      assert.equal((await sandboxCharges(sb)).length, 1);
    } finally {
      await admin.call('CLIENT', 'UNPAUSE');
      admin.disconnect();
      await h.close();
      await sb.close();
    }
  });

  it('answers a retry priced otherwise after Redis lost its keys (FLUSHALL) 409 TESSERA_CHARGE_ALREADY_SENT, outcome unknown, keeping nothing of it', async () => {
    const sb = await startSandbox();
    const store = open({ keyPrefix: 'forgot:' });
    const admin = new Redis(server.url);
    let amount = 2500;
    const h = await startHelper({
      ...legacyHelperOptions(sb),
      store,
      resolveCharge: () => ({ amount, currency: 'EUR' }),
    });
    try {
      const body = { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@shop.example' };
      const paid = await call(`${h.url}/charges`, { body });
      assert.equal(paid.status, 201, paid.text);
      // Redis restarted empty; meanwhile the shop's cart changed, so the order is priced otherwise.
      await admin.flushall();
      amount = 2600;
      for (let i = 0; i < 2; i++) {
        const retry = await call(`${h.url}/charges`, { body });
        assert.equal(retry.status, 409, retry.text);
        assert.equal(retry.json.code, 'TESSERA_CHARGE_ALREADY_SENT');
        assert.equal(retry.json.outcomeKnown, false);
        // The claim is given back and no answer kept: the next retry asks the provider again, as with a MemoryStore.
        await until(async () => (await admin.keys('forgot:charge:*')).length === 0, 'the claim given back');
      }
      // Priced as the first time, the retry is the first request again: the provider replays its charge.
      amount = 2500;
      const again = await call(`${h.url}/charges`, { body });
      assert.equal(again.status, 201, again.text);
      assert.equal(again.json.id, paid.json.id);
      assert.deepEqual(
        (await sandboxCharges(sb)).map((e) => e.status),
        [200, 422, 422, 200],
      );
    } finally {
      admin.disconnect();
      await h.close();
      await sb.close();
    }
  });

  it('keeps no card token or secret in Redis after a full charge: keys and values are hashes and results', async () => {
    const sb: RunningSandbox = await startSandbox();
    const store = open({ keyPrefix: 'charge:' });
    const h = await startHelper({
      ...legacyHelperOptions(sb),
      store,
      resolveCharge: (_req, { orderReference }) =>
        orderReference === 'order-3ds'
          ? { amount: 4200, currency: 'GBP', threeDSecure: true }
          : { amount: 2500, currency: 'EUR' },
      // Session ids are bearer secrets: a charge's owner keeps their hash, and so must a pending 3-D Secure record.
      sessionId: (req) => req.get('x-session') ?? undefined,
    });
    const session = 'sess-7f3c9a1e5b2d4f6a8c0e';
    const client = new Redis(server.url);
    try {
      const token = await cardToken(sb);
      const r = await call(`${h.url}/charges`, {
        body: { cardToken: token, orderReference: 'order-1', email: 'a@shop.example' },
      });
      assert.equal(r.status, 201, r.text);
      const declined = await cardToken(sb, '4000000000000002');
      await call(`${h.url}/charges`, {
        body: { cardToken: declined, orderReference: 'order-2', email: 'a@shop.example' },
      });
      const challenged = await cardToken(sb, '4000000000003220');
      const pending = await call(`${h.url}/charges`, {
        body: { cardToken: challenged, orderReference: 'order-3ds', email: 'a@shop.example' },
        headers: { 'x-session': session },
      });
      assert.equal(pending.status, 202, pending.text);
      const keys = await client.keys('*');
      assert.ok(
        keys.some((k) => k.startsWith('charge:')),
        'the charge left state in Redis',
      );
      const values = await Promise.all(keys.map(async (k) => (await client.type(k)) === 'string' && client.get(k)));
      const dump = JSON.stringify({ keys, values });
      assert.ok(dump.includes(r.json.id), 'the result is stored');
      for (const secret of [token, declined, challenged, session, sb.credentials.secretKey, sb.credentials.publicKey]) {
        assert.ok(!dump.includes(secret), `no token, session id or key in Redis: ${secret}`);
      }
      assert.doesNotMatch(dump, /card_tok_|sk_|pk_|4242424242424242/);
    } finally {
      client.disconnect();
      await h.close();
      await sb.close();
    }
  });
});
