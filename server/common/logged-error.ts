/**
 * The one shape an error takes in a log line, for the helper's redactor (server/helper/log.ts) and the provider
 * clients' failure lines (server/provider/http/transport.ts): `{ type, message, …own fields of one value, stack,
 * errors?, cause? }`, each string cleaned by the caller's rules (docs/decisions/helper.md#helper-logging).
 */

import { setField } from './own-field.js';
import { numberHoldsPan } from './pan.js';

/** What is written for a value whose getters throw while it is read. */
export const UNREADABLE = '[a value that could not be read]';

/**
 * What an Error's shape writes itself, or never: its other own fields (`code`, `status`, …) are copied beside them.
 * A response's `body` and `headers` are data, not what failed: a body that is no JSON (a proxy's error page, a
 * provider's text) is kept on a ProviderError as a string, and was written whole in a `provider.error` line.
 */
const ERROR_SHAPE_KEYS: Readonly<Record<string, true>> = Object.assign(Object.create(null), {
  type: true,
  message: true,
  name: true,
  stack: true,
  errors: true,
  cause: true,
  body: true,
  headers: true,
});

/** Marks a shape this module wrote, so a logger that receives it writes it as it is (see {@link isLoggedError}). */
const SHAPED = Symbol('tessera.loggedError');

/** How the strings and keys of a line are cleaned. */
export interface LogRules {
  /** Any string of the line, an error's message and stack included, as it may be logged. */
  text(value: string): string;
  /** Whether the value under `key` is hidden (`[redacted]`): a secret, token or card field. */
  secretKey(key: string): boolean;
}

/** The cleaning of a line's values under {@link LogRules}. */
export interface LogCleaner {
  /** `value`, deep-copied and cleaned: strings by `text`, an Error in its shape, cut at depth 8 (`[too deep]`). */
  value(value: unknown, depth: number): unknown;
  /** The value under `key`: `[redacted]` for a secret-named key, else {@link LogCleaner.value}. */
  field(key: string, value: unknown, depth: number): unknown;
}

/** Whether `value` is an Error, or an error already in its logged shape: a logger must write it as it is. */
export function isLoggedError(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  try {
    return value instanceof Error || SHAPED in value;
  } catch {
    // A proxy whose traps throw (a hook may throw anything): written as a value, by the cleaner.
    return false;
  }
}

/**
 * The most values (objects, arrays, errors, strings, …) one call of {@link LogCleaner.value} or
 * {@link LogCleaner.field} writes; the rest is `[too many values]`. Depth alone does not bound a walk: a hook may
 * throw an AggregateError whose `errors` holds itself 300 times, 300^4 errors four levels down, which held the event
 * loop for hours and filled the memory.
 */
export const MAX_LOGGED_VALUES = 2000;

/** What is written in place of what is past {@link MAX_LOGGED_VALUES}. */
export const TOO_MANY = '[too many values]';

