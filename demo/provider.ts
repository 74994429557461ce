import { type Charge, isThreeDSecureRedirect, type LegacyClient } from '../server/provider/legacy/client.js';
import { CAPTURE_AFTER_HOURS } from './catalogue.js';
import type { Order, ShopState } from './state.js';

const APPROVED = new Set(['Authorised', 'Captured', 'Flagged']);

/** Marks the order paid when `charge` (one of its own, by `trackId`) was approved. */
function notePaid(state: ShopState, charge: Charge): void {
  const order = charge.trackId ? state.order(charge.trackId) : undefined;
  if (order && !order.paidBy && APPROVED.has(charge.status)) order.paidBy = charge.id;
}

function record(order: Order, id: string, atMs: number, redirectUrl?: string): void {
  if (order.attempts.some((a) => a.id === id)) return; // a replayed answer (retry, double click): same charge
  order.attempts.push({ id, atMs, ...(redirectUrl ? { redirectUrl } : {}) });
}

/**
 * The legacy client the demo gives the helper (its `legacyClient` option): the shop's capture policy, which the
 * helper's `resolveCharge` has no field for, and a record of each order's charges for the result page and the
 * sandbox console. Ordinary orders are captured {@link CAPTURE_AFTER_HOURS} hours after authorisation (when the
 * parcel ships); an order with a pre-order item is only authorised (`autoCapture: "n"`). Both leave a charge
 * `Authorised` for a while, so the sandbox console can show the clock capture it, or the authorisation lapse.
 */
export function shopLegacyClient(legacy: LegacyClient, state: ShopState, now: () => number): LegacyClient {
  return {
    ...legacy,
    charges: {
      async create(body, options) {
        const order = body.trackId ? state.order(body.trackId) : undefined;
        const capture = order?.preorder ? { autoCapture: 'n' } : { autoCapture: 'y', autoCapTime: CAPTURE_AFTER_HOURS };
        const result = await legacy.charges.create({ ...body, ...capture }, options);
        const data = result.data;
        if (order) {
          if (isThreeDSecureRedirect(data)) record(order, data.id, now(), data.redirectUrl);
          else {
            record(order, data.id, now());
            notePaid(state, data);
          }
        }
        return result;
      },
      async retrieve(id, options) {
        const result = await legacy.charges.retrieve(id, options);
        notePaid(state, result.data);
        return result;
      },
    },
  };
}
