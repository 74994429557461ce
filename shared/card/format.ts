/**
 * Formatting and caret arithmetic for the card inputs, kept free of the DOM so
 * that it can be unit-tested in Node and reused by the sandbox.
 *
 * The approach: count the digits before the caret, rebuild the value from the
 * digits alone, then put the caret after the same number of digits. Separators
 * (spaces, " / ") are never "owned" by the shopper, so deleting one deletes the
 * digit beside it instead.
 */
import { type Brand, detectBrand } from './brands.js';

/** Longest card number any network issues (ISO/IEC 7812). */
export const MAX_NUMBER_LENGTH = 19;

const ND = /\p{Nd}/u;

/**
 * The value (0–9) of `cp`, a decimal digit (`\p{Nd}`) of any script. Unicode encodes every decimal digit set as
 * ten consecutive code points, 0 to 9, and some sets follow each other (the five mathematical ones): the value is
 * the distance from the start of the run of digits that holds `cp`, modulo 10. At most 49 steps back.
 */
export function digitValue(cp: number): number {
  let zero = cp;
  while (ND.test(String.fromCodePoint(zero - 1))) zero--;
  return (cp - zero) % 10;
}

/**
 * Turns the decimal digits of every script (Devanagari ०–९, Arabic-Indic ٠–٩, full-width ０–９, …) into ASCII
 * digits, so that shoppers on any keyboard can type a card. One code point class, so linear in the input.
 */
export function toAsciiDigits(input: string): string {
  return input.replace(/\p{Nd}/gu, (c) => String(digitValue(c.codePointAt(0)!)));
}

/** The ASCII digits of `input` (other numeral systems converted), everything else dropped. */
export function digitsOf(input: string): string {
  return toAsciiDigits(input).replace(/\D/g, '');
}

/** Longest number the brand issues, or {@link MAX_NUMBER_LENGTH} while the brand is unknown. */
export function maxNumberLength(brand: Brand | undefined): number {
  return brand ? Math.max(...brand.lengths) : MAX_NUMBER_LENGTH;
}

/**
 * Groups digits with single spaces at the brand's gaps (4-4-4-4 by default,
 * 4-6-5 for Amex, 4-4-4-4-3 for 19-digit cards).
 *
 * @example groupNumber('378282246310005', brandById('amex')) // '3782 822463 10005'
 */
export function groupNumber(digits: string, brand: Brand | undefined): string {
  const gaps = brand?.gaps ?? [4, 8, 12, 16];
  let out = '';
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && gaps.includes(i)) out += ' ';
    out += digits[i];
  }
  return out;
}

/** Index in `formatted` just after its `count`-th digit (0 when count is 0). */
export function caretAfterDigits(formatted: string, count: number): number {
  if (count <= 0) return 0;
  let seen = 0;
  for (let i = 0; i < formatted.length; i++) {
    if (/\d/.test(formatted[i]!) && ++seen === count) return i + 1;
  }
  return formatted.length;
}

/** The result of an edit: the new digits, and how many of them lie before the caret. */
export interface DigitEdit {
  readonly digits: string;
  readonly caret: number;
}

/**
 * Works out what an edit did to the digits of a formatted field.
 *
 * `raw` is the field's value after the browser applied the edit and `caret`
 * the caret position in it; `before` is the digits the field held before.
 * When a backward or forward delete removed only a separator, the digit on
 * that side of the caret is removed instead, so that Backspace after
 * `4242 |` works as the shopper expects.
 */
export function applyEdit(before: string, raw: string, caret: number, inputType = ''): DigitEdit {
  let digits = digitsOf(raw);
  let at = digitsOf(raw.slice(0, caret)).length;
  if (digits === before) {
    if (inputType === 'deleteContentBackward' && at > 0) {
      digits = digits.slice(0, at - 1) + digits.slice(at);
      at--;
    } else if (inputType === 'deleteContentForward' && at < digits.length) {
      digits = digits.slice(0, at) + digits.slice(at + 1);
    }
  }
  return { digits, caret: at };
}

/** A formatted field value with the caret position to restore. */
export interface Formatted {
  readonly value: string;
  readonly caret: number;
  readonly digits: string;
  readonly brand: Brand | undefined;
}

/**
 * Formats the card number after an edit, keeping the caret after the same
 * digit. An edit that would make the number longer than its brand allows is
 * refused (the previous digits are kept) rather than silently dropping the
 * digits after the caret; a paste is cut at the longest length.
 */
export function formatNumberEdit(before: string, raw: string, caret: number, inputType = ''): Formatted {
  let { digits, caret: at } = applyEdit(before, raw, caret, inputType);
  let brand = detectBrand(digits);
  const max = maxNumberLength(brand);
  if (digits.length > max) {
    if (before.length >= max && inputType !== 'insertFromPaste') {
      at = Math.max(0, at - (digits.length - before.length));
      digits = before;
    } else {
      digits = digits.slice(0, max);
      at = Math.min(at, max);
    }
    brand = detectBrand(digits);
  }
  const value = groupNumber(digits, brand);
  return { value, caret: caretAfterDigits(value, at), digits, brand };
}

/** The separator shown between month and year. */
export const EXPIRY_SEPARATOR = ' / ';

/**
 * Formats the expiry field after an edit as `MM / YY`.
 *
 * A first digit of 2–9 can only be a month on its own, so it becomes `0d / `;
 * the separator appears as soon as the month is complete while typing forward
 * (not while deleting, or Backspace could never remove it); a typed slash after
 * one digit pads the month. Autofilled `MM/YYYY` and `MM/YY` values are taken
 * as they are.
 */
export function formatExpiryEdit(before: string, raw: string, caret: number, inputType = ''): Formatted {
  const ascii = toAsciiDigits(raw);
  const deleting = inputType.startsWith('delete');
  // Only whole-value replacements (autofill, paste) are read as MM/YY(YY); typing goes digit by digit.
  const filled =
    deleting || inputType === 'insertText' ? null : /^\s*(\d{1,2})\s*[/\-.]\s*(\d{2}|\d{4})\s*$/.exec(ascii);
  let digits: string;
  let at: number;
  if (filled) {
    digits = filled[1]!.padStart(2, '0') + filled[2]!.slice(-2);
    at = digits.length;
  } else {
    ({ digits, caret: at } = applyEdit(before, ascii, caret, inputType));
    if (!deleting && /^\d[/\-.]$/.test(ascii.trim())) {
      digits = `0${digits}`;
      at = 2;
    }
    if (!deleting && /^[2-9]/.test(digits)) {
      digits = `0${digits}`;
      at++;
    }
    digits = digits.slice(0, 4);
    at = Math.min(at, 4);
  }
  const value =
    digits.length > 2 || (digits.length === 2 && !deleting)
      ? digits.slice(0, 2) + EXPIRY_SEPARATOR + digits.slice(2)
      : digits;
  const caretPos = at === digits.length ? value.length : caretAfterDigits(value, at);
  return { value, caret: caretPos, digits, brand: undefined };
}

/** Month and four-digit year of `MMYY` digits; NaN parts when incomplete. */
export function parseExpiryDigits(digits: string): { month: number; year: number } {
  if (!/^\d{4}$/.test(digits)) return { month: Number.NaN, year: Number.NaN };
  return { month: Number(digits.slice(0, 2)), year: 2000 + Number(digits.slice(2)) };
}
