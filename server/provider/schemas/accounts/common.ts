// Account Services API schemas: Building blocks.
import { z } from 'zod';
import { BROKEN_TEXT_MESSAGE, hasLoneSurrogate, hasUnsafeChars, UNSAFE_TEXT_MESSAGE } from '../safe-text.js';
import { type AccountIdPrefix, accountIdPattern } from './ids.js';

/** An id with its prefix: `ent_`, `usr_`, `ppi_`, `rsv_`, `src_`, `file_`, `card_tok_` ({@link accountIdPattern}). */
export const idOf = (prefix: AccountIdPrefix) =>
  z.string().max(80).regex(accountIdPattern(prefix), `must be an id starting with ${prefix}`);

/**
 * Trimmed text of 1 to `max` characters, without control or bidi-control characters (a payout instrument's label
 * shown to a platform's staff must read as what it is), well-formed: the legacy API's text rule
 * (docs/decisions/sandbox.md#legacy-text).
 */
export const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((s) => !hasUnsafeChars(s), { message: UNSAFE_TEXT_MESSAGE })
    .refine((s) => !hasLoneSurrogate(s), { message: BROKEN_TEXT_MESSAGE });
/** An integer from `min` to `max`. */
export const int = (min: number, max: number) => z.number().int().min(min).max(max);

/** Two-letter ISO 3166-1 country code (upper case). */
export const countrySchema = z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter country code (GB)');
/** Three-letter ISO 4217 currency code (upper case). */
export const currencySchema = z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter currency code (GBP)');
/** Links object: `{ self: { href } , … }` (docs/decisions/sandbox.md#accounts-links). */
export const linkSchema = z.object({ href: z.string() });
export const linksSchema = z.record(z.string(), linkSchema);
