import {
  InvalidResponseError,
  NetworkError,
  type ProviderError,
  ResponseBudgetError,
  TimeoutError,
} from '../errors.js';
import type { Exchange, HttpContext } from './exchange.js';
import {
  errorCodesOf,
  errorForStatus,
  header,
  headersObject,
  keptText,
  type ResponseHeaders,
  requestIdOf,
} from './response.js';
import { ResponseOverBudget, type ResponseTooLarge } from './round-trip.js';

// The failures of the HTTP core: a provider's error answer or a transport failure turned into the typed
// ProviderError that says whether the outcome is known (docs/decisions/provider.md#outcome-known).

// Errors raised before a byte of the request was sent: the outcome is known (nothing happened).
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_HAS_EXPIRED',
]);

/**
 * Where a call stands when an attempt fails: whether it is a read (or otherwise without effect), how many attempts
 * were made, and whether an earlier attempt of a write ended with its outcome unknown. Then whatever a later attempt
 * answers (a 412 because the first attempt's write changed the ETag, a refused connection) says nothing of that
 * earlier one, so the outcome stays unknown (docs/decisions/provider.md#outcome-known).
 */
export interface Attempted {
  readonly read: boolean;
  readonly attempts: number;
  readonly earlierUnknown: boolean;
}

/**
 * Whether undici refused the request before sending a byte of it (`UND_ERR_INVALID_ARG`: a header value it cannot
 * send, from a dispatcher's interceptor say). Nothing happened, and every new attempt would be refused the same, so
 * the core does not retry it.
 */
export function refusedBeforeSending(error: unknown): boolean {
  return causeCode(error) === 'UND_ERR_INVALID_ARG';
}

/** Raised by the core when one attempt ran out of time (body included). */
export class AttemptTimeout extends Error {}

/** The `code` of an error or of the first error in its cause chain (undici nests them). */
function causeCode(error: unknown): string | undefined {
  let e = error as { code?: unknown; cause?: unknown; errors?: unknown[] } | undefined;
  for (let i = 0; e && i < 5; i++) {
    if (typeof e.code === 'string') return e.code;
    if (Array.isArray(e.errors) && e.errors.length > 0) e = e.errors[0] as typeof e;
    else e = e.cause as typeof e;
  }
  return undefined;
}

/** An error answer's body, decoded where it can be (else its text, cut), through the client's redactor. */
function errorBodyOf(http: HttpContext, ex: Exchange, text: string, contentType: string | null): unknown {
  if (text.length === 0) return undefined;
  let decoded: unknown;
  try {
    decoded = ex.decode(text, contentType);
  } catch {
    return keptText(text, http.redact);
  }
  return http.redact(decoded);
}

function inFlight(body: unknown): boolean {
  const b = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const codes = [b.errorCode, b.error_type, ...errorCodesOf(b)];
  return codes.some((c) => typeof c === 'string' && /idempotency|in_flight|in_progress/i.test(c));
}

/** The ProviderError for a provider's error answer (any status from 400), with its request id and body. */
export function responseError(
  http: HttpContext,
  ex: Exchange,
  status: number,
  headers: ResponseHeaders,
  text: string,
  at: Attempted & { requestId: string | undefined },
): ProviderError {
  // Redacted: a request id from the body, like the body, may be an echo of the request.
  const body = errorBodyOf(http, ex, text, header(headers, 'content-type') ?? null);
  const fields = body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined;
  const requestId =
    at.requestId ?? requestIdOf(fields?.requestId, http.redact) ?? requestIdOf(fields?.request_id, http.redact);
  const etag = header(headers, 'etag');
  return errorForStatus(
    status,
    body,
    {
      requestId,
      headers: headersObject(headers, http.redact),
      ...(etag ? { etag: http.redact.text(etag) } : {}),
      // A 4xx means the provider refused the request; a 5xx on a write may come after the effect. A 409 on a
      // keyed write can mean "the first request with this key is still running" (IETF idempotency draft):
      // unknown too. So is a 3xx: the provider's APIs never redirect, and a 303 is how HTTP answers a POST that was
      // carried out elsewhere (docs/decisions/provider.md#outcome-known).
      outcomeKnown:
        at.read ||
        (!at.earlierUnknown &&
          status >= 400 &&
          status < 500 &&
          !(status === 409 && ex.idempotencyKey !== undefined && inFlight(body))),
      operation: ex.operation,
      attempts: at.attempts,
      ...(ex.idempotencyKey ? { idempotencyKey: ex.idempotencyKey } : {}),
    },
    header(headers, 'retry-after'),
  );
}

