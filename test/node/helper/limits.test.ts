import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStore, StoreUnavailableError } from '../../../server/helper/index.js';
import {
  checkDeclinesTotal,
  commitDeclines,
  consume,
  consumeAll,
  DECLINES_TOTAL_KEY,
  ipKey,
  type ReservedCounter,
  releaseDeclines,
  reserveDeclines,
} from '../../../server/helper/rate-limit.js';
import type { TesseraStore } from '../../../server/helper/store.js';
import { guardStore } from '../../../server/helper/store-guard.js';
import { reservations, storeContract } from './store-contract.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A clock that moves only when told: VirtualClock follows wall time between advances, so exact times would race. */
function manualClock(start = Date.UTC(2026, 0, 1)) {
  let now = start;
  return {
    nowMs: () => now,
    advance: (seconds: number) => {
      now += seconds * 1000;
    },
  };
}

storeContract('MemoryStore', {
  shortMs: 10_000,
  make: async () => {
    const clock = manualClock(Date.now());
    const store = new MemoryStore({ now: () => clock.nowMs() });
    return {
      store,
      advance: async (ms) => clock.advance(ms / 1000),
    };
  },
});

/** `store` with its own `reserve` replaced (its other methods called on it, as they use its private fields). */
function withReserve(store: MemoryStore, reserve: NonNullable<TesseraStore['reserve']>): TesseraStore {
  return {
    get: (key) => store.get(key),
    set: (key, value, ttlMs) => store.set(key, value, ttlMs),
    hit: (key, windowMs) => store.hit(key, windowMs),
    count: (key) => store.count(key),
    unhit: (key) => store.unhit(key),
    claim: (key, value, ttlMs) => store.claim(key, value, ttlMs),
    release: (key, value) => store.release(key, value),
    reserve,
    unreserve: (key, id) => store.unreserve(key, id),
  };
}

