import { createHash, randomBytes } from 'node:crypto';
import { CompactEncrypt } from 'jose';
import { checkNumber } from '../../../shared/card/index.js';
import { UPDATER_NETWORKS } from '../../provider/schemas/accounts/index.js';
import type { SandboxContext } from '../core/context.js';
import type { StoredCardRecord } from './store.js';

/**
 * A card's fingerprint: the same number gives the same fingerprint in every sandbox run and in both APIs
 * (the legacy area's card tokens use the same derivation), and it reveals nothing of the number.
 */
export function fingerprintOf(number: string): string {
  return createHash('sha256').update(`tessera-sandbox-card:${number}`).digest('hex').toUpperCase();
}

/** The network of a card number (`visa`, `mastercard`, `amex`, …) or undefined when it is not a valid card number. */
export function networkOf(number: string): string | undefined {
  const { brand, problem } = checkNumber(number);
  return problem ? undefined : brand?.id;
}

/** True for the three networks the account updater supports (docs/decisions/sandbox.md#updater-networks). */
export function isUpdaterNetwork(network: string | undefined): boolean {
  return (UPDATER_NETWORKS as readonly string[]).includes(network ?? '');
}

/** A stored card record for `number` (the caller has validated it). */
export function storedCard(
  id: string,
  number: string,
  expiryMonth: number,
  expiryYear: number,
  status: 'active' | 'closed' = 'active',
): StoredCardRecord {
  return {
    id,
    kind: 'card',
    number,
    expiryMonth,
    expiryYear,
    scheme: networkOf(number) ?? 'unknown',
    bin: number.slice(0, 6),
    last4: number.slice(-4),
    fingerprint: fingerprintOf(number),
    status,
  };
}

/** What POST /instruments and GET /instruments/{id} answer for a stored card. */
export function storedCardView(card: StoredCardRecord) {
  return {
    id: card.id,
    type: 'card' as const,
    scheme: card.scheme,
    bin: card.bin,
    last4: card.last4,
    expiry_month: card.expiryMonth,
    expiry_year: card.expiryYear,
    fingerprint: card.fingerprint,
    status: card.status,
  };
}

const encryptionKeys = new WeakMap<SandboxContext, Uint8Array>();

/**
 * `encrypted_card_number` of an account-updater answer: a compact JWE (`dir`, A256GCM) under a key the
 * sandbox generates at start. Opaque to the caller, as the spec leaves its format open
 * (docs/decisions/sandbox.md#updater-networks).
 */
export async function encryptCardNumber(ctx: SandboxContext, number: string): Promise<string> {
  let key = encryptionKeys.get(ctx);
  if (!key) {
    key = new Uint8Array(randomBytes(32));
    encryptionKeys.set(ctx, key);
  }
  return new CompactEncrypt(new TextEncoder().encode(number))
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
    .encrypt(key);
}
