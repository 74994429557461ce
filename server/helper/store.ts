import { checkOptions, functionOption, integerOption, methodsOption } from '../common/options.js';

/**
 * Where the helper keeps what must outlive one request: charge results by
 * card token (so a retry answers the first result), 3-D Secure returns,
 * decline-velocity counts and rate-limit counters.
 *
 * The default {@link MemoryStore} lives in one process. Several processes
 * behind a load balancer need a shared store (Redis, a database): implement
 * this interface over it. Values are opaque strings (the helper writes JSON);
 * counters are fixed windows that start at their first hit.
 * See docs/decisions/helper.md#helper-store.
 */
export interface TesseraStore {
  /** The value saved under `key`, or undefined when absent or expired. */
  get(key: string): Promise<string | undefined>;
  /** Saves `value` under `key` for `ttlMs` milliseconds, replacing any earlier value. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /**
   * Adds one to the counter `key` and answers its count in the current window
   * and when that window ends (epoch ms). A counter whose window has ended
   * starts again at 1 with a new window of `windowMs`.
   */
  hit(key: string, windowMs: number): Promise<{ count: number; resetAtMs: number }>;
  /** The counter's count in its current window and when it ends, without adding (`{count: 0, resetAtMs: 0}` when absent or ended). */
  count(key: string): Promise<{ count: number; resetAtMs: number }>;
  /**
   * Takes back one hit of the counter `key` in its current window (never below zero; nothing when the window has
   * ended). A counter given back to zero keeps its window: the next {@link hit} counts in it, not in a new one. A limit is reserved with {@link hit} before a provider call and given back this way when the outcome
   * turns out not to count, so concurrent requests cannot all pass a check made before any of them is recorded.
   */
  unhit(key: string): Promise<void>;
  /**
   * Saves `value` under `key` for `ttlMs` milliseconds only when no live value is there, atomically for every
   * user of the store (Redis: `SET key value NX PX ttlMs`), and answers whether this call saved it. The helper
   * claims a card token this way, so that one process alone calls the provider for it.
   */
  claim(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Removes `key` when its value is still `value` (an owner giving its claim back); answers whether it did. */
  release(key: string, value: string): Promise<boolean>;
  /**
   * Optional: {@link claim} of `claimKey` and then {@link get} of `key`, as one step (Redis: one script, one round
   * trip). The helper claims a card token and reads its stored answer this way on every charge; a store without
   * it gets the two calls one after the other, which is as correct.
   */
  claimAndGet?(
    claimKey: string,
    value: string,
    ttlMs: number,
    key: string,
  ): Promise<{ claimed: boolean; value: string | undefined }>;
  /**
   * Optional: {@link set} of `key` and then {@link release} of `claimKey` for `claimValue`, as one step (Redis: one
   * script, one round trip). The helper stores a charge's answer and gives back the card token's claim this way, and
   * records an `onCharge` delivery the same way; a store without it gets the two calls one after the other.
   */
  setAndRelease?(key: string, value: string, ttlMs: number, claimKey: string, claimValue: string): Promise<void>;
  /**
   * Optional: gives `key` a new TTL of `ttlMs` when its value is still `value` (an owner keeping its claim while it
   * works), atomically (Redis: one script), and answers whether it did. The helper keeps a card token's claim and
   * the claim around an `onCharge` call alive this way for as long as their work runs; a store without it gets
   * {@link get} and then {@link set}, which is as correct unless the process stalls for most of the claim's TTL
   * between the two.
   */
  extend?(key: string, value: string, ttlMs: number): Promise<boolean>;
  /**
   * Optional, with {@link unreserve}: adds the reservation `id` to the set `key`, to lapse `ttlMs` milliseconds from
   * now (the same `id` again gets the new lapse time, and counts once), drops the reservations that have lapsed, and
   * answers how many are live and when the first of them lapses (epoch ms), atomically (Redis: one script over a
   * sorted set). The helper reserves a place on a decline counter this way before a provider call. A store without
   * it gets {@link hit} and {@link unhit} of a counter, whose give-back is tied to no reservation: one that never
   * reached the store, or that came after its window ended, takes back another charge's place
   * (docs/decisions/helper.md#helper-rate-limits).
   */
  reserve?(key: string, id: string, ttlMs: number): Promise<{ count: number; resetAtMs: number }>;
  /**
   * Optional, with {@link reserve}: removes the reservation `id` from the set `key`; nothing when it is not there
   * (never made, lapsed, or given back already), so a give-back frees no other reservation.
   */
  unreserve?(key: string, id: string): Promise<void>;
}

/** The methods every {@link TesseraStore} has. */
export const STORE_METHODS = ['get', 'set', 'hit', 'count', 'unhit', 'claim', 'release'] as const;
/** The optional methods of {@link TesseraStore}. */
export const OPTIONAL_STORE_METHODS = ['claimAndGet', 'setAndRelease', 'extend', 'reserve', 'unreserve'] as const;

/** The helper's `store` option: any object with the methods of {@link TesseraStore}. */
export const storeOption = methodsOption<TesseraStore>(
  STORE_METHODS,
  'must implement TesseraStore',
  OPTIONAL_STORE_METHODS,
).superRefine((v, ctx) => {
  // One of the pair alone would be ignored: reservations made one way cannot be given back the other.
  const object = v !== null && typeof v === 'object' ? (v as Partial<TesseraStore>) : undefined;
  if (object && (typeof object.reserve === 'function') !== (typeof object.unreserve === 'function')) {
    ctx.addIssue({
      code: 'custom',
      message: 'must implement TesseraStore: its optional `reserve` and `unreserve` go together',
    });
  }
});

/**
 * {@link TesseraStore.claimAndGet} where the store has it, else `claim` and then `get`. Not `async`: on every charge
 * the store's own promise is returned with only a `catch` added.
 *
 * A call that fails may still have claimed: a store call that timed out was sent, and Redis runs it once it answers
 * again, for an owner that has already answered 503 and gone, so its claim would block the key for its whole TTL (a
 * card token's retry waited 10 s). So a failed call gives the claim back, not awaited and its failure ignored: the
 * release is sent after the claim on the same connection, so Redis runs it after the claim (a store of the merchant's
 * own: the guard makes it wait for the claim, server/helper/store-guard.ts), and it removes nothing but this call's
 * own claim (`value` is a random owner).
 */
export function claimAndGet(
  store: TesseraStore,
  claimKey: string,
  value: string,
  ttlMs: number,
  key: string,
): Promise<{ claimed: boolean; value: string | undefined }> {
  const asked =
    typeof store.claimAndGet === 'function'
      ? store.claimAndGet(claimKey, value, ttlMs, key)
      : store.claim(claimKey, value, ttlMs).then(async (claimed) => ({ claimed, value: await store.get(key) }));
  return asked.catch((err: unknown) => {
    // The release must not throw synchronously either (a store of the merchant's): the store's error is the answer.
    try {
      store.release(claimKey, value).catch(() => undefined);
    } catch {}
    throw err;
  });
}

/**
 * {@link TesseraStore.setAndRelease} where the store has it, else `set` and then `release`, the release not awaited
 * and its failure ignored: the value is saved, and a claim that is not given back expires by itself. Not `async`,
 * like {@link claimAndGet}.
 */
export function setAndRelease(
  store: TesseraStore,
  key: string,
  value: string,
  ttlMs: number,
  claimKey: string,
  claimValue: string,
): Promise<void> {
  if (typeof store.setAndRelease === 'function') return store.setAndRelease(key, value, ttlMs, claimKey, claimValue);
  return store.set(key, value, ttlMs).then(() => {
    store.release(claimKey, claimValue).catch(() => undefined);
  });
}

/**
 * {@link TesseraStore.extend} where the store has it, else `get` and then `set` of the same value for its owner. The
 * helper extends a claim when a third of its TTL has passed, so two thirds of it are left for the two calls.
 */
export function extendClaim(store: TesseraStore, key: string, value: string, ttlMs: number): Promise<boolean> {
  if (typeof store.extend === 'function') return store.extend(key, value, ttlMs);
  return store.get(key).then(async (held) => {
    if (held !== value) return false;
    await store.set(key, value, ttlMs);
    return true;
  });
}

interface Entry {
  value: string;
  count: number;
  expiresAtMs: number;
  /** A reservation set ({@link MemoryStore.reserve}): each reservation's id and when it lapses. */
  held?: Map<string, number>;
}

export interface MemoryStoreOptions {
  /** Clock in epoch milliseconds; `Date.now` by default (tests pass the sandbox's virtual clock). */
  readonly now?: () => number;
  /** Most entries kept; the oldest are dropped beyond it (default 100,000). */
  readonly maxEntries?: number;
}

/**
 * The in-process {@link TesseraStore}: a Map with lazy expiry, swept every
 * 1,000 writes and bounded in size so a flood of keys cannot exhaust memory.
 */
export class MemoryStore implements TesseraStore {
  readonly #now: () => number;
  readonly #max: number;
  readonly #map = new Map<string, Entry>();
  #writes = 0;

