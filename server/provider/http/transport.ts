import { errorLineTarget } from '../../common/logged-error.js';
import { XmlCodecError } from '../codec/xml.js';
import { InvalidResponseError, type ProviderError } from '../errors.js';
import { AttemptAbort } from './attempt-abort.js';
import { backoffDelay, MAX_RETRY_AFTER_MS, parseRetryAfter, sleep } from './backoff.js';
import type { Exchange, HttpContext } from './exchange.js';
import { AttemptTimeout, refusedAnswerError, refusedBeforeSending, responseError, transportError } from './failure.js';
import type { HttpConfig } from './options.js';
import { header, headersObject, keptText, type ResponseHeaders, requestIdOf } from './response.js';
import type { ProviderResult } from './result.js';
import { type Outgoing, ResponseOverBudget, ResponseTooLarge, roundTrip } from './round-trip.js';

export type { Credential, Exchange, HttpContext } from './exchange.js';

/**
 * The HTTP core every client sends through: one undici dispatch per attempt (not `fetch`, not `request`: less CPU
 * per call; docs/decisions/provider.md#transport) under a total timeout that covers the body, typed errors, request
 * ids, the one-refresh-after-401 rule and safe retries (docs/decisions/provider.md#client-retries, #client-timeouts).
 */

const RETRY_STATUSES = new Set([429, 502, 503, 504]);
/**
 * GET, PUT with If-Match, any request carrying an idempotency key, or one without effect
 * (docs/decisions/provider.md#client-retries).
 */
export function isRetrySafe(ex: Exchange): boolean {
  if (ex.effectFree) return true;
  return ex.method === 'GET' || ex.idempotencyKey !== undefined || (ex.method === 'PUT' && 'If-Match' in ex.headers);
}

/** Sends `ex`, retrying where safe, and returns the decoded result or throws a {@link ProviderError}. */
export async function send<T>(http: HttpContext, ex: Exchange): Promise<ProviderResult<T>> {
  const { config } = http;
  const { logger } = config;
  const safe = isRetrySafe(ex);
  // What a failure tells of the outcome: a read, or a request without effect, changed nothing.
  const read = ex.method === 'GET' || ex.effectFree === true;
  const headers: Record<string, string> = { 'User-Agent': config.userAgent, ...ex.headers };
  if (ex.idempotencyKey !== undefined) headers[config.idempotencyHeader] = ex.idempotencyKey;
  const target = new URL(ex.url);
  const out: Outgoing = {
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
    method: ex.method,
    headers,
    body: ex.body,
  };
  let renewed = false;
  let retries = 0;
  let attempts = 0;
  /** Whether an attempt already retried may have acted (a write that failed with its outcome unknown). */
  let earlierUnknown = false;
  for (;;) {
    attempts++;
    let authorization: string | undefined;
    if (ex.credential) {
      const value = ex.credential.authorization(ex.signal);
      // A key is a plain string: no await (one turn of the microtask queue per call) unless it is a token source's.
      authorization = typeof value === 'string' ? value : await value;
      headers.Authorization = authorization;
    }
    const started = performance.now();
    if (logger) {
      logger.debug(
        {
          event: 'provider.request',
          operation: ex.operation,
          attempt: attempts,
          ...(ex.idempotencyKey ? { idempotencyKey: ex.idempotencyKey } : {}),
          ...(config.logBodies && ex.logBody !== undefined ? { body: http.redact(ex.logBody) } : {}),
        },
        'provider request',
      );
    }

    // One abort handle per attempt: the timer covers headers AND body; the caller's signal is forwarded.
    const stop = new AttemptAbort();
    const timer = setTimeout(() => stop.abort(new AttemptTimeout()), config.timeoutMs);
    const forward = ex.signal ? () => stop.abort(ex.signal?.reason) : undefined;
    if (forward) {
      if (ex.signal!.aborted) forward();
      else ex.signal!.addEventListener('abort', forward, { once: true });
    }
    let status: number;
    let resHeaders: ResponseHeaders;
    let text: string;
    try {
      ({ status, headers: resHeaders, text } = await roundTrip(config.dispatcher, out, stop, config.answerBudget));
    } catch (caught) {
      if (ex.signal?.aborted) throw ex.signal.reason;
      // Taken from the attempt's stop, so a wrapped error cannot hide the timeout.
      const error = stop.reason instanceof AttemptTimeout ? stop.reason : caught;
      const at = { read, attempts, earlierUnknown };
      let failure: ProviderError;
      let retryable: boolean;
      if (error instanceof ResponseTooLarge || error instanceof ResponseOverBudget) {
        failure = refusedAnswerError(http, ex, error, at);
        // An answer too large comes back the same; one over the budget is refused for the others being read, which
        // end: it is worth another attempt where one is safe (docs/decisions/provider.md#answer-budget).
        retryable = error instanceof ResponseOverBudget;
      } else {
        failure = transportError(http, ex, error, at);
        retryable = !refusedBeforeSending(error);
      }
      const canRetry = safe && retryable && retries < config.maxRetries;
      if (logger) logFailure(http, ex, failure, attempts, canRetry);
      if (!canRetry) throw failure;
      if (!failure.outcomeKnown) earlierUnknown = true;
      // The attempt is over: its listener goes before the wait adds one, so a signal shared by many calls (the
      // helper's list reads 8 at once) holds one listener per call, not two (Node warns of a leak past 10).
      if (forward) ex.signal!.removeEventListener('abort', forward);
      await sleep(backoffDelay(retries++, config.retryBaseMs, config.retryMaxMs, http.random), ex.signal);
      continue;
    } finally {
      clearTimeout(timer);
      if (forward) ex.signal!.removeEventListener('abort', forward);
    }

    const requestId = requestIdOf(header(resHeaders, 'svc-request-id'), http.redact);
    if (logger) {
      logger.debug(
        {
          event: 'provider.response',
          operation: ex.operation,
          attempt: attempts,
          status,
          requestId,
          durationMs: Math.round(performance.now() - started),
        },
        'provider response',
      );
    }

    if (status >= 200 && status < 300) {
      let data: unknown;
      try {
        data = text.length === 0 ? undefined : ex.decode(text, header(resHeaders, 'content-type') ?? null);
      } catch (thrown) {
        const { reason, cause } = undecodable(thrown, http);
        throw new InvalidResponseError(
          `${ex.operation} answered HTTP ${status} with a body that could not be read: ${reason}`,
          {
            status,
            requestId,
            headers: headersObject(resHeaders, http.redact),
            body: keptText(text, http.redact),
            outcomeKnown: read,
            operation: ex.operation,
            attempts,
            cause,
            ...(ex.idempotencyKey ? { idempotencyKey: ex.idempotencyKey } : {}),
          },
        );
      }
      if (config.logBodies && logger) {
        logger.debug(
          { event: 'provider.response.body', operation: ex.operation, body: http.redact(data) },
          'provider response body',
        );
      }
      return {
        data: data as T,
        status,
        requestId,
        version: header(resHeaders, 'svc-version'),
        etag: header(resHeaders, 'etag'),
        idempotencyKey: ex.idempotencyKey,
      };
    }

    // A refused credential: renew once (a fresh access token) and send again, whatever the method:
    // a 401 means the request had no effect.
    if (status === 401 && !renewed && authorization !== undefined && ex.credential?.renew) {
      renewed = true;
      // Under the caller's signal: its abort ends the wait for the new token too, with its reason.
      if (await ex.credential.renew(authorization, ex.signal)) {
        if (logger) logger.info({ event: 'provider.retry', operation: ex.operation, reason: 'renewed credential' });
        continue;
      }
    }

    const error = responseError(http, ex, status, resHeaders, text, { read, attempts, requestId, earlierUnknown });
    if (safe && retries < config.maxRetries && RETRY_STATUSES.has(status)) {
      const delay = retryDelay(header(resHeaders, 'retry-after') ?? null, retries, config, http.random);
      if (delay !== undefined) {
        retries++;
        if (!error.outcomeKnown) earlierUnknown = true;
        if (logger) logFailure(http, ex, error, attempts, true, delay);
        await sleep(delay, ex.signal);
        continue;
      }
    }
    if (logger) logFailure(http, ex, error, attempts, false);
    throw error;
  }
}

