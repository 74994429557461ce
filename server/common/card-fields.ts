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
 * `billingDetails.cardCode`), or undefined. `value` has passed the body's depth check.
 */
export function findSecurityCode(value: unknown, path = ''): string | undefined {
  if (!value || typeof value !== 'object') return undefined;
  for (const [key, v] of Object.entries(value)) {
    const field = path ? `${path}.${key}` : key;
    if (isSecurityCodeName(key) && present(v)) return field;
    const found = findSecurityCode(v, field);
    if (found !== undefined) return found;
  }
  return undefined;
}