/** A {@link LogCleaner} under `rules`. */
export function logCleaner(rules: LogRules): LogCleaner {
  const { text } = rules;
  /** What the walk under way may still write; -1 when no walk is under way. */
  let left = -1;
  const bounded =
    <A extends unknown[]>(walk: (...args: A) => unknown) =>
    (...args: A): unknown => {
      if (left >= 0) return walk(...args);
      left = MAX_LOGGED_VALUES;
      try {
        return walk(...args);
      } finally {
        left = -1;
      }
    };
  /**
   * A number is held to the body guard's rule (`numberHoldsPan`): its digits, or past 2^53 its leading ones (JSON.parse
   * rounded it). One that holds a card number (`4242…` or `{ value: 4242… }` a parser or a hook threw; a bigint) is
   * written as its cleaned text (`-[redacted-card]`); a rounded one, whose text holds none, as `[redacted-card]`. Every
   * other number (statuses, durations, timestamps) costs one comparison and is written as it is.
   */
  const numeric = (v: number | bigint): unknown => {
    if (!numberHoldsPan(v)) return v;
    const digits = String(v);
    const cleaned = text(digits);
    return cleaned === digits ? '[redacted-card]' : cleaned;
  };
  const inner = (key: string, item: unknown, depth: number): unknown =>
    rules.secretKey(key) ? '[redacted]' : value(item, depth);
  const field = bounded(inner);
  /**
   * An Error as the log writes it: `type` (its class), `message`, its own fields of one value (`code`, `status`,
   * `requestId`, …), `stack`, an AggregateError's `errors` and its `cause`, each in the same shape; every string
   * cleaned. Built here rather than by the logger's `err` serializer, which never sees the Error.
   */
  const errorShape = (e: Error, depth: number): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    Object.defineProperty(out, SHAPED, { value: true });
    // Each part is read on its own: a getter that throws (a hook may throw anything) costs that part only, and the
    // line is still written.
    try {
      const ctor = (e as { constructor?: unknown }).constructor;
      out.type = text(typeof ctor === 'function' && ctor.name ? ctor.name : String(e.name));
    } catch {
      out.type = 'Error';
    }
    try {
      out.message = text(String(e.message));
    } catch {
      out.message = UNREADABLE;
    }
    try {
      // Its own fields that hold one value (`code`, `status`, `requestId`, `errno`, `syscall`); not a response's
      // headers or body, nor a driver's command and its arguments: data, not what failed.
      for (const k of Object.keys(e)) {
        if (k in ERROR_SHAPE_KEYS) continue;
        let v: unknown;
        try {
          v = (e as unknown as Record<string, unknown>)[k];
        } catch {
          out[k] = UNREADABLE;
          continue;
        }
        const kind = typeof v;
        if (kind === 'string' || kind === 'number' || kind === 'boolean')
          setField(out, text(k), inner(k, v, depth + 1));
      }
    } catch {
      // Its keys could not be listed (a proxy): the fields are left out.
    }
    try {
      if (typeof e.stack === 'string') out.stack = text(e.stack);
    } catch {
      // An unreadable stack is left out.
    }
    let errors: unknown;
    let cause: unknown;
    try {
      ({ errors, cause } = e as { errors?: unknown; cause?: unknown });
    } catch {
      cause = UNREADABLE;
    }
    if (Array.isArray(errors)) out.errors = value(errors, depth + 1);
    if (cause !== undefined) out.cause = value(cause, depth + 1);
    return out;
  };
  function value(v: unknown, depth: number): unknown {
    if (left === 0) return TOO_MANY;
    left--;
    if (typeof v === 'string') return text(v);
    if (typeof v === 'number' || typeof v === 'bigint') return numeric(v);
    if (v === null || typeof v !== 'object') return v;
    // Deeper than any line the helper writes: cut, never passed on unscrubbed.
    if (depth > 8) return '[too deep]';
    try {
      if (v instanceof Error) return errorShape(v, depth);
      if (Array.isArray(v)) {
        const out: unknown[] = [];
        for (let i = 0; i < v.length; i++) {
          if (left === 0) {
            out.push(`${TOO_MANY} (${v.length - i} more)`);
            break;
          }
          out.push(value(v[i], depth + 1));
        }
        return out;
      }
      const out: Record<string, unknown> = {};
      if (SHAPED in v) Object.defineProperty(out, SHAPED, { value: true });
      for (const k of Object.keys(v)) {
        if (left === 0) {
          out[TOO_MANY] = true;
          break;
        }
        // The key is text of the line too: a card number or a secret as a key name is cleaned like any string.
        setField(out, text(k), inner(k, (v as Record<string, unknown>)[k], depth + 1));
      }
      return out;
    } catch {
      // A getter threw (a hook's thrown value under a 500, say): never the error handler failing with it.
      return UNREADABLE;
    }
  }
  return { value: bounded(value), field };
}

/** pino's public symbol for a logger's serializers: set on every pino logger, whichever copy of pino made it. */
const PINO_SERIALIZERS = Symbol.for('pino.serializers');

type Line = (obj: object, msg?: string) => void;
type PinoLike<L> = L & {
  child(bindings: object, options: { serializers: Record<string, (v: unknown) => unknown> }): L;
};

const asIs = (value: unknown): unknown => value;

/**
 * The logger to write a line through whose `keys` hold an error in its logged shape: on a pino logger a child whose
 * serializers for those keys write them as they are (pino's `err` serializer, on by default, read the shape as an
 * error and wrote `type: "Object"`, the causes folded into `message`); made per line, so it has the logger's level and
 * bindings of the moment. Any other logger is itself.
 */
export function errorLineTarget<L extends Record<'debug' | 'info' | 'warn' | 'error', Line>>(
  logger: L,
  keys: readonly string[],
): L {
  if ((logger as unknown as Record<symbol, unknown>)[PINO_SERIALIZERS] === undefined) return logger;
  const serializers: Record<string, (v: unknown) => unknown> = {};
  for (const k of keys) serializers[k] = asIs;
  return (logger as PinoLike<L>).child({}, { serializers });
}

/**
 * The code of the innermost error of `err`'s `cause` chain that has a string one (`ECONNREFUSED` under undici's
 * `fetch failed`, a driver's own), at most eight levels down: what a log line names a failure by without its message,
 * which may hold a URL or a body.
 */
export function rootCode(err: unknown): string | undefined {
  let code: string | undefined;
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const own = (e as { code?: unknown }).code;
    if (typeof own === 'string') code = own;
  }
  return code;
}
