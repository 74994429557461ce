/**
 * Every `code` the helper answers a browser or a dashboard page with, its HTTP status and what it means: one
 * catalogue, from which the type {@link HelperErrorCode} and the error table of the docs are made
 * (`npm run docs:errors`; test/node/helper/error-codes.test.ts fails when the table is stale).
 */
export const HELPER_ERROR_CODES = {
  TESSERA_INVALID_REQUEST: { status: 400, meaning: 'A field of the request is missing or invalid; `field` names it.' },
  TESSERA_BODY_MALFORMED: { status: 400, meaning: 'The body is not valid JSON.' },
  TESSERA_BODY_ENCODING: { status: 400, meaning: 'The body is not valid UTF-8.' },
  TESSERA_BODY_NOT_OBJECT: { status: 400, meaning: 'The body is JSON but not an object.' },
  TESSERA_BODY_TOO_DEEP: { status: 400, meaning: 'The body nests deeper than any request needs.' },
  TESSERA_BODY_UNREADABLE: {
    status: 400,
    meaning:
      'The body could not be read: the connection failed mid-body, a `req.body` getter an app-wide middleware installed threw, reading what `req.body` holds threw (a trap of a Proxy), or `req.body` is a Promise (logged as `tessera.body.unreadable`).',
  },
  TESSERA_BODY_DUPLICATE_KEY: {
    status: 400,
    meaning:
      'An object of the body gives the same key more than once (compared decoded); `field` names its path (`body` when the keys of that path, joined, would spell a card number). Not seen behind an app-wide `express.json()`, which keeps the last value.',
  },
  TESSERA_FORBIDDEN_KEY: {
    status: 400,
    meaning:
      'The body holds a key such as `__proto__`; `field` names its path (`body` when the keys of that path, joined, would spell a card number).',
  },
  TESSERA_CARD_DATA_REFUSED: {
    status: 400,
    meaning:
      'A field holds what looks like a card number, or a key named like a security code (`cvv`, `securityCode`) holds a value: card data never reaches this server.',
  },
  TESSERA_UNKNOWN_ORDER: { status: 400, meaning: '`resolveCharge` answered no charge for this `orderReference`.' },
  TESSERA_REDIRECT_NOT_ALLOWED: {
    status: 400,
    meaning: '`successUrl` or `failUrl` is neither a path on this site nor on an allowed origin.',
  },
  TESSERA_HOST_AUTH_MISSING: { status: 401, meaning: 'A dashboard route was called without a host token.' },
  TESSERA_HOST_AUTH_INVALID: {
    status: 401,
    meaning: 'The host token is expired, badly signed or has the wrong issuer, audience or lifetime.',
  },
  TESSERA_HOST_AUTH_UNBOUND: {
    status: 401,
    meaning:
      'The host token is valid, but `hostAuth.isBound` answered `false`: it does not belong to this request (sent without its session, from another session, after a sign-out, or revoked). Ask your back end for a new one; after a sign-out, sign in again first.',
  },
  TESSERA_CARD_DECLINED: {
    status: 402,
    meaning:
      'The charge was declined (the answer also carries the charge id; the issuer code only with `exposeDeclineCodes`).',
  },
  TESSERA_HOST_FORBIDDEN: { status: 403, meaning: 'The host token does not allow this entity or instrument.' },
  TESSERA_CROSS_SITE_REFUSED: {
    status: 403,
    meaning:
      'A browser sent this write, or any dashboard request, from another site (`Sec-Fetch-Site`, or an `Origin` that is not this host); list the page’s origin in `corsOrigins` if it is yours.',
  },
  TESSERA_ROUTE_NOT_FOUND: { status: 404, meaning: 'The helper has no route for this path.' },
  TESSERA_NOT_FOUND: {
    status: 404,
    meaning:
      'The provider has no such object, or `paymentInstrumentIds` does not name the payout instrument for the sub-entity; `field` names the path parameter.',
  },
  TESSERA_UNKNOWN_PAYMENT: { status: 404, meaning: 'A 3-D Secure return names no payment this helper started.' },
  TESSERA_METHOD_NOT_ALLOWED: {
    status: 405,
    meaning: 'The helper has a route for this path, but not for this method; `Allow` lists the methods it takes.',
  },
  TESSERA_CARD_TOKEN_USED: {
    status: 409,
    meaning:
      'The card token was already used, for another order or by another shopper, or outside this helper: ask for the card again. The same shopper sending it again for the same order gets the first answer instead (or, once the store has forgotten that answer and the request differs from the first, `TESSERA_CHARGE_ALREADY_SENT`).',
  },
  TESSERA_CARD_TOKEN_EXPIRED: {
    status: 409,
    meaning: 'The card token is older than 15 minutes: ask for the card again.',
  },
  TESSERA_CHARGE_ALREADY_SENT: {
    status: 409,
    meaning:
      'This card token was already sent to the provider for this order, by an earlier request whose answer the helper no longer holds (its store restarted empty, or dropped it), and this one differs from it (another address, another price): the provider refuses it, and the first may have charged the card (`outcomeKnown: false`). Do not ask for another card: show the order as `onCharge` recorded it, and check it in the provider’s dashboard (logged as `tessera.charge.failed` with the `orderReference`).',
  },
  TESSERA_ORDER_ALREADY_CHARGED: { status: 409, meaning: 'The order (`trackId`) was already charged.' },
  TESSERA_3DS_NOT_FINISHED: {
    status: 409,
    meaning: 'A 3-D Secure return arrived before the challenge was finished; the charge is still pending.',
  },
  TESSERA_INSTRUMENT_NOT_VERIFIED: {
    status: 409,
    meaning: 'Only a verified payout instrument can become the default.',
  },
  TESSERA_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    meaning:
      'The body is not `application/json` in UTF-8, or is compressed (`Content-Encoding`, or a `Transfer-Encoding` other than `chunked`); `field` names the header.',
  },
  TESSERA_BODY_TOO_LARGE: { status: 413, meaning: 'The body is larger than `bodyLimitBytes`.' },
  TESSERA_RATE_LIMITED: {
    status: 429,
    meaning: 'Too many requests: a helper limit, which `limit` and `option` name.',
  },
  TESSERA_TOO_MANY_DECLINES: {
    status: 429,
    meaning:
      'Too many declined payments from this shopper or address, or at the whole shop (`declinesTotal`); `limit` and `option` name the limit.',
  },
  TESSERA_RESOLVE_CHARGE_FAILED: {
    status: 500,
    meaning:
      '`resolveCharge` threw (or threw a `HelperHttpError` whose status is outside 400–599 or whose headers cannot be sent); the cause is logged on your server.',
  },
  TESSERA_RESOLVE_CHARGE_INVALID: {
    status: 500,
    meaning: '`resolveCharge` answered an invalid charge; `field` names the wrong field.',
  },
  TESSERA_INSTRUMENT_IDS_FAILED: {
    status: 500,
    meaning:
      '`paymentInstrumentIds` threw (or threw a `HelperHttpError` whose status is outside 400–599 or whose headers cannot be sent) or answered something other than a list of `ppi_…` ids; the cause is logged, and nothing was sent to the provider.',
  },
  TESSERA_INTERNAL: { status: 500, meaning: 'The helper failed unexpectedly; the cause is logged.' },
  TESSERA_LIST_NOT_CONFIGURED: {
    status: 501,
    meaning:
      'The provider has no list of payout instruments: give the helper `paymentInstrumentIds` to list the ones your platform recorded.',
  },
  TESSERA_PROVIDER_ERROR: {
    status: 502,
    meaning:
      'The provider failed, answered without what the helper reads, or refused the server’s credentials; `outcomeKnown` says whether to retry.',
  },
  TESSERA_PROVIDER_UNAVAILABLE: {
    status: 503,
    meaning:
      'The provider is unavailable or busy (a 503, a 429 asking to slow down, or more of its answers at once than `providerResponseBudgetBytes` holds); `outcomeKnown` says whether the same request may be sent again, `Retry-After` when (the provider’s 429 `Retry-After`, 1 to 60 s, else 1).',
  },
  TESSERA_STORE_UNAVAILABLE: {
    status: 503,
    meaning:
      'The store (Redis) cannot be reached; with `outcomeKnown: true` nothing was charged, with `false` a charge may have been made (send the same request again to learn it).',
  },
  TESSERA_CHARGE_IN_PROGRESS: {
    status: 503,
    meaning:
      'A request on another instance sharing the store has been charging the same card token for more than 15 s; send it again. (On one instance, concurrent requests for a token wait for the same provider call.)',
  },
  TESSERA_ON_CHARGE_FAILED: {
    status: 503,
    meaning:
      '`onCharge` threw, or is still running after `hookTimeoutMs`: the shopper is not told "paid"; a retry calls it again or waits for it (`chargeId` for support).',
  },
  TESSERA_HOOK_TIMEOUT: {
    status: 503,
    meaning:
      '`resolveCharge`, `paymentInstrumentIds` or `hostAuth.isBound` has not answered within `hookTimeoutMs`; nothing was charged or changed: send the same request again (`Retry-After: 2`).',
  },
  TESSERA_HOST_AUTH_UNAVAILABLE: {
    status: 503,
    meaning:
      'The issuer’s JWKS could not be read (unreachable, slower than `hostAuth.jwksTimeoutMs`, not a 200 with JSON, larger than 256 KiB) or was not a set of public keys (and, for 5 s after its second failed fetch in a row, it is not fetched again), and `hostAuth.jwksStaleIfErrorSeconds` kept no recent set with the token’s key; or `hostAuth.isBound` threw or answered other than `true` or `false` (logged as `tessera.host_auth.is_bound.failed`). The token may be good: send it again later (`outcomeKnown: true`: nothing was done).',
  },
  TESSERA_WIDGET_NOT_BUILT: { status: 503, meaning: 'The widget bundle is missing: run `npm run build`.' },
  TESSERA_WIDGET_UNREADABLE: {
    status: 503,
    meaning:
      'The widget bundle is there but could not be read (no permission, too many open files, a folder in its place); the logged cause names the error code and the path.',
  },
  TESSERA_PROVIDER_TIMEOUT: {
    status: 504,
    meaning:
      'The provider did not answer in time (for the payout-instrument list, not all its reads within `instrumentListTimeoutMs`: the list is never answered in part); `outcomeKnown` says whether the same request may be sent again.',
  },
} as const satisfies Readonly<Record<string, { readonly status: number; readonly meaning: string }>>;

/** A code the helper answers with, e.g. `'TESSERA_CARD_TOKEN_USED'`. */
export type HelperErrorCode = keyof typeof HELPER_ERROR_CODES;
