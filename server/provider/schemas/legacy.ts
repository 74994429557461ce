/**
 * The legacy card API's objects (shared/spec/legacy-card-api.md), one zod schema each: the single source of truth.
 * The sandbox validates requests with them; the provider client infers its types from them and reads responses
 * with them (XML through `coerceFromXml`, see server/provider/codec/coerce.ts).
 *
 * Request schemas accept what the spec allows on the wire (`value` also as a numeric string, integers as strings
 * for XML) and output normalised values (numbers, upper-case currency). Unknown fields are stripped, not refused
 * (docs/decisions/sandbox.md#legacy-unknown-fields). Text fields refuse control characters, bidirectional overrides and
 * broken UTF-16, and count their limits in Unicode code points (docs/decisions/sandbox.md#legacy-text).
 */
import { z } from 'zod';
import { checkCvv, checkNumber, detectBrand, groupNumber } from '../../../shared/card/index.js';
import { EMAIL } from '../../common/email.js';
import { isIso4217 } from './currencies.js';
import { BROKEN_TEXT_MESSAGE, hasLoneSurrogate, hasUnsafeChars, UNSAFE_TEXT_MESSAGE } from './safe-text.js';

// ---------------------------------------------------------------------------------------------------------------
// Building blocks

/** Length in code points, as a person counts characters (an emoji is one). */
export function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** A free-text field: at most `max` code points, no control characters, no bidi overrides, well-formed. */
export function text(max: number, min = 0) {
  return z
    .string({ error: 'must be a string' })
    .refine((s) => !hasUnsafeChars(s), { message: UNSAFE_TEXT_MESSAGE })
    .refine((s) => !hasLoneSurrogate(s), { message: BROKEN_TEXT_MESSAGE })
    .refine((s) => min !== 1 || s.length > 0, { message: 'must not be empty' })
    .refine((s) => codePointLength(s) <= max && (min <= 1 || codePointLength(s) >= min), {
      message: min > 1 ? `must be ${min} to ${max} characters` : `must be at most ${max} characters`,
    });
}

/** An integer sent as a JSON number or as a string of ASCII digits (XML, and the spec's samples). */
function integer(min: number, max: number, message: string) {
  return z
    .union([z.number(), z.string().regex(/^[0-9]{1,16}$/, { error: message })], { error: message })
    .transform(Number)
    .pipe(
      z.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message }),
    );
}

/**
 * A decimal sent as a JSON number or a plain decimal string (`"0.5"`). As many digits after the point as a number
 * written without an exponent needs (`0.30000000000000004`, 1e-7 as `0.0000001`): XML carries every number as such
 * text (server/provider/codec/xml.ts, `plainNumber`), and a number JSON takes must be taken in XML too.
 */
function decimal(min: number, max: number, message: string) {
  return z
    .union([z.number(), z.string().regex(/^[0-9]{1,6}(\.[0-9]{1,400})?$/, { error: message })], { error: message })
    .transform(Number)
    .pipe(z.number({ error: message }).min(min, { error: message }).max(max, { error: message }));
}

/** One of a few small integers, as a number or a digit string (`chargeMode`, `transactionIndicator`). */
function oneOf<const T extends readonly number[]>(values: T, message: string) {
  return z
    .union([z.number(), z.string().regex(/^[0-9]$/, { error: message })], { error: message })
    .transform(Number)
    .pipe(z.literal(values, { error: message }));
}

/** Largest `value` accepted: the largest integer a JSON number carries exactly. */
export const MAX_VALUE = Number.MAX_SAFE_INTEGER;

/** Three-letter ISO 4217 code; any case on input, upper case on output. */
export const currencySchema = z
  .string({ error: 'must be a three-letter ISO 4217 currency code' })
  .regex(/^[A-Za-z]{3}$/, { error: 'must be a three-letter ISO 4217 currency code' })
  .transform((c) => c.toUpperCase())
  .refine(isIso4217, { message: 'is not an ISO 4217 currency code' });

/** Amount in minor units: a positive integer, also accepted as a numeric string (legacy-card-api.md, value). */
export const valueSchema = integer(1, MAX_VALUE, 'must be a positive integer in minor units (e.g. 1999 for 19.99)');

/** 1 non-3-D Secure, 2 3-D Secure. */
export const chargeModeSchema = oneOf([1, 2], 'must be 1 (non-3-D Secure) or 2 (3-D Secure)');

