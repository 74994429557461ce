import {
  AuthenticationError,
  ConflictError,
  NetworkError,
  PermissionError,
  ProviderError,
  ProviderServerError,
  RateLimitError,
  ResponseBudgetError,
  TimeoutError,
} from '../provider/errors.js';
import { MAX_RETRY_AFTER_MS } from '../provider/http/backoff.js';
import { TOKEN_OPERATION } from '../provider/oauth/token-source.js';
import { HelperHttpError } from './errors.js';

/** Whether `err` is the access-token request's: it carries nothing of the caller's request, whatever its status. */
export function isTokenRequestError(err: unknown): err is ProviderError {
  return err instanceof ProviderError && err.operation === TOKEN_OPERATION;
}

/**
 * The longest `Retry-After` the helper passes on to the browser: the longest the clients themselves wait for one.
 * The provider's own may be anything (`Infinity` from a 400-digit value, a date in the year 9999); the header the
 * shopper's page gets is a small whole number of seconds (docs/decisions/helper.md#helper-upstream).
 */
const MAX_RETRY_AFTER_S = MAX_RETRY_AFTER_MS / 1000;

/**
 * Maps a provider failure the route could not answer itself to 502/503/504,
 * always saying whether the outcome is known (docs/decisions/helper.md#helper-upstream):
 * - 504 `TESSERA_PROVIDER_TIMEOUT`: no complete answer in time;
 * - 503 `TESSERA_PROVIDER_UNAVAILABLE`: the provider said 503/429, could not be
 *   reached, another request with the same idempotency key is in flight, or its answer was not read because the
 *   client held too many answers at once (docs/decisions/provider.md#answer-budget);
 * - 502 `TESSERA_PROVIDER_ERROR`: any other failure (5xx, reset, a bad answer,
 *   refused credentials).
 * `outcomeKnown: false` means a charge may have been made: retrying with the same
 * card token is safe (same idempotency key) and answers the real result.
 *
 * `afterWrite`: `err` is from a call made after a write the provider accepted (an instrument read back after its
 * change, a 3-D Secure charge read after its 202), so the outcome is not "nothing was done" whatever that call's own
 * error says.
 */
export function upstreamError(err: unknown, afterWrite = false): HelperHttpError {
  if (err instanceof HelperHttpError) return err;
  if (!(err instanceof ProviderError)) {
    return new HelperHttpError(502, 'TESSERA_PROVIDER_ERROR', 'the payment provider could not be used', {
      outcomeKnown: false,
      cause: err,
    });
  }
  const known = err.outcomeKnown && !afterWrite;
  const tail = outcomeTail(known);
  if (err instanceof TimeoutError) return providerTimeout(known, err);
  const busy =
    err instanceof RateLimitError ||
    err instanceof ConflictError ||
    (err instanceof NetworkError && known) ||
    (err instanceof ProviderServerError && err.status === 503) ||
    err instanceof ResponseBudgetError;
  if (busy) {
    const retryAfter = String(
      err instanceof RateLimitError && err.retryAfter ? Math.min(Math.max(1, err.retryAfter), MAX_RETRY_AFTER_S) : 1,
    );
    return new HelperHttpError(503, 'TESSERA_PROVIDER_UNAVAILABLE', `the payment provider is unavailable: ${tail}`, {
      outcomeKnown: known,
      headers: { 'Retry-After': retryAfter },
      cause: err,
    });
  }
  // The access-token request refused (RFC 6749 §5.2 answers 400 as well as 401) is this server's credentials too; a 2xx
  // it could not read, a redirect or a 404 (an `authBaseUrl` that is not a token endpoint) is not a refusal.
  const tokenRefused = isTokenRequestError(err) && (err.status === 400 || err.status === 401 || err.status === 403);
  if (known && (err instanceof AuthenticationError || err instanceof PermissionError || tokenRefused)) {
    return new HelperHttpError(
      502,
      'TESSERA_PROVIDER_ERROR',
      'the payment provider refused this server’s credentials; nothing was done',
      { outcomeKnown: true, cause: err },
    );
  }
  return new HelperHttpError(502, 'TESSERA_PROVIDER_ERROR', `the payment provider failed: ${tail}`, {
    outcomeKnown: known,
    cause: err,
  });
}

/** What the shopper's page is told to do after an upstream failure, by whether its outcome is known. */
function outcomeTail(known: boolean): string {
  return known
    ? 'nothing was done; try again'
    : 'the outcome is unknown; send the same request again to learn it (it will not be done twice)';
}

/** 504 `TESSERA_PROVIDER_TIMEOUT`: the provider's answer (or all of a route's answers) did not come in time. */
export function providerTimeout(known: boolean, cause: unknown): HelperHttpError {
  return new HelperHttpError(
    504,
    'TESSERA_PROVIDER_TIMEOUT',
    `the payment provider did not answer in time: ${outcomeTail(known)}`,
    { outcomeKnown: known, cause },
  );
}
