import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TesseraStore } from '../../../server/helper/index.js';

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
 * The behaviour every {@link TesseraStore} must have, registered as node:test tests for `factory`: the helper relies
 * on exactly this (docs/decisions/helper.md#helper-store).
 */
export function storeContract(name: string, factory: StoreFactory): void {
  const short = factory.shortMs;
  describe(`TesseraStore contract: ${name}`, () => {
    before(async () => factory.setup?.());
    after(async () => factory.teardown?.());

    it('keeps a value for its TTL, replaces it on set, and forgets it after', async () => {
      const { store, advance } = await factory.make();
      assert.equal(await store.get('absent'), undefined);
      await store.set('a', 'x', short);
      await store.set('long', '{"json":"ok"}', 60_000);
      assert.equal(await store.get('a'), 'x');
      await store.set('a', 'y', short);
      assert.equal(await store.get('a'), 'y');
      await advance(short * 2);
      assert.equal(await store.get('a'), undefined);
      assert.equal(await store.get('long'), '{"json":"ok"}');
    });

    it('counts hits in a fixed window that starts at the first hit, and starts again at 1 after it ends', async () => {
      const { store, advance } = await factory.make();
      const before = Date.now();
      const first = await store.hit('c', 60_000);
      assert.equal(first.count, 1);
      assert.ok(first.resetAtMs >= before + 59_000 - 5_000 && first.resetAtMs <= Date.now() + 61_000, 'window end');
      const second = await store.hit('c', 60_000);
      assert.equal(second.count, 2);
      assert.ok(Math.abs(second.resetAtMs - first.resetAtMs) < 1000, 'same window');
      const counted = await store.count('c');
      assert.equal(counted.count, 2);
      assert.deepEqual(await store.count('absent'), { count: 0, resetAtMs: 0 });
      assert.equal((await store.hit('s', short)).count, 1);
      assert.equal((await store.hit('s', short)).count, 2);
      await advance(short * 2);
      assert.deepEqual(await store.count('s'), { count: 0, resetAtMs: 0 });
      assert.equal((await store.hit('s', short)).count, 1);
    });

    it('answers each of 100 concurrent hits a different count, 1 to 100', async () => {
      const { store } = await factory.make();
      const counts = await Promise.all(Array.from({ length: 100 }, () => store.hit('burst', 60_000)));
      assert.deepEqual(
        counts.map((c) => c.count).sort((a, b) => a - b),
        Array.from({ length: 100 }, (_, i) => i + 1),
      );
      assert.equal((await store.count('burst')).count, 100);
    });

    it('gives a reserved hit back with unhit, never below zero and not into a new window', async () => {
      const { store, advance } = await factory.make();
      await store.hit('c', 60_000);
      await store.hit('c', 60_000);
      await store.unhit('c');
      assert.equal((await store.count('c')).count, 1);
      await Promise.all([store.unhit('c'), store.unhit('c'), store.unhit('c')]);
      assert.equal((await store.count('c')).count, 0);
      assert.equal((await store.hit('c', 60_000)).count, 1);
      await store.hit('w', short);
      await advance(short * 2);
      await store.unhit('w');
      assert.deepEqual(await store.count('w'), { count: 0, resetAtMs: 0 });
      assert.equal((await store.hit('w', short)).count, 1);
      await store.unhit('absent');
      assert.deepEqual(await store.count('absent'), { count: 0, resetAtMs: 0 });
    });

    it('lets exactly one of 50 concurrent claims win, and keeps the winner’s value', async () => {
      const { store } = await factory.make();
      const owners = Array.from({ length: 50 }, (_, i) => `owner-${i}`);
      const won = await Promise.all(owners.map((owner) => store.claim('token', owner, 60_000)));
      assert.equal(won.filter(Boolean).length, 1);
      assert.equal(await store.get('token'), owners[won.indexOf(true)]);
    });

    it('releases a claim only for its owner, and a claim ends with its TTL', async () => {
      const { store, advance } = await factory.make();
      assert.equal(await store.claim('token', 'a', 60_000), true);
      assert.equal(await store.claim('token', 'b', 60_000), false);
      assert.equal(await store.release('token', 'b'), false);
      assert.equal(await store.get('token'), 'a');
      assert.equal(await store.release('token', 'a'), true);
      assert.equal(await store.release('token', 'a'), false);
      assert.equal(await store.claim('token', 'b', short), true);
      await advance(short * 2);
      assert.equal(await store.release('token', 'b'), false);
      assert.equal(await store.claim('token', 'c', 60_000), true);
      assert.equal(await store.get('token'), 'c');
    });

    it('claimAndGet claims like claim and reads the value after it, for the winner and the others alike', async () => {
      const { store, advance } = await factory.make();
      assert.ok(store.claimAndGet, 'the built-in stores offer claimAndGet');
      assert.deepEqual(await store.claimAndGet('token:claim', 'a', 60_000, 'token'), {
        claimed: true,
        value: undefined,
      });
      assert.deepEqual(await store.claimAndGet('token:claim', 'b', 60_000, 'token'), {
        claimed: false,
        value: undefined,
      });
      await store.set('token', '{"id":"charge_1"}', 60_000);
      assert.deepEqual(await store.claimAndGet('token:claim', 'b', 60_000, 'token'), {
        claimed: false,
        value: '{"id":"charge_1"}',
      });
      assert.equal(await store.release('token:claim', 'a'), true);
      assert.deepEqual(await store.claimAndGet('token:claim', 'b', short, 'token'), {
        claimed: true,
        value: '{"id":"charge_1"}',
      });
      await advance(short * 2);
      assert.equal(await store.release('token:claim', 'b'), false);
      const owners = Array.from({ length: 50 }, (_, i) => `owner-${i}`);
      const answers = await Promise.all(owners.map((owner) => store.claimAndGet!('race:claim', owner, 60_000, 'race')));
      assert.equal(answers.filter((a) => a.claimed).length, 1);
      assert.equal(await store.get('race:claim'), owners[answers.findIndex((a) => a.claimed)]);
    });

    it('setAndRelease saves the value with its TTL and gives the claim back, only to its owner', async () => {
      const { store, advance } = await factory.make();
      assert.ok(store.setAndRelease, 'the built-in stores offer setAndRelease');
      assert.equal(await store.claim('token:claim', 'a', 60_000), true);
      await store.setAndRelease('token', '{"id":"charge_1"}', 60_000, 'token:claim', 'b');
      assert.equal(await store.get('token'), '{"id":"charge_1"}');
      assert.equal(await store.get('token:claim'), 'a', 'a claim of another owner stays');
      await store.setAndRelease('token', '{"id":"charge_2"}', short, 'token:claim', 'a');
      assert.equal(await store.get('token'), '{"id":"charge_2"}', 'replaced, like set');
      assert.equal(await store.get('token:claim'), undefined);
      assert.equal(await store.claim('token:claim', 'c', 60_000), true, 'claimable again');
      await advance(short * 2);
      assert.equal(await store.get('token'), undefined, 'the value ends with its TTL');
      assert.equal(await store.get('token:claim'), 'c');
      await store.setAndRelease('alone', 'x', 60_000, 'alone:claim', 'nobody');
      assert.equal(await store.get('alone'), 'x', 'saved with no claim to give back');
      assert.equal(await store.claim('alone:claim', 'd', 60_000), true);
    });

    it('does not let a claim take a key a value was set under', async () => {
      const { store } = await factory.make();
      await store.set('result', '{"id":"charge_1"}', 60_000);
      assert.equal(await store.claim('result', 'me', 60_000), false);
      assert.equal(await store.get('result'), '{"id":"charge_1"}');
    });
  });
}
