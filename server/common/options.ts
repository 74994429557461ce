import { z } from 'zod';
import { secureUrl } from '../../shared/url.js';

/**
 * The one options engine of the server side: every factory (`tesseraHelper`, `createLegacyClient`,
 * `createAccountsClient`, `createTokenSource`) checks its options with {@link checkOptions} once, when called.
 * Each option's schema is written beside the code that uses it (as helmet does: `rate-limit.ts` owns
 * `rateLimits`, `host-auth.ts` owns `hostAuth`, `http/options.ts` owns the clients' HTTP options); a factory
 * only gathers them into one {@link OptionShape}.
 *
 * Every problem becomes one line of one TypeError (STYLE.md): the option's name, the fix ("must …"), and the
 * value as given, never a secret's (only its length), with "Did you mean `secretKey`?" for a misspelt name.
 */

/** Options by name, each with the zod schema that checks it (`.optional()` when it may be left out). */
export type OptionShape = Readonly<Record<string, z.ZodType>>;

/** The checked options: what the shape's schemas output. */
export type CheckedOptions<S extends OptionShape> = z.output<z.ZodObject<S>>;

/** Reports one problem found across options: `problem('must …', 'option')`, or a whole sentence without an option. */
export type ReportProblem = (fix: string, option?: string) => void;

export interface OptionRules<T> {
  /** Names (at any depth) whose values are never shown in a message: keys and secrets. */
  readonly secrets?: readonly string[];
  /** A call that works, shown when the argument is not an object: `tesseraHelper({ publicKey, … })`. */
  readonly usage?: string;
  /** Rules between options, run when each option is valid on its own. */
  readonly across?: (options: T, problem: ReportProblem) => void;
}

/** The TypeError every factory throws for one bad option: its name, the fix, and the value as shown. */
export function optionError(factory: string, option: string, shown: string, fix: string): TypeError {
  return new TypeError(`${factory}: option \`${option}\` ${fix}; got ${shown}`);
}

/**
 * A value as a message may show it: JSON for ordinary values (nested secrets hidden), a secret by its length only,
 * and a URL's user and password (`https://user:pass@…`), wherever they are, as `[hidden]`.
 */
export function show(value: unknown, secret = false, secrets: ReadonlySet<string> = NO_SECRETS): string {
  if (value === undefined) return 'undefined';
  if (secret) return typeof value === 'string' ? `a string of ${value.length} characters` : typeOf(value);
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint') return `${value}n`;
  try {
    const text = JSON.stringify(value, (k, v) => (secrets.has(k) ? '[hidden]' : withoutUserInfo(v)));
    if (text === undefined) return String(value);
    return text.length > 160 ? `${text.slice(0, 157)}...` : text;
  } catch {
    return typeOf(value);
  }
}

const NO_SECRETS: ReadonlySet<string> = new Set();

/**
 * `v` with the user info of a URL in it hidden (`https://[hidden]@host/…`); anything else as it is. The URL parser
 * reads `https:/user:pass@host`, `https:\\user:pass@host` and `https:user:pass@host` as `https://user:pass@host`,
 * so the authority starts after the scheme's `:` and any run of `/` and `\`, and ends at the next `/`, `\`, `?` or
 * `#`; its user info ends at its last `@`. What the parser still reads user info from (a tab or line break in it,
 * which the parser drops) is hidden whole. No regex: loops over the text.
 */
function withoutUserInfo(v: unknown): unknown {
  if (typeof v !== 'string' || !v.includes('@')) return v;
  const colon = v.indexOf(':');
  if (colon === -1) return v;
  let start = colon + 1;
  while (v[start] === '/' || v[start] === '\\') start++;
  let end = start;
  while (end < v.length && !AUTHORITY_ENDS.has(v[end]!)) end++;
  const at = v.lastIndexOf('@', end - 1);
  if (at < start) return hasUserInfo(v) ? HIDDEN_URL : v;
  return hasUserInfo(v.slice(0, start) + v.slice(at + 1)) ? HIDDEN_URL : `${v.slice(0, start)}[hidden]${v.slice(at)}`;
}

const AUTHORITY_ENDS: ReadonlySet<string> = new Set(['/', '\\', '?', '#']);
const HIDDEN_URL = '[a URL with a user or password, hidden]';