/**
 * Why a body could not be decoded, and the `cause` its error carries, in words that quote nothing of the body.
 * `JSON.parse`'s message quotes the text around the fault (`"{"a": sk_test_ho"... is not valid JSON`): a piece of an
 * echoed secret or card number that no redactor can recognise, in the error's message and in its cause's message and
 * stack. Its position is kept. The XML codec's messages quote at most a name the body gives (the encoding it declares,
 * a key's path): the cause is a copy of its error with message and field redacted, never the error as thrown, whose
 * message and stack pino's serializer and util.inspect write whole (docs/decisions/provider.md#answer-text).
 */
function undecodable(thrown: unknown, http: HttpContext): { reason: string; cause: Error } {
  if (thrown instanceof SyntaxError) {
    const position = /at position (\d+)/.exec(thrown.message)?.[1];
    const cause = new SyntaxError(`the body is not valid JSON${position ? ` (at position ${position})` : ''}`);
    return { reason: cause.message, cause };
  }
  const reason = http.redact.text(thrown instanceof Error ? thrown.message : String(thrown));
  if (thrown instanceof XmlCodecError) {
    const field = thrown.field === undefined ? undefined : http.redact.text(thrown.field);
    return { reason, cause: new XmlCodecError(thrown.code, reason, field) };
  }
  return { reason, cause: new Error(reason) };
}

/**
 * Wait before retry number `retry` after a retryable status: the backoff, or the provider's `Retry-After` when that
 * is longer; `undefined` (do not retry) when `Retry-After` asks for more than {@link MAX_RETRY_AFTER_MS} or than
 * one attempt may last (`timeoutMs`): a caller who gives an attempt 10 s is not kept waiting a minute between two
 * (docs/decisions/provider.md#client-retries).
 */
export function retryDelay(
  retryAfter: string | null,
  retry: number,
  config: Pick<HttpConfig, 'retryBaseMs' | 'retryMaxMs' | 'timeoutMs'>,
  random?: () => number,
  nowMs?: number,
): number | undefined {
  const asked = parseRetryAfter(retryAfter, nowMs);
  if (asked !== undefined && asked > Math.min(MAX_RETRY_AFTER_MS, config.timeoutMs)) return undefined;
  return Math.max(asked ?? 0, backoffDelay(retry, config.retryBaseMs, config.retryMaxMs, random));
}

function logFailure(
  http: HttpContext,
  ex: Exchange,
  error: ProviderError,
  attempt: number,
  retrying: boolean,
  delayMs?: number,
): void {
  const entry = {
    event: retrying ? 'provider.retry' : 'provider.error',
    operation: ex.operation,
    attempt,
    code: error.code,
    status: error.status,
    requestId: error.requestId,
    outcomeKnown: error.outcomeKnown,
    ...(delayMs !== undefined ? { delayMs } : {}),
    message: error.message,
    // Its class, fields, stack and causes (undici's `ECONNRESET` under a failed connection), redacted: the shape of
    // every error line (docs/helper.md#log-events). Failures only: a call that succeeds builds none of it.
    err: http.redact.error(error),
  };
  const { logger } = http.config;
  if (logger) errorLineTarget(logger, ['err']).warn(entry, retrying ? 'provider retry' : 'provider error');
}
