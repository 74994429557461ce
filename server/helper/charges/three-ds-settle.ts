import type { Request } from 'express';
import type { Charge, LegacyClient } from '../../provider/legacy/client.js';
import type { HelperContext } from '../context.js';
import { chargeRead } from '../provider-answers.js';
import { upstreamError } from '../upstream.js';
import { ownerOf } from './caller.js';
import type { TokenRequest } from './claim.js';
import type { Declines } from './declines.js';
import { type ChargeOutcome, outcomeOf, outcomeUnknown, saved } from './outcome.js';
import { type PendingThreeDs, RESULT_TTL_MS, threeDsKey } from './records.js';

/** How a 3-D Secure charge that waited for the shopper's challenge becomes final (docs/decisions/helper.md#helper-3ds). */
export interface ThreeDsSettlement {
  /**
   * Stores the final outcome, counting a decline once; the 3-D Secure return's and a later `POST /charges`'s (`req`,
   * whose lines name it).
   */
  settle(charge: Charge, pending: PendingThreeDs, req: Request): Promise<ChargeOutcome>;
  /** A token's stored answer, read again from the provider while it is a pending 3-D Secure one. */
  refreshed(outcome: ChargeOutcome, t: TokenRequest): Promise<ChargeOutcome>;
}

/** One per helper: the 3-D Secure return and `POST /charges` settle through the same one. */
export function threeDsSettlement(ctx: HelperContext, legacy: LegacyClient, declines: Declines): ThreeDsSettlement {
  const { store } = ctx;

  /**
   * Stores the final outcome of a 3-D Secure charge and, for a decline, counts it once against the limits of the
   * shopper who started it, whichever of the return and a later `POST /charges` learns it first: the first to
   * claim the token's `:declined` marker counts it, on every instance sharing the store.
   */
  async function settle(charge: Charge, pending: PendingThreeDs, req: Request): Promise<ChargeOutcome> {
    const outcome = outcomeOf(charge, pending.orderReference, pending);
    // The charge exists: a store that fails here is answered as `saved` says, never "nothing was done".
    await saved(store.set(pending.resultKey, JSON.stringify(outcome), RESULT_TTL_MS));
    if (outcome.status === 402) {
      // The record's owner holds the session's hash; records of earlier versions kept the session id itself.
      const owner = pending.owner ?? ownerOf(pending.ip, pending.session);
      await declines.countOnce(pending.resultKey, owner, req);
    }
    return outcome;
  }

  /**
   * A pending 3-D Secure answer is refreshed from the provider: the shopper may have finished it meanwhile. Once the
   * charge is final, a store that fails before its outcome is stored is no "nothing was done"; and a 3-D Secure
   * record lost while the answer was kept (a store that evicted it) is rebuilt from that answer and this request: the
   * return URLs it held are the return route's, not needed here (docs/decisions/helper.md#helper-3ds).
   */
  async function refreshed(outcome: ChargeOutcome, t: TokenRequest): Promise<ChargeOutcome> {
    if (outcome.status !== 202 || !outcome.paymentToken) return outcome;
    let charge: Charge;
    try {
      charge = chargeRead(await legacy.charges.retrieve(outcome.paymentToken));
    } catch (err) {
      // The charge exists (it was answered 202): a read of it that fails is no "nothing was done".
      throw upstreamError(err, true);
    }
    if (charge.status === 'Pending') return outcome;
    const record = await outcomeUnknown(
      store.get(threeDsKey(outcome.paymentToken)),
      'the payment is complete but its 3-D Secure record cannot be read now; send the same request again to learn the outcome (it will not be charged twice)',
    );
    const pending: PendingThreeDs = record
      ? (JSON.parse(record) as PendingThreeDs)
      : {
          resultKey: t.key,
          orderReference: outcome.orderReference,
          ip: t.caller.ip,
          owner: outcome.owner ?? t.caller.owner,
          ...(outcome.params ? { params: outcome.params, mount: outcome.mount } : t.mount),
        };
    return settle(charge, pending, t.req);
  }

  return { settle, refreshed };
}
