import { createHash } from 'node:crypto';
import { brandById, checkExpiry, detectBrand } from '../../../shared/card/index.js';
import { type Address, type CardSummary, cardTokenRequestSchema } from '../../provider/schemas/legacy.js';
import type { SandboxContext, VaultCard } from '../core/context.js';
import { SandboxError } from '../core/errors.js';
import type { Request, Response } from '../core/http.js';
import { respond } from '../core/respond.js';
import { parseLegacy } from './parse.js';
import type { CardTokenRecord, LegacyStore } from './store.js';

/** A card token's lifetime (legacy-card-api.md, Limits: "cardToken: single use, 15 minutes lifetime"). */
export const CARD_TOKEN_TTL_MS = 15 * 60 * 1000;

/** Same number, same fingerprint, in every sandbox: 64 upper-case hex characters. */
export function fingerprintOf(number: string): string {
  return createHash('sha256').update(`tessera-sandbox-card:${number}`).digest('hex').toUpperCase();
}

/** An address with every field present (null when not given), so answers keep one shape. */
export function fullAddress(address: Address | null | undefined): Address | null {
  if (!address) return null;
  const phone = address.phone
    ? { countryCode: address.phone.countryCode ?? null, number: address.phone.number ?? null }
    : null;
  return {
    addressLine1: address.addressLine1 ?? null,
    addressLine2: address.addressLine2 ?? null,
    postcode: address.postcode ?? null,
    country: address.country ?? null,
    city: address.city ?? null,
    state: address.state ?? null,
    phone,
  };
}

/** The card as answers show it (no number, no CVV). */
export function cardSummary(cardId: string, card: VaultCard): CardSummary {
  return {
    id: cardId,
    last4: card.last4,
    bin: card.bin,
    paymentMethod: brandById(card.brand)?.name ?? card.brand,
    expiryMonth: String(card.expiryMonth).padStart(2, '0'),
    expiryYear: String(card.expiryYear),
    fingerprint: card.fingerprint,
    name: card.name ?? null,
  };
}

/** `POST {base}/tokens/card` (public key): validates the card and answers a single-use `card_tok_…`. */
export function createCardToken(ctx: SandboxContext, store: LegacyStore) {
  return (req: Request, res: Response) => {
    const body = parseLegacy(cardTokenRequestSchema, req, res);
    const now = ctx.clock.now();
    const problem = checkExpiry(body.expiryMonth, body.expiryYear, now);
    if (problem === 'past') {
      const field = body.expiryYear === now.getUTCFullYear() ? 'expiryMonth' : 'expiryYear';
      throw new SandboxError(400, 'card_expired', `${field}: the card expired (checked on the sandbox clock)`, {
        field,
      });
    }
    if (problem === 'too_far') {
      throw new SandboxError(400, 'expiryYear_invalid', 'expiryYear: more than 20 years ahead', {
        field: 'expiryYear',
      });
    }
    const brand = detectBrand(body.number)!;
    const card: VaultCard = {
      number: body.number,
      expiryMonth: body.expiryMonth,
      expiryYear: body.expiryYear,
      name: body.name || undefined,
      brand: brand.id,
      bin: body.number.slice(0, 6),
      last4: body.number.slice(-4),
      fingerprint: fingerprintOf(body.number),
    };
    const createdMs = now.getTime();
    const record: CardTokenRecord = {
      id: ctx.newId('card_tok_'),
      cardId: ctx.newId('card_'),
      card,
      billingDetails: fullAddress(body.billingDetails),
      createdMs,
      expiresMs: createdMs + CARD_TOKEN_TTL_MS,
      cvvPresented: true,
      used: false,
    };
    store.addCardToken(record, createdMs);
    respond(res, 200, {
      id: record.id,
      liveMode: ctx.mode === 'production',
      created: now.toISOString(),
      used: false,
      card: cardSummary(record.cardId, card),
    });
  };
}

/**
 * Uses up a card token (a charge, or another area storing the card). Throws 422 naming `field` when the token is
 * unknown, already used or expired on the sandbox clock. Call it last, once nothing else can refuse the request:
 * a refused request must leave the token usable.
 */
export function consumeCardToken(
  ctx: SandboxContext,
  store: LegacyStore,
  tokenId: string,
  field = 'cardToken',
): CardTokenRecord {
  const record = peekCardToken(ctx, store, tokenId, field);
  record.used = true;
  return record;
}

/** Like {@link consumeCardToken} without using the token up. */
export function peekCardToken(
  ctx: SandboxContext,
  store: LegacyStore,
  tokenId: string,
  field = 'cardToken',
): CardTokenRecord {
  const record = store.cardTokens.get(tokenId);
  if (!record) throw new SandboxError(422, 'card_token_unknown', `${field}: no such card token`, { field });
  if (record.used) {
    throw new SandboxError(
      422,
      'card_token_used',
      `${field}: the card token was already used (tokens are single use)`,
      {
        field,
      },
    );
  }
  if (ctx.clock.nowMs() >= record.expiresMs) {
    throw new SandboxError(422, 'card_token_expired', `${field}: the card token expired (15 minutes after creation)`, {
      field,
    });
  }
  return record;
}