// ---------------------------------------------------------------------------------------------------------------
// Address and product (legacy-card-api.md, "Address object", "Product object")

export const phoneSchema = z.object({
  countryCode: text(7).nullish(),
  number: text(25).nullish(),
});
export interface Phone extends z.output<typeof phoneSchema> {}

export const addressSchema = z.object({
  addressLine1: text(100).nullish(),
  addressLine2: text(100).nullish(),
  postcode: text(50).nullish(),
  country: text(100).nullish(),
  city: text(100).nullish(),
  state: text(100).nullish(),
  phone: phoneSchema.nullish(),
});
export interface Address extends z.output<typeof addressSchema> {}

const amount = z.number({ error: 'must be a number' }).min(0, { error: 'must not be negative' }).max(MAX_VALUE);

export const productSchema = z.object({
  description: text(500).nullish(),
  name: text(100).nullish(),
  price: amount.nullish(),
  quantity: z
    .number({ error: 'must be an integer' })
    .int({ error: 'must be an integer' })
    .min(0, { error: 'must not be negative' })
    .max(1_000_000)
    .nullish(),
  shippingCost: amount.nullish(),
  sku: text(100).nullish(),
  trackingUrl: text(2048).nullish(),
});
export interface Product extends z.output<typeof productSchema> {}

// ---------------------------------------------------------------------------------------------------------------
// Card token (DESIGN.md, "card-token request")

/**
 * `POST /tokens/card` with the public key. Checks what needs no clock: number (Luhn, length by brand), month 1–12,
 * a four-digit year, CVV length by brand. Whether the expiry is past is the server's check (its clock).
 */
/** Digits with one separator kind (a single space or a single dash) between groups: linear, no backtracking. */
const GROUPED = /^[0-9]+(?:( )[0-9]+(?: [0-9]+)*|(-)[0-9]+(?:-[0-9]+)*)?$/;

/**
 * Whether a card number is written as the provider accepts it (docs/decisions/sandbox.md#legacy-card-token): ASCII digits
 * only, or grouped as the card prints them (4-4-4-4, 4-6-5 for American Express, 4-6-4 for Diners) with one space
 * or one dash between groups. Other spacing (two spaces, tabs, no-break spaces, mixed separators) is refused.
 */
export function wellSpaced(number: string): boolean {
  const m = GROUPED.exec(number);
  if (!m) return false;
  const sep = m[1] ?? m[2];
  if (sep === undefined) return true;
  const digits = number.split(sep).join('');
  return number === groupNumber(digits, detectBrand(digits)).split(' ').join(sep);
}

export const cardTokenRequestSchema = z
  .object({
    number: z
      .string({ error: 'must be a string of digits' })
      .max(40, { error: 'is not a card number' })
      .superRefine((n, ctx) => {
        if (!wellSpaced(n)) {
          ctx.addIssue({
            code: 'custom',
            message:
              'must be digits, or the digits in the groups printed on the card separated by single spaces or dashes',
          });
          return;
        }
        const { problem } = checkNumber(n);
        if (!problem) return;
        const message = {
          required: 'is required',
          invalid_characters: 'must contain only the digits 0-9',
          unknown_brand: 'is not a card number of a supported brand',
          length: 'has the wrong length for its brand',
          luhn: 'is not a valid card number (check digit)',
        }[problem];
        ctx.addIssue({ code: 'custom', message });
      })
      .transform((n) => n.replace(/[ -]/g, '')),
    expiryMonth: integer(1, 12, 'must be a month from 1 to 12'),
    expiryYear: integer(2000, 2099, 'must be a four-digit year'),
    cvv: z.string({ error: 'must be a string of 3 or 4 digits' }).regex(/^[0-9]{3,4}$/, {
      error: 'must be 3 digits, or 4 for American Express',
    }),
    name: text(100).nullish(),
    billingDetails: addressSchema.nullish(),
  })
  .superRefine((req, ctx) => {
    const brand = detectBrand(req.number);
    if (brand && !checkCvv(req.cvv, brand)) {
      ctx.addIssue({ code: 'custom', path: ['cvv'], message: `must be ${brand.cvvLength} digits for ${brand.name}` });
    }
  });
export interface CardTokenRequest extends z.input<typeof cardTokenRequestSchema> {}
export type ParsedCardTokenRequest = z.output<typeof cardTokenRequestSchema>;

