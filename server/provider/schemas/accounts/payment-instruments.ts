// Account Services API schemas: Payment instruments (sub-entity payout destinations).
import { z } from 'zod';
import { countrySchema, currencySchema, idOf, linksSchema, text } from './common.js';

export const PAYMENT_INSTRUMENT_STATUSES = ['verified', 'unverified'] as const;
export const paymentInstrumentStatusSchema = z.enum(PAYMENT_INSTRUMENT_STATUSES);
export const bankDocumentSchema = z.object({ type: z.literal('bank_statement'), file_id: idOf('file_') });

/**
 * GET …/payment-instruments/{id}. The spec has `default` write-only (set in the update request); the sandbox also
 * shows it on read (docs/decisions/sandbox.md#instrument-default), so it is optional here: a provider that keeps it
 * write-only answers valid instruments without it.
 */
export const paymentInstrumentSchema = z.object({
  id: idOf('ppi_'),
  label: z.string(),
  type: z.enum(['bank_account', 'card_token']),
  currency: currencySchema,
  country: countrySchema,
  document: bankDocumentSchema.optional(),
  status: paymentInstrumentStatusSchema,
  instrument_id: idOf('src_'),
  default: z.boolean().optional(),
  _links: linksSchema.optional(),
});
export type PaymentInstrument = z.infer<typeof paymentInstrumentSchema>;

/** Extension: GET …/payment-instruments. */
export const paymentInstrumentListSchema = z.object({ data: z.array(paymentInstrumentSchema) });
export type PaymentInstrumentList = z.infer<typeof paymentInstrumentListSchema>;

export const instrumentLabelSchema = text(50);

/** PATCH …/payment-instruments/{id}: `label` and/or `default`. */
export const updatePaymentInstrumentRequestSchema = z
  .object({ label: instrumentLabelSchema.optional(), default: z.boolean().optional() })
  .refine((b) => b.label !== undefined || b.default !== undefined, {
    message: 'give label, default or both',
    path: ['label_or_default'],
    params: { code: 'label_or_default_required' },
  });
export type UpdatePaymentInstrumentRequest = z.infer<typeof updatePaymentInstrumentRequestSchema>;

/** PATCH answer and POST (extension) answer: `{id, _links}`. */
export const paymentInstrumentWriteResponseSchema = z.object({ id: idOf('ppi_'), _links: linksSchema });
export type PaymentInstrumentWriteResponse = z.infer<typeof paymentInstrumentWriteResponseSchema>;

const createInstrumentBase = {
  label: instrumentLabelSchema,
  currency: currencySchema,
  country: countrySchema,
  /** Sandbox extension: the verification state to start in (default `unverified`). */
  status: paymentInstrumentStatusSchema.optional(),
};
/** Extension: POST …/payment-instruments, a bank account (with its bank statement). */
export const createBankAccountInstrumentSchema = z.object({
  ...createInstrumentBase,
  type: z.literal('bank_account'),
  account_number: z.string().regex(/^[A-Z0-9]{4,34}$/, 'must be 4 to 34 upper-case letters or digits'),
  bank_code: z
    .string()
    .regex(/^[A-Z0-9]{2,20}$/, 'must be 2 to 20 upper-case letters or digits')
    .optional(),
  document: bankDocumentSchema,
});
/** Extension: POST …/payment-instruments, a card, from a `card_tok_` or an existing `src_` card. */
export const createCardInstrumentSchema = z
  .object({
    ...createInstrumentBase,
    type: z.literal('card_token'),
    token: idOf('card_tok_').optional(),
    instrument_id: idOf('src_').optional(),
  })
  .refine((b) => (b.token === undefined) !== (b.instrument_id === undefined), {
    message: 'give exactly one of token or instrument_id',
    path: ['token'],
    params: { code: 'token_or_instrument_id_required' },
  });
export const createPaymentInstrumentRequestSchema = z.discriminatedUnion('type', [
  createBankAccountInstrumentSchema,
  createCardInstrumentSchema,
]);
export type CreatePaymentInstrumentRequest = z.infer<typeof createPaymentInstrumentRequestSchema>;
