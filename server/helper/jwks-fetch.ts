import type { FetchImplementation } from 'jose';
import { getGlobalDispatcher } from 'undici';
import { AttemptAbort } from '../provider/http/attempt-abort.js';
import { roundTrip } from '../provider/http/round-trip.js';

/**
 * Largest JWKS the helper reads: 256 KiB. A real set is a few KB (a handful of keys; an `x5c` certificate adds one or
 * two KB a key); one over the cap is the issuer's fault like any other unreadable set, a 503. Past it the connection is closed
 * at once, so an endpoint streaming megabytes within `jwksTimeoutMs` costs neither memory nor parsing
 * (docs/decisions/helper.md#helper-host-jwt).
 */
export const JWKS_MAX_BYTES = 256 * 1024;

/**
 * jose's `customFetch` for the host-auth JWKS: the provider clients' bounded reader ({@link roundTrip}) instead of
 * `fetch`, which reads a body of any size. It keeps what jose asks of `fetch`: a GET with jose's headers only (a URL
 * with a user or password is refused, as `fetch` refuses it, and nothing is sent), no redirect followed (a 3xx reaches jose as a
 * status other than 200), and the whole exchange, headers and body, stopped by jose's timeout signal, whose
 * `TimeoutError` jose reports as `JWKSTimeout`. It goes through undici's global dispatcher, which `fetch` also uses,
 * so a proxy set with `setGlobalDispatcher` still applies.
 */
export const boundedJwksFetch: FetchImplementation = async (url, init) => {
  const target = new URL(url);
  if (target.username || target.password) throw new TypeError('the JWKS URL must not include credentials');
  const stop = new AttemptAbort();
  const { signal } = init;
  const forward = () => stop.abort(signal.reason);
  if (signal.aborted) forward();
  else signal.addEventListener('abort', forward, { once: true });
  try {
    const { status, text } = await roundTrip(
      getGlobalDispatcher(),
      {
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: init.method,
        headers: Object.fromEntries(init.headers),
        body: undefined,
      },
      stop,
      JWKS_MAX_BYTES,
    );
    // jose reads the body of a 200 only (a Response may not carry one with 204 or 304); a Response's status lies
    // within 200–599, and anything else undici lets through (`999`) is just as much "not 200".
    return new Response(status === 200 ? text : null, { status: Math.min(status, 599) });
  } finally {
    signal.removeEventListener('abort', forward);
  }
};