/** The ProviderError for a failure below HTTP: a timeout, a refused or reset connection. */
export function transportError(http: HttpContext, ex: Exchange, error: unknown, at: Attempted): ProviderError {
  const common = {
    operation: ex.operation,
    attempts: at.attempts,
    ...(ex.idempotencyKey ? { idempotencyKey: ex.idempotencyKey } : {}),
  };
  const code = causeCode(error);
  if (error instanceof AttemptTimeout) {
    return new TimeoutError(`${ex.operation} got no complete answer within ${http.config.timeoutMs} ms`, {
      ...common,
      outcomeKnown: at.read,
      phase: 'response',
      timeoutMs: http.config.timeoutMs,
    });
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new TimeoutError(`${ex.operation} could not connect within ${http.config.connectTimeoutMs} ms`, {
      ...common,
      outcomeKnown: at.read || !at.earlierUnknown,
      phase: 'connect',
      timeoutMs: http.config.connectTimeoutMs,
      cause: error,
    });
  }
  if (code === 'UND_ERR_INVALID_ARG') {
    const reason = error instanceof Error ? `: ${http.redact.text(error.message)}` : '';
    return new NetworkError(`${ex.operation} was not sent: the HTTP client refused the request (${code})${reason}`, {
      ...common,
      outcomeKnown: at.read || !at.earlierUnknown,
      cause: error,
    });
  }
  const connectFailed = code !== undefined && CONNECT_CODES.has(code);
  return new NetworkError(
    `${ex.operation} failed: ${connectFailed ? 'could not connect' : 'the connection failed before a complete answer'}${code ? ` (${code})` : ''}`,
    { ...common, outcomeKnown: at.read || (!at.earlierUnknown && connectFailed), cause: error },
  );
}

/**
 * The ProviderError for an answer the core did not read: larger than the largest answer it reads
 * (`InvalidResponseError`), or more than the client's answers may hold at once (`ResponseBudgetError`). The provider
 * answered, so a 4xx says that nothing happened, but for a 409 to a keyed write (the first request with its key may
 * still be running, which only the unread body would tell); any other status of a write leaves the outcome unknown
 * (docs/decisions/provider.md#answer-budget).
 */
export function refusedAnswerError(
  http: HttpContext,
  ex: Exchange,
  refused: ResponseTooLarge | ResponseOverBudget,
  at: Attempted,
): ProviderError {
  const details = {
    status: refused.status,
    requestId: requestIdOf(header(refused.headers, 'svc-request-id'), http.redact),
    headers: headersObject(refused.headers, http.redact),
    // A 409 to a keyed write may say that the first request with its key is still running (#outcome-known); its body,
    // which would tell, is not read.
    outcomeKnown:
      at.read ||
      (!at.earlierUnknown &&
        refused.status >= 400 &&
        refused.status < 500 &&
        !(refused.status === 409 && ex.idempotencyKey !== undefined)),
    operation: ex.operation,
    attempts: at.attempts,
    ...(ex.idempotencyKey ? { idempotencyKey: ex.idempotencyKey } : {}),
  };
  return refused instanceof ResponseOverBudget
    ? new ResponseBudgetError(`${ex.operation} answered HTTP ${refused.status}, not read: ${refused.message}`, {
        ...details,
        budgetBytes: refused.limit,
      })
    : new InvalidResponseError(`${ex.operation} answered with ${refused.message}`, details);
}
