/**
 * Logging of the provider clients (docs/decisions/provider.md#client-logging). A pino-compatible `logger` option
 * receives one object per event (`provider.request`, `provider.response`, `provider.retry`,
 * `provider.error`, `provider.token`); everything passes through {@link createRedactor} first, so card
 * numbers, CVVs, keys, client secrets, access tokens and card/payment tokens never reach a log line.
 */

import { isSecurityCodeName } from '../common/card-fields.js';
import { replaceJwts } from '../common/jwt-text.js';
import { keyCleaner } from '../common/log-keys.js';
import { logCleaner } from '../common/logged-error.js';
import { setField } from '../common/own-field.js';
import { maskPans } from '../common/pan.js';
import { cutUrlPasswords } from '../common/url-password.js';

type LogFn = (obj: object, msg?: string) => void;

/** The subset of pino's logger the clients call. `pino()` and `console`-like adapters both fit. */
export interface ProviderLogger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

const SECRET_KEY =
  /(secret|password|authorization|access_?token|refresh_?token|api_?key|public_?key|private_?key|encrypted_card_number|^number$|card_?number|^pan$|^token$|card_?token|client_?assertion|^cookie$)/i;
const OBJECT_TOKEN = /\b((?:card_tok|pay_tok)_)([A-Za-z0-9]{4,})/g;
const KEY_LIKE = /\b(?:sk|pk)_[A-Za-z0-9_]{8,}/g;

/** `4242424242424242` → `************4242`. */
export function maskPan(run: string): string {
  const digits = run.replace(/\D/g, '');
  return `${'*'.repeat(Math.max(0, digits.length - 4))}${digits.slice(-4)}`;
}

/** Masks card tokens and payment tokens to their prefix and last four characters (`card_tok_…wxyz`). */
export function maskObjectTokens(text: string): string {
  return text.replace(OBJECT_TOKEN, (_m, prefix: string, rest: string) => `${prefix}…${rest.slice(-4)}`);
}

/** A number as a client's log keeps it: an integer of 12 digits or more (a card or account number, any script) is `[number]`. */
function redactNumber(value: number | bigint): unknown {
  const n = Number(value);
  return Number.isInteger(n) && Math.abs(n) >= 1e11 ? '[number]' : value;
}

/**
 * The shortest secret a redactor replaces: a shorter one would be found in ordinary text (an access token shorter than
 * this is refused by the token source for that reason).
 */
export const MIN_SECRET_LENGTH = 6;

/**
 * A secret as it is, and as an upstream that echoes a request gives it back: form-encoded (the OAuth token request
 * sends `client_secret=cs%2B…`), URL-encoded, or inside a JSON string. Each form is replaced wherever it appears, in
 * any case of its ASCII letters (see {@link cutSecrets}), so `%2b` and `SK_TEST_…` are read too.
 */
function echoedForms(secret: string): string[] {
  if (secret.length < MIN_SECRET_LENGTH) return [];
  const forms = new Set([
    secret,
    new URLSearchParams({ s: secret }).toString().slice(2),
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
  ]);
  return [...forms].map(foldAscii);
}

/** Any code unit past ASCII (a surrogate too: no `u` flag). */
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * `text` with its ASCII letters in lower case and nothing else changed: one code unit for one, so an index into the
 * result is the same index into `text`, and a secret folds the same alone and inside any text. `toLowerCase` is all
 * that on ASCII text only: elsewhere it lengthens `İ` into two code units and lowers `Σ` by its place in a word.
 */
function foldAscii(text: string): string {
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  // One pass over the UTF-16 code units (a replace callback per upper-case run cost 35 µs a KiB of capitalized words).
  const units = Buffer.from(text, 'utf16le');
  for (let i = 0; i < units.length; i += 2) {
    const low = units[i]!;
    if (low >= 0x41 && low <= 0x5a && units[i + 1] === 0) units[i] = low | 0x20;
  }
  return units.toString('utf16le');
}

