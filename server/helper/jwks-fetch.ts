import type { FetchImplementation } from 'jose';

/**
 * Largest JWKS the helper reads: 256 KiB. A real set is a few KB (a handful of keys; an `x5c` certificate adds one or
 * two KB a key); one over the cap is the issuer's fault like any other unreadable set, a 503. Past it the connection
 * is closed at once, so an endpoint streaming megabytes within `jwksTimeoutMs` costs neither memory nor parsing
 * (docs/decisions/helper.md#helper-host-jwt).
 */
export const JWKS_MAX_BYTES = 256 * 1024;

/** A JWKS body over {@link JWKS_MAX_BYTES}, announced or counted. */
export class JwksTooLarge extends Error {
  constructor() {
    super(`the JWKS is larger than ${JWKS_MAX_BYTES} bytes`);
    this.name = 'JwksTooLarge';
  }
}

/**
 * How long jose answers from a loaded JWKS without fetching it again (its `cacheMaxAge`, passed explicitly so it cannot
 * drift from its default): 10 minutes. Past it the set is stale, and `hostAuth.jwksStaleIfErrorSeconds` counts from
 * there, as RFC 5861's `stale-if-error` does (docs/decisions/helper.md#helper-jwks-stale-if-error).
 */
export const JWKS_CACHE_MAX_AGE_MS = 10 * 60_000;

/**
 * How long after the second failed JWKS lookup in a row (the issuer's fault: unreachable, slow, not 200, not a key set)
 * no new fetch is made: jose keeps no cooldown after a failed fetch, so every request that needed the set (each one
 * while none was ever loaded, each unknown `kid`) fetched it again. One failure alone is a blip, after which the next
 * request fetches again (docs/decisions/helper.md#helper-host-jwt).
 */
export const JWKS_RETRY_MS = 5_000;

/** A JWKS fetch not made: the last lookup failed, the second in a row, less than {@link JWKS_RETRY_MS} ago. */
export class JwksRetryLater extends Error {
  constructor() {
    super(`the JWKS could not be read less than ${JWKS_RETRY_MS} ms ago; not fetched again yet`);
    this.name = 'JwksRetryLater';
  }
}

/**
 * jose's `customFetch` for the host-auth JWKS: jose's own request through `fetch` (its headers only, no redirect
 * followed, its timeout signal), with the body of a 200 read up to {@link JWKS_MAX_BYTES}. A `Content-Length` over the
 * cap is refused before the body is read; a body that grows past it is cut off there; either way the exchange is
 * aborted, which closes the connection. Any other status is handed back with its body unread and discarded (jose
 * reads the status only).
 *
 * Not the provider clients' bounded reader (`roundTrip`): that speaks the dispatch-handler API of the undici this
 * package bundles, and `fetch` goes through the process-wide dispatcher, which is Node's built-in undici whenever the
 * app called `fetch` before loading undici (a proxy set with `setGlobalDispatcher` would also be lost with an agent
 * of our own).
 */
export const boundedJwksFetch: FetchImplementation = async (url, init) => {
  const cut = new AbortController();
  const response = await fetch(url, { ...init, signal: AbortSignal.any([init.signal, cut.signal]) });
  if (response.status !== 200) {
    cut.abort();
    return response;
  }
  if (Number(response.headers.get('content-length')) > JWKS_MAX_BYTES) {
    cut.abort();
    throw new JwksTooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    // The loop ends with the body, or throws jose's timeout (it reports a `TimeoutError` as `JWKSTimeout`).
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > JWKS_MAX_BYTES) {
        cut.abort();
        throw new JwksTooLarge();
      }
      chunks.push(chunk);
    }
  }
  return new Response(Buffer.concat(chunks, size), { status: 200 });
};
