import type { NextFunction, Request, Response } from 'express';
import { escapeHtml } from '../../common/html.js';
import type { Charge, LegacyClient } from '../../provider/legacy/client.js';
import type { HelperContext } from '../context.js';
import { badRequest, type ErrorPage, HelperHttpError } from '../errors.js';
import { chargeRead } from '../provider-answers.js';
import { logMountParams } from '../request-log.js';
import { holdsSecret, secretRefused, sendJson } from '../respond.js';
import { upstreamError } from '../upstream.js';
import { deliverCharge } from './on-charge.js';
import { answerBody, type ChargeOutcome, outcomeUnknown } from './outcome.js';
import { mountParams, type PendingThreeDs } from './records.js';

const PAYMENT_TOKEN = /^pay_tok_[A-Za-z0-9]{1,64}$/;

const UNREAD =
  'the payment’s 3-D Secure records cannot be read now; try the same return again to learn the outcome (it will not be charged twice)';

/** True when the caller asked for JSON rather than a page (a `fetch`, not a navigation). */
function wantsJson(req: Request): boolean {
  return req.accepts(['html', 'json']) === 'json';
}

/**
 * The page a shopper's browser gets when the 3-D Secure return fails (the provider or the store unavailable,
 * `onCharge` throwing, an unknown or unfinished payment): the shopper arrived by a navigation, so a JSON body would
 * be all they see. It never says "paid" (the shop may not have recorded the payment), says that a retry cannot
 * charge twice, and for a fault that may pass offers the same return again (which calls `onCharge` again).
 * A fetch that asks for JSON still gets the JSON error. docs/decisions/helper.md#helper-3ds
 */
const returnErrorPage: ErrorPage = (req, err, requestId) => {
  const token = req.query['cko-payment-token'];
  // A fault that may pass: the provider or the store, `onCharge`, or the request limit (429).
  const passing = err.status >= 500 || err.status === 429;
  const retry =
    passing && typeof token === 'string' && PAYMENT_TOKEN.test(token)
      ? `<p><a href="?cko-payment-token=${encodeURIComponent(token)}">Try again</a></p>`
      : '';
  const title = passing ? 'We could not confirm your payment yet' : 'This payment could not be confirmed';
  const next = passing
    ? 'Nothing will be charged twice: trying again shows the result of this payment.'
    : 'Please return to the shop and check your order.';
  const chargeId = err.details.chargeId ? ` · payment ${escapeHtml(err.details.chargeId)}` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title></head>
<body><main><h1>${title}</h1><p>${next}</p>${retry}
<p><small>Reference ${escapeHtml(requestId)}${chargeId} (${escapeHtml(err.code)})</small></p></main></body></html>
`;
};

/**
 * The first middleware of the return: a navigation (a browser that prefers text/html) gets {@link returnErrorPage}
 * for any error of the route, the request limit's 429 included, rather than a JSON body; a fetch or a client that
 * accepts anything keeps the JSON error (the helper's error handler).
 */
export function returnPages(req: Request, res: Response, next: NextFunction): void {
  if (req.accepts(['json', 'html']) === 'html') res.locals.tesseraErrorPage = returnErrorPage;
  next();
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
    settle(charge: Charge, pending: PendingThreeDs, req: Request): Promise<ChargeOutcome>;
  },
) {
  /** The charge read from the provider once its challenge is finished, stored and counted by `settle`. */
  async function settled(token: string, pending: PendingThreeDs, req: Request): Promise<ChargeOutcome> {
    let charge: Charge;
    try {
      charge = chargeRead(await legacy.charges.retrieve(token));
    } catch (err) {
      // The charge exists (it was answered 202): a read of it that fails is no "nothing was done".
      throw upstreamError(err, true);
    }
    if (charge.status === 'Pending') {
      throw new HelperHttpError(409, 'TESSERA_3DS_NOT_FINISHED', 'the 3-D Secure challenge is not finished', {
        field: 'cko-payment-token',
        outcomeKnown: true,
      });
    }
    return deps.settle(charge, pending, req);
  }

  return async (req: Request, res: Response) => {
    const token = req.query['cko-payment-token'];
    if (typeof token !== 'string' || !PAYMENT_TOKEN.test(token)) {
      throw badRequest('cko-payment-token', 'cko-payment-token must be a payment token (pay_tok_…)');
    }
    // The shopper comes back from the challenge of a charge made before: a store that fails is no "nothing was done".
    const saved = await outcomeUnknown(ctx.store.get(deps.threeDs(token)), UNREAD);
    if (!saved) {
      throw new HelperHttpError(404, 'TESSERA_UNKNOWN_PAYMENT', 'no 3-D Secure payment of this site has this token', {
        field: 'cko-payment-token',
      });
    }
    const pending = JSON.parse(saved) as PendingThreeDs;
    // The charge's mount-path parameters: its lines name its shop, not that of the path it came back on.
    const params = pending.params === undefined ? undefined : mountParams(pending.params);
    if (params) logMountParams(res, params);
    // A return already settled (a reload, a second tab, the Back button) is answered from the store: the outcome is
    // final, and each reload would otherwise be one more provider read under the secret key.
    const stored = await outcomeUnknown(ctx.store.get(pending.resultKey), UNREAD);
    const known = stored === undefined ? undefined : (JSON.parse(stored) as ChargeOutcome);
    const outcome = known && known.status !== 202 ? known : await settled(token, pending, req);
    const { event } = outcome;
    if (event) {
      res.locals.tesseraLog = { chargeStatus: event.status, chargeId: event.id, responseCode: event.responseCode };
      // The merchant's server learns the outcome before the shopper is sent on (docs/decisions/helper.md#helper-on-charge).
      // It sees the mount-path parameters of the charge request, not those of the path the provider sent the shopper
      // back to (`publicUrl`'s, one for every shop); a record written before they were kept leaves the return's own.
      // The route has no parameters of its own and reads none. docs/decisions/helper.md#helper-mount-params
      if (params) req.params = params;
      await deliverCharge(ctx, event, req, '3ds-return');
    }
    const target = outcome.status === 201 ? pending.successUrl : pending.failUrl;
    res.setHeader('Cache-Control', 'no-store');
    if (target && !wantsJson(req)) {
      // A path stays a path (docs/decisions/helper.md#helper-3ds): the browser resolves it on the site it is on.
      const url = new URL(target, 'https://helper.invalid');
      url.searchParams.set('chargeId', String(outcome.body.id));
      const location = target.startsWith('/') ? `${url.pathname}${url.search}${url.hash}` : url.href;
      // Express writes it in the header and in the body: neither may carry a secret the provider echoed in the id
      // (docs/decisions/helper.md#helper-secret-guard); the error handler answers the 502 and logs it.
      if (holdsSecret(ctx, location)) throw secretRefused("the 3-D Secure return's Location");
      res.redirect(303, location);
      return;
    }
    sendJson(ctx, res, outcome.status, {
      ...answerBody(outcome, ctx.options.exposeDeclineCodes === true),
      requestId: res.locals.tesseraRequestId,
    });
  };
}
