import type { ProviderErrorCode } from './error-codes.js';

/**
 * The error hierarchy of `tessera-pay/provider` (after jose's `util/errors.ts`): every error has a stable `code`
 * safe to branch on, `name` equal to its class name, and a short message that never holds a secret, a card
 * number or a token. Wrong use of the API (bad options, a missing credential) throws a plain `TypeError`.
 *
 * Errors from the provider extend {@link ProviderError} and carry `status`, `requestId` (`Svc-Request-Id`),
 * `headers`, `body` and `outcomeKnown`: whether the operation is known NOT to have taken effect
 * (docs/decisions/provider.md#outcome-known). An Express helper maps them to 502/503/504 with that flag.
 */
export class TesseraError<C extends string = string> extends Error {
  /** Stable machine-readable code, e.g. `TESSERA_CARD_TOKEN_USED` (each part's codes: `ProviderErrorCode`, `HelperErrorCode`). */
  readonly code: C;

  constructor(code: C, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** One field the provider named as wrong, from either API's error body. */
export interface ProviderFieldError {
  /** Dotted path of the field (`products.0.price`, `source_options.card.number`); `''` when none was named. */
  readonly field: string;
  /** The provider's code for the problem (`card_token_used`, `source_options_card_number_invalid`). */
  readonly code: string;
  /** The provider's message, when it gave one. */
  readonly message?: string;
}

/** What every provider error knows about the exchange that failed. */
export interface ProviderErrorDetails {
  /** HTTP status, or `undefined` when no response arrived (timeout, network). */
  readonly status?: number;
  /** `Svc-Request-Id` of the response (or the error body's request id). */
  readonly requestId?: string;
  /** Response headers, lower-case names. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The decoded error body (JSON or XML), or the raw text when it was neither. */
  readonly body?: unknown;
  /** `ETag` of the response, when present. */
  readonly etag?: string;
  /** True when the request is known not to have taken effect (or was a read). See docs/decisions/provider.md#outcome-known. */
  readonly outcomeKnown: boolean;
  /** `METHOD /path` of the request, with tokens masked. */
  readonly operation?: string;
  /** The idempotency key sent, so an unknown outcome can be resolved by sending it again. */
  readonly idempotencyKey?: string;
  /** How many HTTP attempts were made (1 = no retry). */
  readonly attempts?: number;
  readonly cause?: unknown;
}

/** Base of every error that comes from talking to the provider. */
export class ProviderError extends TesseraError<ProviderErrorCode> {
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly etag: string | undefined;
  readonly outcomeKnown: boolean;
  readonly operation: string | undefined;
  readonly idempotencyKey: string | undefined;
  readonly attempts: number;

  constructor(code: ProviderErrorCode, message: string, details: ProviderErrorDetails) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.requestId = details.requestId;
    this.headers = details.headers ?? {};
    this.body = details.body;
    this.etag = details.etag;
    this.outcomeKnown = details.outcomeKnown;
    this.operation = details.operation;
    this.idempotencyKey = details.idempotencyKey;
    this.attempts = details.attempts ?? 1;
  }
}

/** 401: missing, unknown or expired credentials (after the one token refresh the clients make). */
export class AuthenticationError extends ProviderError {
  static readonly code = 'TESSERA_AUTHENTICATION';
  declare readonly code: 'TESSERA_AUTHENTICATION';
  constructor(message: string, details: ProviderErrorDetails) {
    super(AuthenticationError.code, message, details);
  }
}

/** 403: valid credentials that lack the permission or scope (or a feature switched off for the account). */
export class PermissionError extends ProviderError {
  static readonly code = 'TESSERA_PERMISSION';
  declare readonly code: 'TESSERA_PERMISSION';
  constructor(message: string, details: ProviderErrorDetails) {
    super(PermissionError.code, message, details);
  }
}

/** 404: the object (entity, instrument, rule, charge) does not exist. */
export class NotFoundError extends ProviderError {
  static readonly code = 'TESSERA_NOT_FOUND';
  declare readonly code: 'TESSERA_NOT_FOUND';
  constructor(message: string, details: ProviderErrorDetails) {
    super(NotFoundError.code, message, details);
  }
}

/** 409: conflicts with an existing object (`links` points at it) or with a request still in flight. */
export class ConflictError extends ProviderError {
  static readonly code = 'TESSERA_CONFLICT';
  declare readonly code: 'TESSERA_CONFLICT';
  /** The `_links`/`links` object of the body (account-services-api.md: "409 … body carries links"). */
  readonly links: Readonly<Record<string, unknown>> | undefined;
  constructor(message: string, details: ProviderErrorDetails & { links?: Record<string, unknown> }) {
    super(ConflictError.code, message, details);
    this.links = details.links;
  }
}

/** 412: `If-Match` held an ETag that is no longer current. Read the object again and retry. */
export class PreconditionFailedError extends ProviderError {
  static readonly code = 'TESSERA_PRECONDITION_FAILED';
  declare readonly code: 'TESSERA_PRECONDITION_FAILED';
  constructor(message: string, details: ProviderErrorDetails) {
    super(PreconditionFailedError.code, message, details);
  }
}

/** 428: a precondition was required (`If-Match` missing; instrument not verified for `default: true`). */
export class PreconditionRequiredError extends ProviderError {
  static readonly code = 'TESSERA_PRECONDITION_REQUIRED';
  declare readonly code: 'TESSERA_PRECONDITION_REQUIRED';
  constructor(message: string, details: ProviderErrorDetails) {
    super(PreconditionRequiredError.code, message, details);
  }
}

/** 422 (and the legacy API's 400): the request was invalid; `fieldErrors` names each field. */
export class ValidationError extends ProviderError {
  static readonly code = 'TESSERA_VALIDATION';
  declare readonly code: 'TESSERA_VALIDATION';
  readonly fieldErrors: readonly ProviderFieldError[];
  constructor(message: string, details: ProviderErrorDetails & { fieldErrors: readonly ProviderFieldError[] }) {
    super(ValidationError.code, message, details);
    this.fieldErrors = details.fieldErrors;
  }
}

/** 429: too many requests; `retryAfter` is the provider's `Retry-After` in seconds, when it sent one. */
export class RateLimitError extends ProviderError {
  static readonly code = 'TESSERA_RATE_LIMITED';
  declare readonly code: 'TESSERA_RATE_LIMITED';
  readonly retryAfter: number | undefined;
  constructor(message: string, details: ProviderErrorDetails & { retryAfter?: number }) {
    super(RateLimitError.code, message, details);
    this.retryAfter = details.retryAfter;
  }
}

/**
 * Any other 4xx (405, 406, 413, 415…): the provider refused the request as sent. Also a 3xx, which is never followed:
 * for a write its `outcomeKnown` is false (a 303 is how HTTP answers a POST carried out elsewhere).
 */
export class RequestRejectedError extends ProviderError {
  static readonly code = 'TESSERA_REQUEST_REJECTED';
  declare readonly code: 'TESSERA_REQUEST_REJECTED';
  constructor(message: string, details: ProviderErrorDetails) {
    super(RequestRejectedError.code, message, details);
  }
}

/** 5xx: the provider failed. For a write, `outcomeKnown` is false: it may have taken effect. */
export class ProviderServerError extends ProviderError {
  static readonly code = 'TESSERA_PROVIDER_UNAVAILABLE';
  declare readonly code: 'TESSERA_PROVIDER_UNAVAILABLE';
  constructor(message: string, details: ProviderErrorDetails) {
    super(ProviderServerError.code, message, details);
  }
}

/** A 2xx whose body could not be decoded (not JSON/XML, or not the expected shape). */
export class InvalidResponseError extends ProviderError {
  static readonly code = 'TESSERA_INVALID_RESPONSE';
  declare readonly code: 'TESSERA_INVALID_RESPONSE';
  constructor(message: string, details: ProviderErrorDetails) {
    super(InvalidResponseError.code, message, details);
  }
}

/** No complete answer in time: `phase` says whether the connection or the response (headers + body) was late. */
export class TimeoutError extends ProviderError {
  static readonly code = 'TESSERA_TIMEOUT';
  declare readonly code: 'TESSERA_TIMEOUT';
  readonly phase: 'connect' | 'response';
  readonly timeoutMs: number;
  constructor(message: string, details: ProviderErrorDetails & { phase: 'connect' | 'response'; timeoutMs: number }) {
    super(TimeoutError.code, message, details);
    this.phase = details.phase;
    this.timeoutMs = details.timeoutMs;
  }
}

/** The connection failed (refused, reset, DNS) before a complete answer arrived. */
export class NetworkError extends ProviderError {
  static readonly code = 'TESSERA_NETWORK';
  declare readonly code: 'TESSERA_NETWORK';
  constructor(message: string, details: ProviderErrorDetails) {
    super(NetworkError.code, message, details);
  }
}

/**
 * An answer the client did not read because, with it, the answers it holds at once would pass its
 * `responseBudgetBytes` (`budgetBytes`): many large answers arriving together, from a provider or whatever answers at
 * its address. For a write `outcomeKnown` is false unless the status was a 4xx (and not a 409 to a keyed write: the
 * first request with its key may still be running): the provider may have acted (docs/decisions/provider.md#answer-budget).
 */
export class ResponseBudgetError extends ProviderError {
  static readonly code = 'TESSERA_RESPONSE_BUDGET';
  declare readonly code: 'TESSERA_RESPONSE_BUDGET';
  /** The client's `responseBudgetBytes`. */
  readonly budgetBytes: number;
  constructor(message: string, details: ProviderErrorDetails & { budgetBytes: number }) {
    super(ResponseBudgetError.code, message, details);
    this.budgetBytes = details.budgetBytes;
  }
}
