import type { Dispatcher } from 'undici';
import type { ProviderLogger } from '../log.js';
import { createAgent } from './connector.js';

/**
 * Options every client shares: timeouts, retries, the idempotency header, the undici dispatcher and logging.
 * Defaults are in {@link HTTP_DEFAULTS}; see docs/DECISIONS.md#client-timeouts and #client-retries.
 */
export interface HttpOptions {
  /** Total time for one attempt, from sending to the last byte of the body (a stalled body counts). Default 30 000 ms. */
  readonly timeoutMs?: number;
  /** Time to open the TCP (and TLS) connection. Default 5 000 ms. Applies to the built-in dispatcher only. */
  readonly connectTimeoutMs?: number;
  /** Retries after the first attempt, only where safe (GET, PUT with If-Match, a request with an idempotency key). Default 2. */
  readonly maxRetries?: number;
  /** Backoff base: attempt n waits a random time in [d/2, d] with d = min(retryMaxMs, retryBaseMs·2ⁿ). Default 500 ms. */
  readonly retryBaseMs?: number;
  /** Backoff cap. Default 5 000 ms. */
  readonly retryMaxMs?: number;
  /** Name of the idempotency header (DESIGN.md: configurable). Default `Idempotency-Key`. */
  readonly idempotencyHeader?: string;
  /** An undici dispatcher (e.g. `new ProxyAgent(url)`) used for every request instead of the built-in one. */
  readonly dispatcher?: Dispatcher;
  /** A pino-compatible logger; every line is redacted (docs/DECISIONS.md#client-logging). */
  readonly logger?: ProviderLogger;
  /** Also log request and response bodies (redacted) at debug level. Default false. */
  readonly logBodies?: boolean;
  /** `User-Agent` sent with every request. Default `tessera/<version>`. */
  readonly userAgent?: string;
}

export const HTTP_DEFAULTS = Object.freeze({
  timeoutMs: 30_000,
  connectTimeoutMs: 5_000,
  maxRetries: 2,
  retryBaseMs: 500,
  retryMaxMs: 5_000,
  idempotencyHeader: 'Idempotency-Key',
  logBodies: false,
  userAgent: 'tessera/0.1',
});

/** Validated, complete HTTP settings of one client. */
export interface HttpConfig {
  readonly timeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly maxRetries: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  readonly idempotencyHeader: string;
  readonly dispatcher: Dispatcher;
  /** True when the client created the dispatcher (and closes it in `close()`). */
  readonly ownsDispatcher: boolean;
  readonly logger: ProviderLogger | undefined;
  readonly logBodies: boolean;
  readonly userAgent: string;
}

export const HTTP_OPTION_NAMES: readonly (keyof HttpOptions)[] = [
  'timeoutMs',
  'connectTimeoutMs',
  'maxRetries',
  'retryBaseMs',
  'retryMaxMs',
  'idempotencyHeader',
  'dispatcher',
  'logger',
  'logBodies',
  'userAgent',
];

/** Throws the TypeError every factory uses: option name, the bad value, the fix (STYLE.md). */
export function optionError(factory: string, option: string, shown: string, fix: string): TypeError {
  return new TypeError(`${factory}: option \`${option}\` ${fix}; got ${shown}`);
}

/** The value as a message may show it: JSON for ordinary values, never the content of a secret. */
export function show(value: unknown, secret = false): string {
  if (secret) return typeof value === 'string' ? `a string of ${value.length} characters` : typeOf(value);
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint') return `${value}n`;
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return String(value);
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  } catch {
    return typeOf(value);
  }
}

function typeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/** Closest name within edit distance 2, for "Did you mean …?". */
export function closest(name: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  const lower = name.toLowerCase();
  for (const candidate of names) {
    const d = distance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = current;
    }
  }
  return row[b.length]!;
}

/**
 * Checks the options object itself and every key in it against the known names, so a typo
 * (`secretkey`) fails at construction instead of being ignored.
 */
