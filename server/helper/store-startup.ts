import { rootCode } from '../common/logged-error.js';
import type { HelperLogger } from './log.js';
import { RedisStore } from './redis-store.js';
import { MemoryStore, type TesseraStore } from './store.js';
import { STORE_CALL_TIMEOUT_MS } from './store-guard.js';

/** What the startup store check made of the store: it answered a read, or it failed or did not answer in time. */
export type StoreCheckOutcome = 'available' | 'unavailable';

/** The startup store check's result; `outcome` is absent when nothing was checked. */
export interface StoreCheckResult {
  /**
   * `available`: the store answered one read; `unavailable`: it failed or did not answer within its bound (logged
   * once as `tessera.store_check`). Absent when the check is off or the store is the in-process `MemoryStore`.
   */
  readonly outcome?: StoreCheckOutcome;
}

/** The key the check reads (under a `RedisStore`'s prefix: `tessera:startup`). Nothing is ever written there. */
export const STARTUP_CHECK_KEY = 'startup';

const SETTLED = ['ready', 'error', 'end'] as const;

/**
 * Resolves once a {@link RedisStore}'s client is ready, has failed to connect (its `error`: a refused password or a
 * refused connection) or was closed, or after `boundMs`: a Redis that takes a second to connect (TLS, another zone)
 * is not reported for it, and one that refuses is reported at once. The read that follows is bounded by the store.
 */
function settled(store: RedisStore, boundMs: number): Promise<void> {
  const { client } = store;
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      for (const event of SETTLED) client.off(event, done);
      resolve();
    };
    // Holds no process open: a script that builds the helper and ends does not wait for this.
    const timer = setTimeout(done, boundMs).unref();
    for (const event of SETTLED) client.once(event, done);
    // A client given with `lazyConnect` connects on its first command, which this check is: connected now, as the
    // store itself would (its failure comes as an `error` event too).
    if (client.status === 'wait') client.connect().catch(() => undefined);
  });
}

/** The message of the innermost error (the driver's or the connection's, e.g. `WRONGPASS …`), for the log line. */
function rootMessage(err: unknown): string {
  let e = err;
  for (let depth = 0; e instanceof Error && e.cause instanceof Error && depth < 8; depth++) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

/**
 * The startup store check (docs/decisions/helper.md#helper-store-check): one read of {@link STARTUP_CHECK_KEY}, which
 * writes nothing and counts against no limit, and one `tessera.store_check` warning with the error's message and code
 * when the store fails or does not answer within its bound (a `RedisStore`'s `timeoutMs` once its client is ready or
 * has failed, at most {@link STORE_CALL_TIMEOUT_MS} for that; the store guard's {@link STORE_CALL_TIMEOUT_MS} for a
 * store of the merchant's own). Nothing is logged when it answers. `MemoryStore` is not checked: it always answers.
 * Never rejects, and nobody waits for it: a store that is down at startup must not stop the server from starting.
 * `store` is the one the helper uses (a merchant's store already guarded).
 */
export async function checkStore(
  store: TesseraStore,
  log: HelperLogger,
  boundMs = STORE_CALL_TIMEOUT_MS,
): Promise<StoreCheckResult> {
  if (store instanceof MemoryStore) return {};
  try {
    if (store instanceof RedisStore) {
      await settled(store, boundMs);
      // Closed before it could be checked (`store.close()` right after startup): nothing to say of it.
      if (store.client.status === 'end') return {};
    }
    await store.get(STARTUP_CHECK_KEY);
    return { outcome: 'available' };
  } catch (err) {
    log.warn(
      { event: 'tessera.store_check', outcome: 'unavailable', code: rootCode(err), err },
      `tessera: the store could not be used at startup (${rootMessage(err)}); charges will be answered 503 TESSERA_STORE_UNAVAILABLE until it answers, and the helper keeps running`,
    );
    return { outcome: 'unavailable' };
  }
}
