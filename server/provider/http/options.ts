import type { Dispatcher } from 'undici';
import { z } from 'zod';
import {
  booleanOption,
  integerOption,
  loggerOption,
  type OptionShape,
  patternOption,
  type ReportProblem,
} from '../../common/options.js';
import type { ProviderLogger } from '../log.js';
import {
  AnswerBudget,
  DEFAULT_RESPONSE_BUDGET_BYTES,
  MAX_RESPONSE_BUDGET_BYTES,
  MAX_RESPONSE_BYTES,
} from './answer-budget.js';
import { createAgent } from './connector.js';

/**
 * Options every client shares: timeouts, retries, the idempotency header, the undici dispatcher and logging.
 * Defaults are in {@link HTTP_DEFAULTS}; see docs/decisions/provider.md#client-timeouts and #client-retries.
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
  /** A pino-compatible logger; every line is redacted (docs/decisions/provider.md#client-logging). */
  readonly logger?: ProviderLogger;
  /** Also log request and response bodies (redacted) at debug level. Default false. */
  readonly logBodies?: boolean;
  /** `User-Agent` sent with every request. Default `tessera/<version>`. */
  readonly userAgent?: string;
  /**
   * The most answer bytes the client holds at once, all its calls together, from 4 MiB (the largest answer it reads)
   * to 4 GiB. A call whose answer would pass it is not read: `ResponseBudgetError`, retried where safe. Default
   * 64 MiB (docs/decisions/provider.md#answer-budget).
   */
  readonly responseBudgetBytes?: number;
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
  responseBudgetBytes: DEFAULT_RESPONSE_BUDGET_BYTES,
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
  /** The answer bytes the client holds now and may hold at once (`responseBudgetBytes`), shared by all its calls. */
  readonly answerBudget: AnswerBudget;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const RESERVED_HEADERS = ['authorization', 'content-type', 'accept', 'if-match', 'host', 'content-length'];

/** The schemas of {@link HttpOptions}, for every client factory's option shape (server/common/options.ts). */
export const httpOptionShape = {
  timeoutMs: integerOption(1, 600_000).optional(),
  connectTimeoutMs: integerOption(1, 600_000).optional(),
  maxRetries: integerOption(0, 10).optional(),
  retryBaseMs: integerOption(0, 60_000).optional(),
  retryMaxMs: integerOption(0, 300_000).optional(),
  idempotencyHeader: patternOption(HEADER_NAME, 'must be an HTTP header name')
    .refine((h) => !RESERVED_HEADERS.includes(h.toLowerCase()), { error: 'must not be a header the client sets' })
    .optional(),
  dispatcher: z
    .custom<Dispatcher>((v) => v !== null && typeof (v as Dispatcher | undefined)?.dispatch === 'function', {
      error: 'must be an undici Dispatcher (e.g. `new ProxyAgent(url)` from undici)',
    })
    .optional(),
  logger: loggerOption<ProviderLogger>().optional(),
  logBodies: booleanOption().optional(),
  // What undici sends as a header value, printable ASCII: a control or non-Latin-1 character passed this check before
  // and had every call refused at dispatch.
  userAgent: patternOption(/^[\x20-\x7e]+$/, 'must be printable ASCII on one line').optional(),
  // At least the largest answer the client reads, so that any answer it would read alone can be read.
  responseBudgetBytes: integerOption(MAX_RESPONSE_BYTES, MAX_RESPONSE_BUDGET_BYTES).optional(),
} satisfies OptionShape;

/** The rule between the HTTP options: the backoff cap is not below its base. */
export function httpAcross(o: HttpOptions, problem: ReportProblem): void {
  const base = o.retryBaseMs ?? HTTP_DEFAULTS.retryBaseMs;
  if ((o.retryMaxMs ?? HTTP_DEFAULTS.retryMaxMs) < base)
    problem(`must be at least retryBaseMs (${base})`, 'retryMaxMs');
}

/** The complete HTTP settings of one client, from options that {@link httpOptionShape} checked. */
export function httpConfig(options: HttpOptions): HttpConfig {
  const connectTimeoutMs = options.connectTimeoutMs ?? HTTP_DEFAULTS.connectTimeoutMs;
  return {
    timeoutMs: options.timeoutMs ?? HTTP_DEFAULTS.timeoutMs,
    connectTimeoutMs,
    maxRetries: options.maxRetries ?? HTTP_DEFAULTS.maxRetries,
    retryBaseMs: options.retryBaseMs ?? HTTP_DEFAULTS.retryBaseMs,
    retryMaxMs: options.retryMaxMs ?? HTTP_DEFAULTS.retryMaxMs,
    idempotencyHeader: options.idempotencyHeader ?? HTTP_DEFAULTS.idempotencyHeader,
    dispatcher: options.dispatcher ?? createAgent(connectTimeoutMs),
    ownsDispatcher: options.dispatcher === undefined,
    logger: options.logger,
    logBodies: options.logBodies ?? HTTP_DEFAULTS.logBodies,
    userAgent: options.userAgent ?? HTTP_DEFAULTS.userAgent,
    answerBudget: new AnswerBudget(options.responseBudgetBytes ?? HTTP_DEFAULTS.responseBudgetBytes),
  };
}

const closed = new WeakSet<HttpConfig>();

/** Closes the client's built-in connection pool once (a dispatcher passed in is the caller's to close). */
export async function closeDispatcher(config: HttpConfig): Promise<void> {
  if (!config.ownsDispatcher || closed.has(config)) return;
  closed.add(config);
  await config.dispatcher.close();
}
