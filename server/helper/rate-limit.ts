import { isIPv4, isIPv6 } from 'node:net';
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

/**
 * The rate-limit key of a client address (`req.ip`, which follows Express's `trust proxy`): an IPv4 address as it
 * is (also when IPv4-mapped), an IPv6 address by its /64 network, since one subscriber or server usually holds a
 * whole /64 and could otherwise use a fresh address for each request (docs/DECISIONS.md#helper-rate-limits).
 */
export function ipKey(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const mapped = /^::ffff:/i.test(ip) ? ip.slice(7) : undefined;
  if (mapped && isIPv4(mapped)) return mapped;
  if (!isIPv6(ip)) return ip;
  const bare = ip.split('%')[0]!.toLowerCase();
  const [left = '', right] = bare.split('::') as [string, string | undefined];
  const head = left ? left.split(':') : [];
  if (right !== undefined) {
    const tail = right ? right.split(':') : [];
    const width = tail.reduce((n, part) => n + (part.includes('.') ? 2 : 1), 0);
    head.push(...Array<string>(8 - head.length - width).fill('0'));
  }
  return `${head
    .slice(0, 4)
    .map((h) => h.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
