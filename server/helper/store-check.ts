import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { checkOptions, functionOption, integerOption } from '../common/options.js';
import { storeOption, type TesseraStore } from './store.js';

/** What one check is given: the store, a key maker (a fresh key space per check), and a way to let time pass. */
interface CheckContext {
  readonly store: TesseraStore;
  readonly k: (name: string) => string;
  readonly advance: (ms: number) => Promise<void>;
  /** The shortest TTL or window the check uses; `advance(short * 2)` ends it. */
  readonly short: number;
}

/** One behaviour the helper relies on, by name (docs/decisions/helper.md#helper-store). */
export interface StoreCheck {
  readonly name: string;
  /** Whether the check applies to `store` (the optional methods are checked only where the store has them). */
  applies(store: TesseraStore): boolean;
  run(c: CheckContext): Promise<void>;
}

const always = () => true;

/** Tries of a probe whose short TTL or window lapsed because its calls took as long as it (the machine stalled). */
const SHORT_TRIES = 5;

/**
 * Runs `probe`, a write with the short TTL or window and a read back at once, until a run finds the value or count
 * still there, and answers that run's key. A run that found it lapsed fails the check unless its calls took `short` ms
 * or more: then a correct store may have let it lapse too (a loaded machine stalled), and the probe runs again under a
 * fresh key, up to {@link SHORT_TRIES} times. A lapse is never taken as a pass: a store that forgets every TTL under a
 * second, behind calls slow enough to take `short` (a remote store), passed when it was.
 */
async function withinShort(
  short: number,
  what: string,
  probe: (n: number) => Promise<{ key: string; lapsed: boolean; took: number; forgotten: string }>,
): Promise<string> {
  let slowest = 0;
  for (let n = 0; n < SHORT_TRIES; n++) {
    const { key, lapsed, took, forgotten } = await probe(n);
    if (!lapsed) return key;
    assert.ok(took >= short, forgotten);
    slowest = Math.max(slowest, took);
  }
  assert.fail(
    `could not ${what} within the shortest TTL (${short} ms) in ${SHORT_TRIES} tries: it had lapsed each time, and ` +
      `the calls took up to ${slowest} ms (a store that forgets short TTLs at once, or calls too slow for shortMs: ` +
      'pass a larger one)',
  );
}

