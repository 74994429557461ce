import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStore } from '../../../server/helper/index.js';
import { commitDeclines, consume, ipKey, releaseDeclines, reserveDeclines } from '../../../server/helper/rate-limit.js';
import { storeContract } from './store-contract.js';

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

describe('MemoryStore and the limits built on it', () => {
  it('drops the oldest entries beyond maxEntries', async () => {
    const store = new MemoryStore({ maxEntries: 3 });
    for (const k of ['a', 'b', 'c', 'd']) await store.set(k, k, 60_000);
    assert.equal(await store.get('a'), undefined);
    assert.equal(await store.get('d'), 'd');
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
    assert.equal(all.filter((r) => r.status === 'fulfilled').length, 3);
    assert.equal((await store.count('d:inflight')).count, 3);
    // One was approved (given back), two declined (counted): one more may try.
    await releaseDeclines(store, counters);
    await commitDeclines(store, counters);
    await commitDeclines(store, counters);
    assert.deepEqual([(await store.count('d')).count, (await store.count('d:inflight')).count], [2, 0]);
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
    assert.equal((await store.count('d:inflight')).count, 0, 'a refused reservation is given back');
    clock.advance(500);
    await reserveDeclines(store, counters, clock.nowMs);
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
});