/**
 * `text` with every occurrence of the secrets' `forms` (folded by {@link foldAscii}) replaced by `[redacted]`, in any
 * case: an upstream that upper-cases what it echoes, or writes escapes in lower case (`%2b`), gives the secret back
 * in a case it was not sent in (docs/decisions/provider.md#answer-text). The secrets are searched for in the folded
 * text with `indexOf` (no regular expression made of a secret) and cut from the original; overlapping ones are cut
 * as one.
 */
function cutSecrets(text: string, forms: Iterable<string>): string {
  const folded = foldAscii(text);
  const spans: [number, number][] = [];
  for (const form of forms) {
    for (let at = folded.indexOf(form); at !== -1; at = folded.indexOf(form, at + form.length)) {
      spans.push([at, at + form.length]);
    }
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let end = 0;
  for (const [start, stop] of spans) {
    if (start >= end) out += `${text.slice(end, start)}[redacted]`;
    end = Math.max(end, stop);
  }
  return out + text.slice(end);
}

/** A function that returns a safe deep copy of any value for logs and error messages. */
export type Redactor = (value: unknown) => unknown;

/** A client's redactor: also masks free text, and learns access tokens as they are issued. */
export type ClientRedactor = Redactor & {
  add(secret: string): void;
  text(value: string): string;
  /**
   * An error (or any thrown value) in the shape every error line has, `{ type, message, code…, stack, cause? }`
   * (docs/helper.md#log-events), each string cleaned by {@link ClientRedactor.text}, URL passwords cut.
   */
  error(value: unknown): unknown;
};

/**
 * Builds a redactor that also replaces every occurrence of the given secrets (the client's own keys and
 * client secret, and access tokens as they are issued: `redactor.add(token)`), wherever they appear.
 */
export function createRedactor(secrets: readonly (string | undefined)[] = []): ClientRedactor {
  const known = new Set<string>();
  for (const secret of secrets) if (typeof secret === 'string') for (const form of echoedForms(secret)) known.add(form);
  const text = (value: string): string => {
    const out = known.size > 0 && value.length >= MIN_SECRET_LENGTH ? cutSecrets(value, known) : value;
    // Card numbers by the one rule of server/common/pan.ts (any script, any separator, ids left alone).
    return maskPans(maskObjectTokens(replaceJwts(out, '[redacted jwt]').replace(KEY_LIKE, '[redacted key]')), maskPan);
  };
  // A key is text too: a provider's validation error keyed by the value sent, or a merchant's own field, may be a card
  // number or a secret. Plain keys are remembered, forgotten when a secret is learned (`add`).
  const key = keyCleaner(text);
  const redact = (value: unknown, depth = 0): unknown => {
    if (depth > 32) return '[too deep]';
    if (typeof value === 'string') return text(value);
    if (typeof value === 'number' || typeof value === 'bigint') return redactNumber(value);
    if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (isSecurityCodeName(k)) continue;
        setField(
          out,
          key(k),
          SECRET_KEY.test(k) && v !== null && typeof v !== 'boolean' ? '[redacted]' : redact(v, depth + 1),
        );
      }
      return out;
    }
    return value;
  };
  const fn = ((value: unknown) => redact(value)) as ClientRedactor;
  const issued: string[][] = [];
  fn.add = (secret: string) => {
    if (secret.length < MIN_SECRET_LENGTH || known.has(foldAscii(secret))) return;
    // A form another secret has too stays that secret's (the client's own keys are never forgotten).
    const forms = echoedForms(secret).filter((form) => !known.has(form));
    for (const form of forms) known.add(form);
    issued.push(forms);
    // A key remembered as plain may hold it.
    key.forget();
    // Access tokens are added as they are issued; keep only the recent ones (older ones have expired).
    if (issued.length > 16) for (const form of issued.shift()!) known.delete(form);
  };
  fn.text = text;
  // Only failure lines use it; built once per client.
  const cleaner = logCleaner({
    text: (value) => cutUrlPasswords(text(value), '[redacted]'),
    secretKey: (key) => SECRET_KEY.test(key) || isSecurityCodeName(key),
  });
  fn.error = (value: unknown) => cleaner.value(value, 1);
  return fn;
}
