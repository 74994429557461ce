import { z } from 'zod';
import {
  bankDocumentSchema,
  countrySchema,
  currencySchema,
  entityStatusSchema,
  idOf,
  instrumentLabelSchema,
  paymentInstrumentStatusSchema,
  reserveRuleRequestSchema,
  SCHEMA_VERSIONS,
} from '../../provider/schemas/accounts/index.js';
import { oauthFixtureSchema } from '../oauth/client.js';
import { ACCOUNT_LIMITS } from './store.js';

const storedCardFixture = z
  .object({
    id: idOf('src_'),
    number: z.string().regex(/^\d{12,19}$/),
    expiry_month: z.number().int().min(1).max(12),
    expiry_year: z.number().int().min(2000).max(2100),
    status: z.enum(['active', 'closed']).default('active'),
  })
  .strict();

const paymentInstrumentFixture = z
  .object({
    id: idOf('ppi_'),
    label: instrumentLabelSchema,
    type: z.enum(['bank_account', 'card_token']),
    currency: currencySchema,
    country: countrySchema,
    status: paymentInstrumentStatusSchema.default('unverified'),
    default: z.boolean().default(false),
    document: bankDocumentSchema.optional(),
    account_number: z
      .string()
      .regex(/^[A-Z0-9]{4,34}$/)
      .optional(),
    bank_code: z
      .string()
      .regex(/^[A-Z0-9]{2,20}$/)
      .optional(),
    /** A `stored_cards` id (card_token) or the id to give the bank account's stored instrument. */
    instrument_id: idOf('src_').optional(),
  })
  .strict()
  .superRefine((p, c) => {
    if (p.type === 'bank_account' && (!p.account_number || !p.document)) {
      c.addIssue({
        code: 'custom',
        path: ['account_number'],
        message: 'a bank_account needs account_number and document',
      });
    }
    if (p.type === 'card_token' && !p.instrument_id) {
      c.addIssue({
        code: 'custom',
        path: ['instrument_id'],
        message: 'a card_token needs the instrument_id of a stored card',
      });
    }
    if (p.default && p.status !== 'verified') {
      c.addIssue({ code: 'custom', path: ['default'], message: 'only a verified instrument can be the default' });
    }
  });

const reserveRuleFixture = reserveRuleRequestSchema
  .extend({
    id: idOf('rsv_'),
    valid_from: reserveRuleRequestSchema.shape.valid_from.optional(),
    /** Days after the sandbox's now at load (negative: in the past), instead of a fixed `valid_from`. */
    valid_from_in_days: z.number().min(-3650).max(3650).optional(),
  })
  .strict()
  .refine((r) => (r.valid_from === undefined) !== (r.valid_from_in_days === undefined), {
    message: 'give exactly one of valid_from or valid_from_in_days',
    path: ['valid_from'],
  });

const entityFixture = z
  .object({
    id: idOf('ent_'),
    schema_version: z.enum(SCHEMA_VERSIONS).default('3.0'),
    /** Onboarding status to start in (default: as if the request had just been sent). */
    status: entityStatusSchema.optional(),
    /** An onboarding request body of `schema_version`, validated like POST /accounts/entities. */
    request: z.record(z.string(), z.unknown()),
    members: z
      .array(z.object({ user_id: idOf('usr_'), email: z.email() }).strict())
      .max(1)
      .default([]),
    // The per-entity caps of a create hold for fixtures too (docs/decisions/sandbox.md#accounts-memory).
    payment_instruments: z.array(paymentInstrumentFixture).max(ACCOUNT_LIMITS.perEntity).default([]),
    reserve_rules: z.array(reserveRuleFixture).max(ACCOUNT_LIMITS.perEntity).default([]),
  })
  .strict();

/**
 * The `accounts` part of a fixtures file (docs/decisions/sandbox.md#accounts-fixtures, docs/sandbox.md "Fixtures").
 * Every other top-level key belongs to another area.
 */
export const accountsFixturesSchema = z
  .object({
    settings: z.object({ hosted_onboarding: z.boolean() }).strict().optional(),
    oauth: oauthFixtureSchema.optional(),
    stored_cards: z.array(storedCardFixture).default([]),
    entities: z.array(entityFixture).default([]),
  })
  .strict();
export type AccountsFixtures = z.input<typeof accountsFixturesSchema>;
