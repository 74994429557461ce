/**
 * Retry timing (docs/decisions/provider.md#client-retries): capped exponential backoff with "equal jitter", so
 * retries spread out but never come back sooner than half the nominal delay, and a `Retry-After`
 * answer is honoured when it asks for longer.
 */

/** A `Retry-After` longer than this is not waited for: the error goes to the caller with `retryAfter`. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Delay before retry number `retry` (0 for the first retry): a random value in [d/2, d] where
 * d = min(maxMs, baseMs · 2^retry).
 */
export function backoffDelay(retry: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const nominal = Math.min(maxMs, baseMs * 2 ** retry);
  return Math.round(nominal / 2 + random() * (nominal / 2));
}

/** The longest wait a `Retry-After` is read as: a year (a 400-digit delay would otherwise be `Infinity`). */
const LONGEST_MS = 365 * 24 * 3600_000;

/**
 * `Retry-After` in milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3), relative to `nowMs`, at most a
 * year. `undefined` when absent or unreadable; never negative.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, LONGEST_MS);
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[A-Za-z]/.test(text)) return undefined;
  return Math.min(Math.max(0, at - nowMs), LONGEST_MS);
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 && !signal?.aborted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
