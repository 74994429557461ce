import { hash, randomUUID } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import { z } from 'zod';
import { integerOption } from '../common/options.js';
import { HelperHttpError } from './errors.js';
import type { TesseraStore } from './store.js';

/** At most `max` requests per `windowMs`. */
export interface Limit {
  readonly max: number;
  readonly windowMs: number;
}

/** The name of a limit of `rateLimits`, for the 429 answer (which names it and the option that sets it). */
export type LimitName =
  | 'requestsPerIp'
  | 'chargesPerIp'
  | 'chargesPerSession'
  | 'declinesPerIp'
  | 'declinesPerSession'
  | 'declinesTotal'
  | 'hostRequestsPerUser'
  | 'hostAuthFailuresPerIp';

// One message for a value that is neither a limit nor `false` (zod's own was "Invalid input"); a limit with a bad
// field is still named down to that field (`rateLimits.chargesPerIp.max`).
const limitOption = z.union(
  [z.strictObject({ max: integerOption(1, 1_000_000), windowMs: integerOption(1000, 86_400_000) }), z.literal(false)],
  { error: 'must be { max, windowMs } (integers) or false' },
);

/** The `rateLimits` option of the helper: each limit `{ max, windowMs }` or `false`. */
export const rateLimitsOption = z.strictObject({
  requestsPerIp: limitOption.optional(),
  chargesPerIp: limitOption.optional(),
  chargesPerSession: limitOption.optional(),
  declinesPerIp: limitOption.optional(),
  declinesPerSession: limitOption.optional(),
  declinesTotal: limitOption.optional(),
  hostRequestsPerUser: limitOption.optional(),
  hostAuthFailuresPerIp: limitOption.optional(),
});

/** The 429 of a limit: names the limit and the option that sets it. */
export function tooMany(
  code: 'TESSERA_RATE_LIMITED' | 'TESSERA_TOO_MANY_DECLINES',
  message: string,
  name: LimitName,
  resetAtMs: number,
  now: number,
): HelperHttpError {
  const retryAfter = Math.max(1, Math.ceil((resetAtMs - now) / 1000));
  return new HelperHttpError(
    429,
    code,
    `${message} (limit \`${name}\`, set by the helper option \`rateLimits.${name}\`)`,
    {
      headers: { 'Retry-After': String(retryAfter) },
      details: { limit: name, option: `rateLimits.${name}` },
    },
  );
}

/** One counter of a limit: its store key, the limit, and what is counted (for the 429's message). */
export interface Budget {
  readonly key: string;
  readonly limit: Limit;
  readonly what: string;
  readonly name: LimitName;
}

/**
 * Counts one request against each budget, all at once (their counters are distinct keys, so no order between
 * them matters, and a store that pipelines sends them together), then throws the 429 of the first budget listed
 * whose window's count passed its `max`.
 */
export async function consumeAll(store: TesseraStore, budgets: readonly Budget[], now: number): Promise<void> {
  if (budgets.length === 0) return;
  const counts = await Promise.all(budgets.map((b) => store.hit(b.key, b.limit.windowMs)));
  const over = budgets.findIndex((b, i) => counts[i]!.count > b.limit.max);
  if (over >= 0) {
    const b = budgets[over]!;
    throw tooMany('TESSERA_RATE_LIMITED', `too many ${b.what}; try again later`, b.name, counts[over]!.resetAtMs, now);
  }
}

/**
 * Counts one request against `limit` under `key` and throws 429 (with
 * `Retry-After`, naming the limit) once the window's count passes `max`. Fixed windows in the
 * store; see docs/decisions/helper.md#helper-rate-limits.
 */
export async function consume(
  store: TesseraStore,
  key: string,
  limit: Limit,
  now: number,
  what: string,
  name: LimitName,
): Promise<void> {
  const { count, resetAtMs } = await store.hit(key, limit.windowMs);
  if (count > limit.max) {
    throw tooMany('TESSERA_RATE_LIMITED', `too many ${what}; try again later`, name, resetAtMs, now);
  }
}

/** One decline counter: its store key, its limit and its name. */
export interface DeclineCounter {
  readonly key: string;
  readonly limit: Limit;
  readonly name: 'declinesPerIp' | 'declinesPerSession';
}

