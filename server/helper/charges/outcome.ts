import type { Charge } from '../../provider/legacy/client.js';
import { HelperHttpError } from '../errors.js';
import type { ChargeEvent } from '../options.js';

/**
 * Who made a charge, so that its stored answer is replayed only to them (docs/decisions/helper.md#helper-charges):
 * the SHA-256 of the session id when there was a session, else the client's IP key (IPv4, or IPv6 /64).
 */
export interface ResultOwner {
  readonly session?: string;
  readonly ip: string;
}

/**
 * What one card token's charge answered, kept in the store so a retry or a
 * double click gets the same answer without a second charge.
 */
export interface ChargeOutcome {
  /** 201, 202 (3-D Secure pending) or 402. */
  readonly status: 201 | 202 | 402;
  readonly body: Readonly<Record<string, unknown>>;
  /** The order the token was charged for; the same token for another order is refused. */
  readonly orderReference: string;
  /** The `pay_tok_…` of a pending 3-D Secure charge. */
  readonly paymentToken?: string;
  /** The final charge as `onCharge` receives it (absent while 3-D Secure is pending). */
  readonly event?: ChargeEvent;
  /** Absent in answers stored before owners were recorded: then anyone with the token and order may read it. */
  readonly owner?: ResultOwner;
  /**
   * The mount-path parameters of the `POST /charges` that made the charge (records.ts `mountParams`): the shop, for a
   * helper under `/shops/:shop/payments`. The answer is replayed, and `onCharge` delivered, only under the same ones
   * (docs/decisions/helper.md#helper-mount-params). Absent in answers stored before 2026-11-26: then under any.
   */
  readonly params?: Readonly<Record<string, string>>;
  /**
   * The SHA-256 of all the mount-path parameters, only when {@link params} is not all of them (records.ts
   * `mountRecord`: a name or value over 256 characters, a wildcard's segments): compared with the caller's too.
   */
  readonly mount?: string;
}

/** Who made a charge and under which mount path: what its stored answer keeps beside the outcome. */
export interface ChargeMaker {
  readonly owner?: ResultOwner;
  readonly params?: Readonly<Record<string, string>>;
  readonly mount?: string;
}

/** The `owner`, `params` and `mount` fields of an answer, each only when known. */
const madeBy = ({ owner, params, mount }: ChargeMaker = {}) => ({
  ...(owner ? { owner } : {}),
  ...(params ? { params } : {}),
  ...(mount ? { mount } : {}),
});

const APPROVED = new Set(['Authorised', 'Captured', 'Flagged']);

/** The message of the 202: the charge waits for the shopper's 3-D Secure challenge at `redirectUrl`. */
export const PENDING_MESSAGE =
  'The card issuer asks the shopper to confirm this payment (3-D Secure): continue at redirectUrl.';

/** The message a shopper may see; deliberately the same for every decline reason. */
export const DECLINED_MESSAGE = 'The payment was declined. Check the card details or use another card.';

/** What `onCharge` receives for a final charge. */
export function chargeEvent(charge: Charge, orderReference: string): ChargeEvent {
  return {
    id: charge.id,
    status: charge.status,
    approved: APPROVED.has(charge.status),
    responseCode: charge.responseCode,
    amount: charge.value,
    currency: charge.currency,
    ...(charge.trackId ? { trackId: charge.trackId } : {}),
    orderReference,
    card: {
      brand: charge.card.paymentMethod,
      last4: charge.card.last4,
      expiryMonth: Number(charge.card.expiryMonth),
      expiryYear: Number(charge.card.expiryYear),
    },
  };
}

/**
 * The small, safe answer for a charge: id, status, responseCode, approved,
 * brand, last4 and a generic message. Nothing else of the provider's charge
 * (customer, addresses, bin, fingerprint, metadata) leaves the server; the
 * response code of a decline is taken out again by {@link answerBody}.
 */
export function outcomeOf(charge: Charge, orderReference: string, maker?: ChargeMaker): ChargeOutcome {
  const approved = APPROVED.has(charge.status);
  const common = {
    id: charge.id,
    status: charge.status,
    responseCode: charge.responseCode,
    approved,
    brand: charge.card.paymentMethod,
    last4: charge.card.last4,
  };
  const event = chargeEvent(charge, orderReference);
  const who = madeBy(maker);
  if (approved) {
    return { status: 201, orderReference, event, ...who, body: { ...common, message: 'The payment was approved.' } };
  }
  return {
    status: 402,
    orderReference,
    event,
    ...who,
    body: { code: 'TESSERA_CARD_DECLINED', ...common, status: 'Declined', message: DECLINED_MESSAGE },
  };
}

/**
 * The body the browser gets: a decline is one generic `Declined` without the issuer's response code (which
 * tells a card tester which cards are live), unless the merchant set `exposeDeclineCodes`
 * (docs/decisions/helper.md#helper-charges). The code stays in the log line and in `onCharge`.
 */
export function answerBody(outcome: ChargeOutcome, exposeDeclineCodes: boolean): Record<string, unknown> {
  // A 202 stored by a helper before the 202 had a message (kept 24 h) is answered with one all the same.
  if (outcome.status === 202 && outcome.body.message === undefined)
    return { ...outcome.body, message: PENDING_MESSAGE };
  if (outcome.status !== 402 || exposeDeclineCodes) return { ...outcome.body };
  const { responseCode: _hidden, ...rest } = outcome.body;
  return rest;
}

/** The 202 answer of a charge waiting for the shopper's 3-D Secure challenge: `{status, redirectUrl, message}`. */
export function pendingOutcome(
  redirectUrl: string,
  paymentToken: string,
  orderReference: string,
  maker?: ChargeMaker,
): ChargeOutcome {
  return {
    status: 202,
    orderReference,
    paymentToken,
    ...madeBy(maker),
    body: { status: 'Pending', redirectUrl, message: PENDING_MESSAGE },
  };
}

/**
 * A store call made once the charge may exist: if it fails, the shopper must not be told nothing happened (a store's
 * own 503 says `outcomeKnown: true`, right only before the provider call). The same request again learns the outcome:
 * the idempotency key makes the provider replay its first answer.
 */
export async function outcomeUnknown<T>(call: Promise<T>, message: string): Promise<T> {
  try {
    return await call;
  } catch (err) {
    throw new HelperHttpError(503, 'TESSERA_STORE_UNAVAILABLE', message, {
      outcomeKnown: false,
      headers: { 'Retry-After': '1' },
      cause: err,
    });
  }
}

/** A store write after the provider answered ({@link outcomeUnknown}). */
export const saved = (write: Promise<unknown>) =>
  outcomeUnknown(
    write,
    'the payment reached the provider but its result could not be saved; send the same request again to learn the outcome (it will not be charged twice)',
  );
