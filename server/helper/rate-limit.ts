import { HelperHttpError } from './errors.js';
import type { TesseraStore } from './store.js';

/** At most `max` requests per `windowMs`. */
export interface Limit {
  readonly max: number;
  readonly windowMs: number;
}

function tooMany(code: string, message: string, resetAtMs: number, now: number): HelperHttpError {
  const retryAfter = Math.max(1, Math.ceil((resetAtMs - now) / 1000));
  return new HelperHttpError(429, code, message, { headers: { 'Retry-After': String(retryAfter) } });
}

/**
 * Counts one request against `limit` under `key` and throws 429 (with
 * `Retry-After`) once the window's count passes `max`. Fixed windows in the
 * store; see docs/DECISIONS.md#helper-rate-limits.
 */
export async function consume(
  store: TesseraStore,
  key: string,
  limit: Limit,
  now: number,
  what: string,
): Promise<void> {
  const { count, resetAtMs } = await store.hit(key, limit.windowMs);
  if (count > limit.max) {
    throw tooMany('TESSERA_RATE_LIMITED', `too many ${what}; try again later`, resetAtMs, now);
  }
}

/**
 * The card-testing defence: once `limit.max` charges declined for one key (an
 * IP or a session) within the window, further charges answer 429 without
 * reaching the provider until the window ends.
 */
export async function checkDeclines(store: TesseraStore, key: string, limit: Limit, now: number): Promise<void> {
  const { count, resetAtMs } = await store.count(key);
  if (count >= limit.max) {
    throw tooMany('TESSERA_TOO_MANY_DECLINES', 'too many declined payments; try again later', resetAtMs, now);
  }
}

/** Records one declined charge for `key`. */
export async function recordDecline(store: TesseraStore, key: string, limit: Limit): Promise<void> {
  await store.hit(key, limit.windowMs);
}