/** A decline counter reserved for one charge: `id` names its reservation, so that only it is ever given back. */
export interface ReservedCounter extends DeclineCounter {
  readonly id: string;
}

/** How long a charge waits for other charges' reserved declines to settle before it is refused with 429. */
const RESERVATION_WAIT_MS = 3_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A charge's reservation on counter `c`: the reservation `id` added to the set `<key>:reserved` where the store
 * holds reservations by id (both built-in stores do), else a hit of the counter `<key>:inflight`. Answers how many
 * reservations are live, and when that count next drops.
 */
function take(store: TesseraStore, c: DeclineCounter, id: string): Promise<{ count: number; resetAtMs: number }> {
  if (typeof store.reserve === 'function' && typeof store.unreserve === 'function') {
    return store.reserve(`${c.key}:reserved`, id, c.limit.windowMs);
  }
  return store.hit(`${c.key}:inflight`, c.limit.windowMs);
}

/**
 * Gives back the reservation `id` on counter `c`. By id, only that reservation is removed: one that never reached the
 * store, has lapsed or was given back already frees nothing. Without `reserve`/`unreserve`, an `unhit` of the
 * counter, which takes back any charge's place (docs/decisions/helper.md#helper-rate-limits).
 */
function giveBack(store: TesseraStore, c: DeclineCounter, id: string): Promise<void> {
  if (typeof store.reserve === 'function' && typeof store.unreserve === 'function') {
    return store.unreserve(`${c.key}:reserved`, id);
  }
  return store.unhit(`${c.key}:inflight`);
}

/**
 * The card-testing defence (docs/decisions/helper.md#helper-rate-limits): reserves one decline in each counter before the
 * provider is called, so concurrent charges cannot all pass a check made before any of them is recorded. A counter
 * is the store counter `key` (declines known) and the charges under way, each of which may be a decline: a set of
 * reservations, each made by one charge under an id of its own and lapsing a window after it was made. A reservation
 * holds when known + in flight ≤ `max`. When known declines reach `max`, 429 at once; when only charges under way
 * fill it, this waits for them (at most 3 s), then 429. Every reservation made here is given back before throwing.
 */
export async function reserveDeclines(
  store: TesseraStore,
  counters: readonly DeclineCounter[],
  now: () => number,
): Promise<readonly ReservedCounter[]> {
  const deadline = Date.now() + RESERVATION_WAIT_MS;
  // One id for the charge (its reservations on the two counters are in two sets); randomUUID draws from a cache.
  const id = randomUUID();
  const reserved = counters.map((c) => ({ ...c, id }));
  // The counters (per IP, per session) are reserved side by side: distinct keys, one store round trip for both.
  const settled = await Promise.allSettled(reserved.map((c) => reserveOne(store, c, deadline, now)));
  const failed = settled.find((r) => r.status === 'rejected');
  const refused = settled.findIndex((r) => r.status === 'fulfilled' && r.value !== undefined);
  if (!failed && refused < 0) return reserved;
  await releaseDeclines(
    store,
    reserved.filter((_, i) => {
      const r = settled[i]!;
      return r.status === 'fulfilled' && r.value === undefined;
    }),
  );
  // A store that failed is answered as such (503), before any limit.
  if (failed) throw failed.reason;
  const resetAtMs = (settled[refused] as PromiseFulfilledResult<number>).value;
  const { name } = counters[refused]!;
  throw tooMany('TESSERA_TOO_MANY_DECLINES', 'too many declined payments; try again later', name, resetAtMs, now());
}

/**
 * One counter's reservation, then the known count (in this order, so a decline committed in between is seen in one of
 * the two). `undefined` once reserved; when known declines fill the limit, the time their window ends; when charges
 * under way still fill it at `deadline`, 3 s from `now()` (or the first of their reservations' lapse, if sooner).
 */
