import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { StoreUnavailableError, type TesseraStore } from '../../../server/helper/index.js';
import { releaseDeclines, reserveDeclines } from '../../../server/helper/rate-limit.js';
import { STORE_CHECKS } from '../../../server/helper/store-check.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * How many decline reservations are live on the counter `key` of a built-in store (held by id under `<key>:reserved`):
 * a probe reservation's count, less itself.
 */
export async function reservations(store: TesseraStore, key: string): Promise<number> {
  const probe = `probe-${randomBytes(6).toString('hex')}`;
  const { count } = await store.reserve!(`${key}:reserved`, probe, 60_000);
  await store.unreserve!(`${key}:reserved`, probe);
  return count - 1;
}

/** One store under test, with a way to let time pass for it. */
export interface StoreUnderTest {
  readonly store: TesseraStore;
  /** Lets at least `ms` pass for the store (a manual clock moves; a real store is waited for). */
  advance(ms: number): Promise<void>;
}

export interface StoreFactory {
  /** A fresh store (or a fresh key space of one) for one test. */
  make(): Promise<StoreUnderTest>;
  /** The shortest window or TTL the store's tests use, and how far past it `advance` must go to be sure it ended. */
  readonly shortMs: number;
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
}

/**
 * The behaviour every {@link TesseraStore} must have, registered as node:test tests for `factory`: the checks that
 * `checkTesseraStore` runs for a merchant's own store (server/helper/store-check.ts), one test each, and the
 * optional methods, which both built-in stores must have (docs/decisions/helper.md#helper-store).
 */
export function storeContract(name: string, factory: StoreFactory): void {
  describe(`TesseraStore contract: ${name}`, () => {
    before(async () => factory.setup?.());
    after(async () => factory.teardown?.());

    it('offers the optional methods, claimAndGet, setAndRelease, extend, reserve and unreserve', async () => {
      const { store } = await factory.make();
      assert.equal(typeof store.claimAndGet, 'function');
      assert.equal(typeof store.setAndRelease, 'function');
      assert.equal(typeof store.extend, 'function');
      assert.equal(typeof store.reserve, 'function');
      assert.equal(typeof store.unreserve, 'function');
    });

    it('frees no other charge’s decline reservation when one that failed before reaching the store is given back', async () => {
      const { store } = await factory.make();
      const counters = [
        { key: 'declines:ip:203.0.113.7', limit: { max: 1, windowMs: 600_000 }, name: 'declinesPerIp' as const },
      ];
      // The same store, whose next call fails without reaching it (a connection down when the call is made).
      let cut = false;
      const cutOff = new Proxy(store, {
        get(target, name) {
          const value: unknown = Reflect.get(target, name);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            if (!cut) return value.apply(target, args);
            cut = false;
            return Promise.reject(new StoreUnavailableError('the shared store cannot be reached'));
          };
        },
      });
      const first = await reserveDeclines(store, counters, Date.now);
      cut = true;
      await assert.rejects(reserveDeclines(cutOff, counters, Date.now), StoreUnavailableError);
      // Its give-back is not awaited: let it land.
      await sleep(50);
      // The one place is still the first charge's: a third waits for it (it got through at once, a second charge in
      // flight on a limit of one), and goes on once the first is settled.
      let third: unknown;
      const waiting = reserveDeclines(store, counters, Date.now).then((r) => {
        third = r;
        return r;
      });
      await sleep(300);
      assert.equal(third, undefined, 'a charge got through while the one place was held');
      await releaseDeclines(store, first);
      await releaseDeclines(store, await waiting);
    });

    for (const check of STORE_CHECKS) {
      it(check.name, async () => {
        const { store, advance } = await factory.make();
        assert.ok(check.applies(store), 'the check applies to the built-in stores');
        await check.run({ store, k: (key) => key, advance, short: factory.shortMs });
      });
    }
  });
}
