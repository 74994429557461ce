import { luhnValid } from '../../widget/card/luhn.js';

/**
 * A run of digits with at most one space or dash between any two (`4242 4242-4242 4242`). A run right after `+`
 * is an international phone number (E.164), never a card number, and is skipped whole.
 */
const DIGIT_RUN = /\+?\d(?:[ -]?\d)*/g;
/** Nesting beyond this is refused rather than walked. */
export const MAX_DEPTH = 32;

/**
 * Whether `text` holds something that looks like a card number: a Luhn-valid
 * run of 12–19 digits, with or without separators. Besides each whole run,
 * every sequence of neighbouring separator-delimited groups is tried, so a
 * number glued to other digits by a space (`order 12 4242 4242 4242 4242`) is
 * still found. Runs after `+` and candidates starting with 0 are not card numbers (phone numbers, padded ids).
 * See docs/DECISIONS.md#helper-pan-guard.
 */
export function containsPan(text: string): boolean {
  for (const [run] of text.matchAll(DIGIT_RUN)) {
    if (run.startsWith('+')) continue;
    const groups = run.split(/[ -]/);
    for (let i = 0; i < groups.length; i++) {
      // No card brand starts with 0 (ISO/IEC 7812 industry 0 is not payment cards); a leading 0 is a phone
      // trunk prefix, a zero-padded reference and the like.
      if (groups[i]!.startsWith('0')) continue;
      let digits = '';
      for (let j = i; j < groups.length; j++) {
        digits += groups[j];
        if (digits.length > 19) break;
        if (digits.length >= 12 && luhnValid(digits)) return true;
      }
    }
  }
  return false;
}

/**
 * The dotted path of the first key or value in `value` that holds a card
 * number (`billingDetails.addressLine1`, `items.0`), `''` for the top level,
 * or undefined when there is none. Numbers are checked by their decimal text.
 */
export function findPan(value: unknown, path = '', depth = 0): string | undefined {
  if (depth > MAX_DEPTH) return undefined;
  if (typeof value === 'string') return containsPan(value) ? path : undefined;
  if (typeof value === 'number' || typeof value === 'bigint') return containsPan(String(value)) ? path : undefined;
  if (value && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    for (const [key, child] of entries) {
      const field = path ? `${path}.${key}` : key;
      if (containsPan(key)) return field;
      const hit = findPan(child, field, depth + 1);
      if (hit !== undefined) return hit;
    }
  }
  return undefined;
}
