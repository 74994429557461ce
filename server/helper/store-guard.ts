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
 * fails the same way (a driver without a timeout of its own held the request open with no answer); a claim that it
 * took after that is given back once it lands. `MemoryStore` and `RedisStore` (and stores made from them) are
 * returned as they are: theirs are the errors this makes of the others', and `RedisStore` bounds its own calls.
 */
export function guardStore(store: TesseraStore, timeoutMs = STORE_CALL_TIMEOUT_MS): TesseraStore {
  if (store instanceof MemoryStore || store instanceof RedisStore) return store;
  const guarded: Partial<Record<(typeof METHODS)[number], unknown>> = {};
  for (const name of METHODS) {
    const method = store[name] as ((...args: unknown[]) => unknown) | undefined;
    if (typeof method !== 'function') continue;
    guarded[name] = async (...args: unknown[]) => {
      let timer: NodeJS.Timeout | undefined;
      let late = false;
      try {
        let called: Promise<unknown>;
        try {
          called = Promise.resolve(method.apply(store, args));
        } catch (err) {
          // A synchronous throw, answered as an async method's rejection would be.
          called = Promise.reject(err);
        }
        const timedOut = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            late = true;
            reject(new StoreUnavailableError(`the store did not answer within ${timeoutMs} ms`));
          }, timeoutMs);
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

/**
 * Gives back a claim that a timed-out `claim` or `claimAndGet` took after its caller had answered 503: the caller's
 * own give-back ran before the claim landed, and the claim would have held the card token for its TTL.
 */
function giveBack(store: TesseraStore, name: string, args: readonly unknown[], answer: unknown): void {
  const claimed =
    (name === 'claim' && answer === true) ||
    (name === 'claimAndGet' && (answer as { claimed?: unknown } | undefined)?.claimed === true);
  if (!claimed) return;
  try {
    Promise.resolve(store.release(args[0] as string, args[1] as string)).catch(() => undefined);
  } catch {}
}