describe('MemoryStore and the limits built on it', () => {
  it('drops the oldest entries beyond maxEntries', async () => {
    const store = new MemoryStore({ maxEntries: 3 });
    for (const k of ['a', 'b', 'c', 'd']) await store.set(k, k, 60_000);
    assert.equal(await store.get('a'), undefined);
    assert.equal(await store.get('d'), 'd');
    // A claim kept alive (extended) counts as new: the entries written before its extension go first.
    const claims = new MemoryStore({ maxEntries: 3 });
    assert.equal(await claims.claim('claim', 'me', 30_000), true);
    for (const k of ['x', 'y']) await claims.set(k, k, 60_000);
    assert.equal(await claims.extend('claim', 'me', 30_000), true);
    await claims.set('z', 'z', 60_000);
    assert.equal(await claims.get('claim'), 'me');
    assert.equal(await claims.get('x'), undefined);
  });

  it('answers 429 with Retry-After once a window is used up, then lets requests through again', async () => {
    const clock = manualClock();
    const store = new MemoryStore({ now: () => clock.nowMs() });
    const limit = { max: 2, windowMs: 60_000 };
    await consume(store, 'ip:1', limit, clock.nowMs(), 'charges', 'chargesPerIp');
    await consume(store, 'ip:1', limit, clock.nowMs(), 'charges', 'chargesPerIp');
    await assert.rejects(
      consume(store, 'ip:1', limit, clock.nowMs(), 'charges', 'chargesPerIp'),
      (err: { status: number; code: string; headers: Record<string, string>; details: Record<string, string> }) => {
        assert.equal(err.status, 429);
        assert.equal(err.code, 'TESSERA_RATE_LIMITED');
        assert.equal(err.headers['Retry-After'], '60');
        assert.deepEqual(err.details, { limit: 'chargesPerIp', option: 'rateLimits.chargesPerIp' });
        return true;
      },
    );
    await consume(store, 'ip:2', limit, clock.nowMs(), 'charges', 'chargesPerIp');
    clock.advance(61);
    await consume(store, 'ip:1', limit, clock.nowMs(), 'charges', 'chargesPerIp');
  });

  it('reserves declines before the call, gives them back, and blocks past max until the window ends', async () => {
    const clock = manualClock();
    const store = new MemoryStore({ now: () => clock.nowMs() });
    const counters = [{ key: 'd', limit: { max: 3, windowMs: 600_000 }, name: 'declinesPerIp' as const }];
    // Ten at once: only three reservations can be held; the others wait, then give up (nothing settles them).
    const all = await Promise.allSettled(
      Array.from({ length: 10 }, () => reserveDeclines(store, counters, clock.nowMs)),
    );
    const held = all.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    assert.equal(held.length, 3);
    // Refused while only charges under way fill the limit: try again in the seconds one takes to settle, not when the
    // first reservation would lapse (the whole window).
    for (const r of all) {
      if (r.status === 'fulfilled') continue;
      const err = r.reason as { status: number; code: string; headers: Record<string, string> };
      assert.deepEqual([err.status, err.code, err.headers['Retry-After']], [429, 'TESSERA_TOO_MANY_DECLINES', '3']);
    }
    assert.equal(await reservations(store, 'd'), 3);
    // One was approved (given back), two declined (counted): one more may try.
    await releaseDeclines(store, held[0]!);
    await commitDeclines(store, held[1]!);
    await commitDeclines(store, held[2]!);
    assert.deepEqual([(await store.count('d')).count, await reservations(store, 'd')], [2, 0]);
    const last = await reserveDeclines(store, counters, clock.nowMs);
    await commitDeclines(store, last);
    clock.advance(100);
    const started = Date.now();
    await assert.rejects(
      reserveDeclines(store, counters, clock.nowMs),
      (err: { status: number; code: string; headers: Record<string, string>; details: Record<string, string> }) => {
        assert.equal(err.status, 429);
        assert.equal(err.code, 'TESSERA_TOO_MANY_DECLINES');
        assert.equal(err.headers['Retry-After'], '500');
        assert.equal(err.details.option, 'rateLimits.declinesPerIp');
        return true;
      },
    );
    assert.ok(Date.now() - started < 1000, 'known declines refuse at once, without waiting');
    assert.equal(await reservations(store, 'd'), 0, 'a refused reservation is given back');
    clock.advance(500);
    await reserveDeclines(store, counters, clock.nowMs);
  });

  it('refuses with the shop-wide declinesTotal once its known count reached max, without counting anything itself', async () => {
    const clock = manualClock();
    const store = new MemoryStore({ now: () => clock.nowMs() });
    const limit = { max: 2, windowMs: 600_000 };
    // Checks count nothing: a hundred of them leave the counter untouched.
    for (let i = 0; i < 100; i++) await checkDeclinesTotal(store, limit, clock.nowMs);
    assert.equal((await store.count(DECLINES_TOTAL_KEY)).count, 0);
    await store.hit(DECLINES_TOTAL_KEY, limit.windowMs);
    clock.advance(100);
    await checkDeclinesTotal(store, limit, clock.nowMs);
    await store.hit(DECLINES_TOTAL_KEY, limit.windowMs);
    await assert.rejects(
      checkDeclinesTotal(store, limit, clock.nowMs),
      (err: { status: number; code: string; headers: Record<string, string>; details: Record<string, string> }) => {
        assert.deepEqual(
          [err.status, err.code, err.headers['Retry-After']],
          [429, 'TESSERA_TOO_MANY_DECLINES', '500'],
          'until the end of the window that started with the first decline',
        );
        assert.deepEqual(err.details, { limit: 'declinesTotal', option: 'rateLimits.declinesTotal' });
        return true;
      },
    );
    clock.advance(500);
    await checkDeclinesTotal(store, limit, clock.nowMs);
  });

  it('keeps the place of a charge in flight when the window of the earlier reservations ends, and gives back only its own', async () => {
    const clock = manualClock();
    const store = new MemoryStore({ now: () => clock.nowMs() });
    const counters = [{ key: 'd', limit: { max: 1, windowMs: 600_000 }, name: 'declinesPerIp' as const }];
    /** Whether `reserving` is still waiting for a place after 200 ms. */
    const waits = async (reserving: Promise<unknown>) =>
      (await Promise.race([reserving.then(() => false), sleep(200).then(() => true)])) as boolean;
    // An approved charge at 0:00; charge A starts at 9:50 and is still in flight at 10:10.
    await releaseDeclines(store, await reserveDeclines(store, counters, clock.nowMs));
    clock.advance(590);
    const a = await reserveDeclines(store, counters, clock.nowMs);
    clock.advance(20);
    // A fixed window that started at 0:00 forgot A at 10:00: B got through at once, two charges in flight on a limit
    // of one, and A's give-back then took B's place too, letting C through.
    const b = reserveDeclines(store, counters, clock.nowMs);
    assert.equal(await waits(b), true, 'B got through while A was in flight');
    await releaseDeclines(store, a);
    const held = await b;
    const c = reserveDeclines(store, counters, clock.nowMs);
    assert.equal(await waits(c), true, 'C got through while B was in flight');
    await releaseDeclines(store, held);
    await releaseDeclines(store, await c);
    // A reservation never given back (a store failure) holds its place a window from when it was made, then lapses.
    await reserveDeclines(store, counters, clock.nowMs);
    clock.advance(601);
    await releaseDeclines(store, await reserveDeclines(store, counters, clock.nowMs));
  });

  it('counts a request against every budget at once and names the first one used up', async () => {
    const clock = manualClock();
    const store = new MemoryStore({ now: () => clock.nowMs() });
    const budgets = [
      { key: 'c:ip', limit: { max: 3, windowMs: 60_000 }, what: 'payment attempts', name: 'chargesPerIp' as const },
      { key: 'c:s', limit: { max: 1, windowMs: 60_000 }, what: 'payment attempts', name: 'chargesPerSession' as const },
    ];
    await consumeAll(store, budgets, clock.nowMs());
    const refused = (err: { code: string; details: Record<string, string> }, name: string) => {
      assert.equal(err.code, 'TESSERA_RATE_LIMITED');
      assert.equal(err.details.limit, name);
      return true;
    };
    await assert.rejects(consumeAll(store, budgets, clock.nowMs()), (err: never) => refused(err, 'chargesPerSession'));
    await assert.rejects(consumeAll(store, budgets, clock.nowMs()), (err: never) => refused(err, 'chargesPerSession'));
    // Both over: the first listed is named. Every attempt counted in every budget.
    await assert.rejects(consumeAll(store, budgets, clock.nowMs()), (err: never) => refused(err, 'chargesPerIp'));
    assert.deepEqual([(await store.count('c:ip')).count, (await store.count('c:s')).count], [4, 4]);
    await consumeAll(store, [], clock.nowMs());
  });

  it('reserves the IP and session counters side by side, in one round trip of a pipelining store', async () => {
    const store = new MemoryStore();
    // Every reservation waits until two are pending: reserving the counters one after the other would never get there.
    const pending: (() => void)[] = [];
    const gated = withReserve(store, async (key, id, ttlMs) => {
      await new Promise<void>((resolve) => {
        pending.push(resolve);
        if (pending.length === 2) for (const go of pending.splice(0)) go();
      });
      return store.reserve(key, id, ttlMs);
    });
    const counters = [
      { key: 'd:ip', limit: { max: 5, windowMs: 600_000 }, name: 'declinesPerIp' as const },
      { key: 'd:s', limit: { max: 3, windowMs: 600_000 }, name: 'declinesPerSession' as const },
    ];
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error('hits were sequential')), 2000);
    });
    const reserved = (await Promise.race([reserveDeclines(gated, counters, Date.now), timeout])) as ReservedCounter[];
    assert.deepEqual(
      reserved.map(({ id: _, ...c }) => c),
      counters,
    );
    assert.deepEqual([await reservations(store, 'd:ip'), await reservations(store, 'd:s')], [1, 1]);
    await Promise.race([commitDeclines(gated, reserved), timeout]);
    assert.deepEqual([(await store.count('d:ip')).count, (await store.count('d:s')).count], [1, 1]);
    assert.deepEqual([await reservations(store, 'd:ip'), await reservations(store, 'd:s')], [0, 0]);
    clearTimeout(timer);
  });

  it('gives back the reservation it took when the other counter is full, or when the store fails on it', async () => {
    const clock = manualClock();
    const store = new MemoryStore({ now: () => clock.nowMs() });
    const counters = [
      { key: 'd:ip', limit: { max: 5, windowMs: 600_000 }, name: 'declinesPerIp' as const },
      { key: 'd:s', limit: { max: 1, windowMs: 600_000 }, name: 'declinesPerSession' as const },
    ];
    await store.hit('d:s', 600_000);
    await assert.rejects(reserveDeclines(store, counters, clock.nowMs), (err: { details: Record<string, string> }) => {
      assert.equal(err.details.limit, 'declinesPerSession');
      return true;
    });
    assert.deepEqual([await reservations(store, 'd:ip'), await reservations(store, 'd:s')], [0, 0]);

    const down = new Error('store down');
    const failing = withReserve(store, (key, id, ttlMs) =>
      key.startsWith('d:s') ? Promise.reject(down) : store.reserve(key, id, ttlMs),
    );
    await assert.rejects(reserveDeclines(failing, counters, clock.nowMs), (err) => err === down);
    assert.equal(await reservations(store, 'd:ip'), 0, 'the IP reservation is given back');

    // The store fails between a counter's reservation and its known count: that reservation is given back too.
    const countFails: TesseraStore = {
      ...withReserve(store, (key, id, ttlMs) => store.reserve(key, id, ttlMs)),
      count: (key) => (key === 'd:s' ? Promise.reject(down) : store.count(key)),
    };
    await assert.rejects(reserveDeclines(countFails, counters, clock.nowMs), (err) => err === down);
    assert.deepEqual([await reservations(store, 'd:ip'), await reservations(store, 'd:s')], [0, 0]);
  });

  it('gives back a decline reservation of a store of the merchant’s own that lands after the guard gave up on it', async () => {
    const clock = manualClock();
    const memory = new MemoryStore({ now: () => clock.nowMs() });
    const counters = [{ key: 'd:s', limit: { max: 2, windowMs: 600_000 }, name: 'declinesPerSession' as const }];
    // A driver with no timeout of its own, on a pool: a slow `reserve` lands 150 ms after it was asked, while the
    // give-back sent when the guard gave up (100 ms) is done at once, before the reservation it gives back exists.
    let slow = true;
    const landed: Promise<unknown>[] = [];
    const store = guardStore(
      withReserve(memory, (key, id, ttlMs) => {
        if (!slow) return memory.reserve(key, id, ttlMs);
        const late = sleep(150).then(() => memory.reserve(key, id, ttlMs));
        landed.push(late);
        return late;
      }),
      100,
    );
    // Two charges meet a slow store while they reserve: each is answered 503, and what it reserved is given back once
    // it lands. Left in place, the two filled the limit of two for the window (ten minutes): the next charge waited
    // 3 s and was refused 429 TESSERA_TOO_MANY_DECLINES with no decline at all.
    for (let i = 0; i < 2; i++) {
      await assert.rejects(reserveDeclines(store, counters, clock.nowMs), StoreUnavailableError);
    }
    await Promise.all(landed);
    await sleep(20);
    assert.equal(await reservations(memory, 'd:s'), 0, 'no reservation left behind');
    slow = false;
    await releaseDeclines(store, await reserveDeclines(store, counters, clock.nowMs));
  });

  it('gives back a hit of the in-flight counter (a store without reserve) only after it lands, once', async () => {
    const clock = manualClock();
    const memory = new MemoryStore({ now: () => clock.nowMs() });
    const counters = [{ key: 'd:s', limit: { max: 2, windowMs: 600_000 }, name: 'declinesPerSession' as const }];
    const { reserve: _r, unreserve: _u, ...plain } = withReserve(memory, (k, i, t) => memory.reserve(k, i, t));
    let slow = false;
    const landed: Promise<unknown>[] = [];
    const store = guardStore(
      {
        ...plain,
        hit: (key, windowMs) => {
          if (!slow || !key.endsWith(':inflight')) return memory.hit(key, windowMs);
          const late = sleep(150).then(() => memory.hit(key, windowMs));
          landed.push(late);
          return late;
        },
      },
      100,
    );
    // Alone: a give-back sent before the late hit landed took nothing, and the hit then held a place for the window.
    slow = true;
    await assert.rejects(reserveDeclines(store, counters, clock.nowMs), StoreUnavailableError);
    await Promise.all(landed);
    await sleep(20);
    assert.equal((await memory.count('d:s:inflight')).count, 0, 'no place left behind');
    // Beside another charge in flight: the early give-back took that charge's place while it was still in flight.
    slow = false;
    const other = await reserveDeclines(store, counters, clock.nowMs);
    slow = true;
    await assert.rejects(reserveDeclines(store, counters, clock.nowMs), StoreUnavailableError);
    assert.equal((await memory.count('d:s:inflight')).count, 1, 'the other charge keeps its place');
    await Promise.all(landed);
    await sleep(20);
    assert.equal((await memory.count('d:s:inflight')).count, 1, 'the other charge’s place, and only it');
    await releaseDeclines(store, other);
    assert.equal((await memory.count('d:s:inflight')).count, 0);
  });

  it('makes a give-back behind a call that never settles all the same, one bound later', async () => {
    const clock = manualClock();
    const memory = new MemoryStore({ now: () => clock.nowMs() });
    const counters = [{ key: 'd:s', limit: { max: 2, windowMs: 600_000 }, name: 'declinesPerSession' as const }];
    const { reserve: _r, unreserve: _u, ...plain } = withReserve(memory, (k, i, t) => memory.reserve(k, i, t));
    let hang = false;
    const store = guardStore(
      { ...plain, hit: (key, windowMs) => (hang ? new Promise(() => {}) : memory.hit(key, windowMs)) },
      100,
    );
    const first = await reserveDeclines(store, counters, clock.nowMs);
    hang = true;
    await assert.rejects(reserveDeclines(store, counters, clock.nowMs), StoreUnavailableError);
    // The first charge's give-back waits for the hit that never lands at most one bound, and is made.
    const started = Date.now();
    await releaseDeclines(store, first);
    assert.ok(Date.now() - started < 1000, `given back in ${Date.now() - started} ms`);
    assert.equal((await memory.count('d:s:inflight')).count, 0);
  });

  it('forgets a timed-out call that never settles one bound later: a give-back after that is made at once', async () => {
    const memory = new MemoryStore();
    let released = 0;
    const store = guardStore(
      {
        ...withReserve(memory, (k, i, t) => memory.reserve(k, i, t)),
        claim: () => new Promise<boolean>(() => {}),
        release: (key, owner) => {
          released++;
          return memory.release(key, owner);
        },
      },
      500,
    );
    await assert.rejects(store.claim('t:1', 'owner-1', 60_000), StoreUnavailableError);
    // Long after the claim timed out (one bound and more), nothing is kept for it: the release does not wait for it.
    await sleep(1100);
    const started = Date.now();
    await store.release('t:1', 'owner-1');
    assert.equal(released, 1);
    assert.ok(Date.now() - started < 250, `released after ${Date.now() - started} ms`);
  });

  it('keeps a request count or a decline that lands after the guard gave up on it: it was made', async () => {
    const clock = manualClock();
    const memory = new MemoryStore({ now: () => clock.nowMs() });
    const landed: Promise<unknown>[] = [];
    const store = guardStore(
      {
        ...withReserve(memory, (k, i, t) => memory.reserve(k, i, t)),
        hit: (key, windowMs) => {
          const late = sleep(150).then(() => memory.hit(key, windowMs));
          landed.push(late);
          return late;
        },
      },
      100,
    );
    const limit = { max: 5, windowMs: 60_000 };
    await assert.rejects(
      consume(store, 'rate:ip', limit, clock.nowMs(), 'requests', 'requestsPerIp'),
      StoreUnavailableError,
    );
    const counters = [{ key: 'd:s', limit: { max: 2, windowMs: 600_000 }, name: 'declinesPerSession' as const }];
    const reserved = await reserveDeclines(store, counters, clock.nowMs);
    await assert.rejects(commitDeclines(store, reserved), StoreUnavailableError);
    await Promise.all(landed);
    await sleep(20);
    assert.equal((await memory.count('rate:ip')).count, 1, 'the request counts');
    assert.equal((await memory.count('d:s')).count, 1, 'the decline counts');
    assert.equal(await reservations(memory, 'd:s'), 0, 'its reservation is given back');
  });

  it('keys clients by IPv4 address and by IPv6 /64, so fresh addresses of one network share a limit', () => {
    const cases: [string | undefined, string][] = [
      ['203.0.113.7', '203.0.113.7'],
      ['::ffff:203.0.113.7', '203.0.113.7'],
      ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
      ['2001:0db8:0001:0002:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
      ['2001:db8::1', '2001:db8:0:0::/64'],
      ['2001:db8::1.2.3.4', '2001:db8:0:0::/64'],
      ['fe80::1%eth0', 'fe80:0:0:0::/64'],
      [undefined, 'unknown'],
    ];
    for (const [ip, key] of cases) assert.equal(ipKey(ip), key, String(ip));
  });

  it('keys an address that is no IP (X-Forwarded-For text under a `trust proxy` of more hops than proxies) by its hash', () => {
    // Express takes X-Forwarded-For entries as they come: 12 KB of junk was 12 KB of store key per request, in three
    // counters for the whole window, and `x:inflight` named another client's reservation counter.
    const junk = 'x'.repeat(12_000);
    const key = ipKey(junk);
    assert.ok(key.length <= 64, `${key.length} characters`);
    assert.match(key, /^other:[\w-]+$/);
    assert.equal(ipKey(junk), key, 'the same text, the same key');
    assert.notEqual(ipKey(`${junk}y`), key);
    assert.match(ipKey('203.0.113.7:inflight'), /^other:[\w-]+$/);
    assert.equal(ipKey('unknown'), 'unknown');
  });
});