async function reserveOne(
  store: TesseraStore,
  c: ReservedCounter,
  deadline: number,
  now: () => number,
): Promise<number | undefined> {
  for (let delay = 20; ; delay = Math.min(delay * 2, 250)) {
    let inflight: { count: number; resetAtMs: number };
    try {
      inflight = await take(store, c, c.id);
    } catch (err) {
      // A reservation that timed out was still sent, and Redis runs it once it answers again: left there, it held a
      // place for the whole window (three stalls at this step refused a shopper with no decline at all). It is given
      // back, not awaited: sent after it, it runs after it (a store of the merchant's own: the guard makes it wait for
      // it, docs/decisions/helper.md#helper-store); and by its id, so when the reservation never reached the store,
      // nothing is given back (docs/decisions/helper.md#helper-rate-limits).
      giveBack(store, c, c.id).catch(() => {});
      throw err;
    }
    let known: { count: number; resetAtMs: number };
    try {
      known = await store.count(c.key);
    } catch (err) {
      // The reservation above holds a place: given back (if the store lets us) before the failure is answered.
      await giveBack(store, c, c.id).catch(() => {});
      throw err;
    }
    if (known.count + inflight.count <= c.limit.max) return undefined;
    await giveBack(store, c, c.id);
    if (known.count >= c.limit.max) return known.resetAtMs;
    // Only charges under way fill the limit: each settles in seconds (a decline then counts, with its own window),
    // so the shopper is told to try again as soon as one could have settled, not when the first reservation would
    // lapse (a whole window, ten minutes by default).
    if (Date.now() + delay > deadline) return Math.min(inflight.resetAtMs, now() + RESERVATION_WAIT_MS);
    await sleep(delay);
  }
}

/** Gives reservations back: the charge was not a decline. */
export async function releaseDeclines(store: TesseraStore, reserved: readonly ReservedCounter[]): Promise<void> {
  await Promise.all(reserved.map((c) => giveBack(store, c, c.id)));
}

/**
 * Turns reservations into declines: in each counter the decline is counted first, then the reservation given back,
 * so its sum never dips; the counters side by side. The reservation is given back also when the count failed: a count
 * that timed out still lands, and one that did not is a decline the store could not take (logged by the caller).
 */
export async function commitDeclines(store: TesseraStore, reserved: readonly ReservedCounter[]): Promise<void> {
  await Promise.all(
    reserved.map(async (c) => {
      try {
        await store.hit(c.key, c.limit.windowMs);
      } finally {
        await giveBack(store, c, c.id);
      }
    }),
  );
}

/** Records one declined charge in each counter (a decline learned later, through 3-D Secure). */
export async function recordDeclines(store: TesseraStore, counters: readonly DeclineCounter[]): Promise<void> {
  await Promise.all(counters.map((c) => store.hit(c.key, c.limit.windowMs)));
}

/** The store key of the shop-wide decline counter (`rateLimits.declinesTotal`), shared by every instance on the store. */
export const DECLINES_TOTAL_KEY = 'declines:total';

/**
 * The shop-wide decline limit (docs/decisions/helper.md#helper-declines-total): 429 once the declines known in the
 * window reached `max`. One store read and no reservation, unlike the per-IP and per-session limits: a shop-wide
 * reservation would make every shopper's charge wait on every other's, so charges in flight may pass `max` by as many
 * as there are.
 */
export async function checkDeclinesTotal(store: TesseraStore, limit: Limit, now: () => number): Promise<void> {
  const { count, resetAtMs } = await store.count(DECLINES_TOTAL_KEY);
  if (count >= limit.max) {
    const message = 'too many declined payments at this shop; try again later';
    throw tooMany('TESSERA_TOO_MANY_DECLINES', message, 'declinesTotal', resetAtMs, now());
  }
}

/**
 * The rate-limit key of a client address (`req.ip`, which follows Express's `trust proxy`): an IPv4 address as it
 * is (also when IPv4-mapped), an IPv6 address by its /64 network, since one subscriber or server usually holds a
 * whole /64 and could otherwise use a fresh address for each request (docs/decisions/helper.md#helper-rate-limits).
 * Anything else is `other:` and its SHA-256: Express takes the X-Forwarded-For entries it trusts as they come, so
 * under a `trust proxy` of more hops than there are proxies `req.ip` is the client's own text (up to the header limit,
 * with `:` in it), and it is part of store keys.
 */
export function ipKey(ip: string | undefined): string {
  if (!ip || ip === 'unknown') return 'unknown';
  const mapped = /^::ffff:/i.test(ip) ? ip.slice(7) : undefined;
  if (mapped && isIPv4(mapped)) return mapped;
  if (!isIPv6(ip)) return isIPv4(ip) ? ip : `other:${hash('sha256', ip, 'base64url')}`;
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