/** The behaviour every {@link TesseraStore} must have; this package's own tests run them on both built-in stores. */
export const STORE_CHECKS: readonly StoreCheck[] = [
  {
    name: 'keeps a value for its TTL, replaces it on set, and forgets it after',
    applies: always,
    async run({ store, k, advance, short }) {
      assert.equal(await store.get(k('absent')), undefined);
      await store.set(k('long'), '{"json":"ok"}', 60_000);
      // Replaced, with the short TTL: read back at once, it is the new value, never the old one.
      const a = await withinShort(short, 'write a value with it and read it back', async (n) => {
        const key = k(`a${n}`);
        await store.set(key, 'x', 60_000);
        assert.equal(await store.get(key), 'x');
        const since = Date.now();
        await store.set(key, 'y', short);
        const read = await store.get(key);
        assert.notEqual(read, 'x', 'a value set again kept the old one');
        return {
          key,
          lapsed: read === undefined,
          took: Date.now() - since,
          forgotten: 'a value forgotten before its TTL',
        };
      });
      await advance(short * 2);
      assert.equal(await store.get(a), undefined, 'a value outlived its TTL');
      assert.equal(await store.get(k('long')), '{"json":"ok"}');
    },
  },
  {
    name: 'counts hits in a fixed window that starts at the first hit, and starts again at 1 after it ends',
    applies: always,
    async run({ store, k, advance, short }) {
      const before = Date.now();
      const first = await store.hit(k('c'), 60_000);
      assert.equal(first.count, 1);
      assert.ok(first.resetAtMs >= before + 59_000 - 5_000 && first.resetAtMs <= Date.now() + 61_000, 'window end');
      const second = await store.hit(k('c'), 60_000);
      assert.equal(second.count, 2);
      assert.ok(Math.abs(second.resetAtMs - first.resetAtMs) < 1000, 'same window');
      assert.equal((await store.count(k('c'))).count, 2);
      assert.deepEqual(await store.count(k('absent')), { count: 0, resetAtMs: 0 });
      // The second hit is in the first one's window.
      const s = await withinShort(short, 'hit a window of it twice', async (n) => {
        const key = k(`s${n}`);
        const since = Date.now();
        assert.equal((await store.hit(key, short)).count, 1);
        const again = (await store.hit(key, short)).count;
        assert.ok(again === 1 || again === 2, `a short window counted ${again}`);
        return { key, lapsed: again === 1, took: Date.now() - since, forgotten: `a short window counted ${again}` };
      });
      await advance(short * 2);
      assert.deepEqual(await store.count(s), { count: 0, resetAtMs: 0 }, 'a window outlived its length');
      assert.equal((await store.hit(s, short)).count, 1);
    },
  },
  {
    name: 'answers each of 100 concurrent hits a different count, 1 to 100',
    applies: always,
    async run({ store, k }) {
      const counts = await Promise.all(Array.from({ length: 100 }, () => store.hit(k('burst'), 60_000)));
      assert.deepEqual(
        counts.map((c) => c.count).sort((a, b) => a - b),
        Array.from({ length: 100 }, (_, i) => i + 1),
      );
      assert.equal((await store.count(k('burst'))).count, 100);
    },
  },
  {
    name: 'gives a reserved hit back with unhit, never below zero and not into a new window',
    applies: always,
    async run({ store, k, advance, short }) {
      const first = await store.hit(k('c'), 60_000);
      await store.hit(k('c'), 60_000);
      await store.unhit(k('c'));
      assert.equal((await store.count(k('c'))).count, 1);
      await Promise.all([store.unhit(k('c')), store.unhit(k('c')), store.unhit(k('c'))]);
      assert.equal((await store.count(k('c'))).count, 0);
      // A counter given back to zero keeps its window: the next hit counts in it, and a longer window asked then (an
      // end ten minutes off) does not move its end, as it would if the hit opened a new one.
      const again = await store.hit(k('c'), 600_000);
      assert.equal(again.count, 1);
      assert.ok(
        Math.abs(again.resetAtMs - first.resetAtMs) < 30_000,
        `a counter given back to zero started a new window on its next hit (it ends ${again.resetAtMs - first.resetAtMs} ms later)`,
      );
      await store.hit(k('w'), short);
      await advance(short * 2);
      await store.unhit(k('w'));
      assert.deepEqual(await store.count(k('w')), { count: 0, resetAtMs: 0 });
      assert.equal((await store.hit(k('w'), short)).count, 1);
      await store.unhit(k('absent'));
      assert.deepEqual(await store.count(k('absent')), { count: 0, resetAtMs: 0 });
    },
  },
  {
    name: 'holds reservations by id: each counts once and lapses on its own, and only its own id gives it back',
    applies: (store) => typeof store.reserve === 'function' && typeof store.unreserve === 'function',
    async run({ store, k, advance, short }) {
      const reserve = store.reserve!.bind(store);
      const unreserve = store.unreserve!.bind(store);
      const before = Date.now();
      const first = await reserve(k('r'), 'a', 60_000);
      assert.equal(first.count, 1);
      assert.ok(first.resetAtMs >= before + 59_000 - 5_000 && first.resetAtMs <= Date.now() + 61_000, 'lapse time');
      assert.equal((await reserve(k('r'), 'b', 60_000)).count, 2);
      assert.equal((await reserve(k('r'), 'a', 60_000)).count, 2, 'the same id again counts once');
      // A give-back of a reservation that never reached the store, or given back twice, frees no other.
      await unreserve(k('r'), 'never-made');
      assert.equal((await reserve(k('r'), 'c', 60_000)).count, 3, 'a give-back of an id never reserved freed one');
      await Promise.all([unreserve(k('r'), 'c'), unreserve(k('r'), 'c')]);
      assert.equal((await reserve(k('r'), 'd', 60_000)).count, 3, 'an id given back twice freed another');
      await Promise.all(['a', 'b', 'd'].map((id) => unreserve(k('r'), id)));
      assert.equal((await reserve(k('r'), 'e', 60_000)).count, 1);
      await unreserve(k('absent'), 'a');
      // Each lapses on its own: not a window that ends for all, and a lapsed one's give-back frees no live one.
      await reserve(k('s'), 'x', short);
      const two = await reserve(k('s'), 'y', 60_000);
      assert.equal(two.count, 2);
      assert.ok(two.resetAtMs <= Date.now() + short, 'answers when the first lapses');
      await advance(short * 2);
      assert.equal((await reserve(k('s'), 'z', 60_000)).count, 2, 'x lapsed, y holds');
      await unreserve(k('s'), 'x');
      assert.equal((await reserve(k('s'), 'z', 60_000)).count, 2, 'the give-back of a lapsed reservation freed y or z');
      await reserve(k('t'), 'alone', short);
      await advance(short * 2);
      assert.equal((await reserve(k('t'), 'next', short)).count, 1, 'a set outlived its last reservation');
      const counts = await Promise.all(Array.from({ length: 50 }, (_, i) => reserve(k('burst'), `r${i}`, 60_000)));
      assert.deepEqual(
        counts.map((c) => c.count).sort((a, b) => a - b),
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
    },
  },
  {
    name: 'lets exactly one of 50 concurrent claims win, and keeps the winner’s value',
    applies: always,
    async run({ store, k }) {
      const owners = Array.from({ length: 50 }, (_, i) => `owner-${i}`);
      const won = await Promise.all(owners.map((owner) => store.claim(k('token'), owner, 60_000)));
      assert.equal(won.filter(Boolean).length, 1, 'winners of one claim');
      assert.equal(await store.get(k('token')), owners[won.indexOf(true)]);
    },
  },
  {
    name: 'releases a claim only for its owner, and a claim ends with its TTL',
    applies: always,
    async run({ store, k, advance, short }) {
      assert.equal(await store.claim(k('token'), 'a', 60_000), true);
      assert.equal(await store.claim(k('token'), 'b', 60_000), false);
      assert.equal(await store.release(k('token'), 'b'), false, 'released for another owner');
      assert.equal(await store.get(k('token')), 'a');
      assert.equal(await store.release(k('token'), 'a'), true);
      assert.equal(await store.release(k('token'), 'a'), false);
      assert.equal(await store.claim(k('token'), 'b', short), true);
      await advance(short * 2);
      assert.equal(await store.release(k('token'), 'b'), false, 'a claim outlived its TTL');
      assert.equal(await store.claim(k('token'), 'c', 60_000), true);
      assert.equal(await store.get(k('token')), 'c');
    },
  },
  {
    name: 'does not let a claim take a key a value was set under',
    applies: always,
    async run({ store, k }) {
      await store.set(k('result'), '{"id":"charge_1"}', 60_000);
      assert.equal(await store.claim(k('result'), 'me', 60_000), false);
      assert.equal(await store.get(k('result')), '{"id":"charge_1"}');
    },
  },
  {
    name: 'claimAndGet claims like claim and reads the value after it, for the winner and the others alike',
    applies: (store) => typeof store.claimAndGet === 'function',
    async run({ store, k, advance, short }) {
      const claimAndGet = store.claimAndGet!.bind(store);
      assert.deepEqual(await claimAndGet(k('token:claim'), 'a', 60_000, k('token')), {
        claimed: true,
        value: undefined,
      });
      assert.deepEqual(await claimAndGet(k('token:claim'), 'b', 60_000, k('token')), {
        claimed: false,
        value: undefined,
      });
      await store.set(k('token'), '{"id":"charge_1"}', 60_000);
      assert.deepEqual(await claimAndGet(k('token:claim'), 'b', 60_000, k('token')), {
        claimed: false,
        value: '{"id":"charge_1"}',
      });
      assert.equal(await store.release(k('token:claim'), 'a'), true);
      assert.deepEqual(await claimAndGet(k('token:claim'), 'b', short, k('token')), {
        claimed: true,
        value: '{"id":"charge_1"}',
      });
      await advance(short * 2);
      assert.equal(await store.release(k('token:claim'), 'b'), false);
      const owners = Array.from({ length: 50 }, (_, i) => `owner-${i}`);
      const answers = await Promise.all(owners.map((owner) => claimAndGet(k('race:claim'), owner, 60_000, k('race'))));
      assert.equal(answers.filter((a) => a.claimed).length, 1, 'winners of one claim');
      assert.equal(await store.get(k('race:claim')), owners[answers.findIndex((a) => a.claimed)]);
    },
  },
  {
    name: 'setAndRelease saves the value with its TTL and gives the claim back, only to its owner',
    applies: (store) => typeof store.setAndRelease === 'function',
    async run({ store, k, advance, short }) {
      const setAndRelease = store.setAndRelease!.bind(store);
      assert.equal(await store.claim(k('token:claim'), 'a', 60_000), true);
      await setAndRelease(k('token'), '{"id":"charge_1"}', 60_000, k('token:claim'), 'b');
      assert.equal(await store.get(k('token')), '{"id":"charge_1"}');
      assert.equal(await store.get(k('token:claim')), 'a', 'a claim of another owner stays');
      await setAndRelease(k('token'), '{"id":"charge_2"}', short, k('token:claim'), 'a');
      assert.equal(await store.get(k('token')), '{"id":"charge_2"}', 'replaced, like set');
      assert.equal(await store.get(k('token:claim')), undefined);
      assert.equal(await store.claim(k('token:claim'), 'c', 60_000), true, 'claimable again');
      await advance(short * 2);
      assert.equal(await store.get(k('token')), undefined, 'the value ends with its TTL');
      assert.equal(await store.get(k('token:claim')), 'c');
      await setAndRelease(k('alone'), 'x', 60_000, k('alone:claim'), 'nobody');
      assert.equal(await store.get(k('alone')), 'x', 'saved with no claim to give back');
      assert.equal(await store.claim(k('alone:claim'), 'd', 60_000), true);
    },
  },
  {
    name: 'extend gives a claim a new TTL, only for its owner and only while it lives',
    applies: (store) => typeof store.extend === 'function',
    async run({ store, k, advance, short }) {
      const extend = store.extend!.bind(store);
      assert.equal(await store.claim(k('hook:claim'), 'a', short * 2), true);
      assert.equal(await extend(k('hook:claim'), 'b', 60_000), false, 'another owner cannot extend it');
      assert.equal(await extend(k('hook:claim'), 'a', 60_000), true);
      await advance(short * 4);
      assert.equal(await store.get(k('hook:claim')), 'a', 'kept past its first TTL');
      assert.equal(await store.claim(k('hook:claim'), 'c', 60_000), false, 'still held');
      assert.equal(await extend(k('hook:claim'), 'a', short), true, 'shortened as asked');
      await advance(short * 2);
      assert.equal(await store.get(k('hook:claim')), undefined, 'ends with its new TTL');
      assert.equal(await extend(k('hook:claim'), 'a', 60_000), false, 'an ended claim is not brought back');
      assert.equal(await store.get(k('hook:claim')), undefined);
    },
  },
];

/** A check of {@link checkTesseraStore} that the store failed; `check` names it, `cause` says how. */
export class StoreCheckError extends Error {
  readonly check: string;

  constructor(check: string, cause: unknown) {
    super(`the store fails the check "${check}": ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = new.target.name;
    this.check = check;
  }
}

export interface CheckTesseraStoreOptions {
  /** The shortest TTL and counter window the checks use, in ms (default 200): each check that needs one to end waits twice this. */
  readonly shortMs?: number;
  /** Lets at least `ms` pass for the store; waits that long by default (a store on a clock of its own can move it). */
  readonly advance?: (ms: number) => Promise<void>;
}

/**
 * Checks that a {@link TesseraStore} of your own behaves as the helper relies on, with the checks this package runs
 * on `MemoryStore` and `RedisStore`: values and their TTL, fixed counter windows, 100 concurrent hits, `unhit`, one
 * winner among 50 concurrent claims, a release only by the claim's owner, and `claimAndGet`, `setAndRelease`,
 * `extend` and `reserve`/`unreserve` when the store has them. Every check writes under keys of its own
 * (`tessera-check:<random>:…`), each with a TTL, so a test database will do. Resolves when every check passed; rejects with a {@link StoreCheckError} naming the first
 * that failed. Call it from your own test suite, once per release of your store.
 *
 * @example
 * import { checkTesseraStore } from 'tessera-pay/server';
 * test('our DynamoStore is a TesseraStore', () => checkTesseraStore(new DynamoStore({ table: 'tessera-test' })));
 */
export async function checkTesseraStore(
  store: TesseraStore,
  options: Readonly<CheckTesseraStoreOptions> = {},
): Promise<void> {
  const o = checkOptions('checkTesseraStore', options, {
    shortMs: integerOption(1, 60_000).optional(),
    advance: functionOption<(ms: number) => Promise<void>>('`(ms) => Promise<void>`').optional(),
  });
  const shape = storeOption.safeParse(store);
  if (!shape.success) throw new TypeError(`checkTesseraStore: the store ${shape.error.issues[0]?.message}`);
  const short = o.shortMs ?? 200;
  const advance = o.advance ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (const check of STORE_CHECKS) {
    if (!check.applies(store)) continue;
    const space = `tessera-check:${randomBytes(6).toString('hex')}:`;
    try {
      await check.run({ store, k: (name) => space + name, advance, short });
    } catch (err) {
      throw new StoreCheckError(check.name, err);
    }
  }
}
