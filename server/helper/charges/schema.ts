import { z } from 'zod';
import { EMAIL } from '../../common/email.js';
import { addressSchema, currencySchema, metadataSchema, text } from '../../provider/schemas/legacy.js';
import { HelperHttpError } from '../errors.js';

/**
 * `POST /charges` body. Amount and currency are not fields: anything sent under
 * those names (or any other unknown name) is dropped, never forwarded
 * (DESIGN.md: amount and currency are decided by the server).
 */
export const chargeBodySchema = z
  .object({
    cardToken: z
      .string({ error: 'must be a card token (card_tok_…)' })
      .regex(/^card_tok_[A-Za-z0-9]{1,64}$/, { error: 'must be a card token (card_tok_…)' }),
    orderReference: text(100, 1),
    // The browser's `type=email` rule, so what the page accepted is accepted here (docs/decisions/helper.md#helper-email).
    email: z
      .string({ error: 'must be an email address' })
      .max(254, { error: 'must be at most 254 characters' })
      .regex(EMAIL, { error: 'must be an email address' })
      .optional(),
    customerId: z
      .string({ error: 'must be a customer id (cust_…)' })
      .regex(/^cust_[A-Za-z0-9]{1,64}$/, { error: 'must be a customer id (cust_…)' })
      .optional(),
    billingDetails: addressSchema.optional(),
    shippingDetails: addressSchema.optional(),
    successUrl: z.string({ error: 'must be a URL or a path' }).min(1).max(2048).optional(),
    failUrl: z.string({ error: 'must be a URL or a path' }).min(1).max(2048).optional(),
  })
  .refine((b) => b.email !== undefined || b.customerId !== undefined, {
    message: 'email or customerId is required',
    path: ['email'],
  });
export type ChargeBody = z.output<typeof chargeBodySchema>;

/** What `resolveCharge` must answer; strict, so a typo (`ammount`) is caught. */
export const chargeDetailsSchema = z
  .strictObject({
    amount: z
      .number({ error: 'must be a positive integer in minor units' })
      .int({ error: 'must be a positive integer in minor units' })
      .min(1, { error: 'must be a positive integer in minor units' })
      .max(Number.MAX_SAFE_INTEGER),
    currency: currencySchema,
    trackId: text(50, 1).optional(),
    description: text(500).optional(),
    metadata: metadataSchema.optional(),
    threeDSecure: z.boolean({ error: 'must be true or false' }).optional(),
    autoCapture: z.boolean({ error: 'must be true or false' }).optional(),
    autoCapTime: z
      .number({ error: 'must be a number of hours from 0 to 168' })
      .min(0, { error: 'must be a number of hours from 0 to 168' })
      .max(168, { error: 'must be a number of hours from 0 to 168' })
      .optional(),
  })
  .superRefine((d, ctx) => {
    // The spec: autoCapTime is "required if autoCapture enabled"; with autoCapture off it would mean nothing
    // (docs/decisions/helper.md#helper-capture).
    if (d.autoCapture === true && d.autoCapTime === undefined) {
      ctx.addIssue({ code: 'custom', path: ['autoCapTime'], message: 'is required when autoCapture is true' });
    }
    if (d.autoCapture === false && d.autoCapTime !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['autoCapTime'],
        message: 'must be left out when autoCapture is false (the charge is only authorised)',
      });
    }
  });
export type ParsedChargeDetails = z.output<typeof chargeDetailsSchema>;

/** Parses what `resolveCharge` answered; a bad answer is the merchant's bug: 500 naming the field. */
export function parseDetails(value: unknown): ParsedChargeDetails {
  const result = chargeDetailsSchema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.code === 'unrecognized_keys' ? issue.keys[0]! : issue.path.map(String).join('.') || 'result';
  const what =
    issue.code === 'unrecognized_keys'
      ? `unknown key ${issue.keys.map((k) => `\`${k}\``).join(', ')}`
      : `\`${field}\` ${issue.message}`;
  throw new HelperHttpError(
    500,
    'TESSERA_RESOLVE_CHARGE_INVALID',
    `resolveCharge answered an invalid charge: ${what}`,
    {
      field,
    },
  );
}
