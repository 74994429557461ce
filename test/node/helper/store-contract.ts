import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TesseraStore } from '../../../server/helper/index.js';
import { STORE_CHECKS } from '../../../server/helper/store-check.js';

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

    it('offers the optional methods, claimAndGet, setAndRelease and extend', async () => {
      const { store } = await factory.make();
      assert.equal(typeof store.claimAndGet, 'function');
      assert.equal(typeof store.setAndRelease, 'function');
      assert.equal(typeof store.extend, 'function');
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
