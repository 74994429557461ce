import { isSecurityCodeName } from '../../common/card-fields.js';
import { setField } from '../../common/own-field.js';
import { maskPans, mayBeRoundedPan } from '../../common/pan.js';

/**
 * Masking for everything the sandbox keeps about a request (the request log, `GET /_sandbox/requests`), by digit
 * content rather than by field name or spacing (docs/decisions/sandbox.md#sandbox-request-log): every card number the
 * helper's detector finds, in any field, key or path, however it is spaced, becomes bin + last4; CVVs are dropped
 * under any key that names one; secrets are replaced. Applied to parsed bodies, so it sees every field whatever the
 * wire format.
 */

/**
 * A key that holds a card security code: any key containing `cvv`, `cvc`, `csc` or `security code` (`card_cvv`,
 * `CVV_code`), which a log can drop freely, and every name of server/common/card-fields.ts (`cardCode`, `cvn`).
 */
const CVV_KEY = /cvv|cvc|csc|security.?code/i;
const SECRET_KEY =
  /(secret|password|authorization|access_token|refresh_token|client_secret|encrypted_card_number|api_?key)/i;
/** Keys that carry a card number by name: masked whatever they hold (a mistyped number is still card data). */
const NUMBER_KEY = /^(number|card_?number|pan)$/i;
/** A value that could be a CVV: 3 or 4 digits, alone. */
const CVV_LIKE = /^\s*\d{3,4}\s*$/;
/** The card-token request's own fields; anything else in such a body is unknown (and may be a CVV). */
const CARD_TOKEN_FIELDS: ReadonlySet<string> = new Set([
  'number',
  'expiryMonth',
  'expiryYear',
  'cvv',
  'name',
  'billingDetails',
]);

/** `4242424242424242` → `424242******4242`; separators are dropped. */
export function maskPan(digits: string): string {
  const d = [...digits.replace(/\P{Nd}/gu, '')];
  if (d.length < 10) return '*'.repeat(d.length);
  return `${d.slice(0, 6).join('')}${'*'.repeat(d.length - 10)}${d.slice(-4).join('')}`;
}

/** Masks every card number in free text (numbers typed into any field, URLs, messages, keys). */
export function maskText(text: string): string {
  return maskPans(text, maskPan);
}

/** A deep copy of `value` that is safe to keep: no card number, no CVV, no secret. */
export function maskValue(value: unknown, depth = 0): unknown {
  if (depth > 40) return '[too deep]';
  if (typeof value === 'string') return maskText(value);
  if (typeof value === 'number' || typeof value === 'bigint') return numberOrMasked(value);
  if (Array.isArray(value)) return value.map((v) => maskValue(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value)) {
      if (CVV_KEY.test(k) || isSecurityCodeName(k)) continue;
      const v = (value as Record<string, unknown>)[k];
      setField(
        out,
        maskText(k),
        SECRET_KEY.test(k)
          ? '[redacted]'
          : NUMBER_KEY.test(k) && (typeof v === 'string' || typeof v === 'number')
            ? maskPan(String(v))
            : maskValue(v, depth + 1),
      );
    }
    return out;
  }
  return value;
}

/**
 * A number as the log keeps it: masked when its digits are a card number, or when it is past 2^53 and starts like a
 * brand of its length (JSON.parse rounded a card number of 17–19 digits: its first 16 digits are still exact), the
 * body guard's rule (`findPan(…, { rounded: true })`).
 */
function numberOrMasked(n: number | bigint): number | bigint | string {
  const text = String(n);
  const masked = maskText(text);
  if (masked !== text) return masked;
  return typeof n === 'number' && mayBeRoundedPan(n) ? maskPan(text) : n;
}

/**
 * A card-token request body for the log: masked as {@link maskValue}, and every 3–4 digit value under a field the
 * request does not define is dropped too (a CVV sent under a name of its own, `code: "123"`).
 */
export function maskCardTokenRequest(body: unknown): unknown {
  const masked = maskValue(body);
  if (!masked || typeof masked !== 'object' || Array.isArray(masked)) return masked;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(masked)) setField(out, k, CARD_TOKEN_FIELDS.has(k) ? v : dropCvvLike(v, 0));
  return out;
}

function dropCvvLike(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return CVV_LIKE.test(value) ? '[redacted]' : value;
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 && value <= 9999 ? '[redacted]' : value;
  if (depth > 40 || !value || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => dropCvvLike(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) setField(out, k, dropCvvLike(v, depth + 1));
  return out;
}
