import { HelperHttpError } from './errors.js';
import { RedisStore, StoreUnavailableError } from './redis-store.js';
import { MemoryStore, OPTIONAL_STORE_METHODS, STORE_METHODS, type TesseraStore } from './store.js';

const METHODS = [...STORE_METHODS, ...OPTIONAL_STORE_METHODS] as const;

/**
 * The longest wait for one call of a merchant's own store: below the card token's claim TTL (10 s), well above what a
 * database next to the helper takes (`RedisStore` bounds its own calls by `timeoutMs`, 500 ms by default).
 */
export const STORE_CALL_TIMEOUT_MS = 5000;

/**
 * A store of the merchant's own whose failures are answered as the built-in stores' are: whatever one of its methods
 * throws or rejects with (a database driver's own error, say) becomes {@link StoreUnavailableError}, a 503
 * `TESSERA_STORE_UNAVAILABLE` with `Retry-After`, and the cause is logged; a `HelperHttpError` it throws is answered
 * as it is. Without this, such an error before the provider call was the helper's 500 `TESSERA_INTERNAL`, which says
 * the helper itself failed (docs/decisions/helper.md#helper-store). A call that has not settled within `timeoutMs`
 * fails the same way (a driver without a timeout of its own held the request open with no answer); a claim or a
 * decline reservation that it took after that is given back once it lands, and a give-back the caller sends for a
 * call that timed out and has not landed yet (`release`, `unhit`, `unreserve` of its key) waits for it to land, as
 * Redis runs a command sent after another after it (docs/decisions/helper.md#helper-store). `MemoryStore` and
 * `RedisStore` (and stores made from them) are returned as they are: theirs are the errors this makes of the others',
 * and `RedisStore` bounds its own calls.
 */
export function guardStore(store: TesseraStore, timeoutMs = STORE_CALL_TIMEOUT_MS): TesseraStore {
  if (store instanceof MemoryStore || store instanceof RedisStore) return store;
  const guarded: Partial<Record<(typeof METHODS)[number], unknown>> = {};
  // The calls that timed out and have not settled yet, under the give-back that would undo each (see `undoneBy`):
  // settles once all of them under that name have, or one bound after the last of them timed out, when the entry is
  // dropped (a give-back waits one bound at most anyway, and a store whose calls never settle must not fill the map).
  const pending = new Map<string, Promise<unknown>>();
  for (const name of METHODS) {
    const method = store[name] as ((...args: unknown[]) => unknown) | undefined;
    if (typeof method !== 'function') continue;
    guarded[name] = async (...args: unknown[]) => {
      let timer: NodeJS.Timeout | undefined;
      let late = false;
      try {
        const run = (): Promise<unknown> => {
          try {
            return Promise.resolve(method.apply(store, args));
          } catch (err) {
            // A synchronous throw, answered as an async method's rejection would be.
            return Promise.reject(err);
          }
        };
        // A give-back of a call that timed out is made once that call has settled: made at once, it ran before the
        // call landed (a store of separate connections, or a pool, keeps no order between them) and undid nothing,
        // and what the call took then held its place (a reservation its window, a claim its TTL). It waits one bound
        // at most, then is made all the same (a call that never settles takes nothing), and has its own bound after.
        const undoing = giveBackName(name, args);
        const before = undoing === undefined ? undefined : pending.get(undoing);
        const called = before ? settledWithin(before, timeoutMs).then(run) : run();
        const bound = before ? 2 * timeoutMs : timeoutMs;
        const timedOut = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            late = true;
            const undo = undoneBy(name, args);
            if (undo !== undefined) {
              const earlier = pending.get(undo);
              const settled = settledWithin(Promise.allSettled(earlier ? [earlier, called] : [called]), timeoutMs);
              pending.set(undo, settled);
              void settled.then(() => {
                if (pending.get(undo) === settled) pending.delete(undo);
              });
            }
            reject(new StoreUnavailableError(`the store did not answer within ${bound} ms`));
          }, bound);
        });
        called.then(
          (answer) => {
            if (late) giveBack(store, name, args, answer);
          },
          () => undefined,
        );
        return await Promise.race([called, timedOut]);
      } catch (err) {
        throw err instanceof HelperHttpError ? err : new StoreUnavailableError('the store could not be used', err);
      } finally {
        clearTimeout(timer);
      }
    };
  }
  return guarded as TesseraStore;
}

/** Resolves once `promise` has settled, or after `ms`, whichever is first (the timer cleared when it settles). */
function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * The give-back method that undoes each call that takes something (a claim's `release` by its owner, a reservation's
 * `unreserve` by its id, a counter's `unhit` by its key), and each give-back method itself.
 */
const GIVE_BACK: Readonly<Record<string, 'release' | 'unreserve' | 'unhit'>> = {
  claim: 'release',
  claimAndGet: 'release',
  release: 'release',
  reserve: 'unreserve',
  unreserve: 'unreserve',
  hit: 'unhit',
  unhit: 'unhit',
};

/**
 * The give-back a call of `name` with `args` names: the one that would undo it (for `claim`, `claimAndGet`, `reserve`,
 * `hit`), or itself (for `release`, `unreserve`, `unhit`), with the key and the owner or id it is called with. A
 * give-back made while a call that timed out under the same name has not settled waits for it. Undefined for any
 * other call.
 */
function giveBackOf(name: string, args: readonly unknown[]): string | undefined {
  const giveBack = Object.hasOwn(GIVE_BACK, name) ? GIVE_BACK[name] : undefined;
  if (giveBack === undefined) return undefined;
  return giveBack === 'unhit' ? `unhit\0${args[0]}` : `${giveBack}\0${args[0]}\0${args[1]}`;
}

/** The give-back that would undo a call of `name`; undefined for a give-back or a call that takes nothing. */
function undoneBy(name: string, args: readonly unknown[]): string | undefined {
  return GIVE_BACK[name] === name ? undefined : giveBackOf(name, args);
}

/** The name of a give-back call, as {@link undoneBy} names the call it undoes; undefined for any other call. */
function giveBackName(name: string, args: readonly unknown[]): string | undefined {
  return GIVE_BACK[name] === name ? giveBackOf(name, args) : undefined;
}

/**
 * Gives back what a timed-out call took when it lands after its caller answered 503, where the call was made only to
 * be given back on failure: a `claim` or `claimAndGet` that claimed (owner-only `release`), a `reserve` (`unreserve`
 * of its id). Either give-back removes that call's own claim or reservation and nothing else, so it is harmless when
 * the caller's own give-back (which waits for the call, above) removed it already. A `hit` is not given back here: it
 * counts a request, or a decline, that was made, as a late `INCR` does in Redis; the in-flight counter of a store
 * without `reserve` is given back by its caller's `unhit`, which waits for the hit to land
 * (docs/decisions/helper.md#helper-store).
 */
function giveBack(store: TesseraStore, name: string, args: readonly unknown[], answer: unknown): void {
  try {
    if (name === 'reserve' && typeof store.unreserve === 'function') {
      Promise.resolve(store.unreserve(args[0] as string, args[1] as string)).catch(() => undefined);
      return;
    }
    const claimed =
      (name === 'claim' && answer === true) ||
      (name === 'claimAndGet' && (answer as { claimed?: unknown } | undefined)?.claimed === true);
    if (claimed) Promise.resolve(store.release(args[0] as string, args[1] as string)).catch(() => undefined);
  } catch {}
}
