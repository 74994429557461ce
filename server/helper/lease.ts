import { performance } from 'node:perf_hooks';
import type { Request } from 'express';
import type { HelperContext } from './context.js';
import { requestLog } from './request-log.js';
import { extendClaim } from './store.js';

/** How often a held claim is looked at (real time); it is extended by the helper's clock, see {@link keepClaim}. */
const LOOK_EVERY_MS = 500;

/**
 * Keeps a claim alive for as long as its owner works, however long that is: the claim's TTL then bounds how long a
 * **dead** owner blocks the others, never how long a live one may take (docs/decisions/helper.md#helper-on-charge).
 * Every {@link LOOK_EVERY_MS} it reads two clocks, the helper's (`now`, the clock of the default store) and the
 * process's monotonic one (Redis's TTLs run in real time), and once either says a third of `ttlMs` has passed since
 * the claim was taken or last extended it gives the claim `ttlMs` again, for `owner` only. The helper's clock alone
 * let a claim in Redis expire under a live owner whenever that clock stood still or stepped back (a virtual clock, as
 * the demo passes with a `RedisStore`; a system clock stepped back by NTP): an extension too many costs one store
 * call. A claim found lost (ended, or held by another) is logged as an error, since another instance may then do
 * the same work; a store that fails is tried again at the next look. Returns the function that stops keeping it,
 * which answers the extension on its way, if any: wait for it before the claim is given back, so that none lands
 * after the release and takes the claim again (a store without `extend` extends with `get` and then `set`). Its lines
 * name `req`, the request that took the claim, also when written after its answer.
 */
export function keepClaim(
  ctx: HelperContext,
  key: string,
  owner: string,
  ttlMs: number,
  event: string,
  req: Request | undefined,
): () => Promise<void> | undefined {
  const { store, now, log } = ctx;
  let due = now() + ttlMs / 3;
  let dueReal = performance.now() + ttlMs / 3;
  let busy: Promise<void> | undefined;
  let stopped = false;
  let warned = false;
  const look = () => {
    const sent = now();
    const sentReal = performance.now();
    if (busy || (sent < due && sentReal < dueReal)) return;
    busy = extendClaim(store, key, owner, ttlMs).then(
      (kept) => {
        busy = undefined;
        if (stopped) return;
        if (kept) {
          warned = false;
          // The new TTL runs from when the store got the extension, not from when its answer came back.
          due = sent + ttlMs / 3;
          dueReal = sentReal + ttlMs / 3;
          return;
        }
        void stop();
        requestLog(log, req).error(
          { event, key },
          'a claim ended while its owner still worked: another instance may do the same work',
        );
      },
      (err: unknown) => {
        busy = undefined;
        if (stopped || warned) return;
        // Once per keeper until an extension succeeds: a store outage would otherwise log a line every look.
        warned = true;
        requestLog(log, req).warn(
          { event, key, code: (err as { code?: unknown }).code },
          'a claim could not be extended; it is tried again at every look until the store answers',
        );
      },
    );
  };
  const timer = setInterval(look, Math.min(LOOK_EVERY_MS, ttlMs / 3));
  // A claim kept alive must not keep the process alive.
  timer.unref();
  function stop(): Promise<void> | undefined {
    stopped = true;
    clearInterval(timer);
    return busy;
  }
  return stop;
}