/** Whether a URL option carries a user or password (a secret in a URL ends up in logs and error messages). */
const hasUserInfo = (s: string) => {
  try {
    const { username, password } = new URL(s.replaceAll('{prefix}', 'prefix'));
    return username !== '' || password !== '';
  } catch {
    return false;
  }
};

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Levenshtein distance, case-insensitive, over two short names. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let prev = Array.from({ length: y.length + 1 }, (_, i) => i);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[y.length]!;
}

/**
 * The known name closest to `name` when it is close enough to be a typo: at most a third of its length in
 * edits (at least one, at most three). Names longer than 64 characters are never typos of ours.
 *
 * @example closest('secretkey', ['secretKey', 'publicKey']) // 'secretKey'
 */
export function closest(name: string, known: readonly string[]): string | undefined {
  if (name.length > 64) return undefined;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const d = distance(name, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.min(3, Math.max(1, Math.floor(name.length / 3))) ? best : undefined;
}

/** An integer option within a range, with the engine's message. */
export function integerOption(min: number, max: number) {
  const message = `must be an integer from ${min} to ${max}`;
  return z.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message });
}

/** A string option that matches `pattern` (one message for a wrong type and a wrong text). */
export function patternOption(pattern: RegExp, fix: string) {
  return z.string({ error: fix }).regex(pattern, { error: fix });
}

/** A boolean option. */
export const booleanOption = () => z.boolean({ error: 'must be a boolean' });

/** A function option; `what` describes its signature: "`(req) => string`". */
export function functionOption<T>(what: string) {
  return z.custom<T>((v) => typeof v === 'function', { error: `must be a function ${what}` });
}

/**
 * An object option with these methods (a logger, a store, a client). `fix` says what it must be
 * ("must implement TesseraStore"); the methods follow it, and the missing ones when some are there. An `optional`
 * method may be absent, but when given it must be a function.
 */
export function methodsOption<T>(methods: readonly string[], fix: string, optional: readonly string[] = []) {
  return z.custom<T>().superRefine((v, ctx) => {
    const object = v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
    const missing = object ? methods.filter((m) => typeof object[m] !== 'function') : methods;
    if (missing.length > 0) {
      const partial = missing.length < methods.length ? `; missing ${missing.join(', ')}` : '';
      ctx.addIssue({ code: 'custom', message: `${fix} (${methods.join(', ')})${partial}` });
    }
    // An optional method given as something else is a mistake too: ignoring it would hide it.
    for (const m of optional) {
      if (object && object[m] !== undefined && typeof object[m] !== 'function') {
        ctx.addIssue({ code: 'custom', message: `${fix}: its optional \`${m}\` must be a method when given` });
      }
    }
  });
}

/** A pino-compatible logger: the helper's and the clients' `logger` option. */
export function loggerOption<T>() {
  return methodsOption<T>(['debug', 'info', 'warn', 'error'], 'must be a pino-compatible logger with the methods');
}

/** An `https:` URL, or `http:` to loopback only (shared/url.ts): every URL a secret or card data may travel to. */
export function secureUrlOption(example: string) {
  return z
    .string({ error: `must be an https:// URL such as ${JSON.stringify(example)}` })
    .refine((s) => secureUrl(s) !== undefined, {
      error: `must be an https:// URL (http:// only to loopback) such as ${JSON.stringify(example)}`,
    })
    .refine((s) => !hasUserInfo(s), { error: 'must not carry a user or password (pass credentials as options)' });
}

/** A base-URL template in which `{prefix}` stands for the client id's host prefix; https (or http to loopback). */
export function urlTemplateOption(example: string) {
  return z
    .string({ error: `must be an https:// URL template such as ${JSON.stringify(example)}` })
    .refine((s) => secureUrl(s.replaceAll('{prefix}', 'prefix')) !== undefined, {
      error: `must be an https:// URL template (http:// only to loopback) such as ${JSON.stringify(example)}`,
    })
    .refine((s) => !hasUserInfo(s), { error: 'must not carry a user or password (pass credentials as options)' });
}

/** An origin: scheme, host and optional port, nothing else (`https://shop.example`). */
export function originOption() {
  return z.string({ error: 'must be an origin string' }).refine(
    (s) => {
      try {
        return new URL(s).origin === s;
      } catch {
        return false;
      }
    },
    { error: 'must be an origin such as "https://shop.example" (scheme, host, optional port; no path)' },
  );
}

