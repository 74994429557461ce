/**
 * Every `code` an error of `tessera-pay/provider` carries, the error class that carries it, the HTTP statuses it
 * stands for and what it means: one catalogue, from which the type {@link ProviderErrorCode} and the error table
 * of the docs are made (`npm run docs:errors`).
 */
export const PROVIDER_ERROR_CODES = {
  TESSERA_AUTHENTICATION: {
    error: 'AuthenticationError',
    status: '401',
    meaning: 'Missing, unknown or expired credentials (after the one token refresh the clients make).',
  },
  TESSERA_PERMISSION: {
    error: 'PermissionError',
    status: '403',
    meaning: 'Valid credentials without the permission or scope, or a feature switched off for the account.',
  },
  TESSERA_NOT_FOUND: { error: 'NotFoundError', status: '404', meaning: 'The object does not exist.' },
  TESSERA_CONFLICT: {
    error: 'ConflictError',
    status: '409',
    meaning: 'A conflict with an existing object (`links`) or with a request still in flight.',
  },
  TESSERA_PRECONDITION_FAILED: {
    error: 'PreconditionFailedError',
    status: '412',
    meaning: '`If-Match` held an ETag that is no longer current: read again and retry.',
  },
  TESSERA_PRECONDITION_REQUIRED: {
    error: 'PreconditionRequiredError',
    status: '428',
    meaning: '`If-Match` missing, or an unverified instrument asked to become the default.',
  },
  TESSERA_VALIDATION: {
    error: 'ValidationError',
    status: '400 (legacy, OAuth token), 422',
    meaning:
      'The request was invalid; `fieldErrors` names each field the provider named (an OAuth `invalid_scope` names none).',
  },
  TESSERA_RATE_LIMITED: {
    error: 'RateLimitError',
    status: '429',
    meaning: 'Too many requests; `retryAfter` is the provider’s `Retry-After` in seconds.',
  },
  TESSERA_REQUEST_REJECTED: {
    error: 'RequestRejectedError',
    status: 'other 4xx, 3xx',
    meaning:
      'The provider refused the request as sent (405, 406, 413, 415, …), or answered with a redirect, which is not followed (for a write `outcomeKnown` is false).',
  },
  TESSERA_PROVIDER_UNAVAILABLE: {
    error: 'ProviderServerError',
    status: '5xx',
    meaning: 'The provider failed; for a write `outcomeKnown` is false (it may have taken effect).',
  },
  TESSERA_INVALID_RESPONSE: {
    error: 'InvalidResponseError',
    status: '2xx',
    meaning: 'An answer that could not be decoded or did not have the expected shape.',
  },
  TESSERA_TIMEOUT: {
    error: 'TimeoutError',
    status: '—',
    meaning: 'No complete answer in time; `phase` says whether the connection or the response was late.',
  },
  TESSERA_RESPONSE_BUDGET: {
    error: 'ResponseBudgetError',
    status: 'any',
    meaning:
      'An answer not read: with it, the answers the client holds at once would pass `responseBudgetBytes`; for a write `outcomeKnown` is false unless it was a 4xx (a 409 to a keyed write is unknown too). Retried where safe.',
  },
  TESSERA_NETWORK: {
    error: 'NetworkError',
    status: '—',
    meaning: 'The connection failed (refused, reset, DNS) before a complete answer arrived.',
  },
} as const satisfies Readonly<
  Record<string, { readonly error: string; readonly status: string; readonly meaning: string }>
>;

/** A code a provider error carries, e.g. `'TESSERA_NOT_FOUND'`. */
export type ProviderErrorCode = keyof typeof PROVIDER_ERROR_CODES;
