import type { Request, Response } from 'express';
import type { Charge, LegacyClient } from '../../provider/legacy/client.js';
import type { HelperContext } from '../context.js';
import { badRequest, HelperHttpError } from '../errors.js';
import { sendJson } from '../respond.js';
import { upstreamError } from '../upstream.js';
import { deliverCharge } from './on-charge.js';
import { answerBody, type ChargeOutcome } from './outcome.js';
import type { PendingThreeDs } from './records.js';

const PAYMENT_TOKEN = /^pay_tok_[A-Za-z0-9]{1,64}$/;

/** True when the caller asked for JSON rather than a page (a `fetch`, not a navigation). */
function wantsJson(req: Request): boolean {
  return req.accepts(['html', 'json']) === 'json';
}

/**
 * `GET /charges/3ds-return?cko-payment-token=pay_tok_…`: where the provider
 * sends the shopper after the 3-D Secure challenge (the helper gives this URL
 * as the charge's successUrl and failUrl). Only charges this helper started are
 * accepted; the outcome is read back from the provider (never taken from the
 * URL), stored as the token's answer, then the shopper is sent (303) to the
 * merchant's successUrl or failUrl with `?chargeId=…`, or, without one or when
 * JSON is asked for, answered like `POST /charges`. See docs/decisions/helper.md#helper-3ds.
 */
export function threeDsReturn(
  ctx: HelperContext,
  legacy: LegacyClient,
  deps: {
    threeDs(token: string): string;
    /** Stores the final outcome, counting a decline once (docs/decisions/helper.md#helper-rate-limits). */
    settle(charge: Charge, pending: PendingThreeDs): Promise<ChargeOutcome>;
  },
) {
  return async (req: Request, res: Response) => {
    const token = req.query['cko-payment-token'];
    if (typeof token !== 'string' || !PAYMENT_TOKEN.test(token)) {
      throw badRequest('cko-payment-token', 'cko-payment-token must be a payment token (pay_tok_…)');
    }
    const saved = await ctx.store.get(deps.threeDs(token));
    if (!saved) {
      throw new HelperHttpError(404, 'TESSERA_UNKNOWN_PAYMENT', 'no 3-D Secure payment of this site has this token', {
        field: 'cko-payment-token',
      });
    }
    const pending = JSON.parse(saved) as PendingThreeDs;
    let charge: Charge;
    try {
      charge = (await legacy.charges.retrieve(token)).data;
    } catch (err) {
      throw upstreamError(err);
    }
    if (charge.status === 'Pending') {
      throw new HelperHttpError(409, 'TESSERA_3DS_NOT_FINISHED', 'the 3-D Secure challenge is not finished', {
        field: 'cko-payment-token',
        outcomeKnown: true,
      });
    }
    const outcome = await deps.settle(charge, pending);
    res.locals.tesseraLog = { chargeStatus: charge.status, chargeId: charge.id, responseCode: charge.responseCode };
    // The merchant's server learns the outcome before the shopper is sent on (docs/decisions/helper.md#helper-on-charge).
    if (outcome.event) await deliverCharge(ctx, outcome.event, req, '3ds-return');
    const target = outcome.status === 201 ? pending.successUrl : pending.failUrl;
    res.setHeader('Cache-Control', 'no-store');
    if (target && !wantsJson(req)) {
      // A path stays a path (docs/decisions/helper.md#helper-3ds): the browser resolves it on the site it is on.
      const url = new URL(target, 'https://helper.invalid');
      url.searchParams.set('chargeId', charge.id);
      res.redirect(303, target.startsWith('/') ? `${url.pathname}${url.search}${url.hash}` : url.href);
      return;
    }
    sendJson(res, outcome.status, {
      ...answerBody(outcome, ctx.options.exposeDeclineCodes === true),
      requestId: res.locals.tesseraRequestId,
    });
  };
}