/** One of fixed string values, with a message that says them (`must be "json" or "xml"`). */
export function oneOfOption<const T extends readonly [string, ...string[]]>(values: T, message?: string) {
  const said = values.map((v) => JSON.stringify(v));
  const text =
    message ?? `must be ${said.length === 1 ? said[0] : `${said.slice(0, -1).join(', ')} or ${said.at(-1)}`}`;
  return z.enum(values, { error: text });
}

/** The names of the options a schema at `path` of the shape accepts (for "Did you mean"), through optional/union. */
function namesAt(shape: OptionShape, path: readonly PropertyKey[]): string[] {
  let names = Object.keys(shape);
  let current: z.ZodType | undefined;
  for (const key of path) {
    if (typeof key !== 'string') continue;
    current = current === undefined ? shape[key] : objectOf(current)?.shape[key];
    const object = current === undefined ? undefined : objectOf(current);
    names = object ? Object.keys(object.shape) : [];
  }
  return names;
}

function objectOf(schema: z.ZodType): z.ZodObject | undefined {
  let s: z.ZodType = schema;
  for (let i = 0; i < 8; i++) {
    if (s instanceof z.ZodObject) return s;
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) {
      s = s.unwrap() as z.ZodType;
    } else if (s instanceof z.ZodUnion) {
      const object = (s.options as z.ZodType[]).find((o) => objectOf(o) !== undefined);
      return object === undefined ? undefined : objectOf(object);
    } else return undefined;
  }
  return undefined;
}

/** The fix for one zod issue, phrased as "must …" (a schema's own message wins); also for request bodies. */
export function fixOf(issue: z.core.$ZodIssue): string {
  if (!/^(Invalid|Too (small|big)|Expected)\b/.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'too_small':
      return issue.origin === 'array' || issue.origin === 'string'
        ? `must have at least ${issue.minimum} ${issue.origin === 'array' ? 'entries' : 'characters'}`
        : `must be at least ${issue.minimum}`;
    case 'too_big':
      return issue.origin === 'array' || issue.origin === 'string'
        ? `must have at most ${issue.maximum} ${issue.origin === 'array' ? 'entries' : 'characters'}`
        : `must be at most ${issue.maximum}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_type':
      return `must be ${issue.expected === 'array' || issue.expected === 'object' ? `an ${issue.expected}` : `a ${issue.expected}`}`;
    default:
      return issue.message;
  }
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const k of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/**
 * Checks a factory's options against `shape`: unknown names (at any depth) with "Did you mean", every option's
 * schema, then `rules.across`. Throws one TypeError listing every problem; answers the checked options.
 *
 * @example
 * const options = checkOptions('createLegacyClient', input, { format: oneOfOption(['json', 'xml']).optional() });
 */
export function checkOptions<S extends OptionShape>(
  factory: string,
  options: unknown,
  shape: S,
  rules: OptionRules<CheckedOptions<S>> = {},
): CheckedOptions<S> {
  const secrets = new Set(rules.secrets ?? []);
  const usage = rules.usage ?? `${factory}({ … })`;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(
      `${factory}: expected an options object, got ${show(options)}; call it with options, e.g. \`${usage}\``,
    );
  }
  const lines: string[] = [];
  const result = z.strictObject(shape).safeParse(options);
  if (!result.success) {
    for (const issue of result.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        const parent = issue.path.map(String);
        const known = namesAt(shape, issue.path);
        for (const key of issue.keys) {
          const guess = closest(key, known);
          const name = [...parent, key].join('.');
          lines.push(
            `unknown option \`${name}\`.${guess ? ` Did you mean \`${[...parent, guess].join('.')}\`?` : ` Known options: ${known.join(', ')}.`}`,
          );
        }
        continue;
      }
      const name = issue.path.map(String).join('.');
      const last = String(issue.path.at(-1) ?? '');
      lines.push(
        `option \`${name}\` ${fixOf(issue)}; got ${show(valueAt(options, issue.path), secrets.has(last), secrets)}`,
      );
    }
  } else if (rules.across) {
    rules.across(result.data, (fix, option) => {
      if (option === undefined) lines.push(fix);
      else {
        const value = valueAt(options, option.split('.'));
        lines.push(`option \`${option}\` ${fix}; got ${show(value, secrets.has(option.split('.').at(-1)!), secrets)}`);
      }
    });
  }
  if (lines.length > 0) throw new TypeError(`${factory}: ${lines.join('\n  ')}`);
  return (result as { data: CheckedOptions<S> }).data;
}
