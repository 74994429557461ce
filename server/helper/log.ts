import pino from 'pino';
import { isSecurityCodeName } from '../common/card-fields.js';
import { replaceJwts } from '../common/jwt-text.js';
import { keyCleaner } from '../common/log-keys.js';
import { errorLineTarget, isLoggedError, logCleaner } from '../common/logged-error.js';
import { setField } from '../common/own-field.js';
import { cutUrlPasswords } from '../common/url-password.js';
import { maskPans } from './pan-guard.js';

/** The part of a pino logger the helper uses; any pino-compatible logger fits. */
export interface HelperLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const SECRET_KEY = /(secret|password|authorization|cookie|token|jwt|api_?key|encrypted_card_number|cvv|cvc|^number$)/i;

const redactedCard = () => '[redacted-card]';

/** `hreq_` and a UUID: the request id the helper gives every request (fixed length, so linear). */
const REQUEST_ID = /^hreq_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Its length: the regular expression above only runs on text of that length (one comparison for every other text). */
const REQUEST_ID_LENGTH = 41;

/** The most keys whose verdict ({@link secretKeyName}) is remembered: the helper's own lines use a few dozen. */
const KEY_VERDICTS_MAX = 1024;
const keyVerdicts = new Map<string, boolean>();

/**
 * Whether a key names a secret, token or card field. Each line the helper writes has the same dozen keys, so the
 * verdict is remembered (for at most {@link KEY_VERDICTS_MAX} keys of at most 64 characters: a merchant's lines may
 * carry keys of any name and length, and past that each is judged afresh, as before).
 */
function secretKeyName(key: string): boolean {
  const known = keyVerdicts.get(key);
  if (known !== undefined) return known;
  const secret = SECRET_KEY.test(key) || isSecurityCodeName(key);
  if (key.length <= 64 && keyVerdicts.size < KEY_VERDICTS_MAX) keyVerdicts.set(key, secret);
  return secret;
}

/**
 * Wraps `logger` so nothing it is given can leak: the values of keys that name a secret,
 * token or card field (a security code under any of its usual names included) are replaced by `[redacted]`, JWT-shaped strings and the
 * configured secret values and the password of any URL with user info (`https://user:password@host`) are cut out of
 * every string and key, and anything the card-number guard takes for a card number (any script, any separator it
 * knows; in a number or a bigint too) is replaced; ids are left exactly as they are.
 * An Error is written as `{ type, message, code…, stack, errors?, cause? }`, whatever `err` serializer a pino logger
 * has (docs/helper.md#log-events).
 * The helper only ever logs fields it chose (route, status, codes, ids), so this is the second line, not the first.
 * Exported so a merchant can wrap the logger of its own routes the same way.
 *
 * @example
 * const log = redactingLogger(pino(), [process.env.TESSERA_SECRET_KEY!]);
 * app.use((req, _res, next) => (log.info({ path: req.path }, 'request'), next()));
 * See docs/decisions/helper.md#helper-logging.
 */
export function redactingLogger(logger: HelperLogger, secrets: readonly string[]): HelperLogger {
  const known = knownSecrets(secrets);
  // Shorter text holds no secret (each is 8 characters or more) and no JWT; card numbers are looked for in any text.
  const shortest = Math.min(13, ...known.map((s) => s.length));
  const scrubText = (text: string): string => {
    // The helper's own request ids (every log line has one) hold nothing to redact: hex words are no card number.
    if (text.length === REQUEST_ID_LENGTH && REQUEST_ID.test(text)) return text;
    // A URL's password (`redis://user:pw@host`, in a driver's error message) is cut, the rest of the URL kept.
    let out = cutUrlPasswords(text, '[redacted]');
    // Too short for a secret or a JWT, not for a card number written with two-digit characters (`㊷`).
    if (out.length < shortest) return maskPans(out, redactedCard);
    for (const s of known) if (out.includes(s)) out = out.split(s).join('[redacted]');
    out = replaceJwts(out, '[redacted-jwt]');
    return maskPans(out, redactedCard);
  };
  const { value: scrub, field } = logCleaner({ text: scrubText, secretKey: secretKeyName });
  // The keys of a line are cleaned too; the helper's lines have the same dozen, so those that hold nothing to clean are
  // remembered (never one that held a card number or a secret), as the verdicts of {@link secretKeyName} are.
  const scrubKey = keyCleaner(scrubText);
  const enabled = (logger as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled;
  const wrap =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (obj: object, msg?: string): void => {
      // pino drops lines below its level; skip the scrubbing for them (the clients log every call at debug).
      if (enabled && !enabled.call(logger, level)) return;
      let clean: object;
      // The keys that held an Error: only these lines pay for anything more.
      let errorKeys: string[] | undefined;
      if (obj instanceof Error) {
        // `log.error(err)`: written as pino writes it, under `err`.
        clean = { err: scrub(obj, 1) };
        errorKeys = ['err'];
      } else if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
        clean = scrub(obj, 0) as object;
      } else {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(obj)) {
          // The key is text of the line too, as a nested one is (logCleaner): a merchant's line may be keyed by what a
          // request sent (a form field's name, a header's), and a card number or a secret there was written as it was.
          const key = scrubKey(k);
          // An Error, or one a provider client already wrote in the shape (its `provider.error` lines).
          if (isLoggedError(v)) {
            errorKeys ??= [];
            errorKeys.push(key);
          }
          setField(out, key, field(k, v, 1));
        }
        clean = out;
      }
      // pino runs its `err` serializer (and any a merchant set for a key) on the line it is given: on an Error
      // already cleaned into its shape, that wrote `type: "Object"`, the causes folded into `message`, an empty stack.
      const target = errorKeys ? errorLineTarget(logger, errorKeys) : logger;
      if (msg === undefined) target[level](clean);
      else target[level](clean, scrubText(msg));
    };
  return { debug: wrap('debug'), info: wrap('info'), warn: wrap('warn'), error: wrap('error') };
}

/**
 * The values the redactor cuts out of every line: the configured secrets of 8 characters or more (shorter text would
 * cut common words out of every line, and no secret the options accept is shorter). The helper's answers are checked
 * for the same list (respond.ts, docs/decisions/helper.md#helper-secret-guard).
 */
export function knownSecrets(secrets: readonly (string | undefined)[]): string[] {
  return secrets.filter((s): s is string => typeof s === 'string' && s.length >= 8);
}

/** The default logger: pino at `info`, named `tessera`. */
export function defaultLogger(): HelperLogger {
  return pino({ name: 'tessera' });
}
