// Account Services API schemas: Account updater and stored instruments.
import { z } from 'zod';
import { idOf, int, linksSchema } from './common.js';

/** Card networks the account updater supports (docs/decisions/sandbox.md#updater-networks). */
export const UPDATER_NETWORKS = ['visa', 'mastercard', 'amex'] as const;

export const updaterCardSourceSchema = z.object({
  number: z.string().regex(/^\d{12,19}$/, 'must be 12 to 19 digits'),
  expiry_month: int(1, 12),
  expiry_year: int(2000, 2100),
});

/** POST /account-updater/cards. `source_options` holds exactly one of `card` or `instrument`. */
export const accountUpdaterRequestSchema = z.object({
  source_options: z
    .object({ card: updaterCardSourceSchema.optional(), instrument: z.object({ id: idOf('src_') }).optional() })
    .superRefine((s, ctx) => {
      if (s.card === undefined && s.instrument === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: 'give one of card or instrument',
          path: [],
          params: { code: 'source_options_card_or_instrument_required' },
        });
      } else if (s.card !== undefined && s.instrument !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message: 'give only one of card or instrument',
          path: [],
          params: { code: 'source_options_card_and_instrument_exclusive' },
        });
      }
    }),
});
export type AccountUpdaterRequest = z.infer<typeof accountUpdaterRequestSchema>;

export const ACCOUNT_UPDATE_STATUSES = ['CARD_UPDATED', 'CARD_CLOSED', 'CARD_EXPIRY_UPDATED', 'UPDATE_FAILED'] as const;

export const updatedCardSchema = z.object({
  encrypted_card_number: z.string(),
  bin: z.string(),
  last4: z.string(),
  expiry_month: z.number().int(),
  expiry_year: z.number().int(),
  fingerprint: z.string(),
});
export type UpdatedCard = z.infer<typeof updatedCardSchema>;

/** The outcomes that carry the updated `card` (spec: present for these two, absent for the others). */
export const CARD_CARRYING_STATUSES: readonly string[] = ['CARD_UPDATED', 'CARD_EXPIRY_UPDATED'];

/**
 * 200 of POST /account-updater/cards: `card` with CARD_UPDATED and CARD_EXPIRY_UPDATED and only with them, and
 * `account_update_failure_code` with UPDATE_FAILED (spec: Resources › Updated card credentials).
 */
export const accountUpdaterResponseSchema = z
  .object({
    account_update_status: z.enum(ACCOUNT_UPDATE_STATUSES),
    account_update_failure_code: z.string().optional(),
    card: updatedCardSchema.optional(),
  })
  .superRefine((r, ctx) => {
    const carries = CARD_CARRYING_STATUSES.includes(r.account_update_status);
    if (carries !== (r.card !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['card'],
        message: `${carries ? 'is required' : 'must be absent'} with ${r.account_update_status}`,
      });
    }
    if (r.account_update_status === 'UPDATE_FAILED' && r.account_update_failure_code === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['account_update_failure_code'],
        message: 'is required with UPDATE_FAILED',
      });
    }
  });
export type AccountUpdaterResponse = z.infer<typeof accountUpdaterResponseSchema>;

/** Extension: POST /instruments stores a card from a single-use card token (docs/decisions/sandbox.md#stored-instruments). */
export const createInstrumentRequestSchema = z.object({ type: z.literal('token'), token: idOf('card_tok_') });
export type CreateInstrumentRequest = z.infer<typeof createInstrumentRequestSchema>;

/** A stored card (`src_`), as POST /instruments and GET /instruments/{id} answer it. */
export const storedInstrumentSchema = z.object({
  id: idOf('src_'),
  type: z.literal('card'),
  scheme: z.string(),
  bin: z.string(),
  last4: z.string(),
  expiry_month: z.number().int(),
  expiry_year: z.number().int(),
  fingerprint: z.string(),
  status: z.enum(['active', 'closed']),
  _links: linksSchema.optional(),
});
export type StoredInstrument = z.infer<typeof storedInstrumentSchema>;

/** A stored bank account (`src_`) behind a bank_account payment instrument, as GET /instruments/{id} answers it. */
export const storedBankAccountSchema = z.object({
  id: idOf('src_'),
  type: z.literal('bank_account'),
  account_number_last4: z.string(),
  bank_code: z.string().optional(),
});
export type StoredBankAccount = z.infer<typeof storedBankAccountSchema>;