export function checkOptionsObject(factory: string, options: unknown, known: readonly string[]): void {
  if (typeof options === 'function') {
    throw new TypeError(
      `${factory}: expected an options object, got a function. Call the factory: \`${factory}({ … })\``,
    );
  }
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${factory}: expected an options object, got ${show(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const guess = closest(key, known);
    throw new TypeError(
      `${factory}: unknown option \`${key}\`.${guess ? ` Did you mean \`${guess}\`?` : ` Known options: ${known.join(', ')}.`}`,
    );
  }
}

function integer(factory: string, name: string, value: unknown, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw optionError(factory, name, show(value), `must be an integer from ${min} to ${max}`);
  }
  return value;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Validates the shared HTTP options once, at construction. */
export function httpConfig(factory: string, options: HttpOptions): HttpConfig {
  const timeoutMs = integer(factory, 'timeoutMs', options.timeoutMs, 1, 600_000, HTTP_DEFAULTS.timeoutMs);
  const connectTimeoutMs = integer(
    factory,
    'connectTimeoutMs',
    options.connectTimeoutMs,
    1,
    600_000,
    HTTP_DEFAULTS.connectTimeoutMs,
  );
  const maxRetries = integer(factory, 'maxRetries', options.maxRetries, 0, 10, HTTP_DEFAULTS.maxRetries);
  const retryBaseMs = integer(factory, 'retryBaseMs', options.retryBaseMs, 0, 60_000, HTTP_DEFAULTS.retryBaseMs);
  const retryMaxMs = integer(factory, 'retryMaxMs', options.retryMaxMs, 0, 300_000, HTTP_DEFAULTS.retryMaxMs);
  if (retryMaxMs < retryBaseMs) {
    throw optionError(factory, 'retryMaxMs', show(retryMaxMs), `must be at least retryBaseMs (${retryBaseMs})`);
  }
  const idempotencyHeader = options.idempotencyHeader ?? HTTP_DEFAULTS.idempotencyHeader;
  if (typeof idempotencyHeader !== 'string' || !HEADER_NAME.test(idempotencyHeader)) {
    throw optionError(factory, 'idempotencyHeader', show(idempotencyHeader), 'must be an HTTP header name');
  }
  const reserved = ['authorization', 'content-type', 'accept', 'if-match', 'host', 'content-length'];
  if (reserved.includes(idempotencyHeader.toLowerCase())) {
    throw optionError(factory, 'idempotencyHeader', show(idempotencyHeader), 'must not be a header the client sets');
  }
  const { dispatcher, logger } = options;
  if (dispatcher !== undefined && (dispatcher === null || typeof (dispatcher as Dispatcher).dispatch !== 'function')) {
    throw optionError(
      factory,
      'dispatcher',
      show(dispatcher),
      'must be an undici Dispatcher (e.g. `new ProxyAgent(url)` from undici)',
    );
  }
  if (logger !== undefined) {
    const missing = (['debug', 'info', 'warn', 'error'] as const).filter(
      (level) => typeof (logger as unknown as Record<string, unknown>)?.[level] !== 'function',
    );
    if (missing.length > 0) {
      throw optionError(
        factory,
        'logger',
        show(logger),
        `must have debug, info, warn and error methods (a pino logger works); missing ${missing.join(', ')}`,
      );
    }
  }
  if (options.logBodies !== undefined && typeof options.logBodies !== 'boolean') {
    throw optionError(factory, 'logBodies', show(options.logBodies), 'must be a boolean');
  }
  const userAgent = options.userAgent ?? HTTP_DEFAULTS.userAgent;
  if (typeof userAgent !== 'string' || userAgent.length === 0 || /[\r\n]/.test(userAgent)) {
    throw optionError(factory, 'userAgent', show(userAgent), 'must be a non-empty single-line string');
  }
  return {
    timeoutMs,
    connectTimeoutMs,
    maxRetries,
    retryBaseMs,
    retryMaxMs,
    idempotencyHeader,
    dispatcher: dispatcher ?? createAgent(connectTimeoutMs),
    ownsDispatcher: dispatcher === undefined,
    logger,
    logBodies: options.logBodies ?? HTTP_DEFAULTS.logBodies,
    userAgent,
  };
}

const closed = new WeakSet<HttpConfig>();

/** Closes the client's built-in connection pool once (a dispatcher passed in is the caller's to close). */
export async function closeDispatcher(config: HttpConfig): Promise<void> {
  if (!config.ownsDispatcher || closed.has(config)) return;
  closed.add(config);
  await config.dispatcher.close();
}
