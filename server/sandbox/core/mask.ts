/**
 * Masking for everything the sandbox keeps about a request (the request log):
 * card numbers become bin + last4, CVVs are dropped, secrets are replaced.
 * Applied to parsed bodies, so it sees every field whatever the wire format.
 */

import { maskPans } from '../../common/pan.js';

// Any key that names a card verification code, however it is spelled around (`card_cvv`, `CVV_code`, `cvc2`).
const CVV_KEY = /cvv|cvc|csc|security.?code|card.?verification/i;
const SECRET_KEY =
  /(secret|password|authorization|access_token|refresh_token|client_secret|encrypted_card_number|api_?key)/i;
// Any decimal digits (full-width ones too: a refused number is still logged), optionally separated.
const PAN_RUN = /\p{Nd}(?:[ -]?\p{Nd}){11,18}/gu;

/** `4242424242424242` → `424242******4242`; separators are dropped. */
export function maskPan(digits: string): string {
  const d = [...digits.replace(/\P{Nd}/gu, '')];
  return `${d.slice(0, 6).join('')}${'*'.repeat(Math.max(0, d.length - 10))}${d.slice(-4).join('')}`;
}

/**
 * Masks card numbers in free text by their digit content (server/common/pan.ts: any script, any separator, split
 * by letters or invisible characters), then every other 12–19 digit run written plainly, card or not.
 */
export function maskText(text: string): string {
  // Most strings are too short to hold a card number: skip the scans for them.
  return text.length < 12 ? text : maskPans(text, maskPan).replace(PAN_RUN, (run) => maskPan(run));
}

/** A deep copy of `value` that is safe to keep: no card number, no CVV, no secret. */
export function maskValue(value: unknown, depth = 0): unknown {
  if (depth > 40) return '[too deep]';
  if (typeof value === 'string') return maskText(value);
  if (typeof value === 'number')
    return Number.isInteger(value) && String(value).length >= 12 ? maskText(String(value)) : value;
  if (Array.isArray(value)) return value.map((v) => maskValue(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value)) {
      if (CVV_KEY.test(k)) continue;
      // A key can hold a card number too (`{"4242 4242 4242 4242": "x"}`).
      out[maskText(k)] = SECRET_KEY.test(k)
        ? '[redacted]'
        : maskValue((value as Record<string, unknown>)[k], depth + 1);
    }
    return out;
  }
  return value;
}
