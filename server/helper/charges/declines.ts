import type { Request } from 'express';
import type { HelperContext } from '../context.js';
import { HelperHttpError } from '../errors.js';
import {
  checkDeclinesTotal,
  commitDeclines,
  DECLINES_TOTAL_KEY,
  type DeclineCounter,
  type Limit,
  type ReservedCounter,
  recordDeclines,
  releaseDeclines,
  reserveDeclines,
} from '../rate-limit.js';
import { requestLog } from '../request-log.js';
import type { ResultOwner } from './outcome.js';
import { RESULT_TTL_MS } from './records.js';

/**
 * The decline limits of the charges of one helper (docs/decisions/helper.md#helper-rate-limits): per IP, per session,
 * and the shop-wide `declinesTotal` (docs/decisions/helper.md#helper-declines-total).
 */
export interface Declines {
  /**
   * The caller's decline reservations (refused with 429 when a limit is full): a promise, or the empty array when
   * there is nothing to reserve, which the charge does not await.
   */
  reserve(owner: ResultOwner): readonly ReservedCounter[] | Promise<readonly ReservedCounter[]>;
  /**
   * Once the provider answered: the reservations become declines (`keep`), counted in the shop's total too, or are
   * given back; a line it writes names `req`.
   */
  settle(reserved: readonly ReservedCounter[], keep: boolean, req: Request): Promise<void>;
  /**
   * Counts the decline of a 3-D Secure charge once against the limits of the shopper who started it: the first to
   * claim the token's `:declined` marker counts it, on every instance sharing the store.
   */
  countOnce(resultKey: string, owner: ResultOwner, req: Request): Promise<void>;
}

/** The decline limits of one helper, shared by its charges and its 3-D Secure returns. */
export function declines(ctx: HelperContext): Declines {
  const { store, limits, log } = ctx;

  /** The decline counters of a caller (by IP key and session hash), empty when both limits are off. */
  function declineCounters(owner: ResultOwner): DeclineCounter[] {
    const counters: DeclineCounter[] = [];
    if (limits.declinesPerIp) {
      counters.push({ key: `declines:ip:${owner.ip}`, limit: limits.declinesPerIp, name: 'declinesPerIp' });
    }
    if (limits.declinesPerSession && owner.session) {
      counters.push({
        key: `declines:session:${owner.session}`,
        limit: limits.declinesPerSession,
        name: 'declinesPerSession',
      });
    }
    return counters;
  }

  /**
   * The caller's decline reservations (per IP, per session) and, with `declinesTotal`, the shop-wide count read beside
   * them (one store round trip for all): refused with 429 when either is full, after the reservations are given back.
   * A store that failed is answered as such (503) before any limit, and a per-IP or per-session 429 before the
   * shop-wide one (docs/decisions/helper.md#helper-declines-total).
   */
  async function reserveOrRefuse(
    counters: readonly DeclineCounter[],
    total: Limit,
  ): Promise<readonly ReservedCounter[]> {
    const [reserving, checked] = await Promise.allSettled([
      counters.length === 0 ? [] : reserveDeclines(store, counters, ctx.now),
      checkDeclinesTotal(store, total, ctx.now),
    ]);
    if (reserving.status === 'fulfilled' && checked.status === 'fulfilled') return reserving.value;
    if (reserving.status === 'fulfilled') await releaseDeclines(store, reserving.value);
    const errors = [reserving, checked].flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    throw errors.find((e) => !(e instanceof HelperHttpError && e.status === 429)) ?? errors[0];
  }

  /**
   * Counts one decline of the shop in `declinesTotal` (when set), and logs one warning when that count reaches the
   * limit: the store's count is atomic, so one decline per window, on one instance, sees it reach `max` exactly.
   */
  async function countTotal(req: Request): Promise<void> {
    const total = limits.declinesTotal;
    if (!total) return;
    const { count, resetAtMs } = await store.hit(DECLINES_TOTAL_KEY, total.windowMs);
    if (count !== total.max) return;
    requestLog(log, req).warn(
      {
        event: 'tessera.declines_total_reached',
        limit: 'declinesTotal',
        count,
        max: total.max,
        windowMs: total.windowMs,
        resetAt: new Date(resetAtMs).toISOString(),
      },
      `the shop had ${count} declined payments in this window of ${total.windowMs} ms: every charge is refused ` +
        '(429 TESSERA_TOO_MANY_DECLINES) until it ends, a sign of card testing; see rateLimits.declinesTotal',
    );
  }

  /**
   * Waits for an update of the decline counters after the provider answered. What the shopper is told of the
   * charge must not hang on a counter: a store failure here is logged, not answered
   * (docs/decisions/helper.md#helper-rate-limits).
   */
  async function settled(update: Promise<void>, kept: boolean, req: Request): Promise<void> {
    try {
      await update;
    } catch (err) {
      requestLog(log, req).warn(
        { event: 'tessera.declines.unsettled', kept, code: (err as { code?: unknown }).code },
        'the decline counters could not be updated; they end with their window',
      );
    }
  }

  return {
    reserve(owner) {
      // Without `declinesTotal` (the default), as before it: nothing more on the way of a charge.
      const counters = declineCounters(owner);
      return limits.declinesTotal
        ? reserveOrRefuse(counters, limits.declinesTotal)
        : counters.length === 0
          ? []
          : reserveDeclines(store, counters, ctx.now);
    },

    async settle(reserved, keep, req) {
      if (keep && limits.declinesTotal) {
        await settled(
          Promise.all([commitDeclines(store, reserved), countTotal(req)]).then(() => undefined),
          keep,
          req,
        );
        return;
      }
      if (reserved.length === 0) return;
      await settled(keep ? commitDeclines(store, reserved) : releaseDeclines(store, reserved), keep, req);
    },

    async countOnce(resultKey, owner, req) {
      const count = async () => {
        if (await store.claim(`${resultKey}:declined`, '1', RESULT_TTL_MS)) {
          await Promise.all([recordDeclines(store, declineCounters(owner)), countTotal(req)]);
        }
      };
      await settled(count(), true, req);
    },
  };
}
