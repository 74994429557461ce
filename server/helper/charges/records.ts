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

/**
 * The idempotency key of a card token's charge for one order: the same for every retry of that token and order.
 * The order is part of it because the provider never sees the order reference: with the token alone, a token sent
 * again for another order once the store had forgotten its answer (a restarted `MemoryStore`, a flushed Redis) was the
 * same request to the provider whenever that order cost the same, and its replay of the first charge was taken as
 * the other order's payment. With the order in the key, the provider sees a new charge of a used token and refuses
 * it (docs/decisions/helper.md#helper-charges). The digest has a fixed length, so digest ‖ order is unambiguous.
 */
export function idempotencyKeyFor(
  cardToken: string,
  orderReference: string,
  digest: Buffer = tokenDigest(cardToken),
): string {
  const bound = hash('sha256', Buffer.concat([digest, Buffer.from(orderReference, 'utf8')]), 'base64url');
  return `tessera-charge-${bound}`;
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
  /**
   * The session id itself, in records written before 2026-11-26 only: a session id is a bearer secret, and the store's
   * values can end up in its logs; the {@link owner} holds its hash, which is all the decline counters need.
   */
  readonly session?: string;
  /** Who may read the answer (absent in records written before owners were kept). */
  readonly owner?: ResultOwner;
}
