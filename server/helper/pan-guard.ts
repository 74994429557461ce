import { luhnValid } from '../../widget/card/luhn.js';

/**
 * A run of decimal digits of any script (`\p{Nd}`: ASCII, full-width `４２`, Arabic-Indic `٤٢`, …) with at most
 * three whitespace characters (space, tab, CR LF, no-break space, …) or dashes of any kind between two. A run right
 * after `+` is an international phone number (E.164), never a card number, and is skipped whole.
 */
const DIGIT_RUN = /\+?\p{Nd}(?:[\s\p{Pd}]{0,3}\p{Nd})*/gu;
const SEPARATORS = /[\s\p{Pd}]+/u;
/**
 * Card layouts written with dots or slashes (`4242.4242.4242.4242`, `3782/822463/10005`): 4-4-4-1…4 (with an
 * optional last group of 3) and 4-6-4/5. Only these layouts: dotted and slashed numbers in general (IP addresses,
 * decimals, URL paths, dates) would otherwise be mistaken for card numbers.
 */
const LAYOUT = /\p{Nd}{4}([./])(?:\p{Nd}{4}\1\p{Nd}{4}\1\p{Nd}{1,4}(?:\1\p{Nd}{3})?|\p{Nd}{6}\1\p{Nd}{4,5})/gu;
/** Anything but an ASCII digit (the text given to `asciiDigits` holds only digits). */
const NON_ASCII_DIGIT = /[^0-9]/;
/** Nesting beyond this is refused rather than walked. */
export const MAX_DEPTH = 32;

/** Code point → digit value for every non-ASCII `\p{Nd}` character, built on first need. */
let digitValues: Map<number, number> | undefined;

function digitValue(cp: number): number {
  if (!digitValues) {
    // Unicode encodes every decimal digit set as ten consecutive code points, 0 to 9 (sets may be adjacent).
    digitValues = new Map();
    const nd = /\p{Nd}/u;
    let start = -1;
    for (let c = 0x80; c < 0x20000; c++) {
      if (nd.test(String.fromCodePoint(c))) {
        if (start < 0) start = c;
        digitValues.set(c, (c - start) % 10);
      } else start = -1;
    }
  }
  return digitValues.get(cp) ?? -1;
}

/** Digits of any script as ASCII digits (`４２` → `42`). */
function asciiDigits(text: string): string {
  if (!NON_ASCII_DIGIT.test(text)) return text;
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 48 && cp <= 57) out += ch;
    else {
      const v = digitValue(cp);
      if (v >= 0) out += String(v);
    }
  }
  return out;
}

/** A candidate starting with 0 is not a card number: no card brand starts with 0 (ISO/IEC 7812 industry 0). */
const isCard = (digits: string) => digits.charCodeAt(0) !== 48 && luhnValid(digits);

/**
 * Whether `text` holds something that looks like a card number: a Luhn-valid
 * run of 12–19 digits (of any script), with or without separators. Besides
 * each whole run, every sequence of neighbouring separator-delimited groups is
 * tried, so a number glued to other digits by a space (`order 12 4242 4242 4242 4242`) is
 * still found. Runs after `+` and candidates starting with 0 are not card numbers (phone numbers, padded ids);
 * dots and slashes count only in card layouts. See docs/DECISIONS.md#helper-pan-guard.
 */
export function containsPan(text: string): boolean {
  // Too short to hold 12 digits: most strings a request carries (ids, codes, names) stop here.
  if (text.length < 12) return false;
  for (const [run] of text.matchAll(DIGIT_RUN)) {
    if (run.charCodeAt(0) === 43 /* + */ || run.length < 12) continue;
    const groups = run.split(SEPARATORS).map(asciiDigits);
    for (let i = 0; i < groups.length; i++) {
      // A leading 0 is a phone trunk prefix, a zero-padded reference and the like.
      if (groups[i]!.charCodeAt(0) === 48) continue;
      let digits = '';
      for (let j = i; j < groups.length; j++) {
        digits += groups[j];
        if (digits.length > 19) break;
        if (digits.length >= 12 && isCard(digits)) return true;
      }
    }
  }
  if (text.includes('.') || text.includes('/')) {
    for (const [candidate] of text.matchAll(LAYOUT))
      if (isCard(asciiDigits(candidate.replace(/[./]/g, '')))) return true;
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
