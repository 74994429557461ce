import { HelperHttpError } from './errors.js';
import { RedisStore, StoreUnavailableError } from './redis-store.js';
import { MemoryStore, OPTIONAL_STORE_METHODS, STORE_METHODS, type TesseraStore } from './store.js';

const METHODS = [...STORE_METHODS, ...OPTIONAL_STORE_METHODS] as const;

/**
 * A store of the merchant's own whose failures are answered as the built-in stores' are: whatever one of its methods
 * throws or rejects with (a database driver's own error, say) becomes {@link StoreUnavailableError}, a 503
 * `TESSERA_STORE_UNAVAILABLE` with `Retry-After`, and the cause is logged; a `HelperHttpError` it throws is answered
 * as it is. Without this, such an error before the provider call was the helper's 500 `TESSERA_INTERNAL`, which says
 * the helper itself failed (docs/decisions/helper.md#helper-store). `MemoryStore` and `RedisStore` (and stores made
 * from them) are returned as they are: theirs are the errors this makes of the others'.
 */
export function guardStore(store: TesseraStore): TesseraStore {
  if (store instanceof MemoryStore || store instanceof RedisStore) return store;
  const guarded: Partial<Record<(typeof METHODS)[number], unknown>> = {};
  for (const name of METHODS) {
    const method = store[name] as ((...args: unknown[]) => unknown) | undefined;
    if (typeof method !== 'function') continue;
    guarded[name] = async (...args: unknown[]) => {
      try {
        return await method.apply(store, args);
      } catch (err) {
        throw err instanceof HelperHttpError ? err : new StoreUnavailableError('the store could not be used', err);
      }
    };
  }
  return guarded as TesseraStore;
}
