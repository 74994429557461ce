import { type Request, type Response, Router } from 'express';
import type { LegacyClient } from '../../provider/legacy/client.js';
import { checkedBody, jsonBody } from '../body.js';
import type { HelperContext } from '../context.js';
import { HelperHttpError } from '../errors.js';
import { consumeAll } from '../rate-limit.js';
import { logMountParams } from '../request-log.js';
import { sendJson } from '../respond.js';
import { parseBody } from '../validate.js';
import { chargeBudgets, requestBudget } from './budgets.js';
import { callerOf, mayRead, sameMount } from './caller.js';
import { tokenOutcomes } from './claim.js';
import { declines } from './declines.js';
import { deliverChallenge } from './on-challenge.js';
import { deliverCharge } from './on-charge.js';
import { answerBody } from './outcome.js';
import { providerCharge } from './provider-charge.js';
import { mountBinding, mountRecord, resultKey, threeDsKey, tokenDigest } from './records.js';
import { chargeBodySchema } from './schema.js';
import { returnPages, threeDsReturn } from './three-ds-return.js';
import { threeDsSettlement } from './three-ds-settle.js';

/**
 * `POST /charges` and `GET /charges/3ds-return`: one card token → at most one
 * charge (docs/decisions/helper.md#helper-charges).
 */
export function chargeRoutes(ctx: HelperContext, legacy: LegacyClient, router: Router = Router()): Router {
  const { store, limits } = ctx;
  const exposeCodes = ctx.options.exposeDeclineCodes === true;
  const declineLimits = declines(ctx);
  const threeDs = threeDsSettlement(ctx, legacy, declineLimits);
  // One per helper instance: the requests of this process that charge one token at once share its outcome.
  const tokenOutcome = tokenOutcomes(ctx, {
    refreshed: threeDs.refreshed,
    charge: providerCharge(ctx, legacy, declineLimits),
  });
  const budget = requestBudget(ctx);

  router.post('/charges', budget, jsonBody(ctx.bodyLimit, ctx.log), async (req: Request, res: Response) => {
    const body = parseBody(chargeBodySchema, checkedBody(req));
    // Only valid requests spend the charge budget (docs/decisions/helper.md#helper-rate-limits).
    const now = ctx.now();
    const caller = callerOf(ctx, req);
    const { owner } = caller;
    const budgets = chargeBudgets(limits, owner);
    // No budget (both limits off): no await, one microtask hop less per charge.
    if (budgets.length > 0) await consumeAll(store, budgets, now);
    const digest = tokenDigest(body.cardToken);
    const key = resultKey(body.cardToken, digest);
    // The shop, for a helper under a path with parameters: part of the order (docs/decisions/helper.md#helper-mount-params).
    // Read once: every parameter for the idempotency key, and what the records keep of them.
    const pathParams = mountBinding(req.params);
    const mount = mountRecord(pathParams);
    // Every later line of this request names the shop (docs/decisions/helper.md#helper-log-request-id).
    logMountParams(res, mount.params);
    const outcome = await tokenOutcome({ req, body, key, digest, caller, pathParams, mount });
    if (
      !mayRead(outcome.owner, owner) ||
      outcome.orderReference !== body.orderReference ||
      !sameMount(outcome, mount)
    ) {
      throw new HelperHttpError(409, 'TESSERA_CARD_TOKEN_USED', 'cardToken was already used; ask for the card again', {
        field: 'cardToken',
        outcomeKnown: true,
      });
    }
    if (outcome.event) {
      res.locals.tesseraLog ??= {
        chargeStatus: outcome.event.status,
        chargeId: outcome.event.id,
        responseCode: outcome.event.responseCode,
      };
      // Without an `onCharge` hook there is nothing to deliver: not awaited (deliverCharge returns at once then).
      if (ctx.options.onCharge) await deliverCharge(ctx, outcome.event, req, 'charge');
    } else if (outcome.status === 202 && ctx.options.onChallenge) {
      // The challenge started: the merchant's server hears of it once, before the 202; it never fails the answer
      // (docs/decisions/helper.md#helper-on-challenge).
      await deliverChallenge(ctx, legacy, outcome, req);
    }
    sendJson(ctx, res, outcome.status, { ...answerBody(outcome, exposeCodes), requestId: res.locals.tesseraRequestId });
  });

  // The return is counted like a payment request: each unfinished one costs a provider read.
  router.get(
    '/charges/3ds-return',
    returnPages,
    budget,
    threeDsReturn(ctx, legacy, { threeDs: threeDsKey, settle: threeDs.settle }),
  );

  return router;
}
