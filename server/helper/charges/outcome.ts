import type { Charge } from '../../provider/legacy/client.js';

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
}

const APPROVED = new Set(['Authorised', 'Captured', 'Flagged']);

/** The message a shopper may see; deliberately the same for every decline reason. */
export const DECLINED_MESSAGE = 'The payment was declined. Check the card details or use another card.';

/**
 * The small, safe answer for a charge: id, status, responseCode, approved,
 * brand, last4 and a generic message. Nothing else of the provider's charge
 * (customer, addresses, bin, fingerprint, metadata) leaves the server.
 */
export function outcomeOf(charge: Charge, orderReference: string): ChargeOutcome {
  const approved = APPROVED.has(charge.status);
  const common = {
    id: charge.id,
    status: charge.status,
    responseCode: charge.responseCode,
    approved,
    brand: charge.card.paymentMethod,
    last4: charge.card.last4,
  };
  if (approved) return { status: 201, orderReference, body: { ...common, message: 'The payment was approved.' } };
  return {
    status: 402,
    orderReference,
    body: { code: 'TESSERA_CARD_DECLINED', ...common, message: DECLINED_MESSAGE },
  };
}

/** The 202 answer of a charge waiting for the shopper's 3-D Secure challenge. */
export function pendingOutcome(redirectUrl: string, paymentToken: string, orderReference: string): ChargeOutcome {
  return { status: 202, orderReference, paymentToken, body: { status: 'Pending', redirectUrl } };
}
