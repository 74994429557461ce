import { hash } from 'node:crypto';
import type { ResultOwner } from './outcome.js';

// The records of charges the helper keeps in its store, and their keys: a leaf module that the charge route,
// the 3-D Secure return and the order-completion hook share (none of them imports another for these).

/** How long a token's answer is kept: the provider's idempotency window (DESIGN.md: 24 h). */
export const RESULT_TTL_MS = 24 * 3600_000;

/**
 * SHA-256 of a card token: both the idempotency key and the store key derive from it, so it is hashed once.
 * `crypto.hash` is the one-shot form (Node ≥ 20.12): no `Hash` stream object per charge.
 */
export const tokenDigest = (cardToken: string): Buffer => hash('sha256', cardToken, 'buffer');

/** The idempotency key of a card token's charge: the same for every retry of that token. */
export function idempotencyKeyFor(cardToken: string, digest = tokenDigest(cardToken)): string {
  return `tessera-charge-${digest.toString('base64url')}`;
}

/** Store key of a token's answer (the token itself is never a key: keys may end up in a shared store's logs). */
export const resultKey = (cardToken: string, digest = tokenDigest(cardToken)) => `charge:${digest.toString('hex')}`;
/** Store key of a pending 3-D Secure charge, by its `pay_tok_…`. */
export const threeDsKey = (paymentToken: string) => `3ds:${hash('sha256', paymentToken, 'hex')}`;

/** What the 3-D Secure return needs to finish a charge. */
export interface PendingThreeDs {
  readonly resultKey: string;
  readonly orderReference: string;
  readonly successUrl?: string;
  readonly failUrl?: string;
  readonly ip: string;
  readonly session?: string;
  /** Who may read the answer (absent in records written before owners were kept). */
  readonly owner?: ResultOwner;
}
