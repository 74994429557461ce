import { type Brand, detectBrand } from './brands.js';
import { luhnValid } from './luhn.js';

/** Why a card number is not acceptable; undefined when it is. */
export type NumberProblem = 'required' | 'invalid_characters' | 'unknown_brand' | 'length' | 'luhn';

/**
 * Checks a card number as the networks define it: digits only (spaces and
 * dashes are tolerated as separators), a known brand, a length that brand
 * issues, and the Luhn check where the brand uses it.
 */
export function checkNumber(input: string): { brand?: Brand; problem?: NumberProblem } {
  const trimmed = input.replace(/[\s-]/g, '');
  if (trimmed.length === 0) return { problem: 'required' };
  if (!/^\d+$/.test(trimmed)) return { problem: 'invalid_characters' };
  const brand = detectBrand(trimmed);
  if (!brand) return { problem: 'unknown_brand' };
  if (!brand.lengths.includes(trimmed.length)) return { brand, problem: 'length' };
  if (brand.luhn && !luhnValid(trimmed)) return { brand, problem: 'luhn' };
  return { brand };
}

/** Why an expiry is not acceptable; undefined when it is. */
export type ExpiryProblem = 'required' | 'month' | 'past' | 'too_far';

/** How many years ahead an expiry may lie before it is taken for a typo. */
export const MAX_EXPIRY_YEARS_AHEAD = 20;

/**
 * Checks month (1–12) and year (four digits) against `now`: a card is valid
 * through the last day of its expiry month, and not more than
 * {@link MAX_EXPIRY_YEARS_AHEAD} years ahead.
 */
export function checkExpiry(month: number, year: number, now: Date): ExpiryProblem | undefined {
  if (!Number.isInteger(month) || !Number.isInteger(year)) return 'required';
  if (month < 1 || month > 12) return 'month';
  const nowYear = now.getUTCFullYear();
  const nowMonth = now.getUTCMonth() + 1;
  if (year < nowYear || (year === nowYear && month < nowMonth)) return 'past';
  if (year > nowYear + MAX_EXPIRY_YEARS_AHEAD) return 'too_far';
  return undefined;
}

/** The CVV must be exactly the brand's length (3, or 4 for Amex); 3 or 4 when the brand is unknown. */
export function checkCvv(cvv: string, brand: Brand | undefined): boolean {
  if (!/^\d+$/.test(cvv)) return false;
  return brand ? cvv.length === brand.cvvLength : cvv.length === 3 || cvv.length === 4;
}
