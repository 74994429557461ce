/**
 * The card rules' results (shared/card) turned into the shopper's messages, in the element's language.
 * No DOM and no state: the element passes in what the shopper has typed.
 */
import type { Brand, BrandId } from '../../shared/card/brands.js';
import { digitsOf, parseExpiryDigits } from '../../shared/card/format.js';
import { checkCvv, checkExpiry, checkNumber } from '../../shared/card/validate.js';
import type { Strings } from '../i18n/strings.js';
import type { CardField, FieldError } from './events.js';

/** The inputs, in the order they are shown and checked. */
export const FIELDS = ['number', 'expiry', 'cvv', 'name'] as const;

/** The current problem of each field that has one. */
export type Problems = Partial<Record<CardField, FieldError>>;

/** `template` with its one `{placeholder}` replaced by `value`. */
export const fill = (template: string, value: string | number) => template.replace(/\{\w+\}/, String(value));

/**
 * The security code's length as its message says it: the brand's, or `3–4` before a brand is known (either is taken;
 * an en dash, which screen readers read as "to", where a hyphen may be read as "minus").
 */
export const cvvLength = (brand: Brand | undefined) => brand?.cvvLength ?? '3–4';

/** A field's generic "invalid" message (also for a field the provider refused after the rules passed it). */
export const refusedMessage = (s: Strings, f: CardField, brand: Brand | undefined) =>
  fill(s[`${f}Invalid`], cvvLength(brand));

/**
 * Every current problem, in field order. `digits`, `expiry` (MMYY) and `cvv` are the fields' digits, `holder` the
 * name as typed ('' when the name field is hidden), `brand` the brand detected while typing; `accepted` empty
 * accepts every brand.
 */
export function problems(
  s: Strings,
  digits: string,
  expiry: string,
  cvv: string,
  holder: string,
  brand: Brand | undefined,
  accepted: readonly BrandId[],
): Problems {
  const out: Problems = {};
  const set = (f: CardField, code: string | undefined, message: string) => {
    if (code) out[f] = { code, message };
  };
  const number = checkNumber(digits);
  const detected = number.brand;
  const problem = number.problem;
  if (detected && accepted.length > 0 && !accepted.includes(detected.id)) {
    set('number', 'brand_not_accepted', fill(s.brandNotAccepted, detected.name));
  } else {
    set(
      'number',
      problem,
      problem === 'required' ? s.numberRequired : problem === 'length' ? s.numberIncomplete : s.numberInvalid,
    );
  }
  const { month, year } = parseExpiryDigits(expiry);
  const expiryProblem = expiry ? (expiry.length < 4 ? 'incomplete' : checkExpiry(month, year, new Date())) : 'required';
  const key = { required: 'expiryRequired', past: 'expiryPast', too_far: 'expiryTooFar' } as const;
  set('expiry', expiryProblem, s[key[expiryProblem as keyof typeof key] ?? 'expiryInvalid']);
  if (!cvv) set('cvv', 'required', s.cvvRequired);
  else if (!checkCvv(cvv, brand)) set('cvv', 'length', refusedMessage(s, 'cvv', brand));
  if (digitsOf(holder)) set('name', 'invalid_characters', s.nameInvalid);
  return out;
}
