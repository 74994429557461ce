import { fieldPath } from './field-path.js';
import { jsonStringAt, someJsonString } from './json-text.js';

/**
 * Card security codes by the name of the key that holds one: the helper refuses a body that carries one, and every
 * redactor (the helper's log, the provider clients' log, the sandbox's request log) drops it.
 *
 * Key names under which a page would send a card's security code, compared in lower case without `_`, `-`, `.` or
 * spaces (`cvv`, `CVC2`, `security_code`, `cardSecurityCode`). A security code is three or four digits, which no
 * scan of values can tell from any other number, so its name is what gives it away. `cid` (American Express's name)
 * is left out: it is far more often a client or correlation id (docs/decisions/helper.md#helper-pan-guard).
 */

const SECURITY_CODE_NAMES: ReadonlySet<string> = new Set([
  'cvv',
  'cvv2',
  'cvc',
  'cvc2',
  'cvn',
  'cvn2',
  'csc',
  'cav2',
  'securitycode',
  'cardsecuritycode',
  'cardcode',
  'cardcvv',
  'cardcvc',
  'cvvcode',
  'cvccode',
  'cardverification',
  'cardverificationvalue',
  'cardverificationcode',
  'cardverificationnumber',
]);

/** `key` in the form the names above are kept in. Keys are at most what the body limit allows: one linear pass. */
const normalise = (key: string): string => key.toLowerCase().replace(/[-_. ]/g, '');

/** Whether `key` names a card security code (`cvv`, `CVC2`, `security_code`, …). */
export const isSecurityCodeName = (key: string): boolean => key.length <= 64 && SECURITY_CODE_NAMES.has(normalise(key));

/** Whether `value` carries anything: a security code sent empty (a blank form field) carries no card data. */
const present = (value: unknown): boolean => value !== null && value !== undefined && value !== '';

/**
 * The path of the first key in `value` named like a card security code and holding a value (`cvv`,
 * `billingDetails.cardCode`), or undefined, its keys written as other body errors write them ({@link fieldPath}:
 * escaped, cut): the path becomes an answer's `field`. `value` has passed the body's depth check.
 */
export function findSecurityCode(value: unknown, path = ''): string | undefined {
  if (!value || typeof value !== 'object') return undefined;
  for (const [key, v] of Object.entries(value)) {
    const field = fieldPath(path, key);
    if (isSecurityCodeName(key) && present(v)) return field;
    const found = findSecurityCode(v, field);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Whether JSON text, one `JSON.parse` accepted, has a key named like a card security code with a value (anything but
 * `null` or `""`) anywhere in it: what {@link findSecurityCode} cannot see in the parsed value when `JSON.parse`
 * dropped it, as it drops the value of a key that comes again later in the same object (`{"cvv":"123","cvv":""}`
 * parses to a blank `cvv`). A string is a key when a `:` follows it; keys are decoded (`"\u0063vv"`). Linear: each
 * string is read once, and only a key of at most 64 characters' worth of escapes is decoded.
 */
export function jsonHoldsSecurityCode(text: string): boolean {
  const n = text.length;
  const skipSpace = (at: number) => {
    let i = at;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break;
      i++;
    }
    return i;
  };
  return someJsonString(text, (start, end, escaped) => {
    const after = skipSpace(end);
    // A value, or a key too long to be a name even with every character escaped (`\uXXXX`, six).
    if (text.charCodeAt(after) !== 58 /* : */ || end - start > 64 * 6 + 2) return false;
    if (!isSecurityCodeName(jsonStringAt(text, start, end, escaped))) return false;
    const value = skipSpace(after + 1);
    return !text.startsWith('null', value) && !text.startsWith('""', value);
  });
}
