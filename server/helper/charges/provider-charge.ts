import { InvalidResponseError, ValidationError } from '../../provider/errors.js';
import { type Charge, isThreeDSecureRedirect, type LegacyClient } from '../../provider/legacy/client.js';
import type { HelperContext } from '../context.js';
import { checkChargeCreated } from '../provider-answers.js';
import { requestLog } from '../request-log.js';
import { setAndRelease } from '../store.js';
import { upstreamError } from '../upstream.js';
import { chargeRequest } from './charge-request.js';
import type { TokenClaim, TokenRequest } from './claim.js';
import type { Declines } from './declines.js';
import { type ChargeOutcome, outcomeOf, pendingOutcome, saved } from './outcome.js';
import { idempotencyKeyFor, type PendingThreeDs, RESULT_TTL_MS, threeDsKey } from './records.js';
import { checkReturnTarget, mountUrl } from './redirects.js';
import { resolveDetails } from './resolve.js';
import { shopperError } from './shopper-errors.js';

/**
 * A new charge of a claimed card token: its decline reservations, its return targets, the order's price from
 * `resolveCharge`, the provider's answer, stored with the claim given back (docs/decisions/helper.md#helper-charges).
 */
export function providerCharge(
  ctx: HelperContext,
  legacy: LegacyClient,
  declines: Declines,
): (t: TokenRequest, claim: TokenClaim) => Promise<ChargeOutcome> {
  const { store, log } = ctx;

  return async function charge(t: TokenRequest, claim: TokenClaim): Promise<ChargeOutcome> {
    const { req, body, key, digest } = t;
    const { params, mount: allParams } = t.mount;
    const { ip, owner } = t.caller;
    // Reserved before anything else, so concurrent charges cannot overshoot; kept only for a decline, or when
    // the provider may have charged (outcome unknown). docs/decisions/helper.md#helper-rate-limits
    const reserving = declines.reserve(owner);
    const reserved = reserving instanceof Promise ? await reserving : reserving;
    let keep = false;
    let settling: Promise<void> | undefined;
    try {
      // The helper's own URL is only needed for return targets and 3-D Secure; most charges have neither.
      let base: string | undefined;
      const mount = () => (base ??= mountUrl(req, ctx.options.publicUrl));
      let successUrl: string | undefined;
      let failUrl: string | undefined;
      if (body.successUrl !== undefined || body.failUrl !== undefined) {
        const ownOrigin = new URL(mount()).origin;
        const allowed = ctx.options.redirectOrigins ?? [];
        successUrl = checkReturnTarget('successUrl', body.successUrl, ownOrigin, allowed);
        failUrl = checkReturnTarget('failUrl', body.failUrl, ownOrigin, allowed);
      }
      const details = await resolveDetails(ctx, req, body);
      const request = chargeRequest(body, details, ip, mount);
      let answer: Awaited<ReturnType<LegacyClient['charges']['create']>>;
      try {
        answer = await legacy.charges.create(request, {
          idempotencyKey: idempotencyKeyFor(body.cardToken, body.orderReference, digest, t.pathParams),
        });
        checkChargeCreated(answer);
      } catch (err) {
        const shopper = err instanceof ValidationError ? shopperError(err) : undefined;
        // A refusal of what the shopper sent is answered, not logged; except the token sent before for this order,
        // whose first charge may have been made: the merchant checks that order (docs/decisions/helper.md#helper-charge-already-sent).
        const alreadySent = shopper?.code === 'TESSERA_CHARGE_ALREADY_SENT';
        if (shopper && !alreadySent) throw shopper;
        const mapped = shopper ?? upstreamError(err);
        // This request made no charge: its decline reservation is given back.
        keep = !alreadySent && mapped.outcomeKnown !== true;
        requestLog(log, req).warn(
          {
            event: 'tessera.charge.failed',
            code: mapped.code,
            outcomeKnown: mapped.outcomeKnown,
            providerCode: (err as { code?: unknown }).code,
            providerRequestId: (err as { requestId?: unknown }).requestId,
            // Which field of the provider's answer was refused (a challenge URL that is no https URL, a card without
            // its last four digits): the helper's own words, never the provider's body.
            ...(err instanceof InvalidResponseError ? { reason: err.message } : {}),
            // The order to check; never the token.
            ...(alreadySent ? { orderReference: body.orderReference } : {}),
          },
          alreadySent
            ? 'card token already sent for this order; its outcome is not known here'
            : 'charge failed upstream',
        );
        throw mapped;
      }
      const data = answer.data;
      let outcome: ChargeOutcome;
      if (isThreeDSecureRedirect(data)) {
        outcome = pendingOutcome(data.redirectUrl, data.id, body.orderReference, { owner, params, mount: allParams });
        const pending: PendingThreeDs = {
          resultKey: key,
          orderReference: body.orderReference,
          ip,
          owner,
          // The provider sends the shopper back to `publicUrl`'s path, one for every mount: the return hands these to
          // `onCharge` (docs/decisions/helper.md#helper-mount-params).
          params,
          ...(allParams ? { mount: allParams } : {}),
          ...(successUrl ? { successUrl } : {}),
          ...(failUrl ? { failUrl } : {}),
        };
        await saved(store.set(threeDsKey(data.id), JSON.stringify(pending), RESULT_TTL_MS));
      } else {
        outcome = outcomeOf(data as Charge, body.orderReference, { owner, params, mount: allParams });
        keep = outcome.status === 402;
      }
      // The answer is stored and the token's claim given back in one step, while the decline counters settle; first
      // an extension of the claim on its way lands, so that none comes after the release.
      settling = declines.settle(reserved, keep, req);
      const landing = claim.stopKeeping();
      if (landing) await landing;
      await saved(setAndRelease(store, key, JSON.stringify(outcome), RESULT_TTL_MS, claim.key, claim.owner));
      claim.given = true;
      // One log line per request: the request logger adds these fields to its `tessera.request` line.
      req.res!.locals.tesseraLog = {
        chargeStatus: outcome.body.status,
        chargeId: outcome.body.id,
        responseCode: outcome.body.responseCode,
        providerRequestId: answer.requestId,
      };
      return outcome;
    } finally {
      // The reservations become declines (`keep`), counted in the shop's total too, or are given back.
      await (settling ?? declines.settle(reserved, keep, req));
    }
  };
}