/** The card as a token or a charge shows it: never the number or the CVV. */
export const cardSummarySchema = z.object({
  /** `card_…` */
  id: z.string(),
  last4: z.string(),
  bin: z.string(),
  /** Brand name (`Visa`, `Mastercard`, `American Express`, …). */
  paymentMethod: z.string(),
  /** Two digits, `"06"`. */
  expiryMonth: z.string(),
  /** Four digits, `"2030"`. */
  expiryYear: z.string(),
  /** Stable for a card number (64 hex characters); the same card gives the same fingerprint. */
  fingerprint: z.string(),
  name: z.string().nullable(),
});
export interface CardSummary extends z.output<typeof cardSummarySchema> {}

export const cardTokenResponseSchema = z.object({
  /** `card_tok_…`: single use, valid 15 minutes. */
  id: z.string(),
  liveMode: z.boolean(),
  /** ISO 8601 UTC. */
  created: z.string(),
  used: z.boolean(),
  card: cardSummarySchema,
});
export type CardTokenResponse = z.output<typeof cardTokenResponseSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Payment token (legacy-card-api.md, POST /tokens/payment)

export const paymentTokenRequestSchema = z.object({
  value: valueSchema,
  currency: currencySchema,
  chargeMode: chargeModeSchema.optional(),
});
export interface PaymentTokenRequest extends z.input<typeof paymentTokenRequestSchema> {}

/**
 * A payment token. A 3-D Secure charge answers with one too, then carrying `redirectUrl`, the challenge page
 * (docs/decisions/sandbox.md#legacy-3ds).
 */
export const paymentTokenResponseSchema = z.object({
  /** `pay_tok_…` */
  id: z.string(),
  liveMode: z.boolean(),
  redirectUrl: z.string().optional(),
});
export type PaymentTokenResponse = z.output<typeof paymentTokenResponseSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Charge (legacy-card-api.md, "Charge request fields", "Charge response fields")

const MAX_METADATA_PAIRS = 10;

export const metadataSchema = z
  .record(text(100, 1), text(100), { error: 'must be an object of string keys and values' })
  .refine((m) => Object.keys(m).length <= MAX_METADATA_PAIRS, {
    message: `must have at most ${MAX_METADATA_PAIRS} pairs`,
  });

const url = z
  .url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' })
  .max(2048, { error: 'must be at most 2048 characters' });

/** The values of the Y/N flag `autoCapture`: the spec's "y or n", in either case. */
const AUTO_CAPTURE = ['y', 'n', 'Y', 'N'] as const;
export type AutoCapture = (typeof AUTO_CAPTURE)[number];

/** Whether an `autoCapture` value, in whichever case it was sent, turns automatic capture on. */
export function autoCaptureOn(flag: AutoCapture): boolean {
  return flag === 'y' || flag === 'Y';
}

export const chargeRequestSchema = z
  .object({
    cardToken: z
      .string({ error: 'must be a card token (card_tok_…)' })
      .regex(/^card_tok_[A-Za-z0-9]{1,64}$/, { error: 'must be a card token (card_tok_…)' }),
    currency: currencySchema,
    value: valueSchema,
    // The spec says only "string": the browser's `type=email` rule (server/common/email.ts), as the helper uses.
    email: z
      .string({ error: 'must be an email address' })
      .max(254)
      .regex(EMAIL, { error: 'must be an email address' })
      .nullish(),
    customerId: z
      .string({ error: 'must be a customer id (cust_…)' })
      .regex(/^cust_[A-Za-z0-9]{1,64}$/, { error: 'must be a customer id (cust_…)' })
      .nullish(),
    // "y or n", read in either case and kept as sent: the answer echoes it "as requested"
    // (docs/decisions/sandbox.md#legacy-validation); compare with `autoCaptureOn`.
    autoCapture: z
      .string({ error: 'must be "y" or "n"' })
      .pipe(z.enum(AUTO_CAPTURE, { error: 'must be "y" or "n"' }))
      .optional(),
    autoCapTime: decimal(0, 168, 'must be a number of hours from 0 to 168').optional(),
    billingDetails: addressSchema.nullish(),
    chargeMode: chargeModeSchema.optional(),
    customerIp: z.union([z.ipv4(), z.ipv6()], { error: 'must be an IPv4 or IPv6 address' }).nullish(),
    customerName: text(100).nullish(),
    description: text(500).nullish(),
    failUrl: url.nullish(),
    successUrl: url.nullish(),
    metadata: metadataSchema.nullish(),
    products: z.array(productSchema, { error: 'must be an array of products' }).max(100).nullish(),
    recipientDetails: z.record(z.string(), z.unknown(), { error: 'must be an object' }).nullish(),
    riskCheck: z.boolean({ error: 'must be true or false' }).optional(),
    shippingDetails: addressSchema.nullish(),
    trackId: text(50, 1).nullish(),
    transactionIndicator: oneOf([1, 2, 3], 'must be 1 (regular), 2 (recurring) or 3 (MOTO)').optional(),
    udf1: text(100).nullish(),
    udf2: text(100).nullish(),
    udf3: text(100).nullish(),
    udf4: text(100).nullish(),
    udf5: text(100).nullish(),
  })
  .superRefine((req, ctx) => {
    if (!req.email && !req.customerId) {
      ctx.addIssue({ code: 'custom', path: ['email'], message: 'email or customerId is required' });
    }
    // "required if autoCapture enabled": enforced when autoCapture is sent as "y"; omitted, it is enabled with
    // autoCapTime 0 (docs/decisions/sandbox.md#legacy-auto-capture).
    if (req.autoCapture !== undefined && autoCaptureOn(req.autoCapture) && req.autoCapTime === undefined) {
      ctx.addIssue({ code: 'custom', path: ['autoCapTime'], message: 'is required when autoCapture is "y"' });
    }
  });