  constructor(options: MemoryStoreOptions = {}) {
    const o = checkOptions('MemoryStore', options, {
      now: functionOption<() => number>('returning epoch milliseconds').optional(),
      maxEntries: integerOption(1, 100_000_000).optional(),
    });
    this.#now = o.now ?? Date.now;
    this.#max = o.maxEntries ?? 100_000;
  }

  #live(key: string): Entry | undefined {
    const entry = this.#map.get(key);
    if (entry && entry.expiresAtMs <= this.#now()) {
      this.#map.delete(key);
      return undefined;
    }
    return entry;
  }

  #put(key: string, entry: Entry): void {
    this.#map.delete(key);
    this.#map.set(key, entry);
    if (++this.#writes % 1000 === 0) this.#sweep();
    while (this.#map.size > this.#max) this.#map.delete(this.#map.keys().next().value as string);
  }

  #sweep(): void {
    const now = this.#now();
    // forEach, not for…of over entries: no [key, entry] pair allocated per entry of a map of up to maxEntries.
    this.#map.forEach((entry, key, map) => {
      if (entry.expiresAtMs <= now) map.delete(key);
    });
  }

  async get(key: string): Promise<string | undefined> {
    return this.#live(key)?.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.#put(key, { value, count: 0, expiresAtMs: this.#now() + ttlMs });
  }

  async hit(key: string, windowMs: number): Promise<{ count: number; resetAtMs: number }> {
    const entry = this.#live(key);
    if (entry) {
      entry.count++;
      return { count: entry.count, resetAtMs: entry.expiresAtMs };
    }
    const fresh = { value: '', count: 1, expiresAtMs: this.#now() + windowMs };
    this.#put(key, fresh);
    return { count: 1, resetAtMs: fresh.expiresAtMs };
  }

  async count(key: string): Promise<{ count: number; resetAtMs: number }> {
    const entry = this.#live(key);
    return entry ? { count: entry.count, resetAtMs: entry.expiresAtMs } : { count: 0, resetAtMs: 0 };
  }

  async unhit(key: string): Promise<void> {
    const entry = this.#live(key);
    if (entry && entry.count > 0) entry.count--;
  }

  async reserve(key: string, id: string, ttlMs: number): Promise<{ count: number; resetAtMs: number }> {
    const now = this.#now();
    const lapses = now + ttlMs;
    let entry = this.#live(key);
    if (!entry?.held) {
      entry = { value: '', count: 0, expiresAtMs: lapses, held: new Map() };
      this.#put(key, entry);
    }
    const held = entry.held as Map<string, number>;
    held.set(id, lapses);
    let first = lapses;
    held.forEach((at, other) => {
      if (at <= now) held.delete(other);
      else if (at < first) first = at;
    });
    // The set lives as long as its last reservation.
    if (lapses > entry.expiresAtMs) entry.expiresAtMs = lapses;
    return { count: held.size, resetAtMs: first };
  }

  async unreserve(key: string, id: string): Promise<void> {
    const held = this.#live(key)?.held;
    if (held?.delete(id) && held.size === 0) this.#map.delete(key);
  }

  #claim(key: string, value: string, ttlMs: number): boolean {
    if (this.#live(key)) return false;
    this.#put(key, { value, count: 0, expiresAtMs: this.#now() + ttlMs });
    return true;
  }

  async claim(key: string, value: string, ttlMs: number): Promise<boolean> {
    return this.#claim(key, value, ttlMs);
  }

  async release(key: string, value: string): Promise<boolean> {
    const entry = this.#live(key);
    if (!entry || entry.value !== value) return false;
    this.#map.delete(key);
    return true;
  }

  async claimAndGet(
    claimKey: string,
    value: string,
    ttlMs: number,
    key: string,
  ): Promise<{ claimed: boolean; value: string | undefined }> {
    return { claimed: this.#claim(claimKey, value, ttlMs), value: this.#live(key)?.value };
  }

  async setAndRelease(key: string, value: string, ttlMs: number, claimKey: string, claimValue: string): Promise<void> {
    this.#put(key, { value, count: 0, expiresAtMs: this.#now() + ttlMs });
    if (this.#live(claimKey)?.value === claimValue) this.#map.delete(claimKey);
  }

  async extend(key: string, value: string, ttlMs: number): Promise<boolean> {
    const entry = this.#live(key);
    if (!entry || entry.value !== value) return false;
    // Written again, not changed in place: a claim kept alive is among the newest entries, the last to be dropped.
    this.#put(key, { ...entry, expiresAtMs: this.#now() + ttlMs });
    return true;
  }
}