export interface ChargeRequest extends z.input<typeof chargeRequestSchema> {}
export type ParsedChargeRequest = z.output<typeof chargeRequestSchema>;

/**
 * Charge statuses: the spec's four, plus `Expired` (an authorisation not captured within 168 hours) and `Pending`
 * (a 3-D Secure charge whose challenge is not finished): docs/decisions/sandbox.md#legacy-states.
 */
export const chargeStatusSchema = z.enum(['Pending', 'Authorised', 'Captured', 'Declined', 'Flagged', 'Expired']);
export type ChargeStatus = z.output<typeof chargeStatusSchema>;

export const chargeCardSchema = cardSummarySchema.extend({
  /** `cust_…` */
  customerId: z.string(),
  billingDetails: addressSchema.nullable(),
  /** `Y` CVV matched, `N` it did not, `U` not checked. */
  cvvCheck: z.string(),
  /** `Y` address and postcode matched, `S` no address given to check. */
  avsCheck: z.string(),
});
export interface ChargeCard extends z.output<typeof chargeCardSchema> {}

const udf = z.string().nullable();

export const chargeResponseSchema = z.object({
  /** `charge_…` */
  id: z.string(),
  liveMode: z.boolean(),
  /** ISO 8601 UTC. */
  created: z.string(),
  value: z.number(),
  currency: z.string(),
  trackId: z.string().nullable(),
  description: z.string().nullable(),
  email: z.string().nullable(),
  customerIp: z.string().nullable(),
  chargeMode: z.number(),
  transactionIndicator: z.number(),
  /** As requested: `y`/`n` in the case the request used (`y` when it sent none). */
  autoCapture: z.enum(AUTO_CAPTURE),
  autoCapTime: z.number(),
  responseMessage: z.string(),
  responseAdvancedInfo: z.string(),
  /** `10000` approved, `10100` flagged, `2xxxx` declined. */
  responseCode: z.string(),
  status: chargeStatusSchema,
  authCode: z.string(),
  isCascaded: z.boolean(),
  card: chargeCardSchema,
  riskCheck: z.boolean(),
  customerPaymentPlans: z.null(),
  metadata: z.record(z.string(), z.string()),
  shippingDetails: addressSchema.nullable(),
  products: z.array(productSchema),
  udf1: udf,
  udf2: udf,
  udf3: udf,
  udf4: udf,
  udf5: udf,
});
export type ChargeResponse = z.output<typeof chargeResponseSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Errors (docs/decisions/sandbox.md#error-bodies)

export const errorBodySchema = z.object({
  requestId: z.string(),
  /** Stable snake_case code: `card_token_used`, `body_malformed`, `currency_invalid`, … */
  errorCode: z.string(),
  message: z.string(),
  errors: z.array(z.object({ field: z.string(), code: z.string(), message: z.string() })),
});
export type ErrorBody = z.output<typeof errorBodySchema>;
