import {
  AuthenticationError,
  ConflictError,
  NotFoundError,
  PermissionError,
  PreconditionFailedError,
  PreconditionRequiredError,
  type ProviderError,
  type ProviderErrorDetails,
  type ProviderFieldError,
  ProviderServerError,
  RateLimitError,
  RequestRejectedError,
  ValidationError,
} from '../errors.js';
import type { ClientRedactor } from '../log.js';
import { parseRetryAfter } from './backoff.js';

/** Response headers as undici gives them: lower-case names, a list for a repeated header. */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** One response header (`name` in lower case); a repeated header's values joined with `, ` as fetch does. */
export function header(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Response headers as a plain object with lower-case names, for errors: each value through the client's redactor, as
 * the body is. An upstream may echo the request in any header (a `WWW-Authenticate` quoting the key it refused), and a
 * merchant's logger writes an error's `headers` whole (docs/decisions/provider.md#answer-text).
 */
export function headersObject(headers: ResponseHeaders, redact: ClientRedactor): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    const value = header(headers, name);
    if (value !== undefined) out[name] = redact.text(value);
  }
  return out;
}

/** The longest request id the clients keep; the rest of a longer one is cut (after it was redacted). */
export const MAX_REQUEST_ID_LENGTH = 200;

/**
 * A request id an answer gave (its `Svc-Request-Id`, or one in an error body) as results, errors and log lines carry
 * it: redacted, then cut to {@link MAX_REQUEST_ID_LENGTH}. It is the upstream's text like any other: one that echoes
 * the request there put the secret key, or a card number, on every `provider.response` line
 * (docs/decisions/provider.md#answer-text).
 */
export function requestIdOf(value: unknown, redact: ClientRedactor): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  return cut(redact.text(value), MAX_REQUEST_ID_LENGTH);
}

/** The most of a body's text an error keeps. */
export const MAX_KEPT_TEXT = 2000;

/**
 * The text of an answer as an error keeps it: redacted whole, THEN cut to {@link MAX_KEPT_TEXT}. Cut first, a secret or
 * a card number across the cut was no longer whole, and its first characters were kept as they were.
 */
export function keptText(text: string, redact: ClientRedactor): string {
  return cut(redact.text(text), MAX_KEPT_TEXT);
}

function cut(text: string, length: number): string {
  return text.length > length ? text.slice(0, length) : text;
}

function asArray(value: unknown): unknown[] {
  if (value === undefined || value === null || value === '') return [];
  return Array.isArray(value) ? value : [value];
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * Field errors from either API's error body (docs/decisions/sandbox.md#error-bodies):
 * legacy `{requestId, errorCode, message, errors: [{field, code, message}]}` (in XML a single error is one
 * element, not a list), accounts `{request_id, error_type, error_codes: [...], fields?}` and OAuth
 * `{error, error_description}`.
 */
export function fieldErrorsOf(body: unknown): ProviderFieldError[] {
  if (!body || typeof body !== 'object') return [];
  const b = body as Record<string, unknown>;
  const out: ProviderFieldError[] = [];
  for (const e of asArray(b.errors)) {
    if (!e || typeof e !== 'object') continue;
    const item = e as Record<string, unknown>;
    const message = str(item.message);
    out.push({ field: str(item.field) ?? '', code: str(item.code) ?? 'invalid', ...(message ? { message } : {}) });
  }
  const details = asArray(b.error_details ?? b.details);
  for (const e of details) {
    if (!e || typeof e !== 'object') continue;
    const item = e as Record<string, unknown>;
    const message = str(item.message);
    out.push({
      field: str(item.field) ?? '',
      code: str(item.code) ?? str(item.error_code) ?? 'invalid',
      ...(message ? { message } : {}),
    });
  }
  if (out.length === 0) {
    for (const code of asArray(b.error_codes)) {
      if (typeof code === 'string') out.push({ field: fieldFromCode(code), code });
    }
  }
  return out;
}

// Account Services codes are `<dotted field>_<problem>` (`individual.first_name_required`,
// `source_options.card.number_invalid`, `source_options.card.number_network_unsupported`): the field is the code
// without its problem suffix, the longer problems tried first. A code that names a rule over several fields
// (`source_options_card_or_instrument_required`, `label_or_default_required`) has no one field: ''.
// `(.+)_` backtracks over the underscores only, each tried against the fixed list: linear in the code's length.
const CODE_PROBLEM =
  /^(.+?)_(network_unsupported|not_a_card|not_in_future|under_age|too_long|too_short|too_large|too_small|not_allowed|invalid|required|unsupported|conflict|missing|mismatch)$/;

export function fieldFromCode(code: string): string {
  const name = CODE_PROBLEM.exec(code)?.[1];
  return name === undefined || /_(or|and)_/.test(name) ? '' : name;
}

/** The `error_codes` of an Account Services error body (`entity_not_found`, `label_invalid`); none for other bodies. */
export function errorCodesOf(body: unknown): string[] {
  const codes = body && typeof body === 'object' ? (body as Record<string, unknown>).error_codes : undefined;
  return Array.isArray(codes) ? codes.filter((c): c is string => typeof c === 'string') : [];
}

/** The provider's own code and message from an error body of either API. */
export function describeBody(body: unknown): { code?: string; message?: string; requestId?: string } {
  if (!body || typeof body !== 'object') return {};
  const b = body as Record<string, unknown>;
  const codes = errorCodesOf(b);
  const type = str(b.error_type);
  const code =
    str(b.errorCode) ?? (type && codes.length > 0 ? `${type}: ${codes.slice(0, 5).join(', ')}` : type) ?? str(b.error);
  const message = str(b.message) ?? str(b.error_description);
  const requestId = str(b.requestId) ?? str(b.request_id);
  return {
    ...(code ? { code } : {}),
    ...(message ? { message } : {}),
    ...(requestId ? { requestId } : {}),
  };
}

/** The most of the provider's own message an error's message quotes (the whole of it stays in `body`). */
export const MAX_QUOTED_MESSAGE = 500;

/**
 * Builds the typed error for a non-2xx answer from its `body` ALREADY through the client's redactor: an error is made
 * to be logged (pino's error serializer writes `body` whole), and a provider that echoes the request (the key, a card
 * number) in its error must not put them in the merchant's log. `retryAfter` is the answer's `Retry-After` as sent.
 */
export function errorForStatus(
  status: number,
  body: unknown,
  details: Omit<ProviderErrorDetails, 'status' | 'body'>,
  retryAfter: string | undefined,
): ProviderError {
  const { code, message } = describeBody(body);
  const what = `${details.operation ?? 'request'} failed with HTTP ${status}${code ? ` (${cut(code, MAX_QUOTED_MESSAGE)})` : ''}`;
  const text = message ? `${what}: ${cut(message, MAX_QUOTED_MESSAGE)}` : what;
  const d: ProviderErrorDetails = { ...details, status, body };
  switch (status) {
    case 401:
      return new AuthenticationError(text, d);
    case 403:
      return new PermissionError(text, d);
    case 404:
      return new NotFoundError(text, d);
    case 409: {
      const b = (body ?? {}) as Record<string, unknown>;
      const links = (b._links ?? b.links) as Record<string, unknown> | undefined;
      return new ConflictError(text, links && typeof links === 'object' ? { ...d, links } : d);
    }
    case 412:
      return new PreconditionFailedError(text, d);
    case 428:
      return new PreconditionRequiredError(text, d);
    case 400:
    case 422:
      return new ValidationError(text, { ...d, fieldErrors: fieldErrorsOf(body) });
    case 429: {
      const after = parseRetryAfter(retryAfter);
      return new RateLimitError(text, after === undefined ? d : { ...d, retryAfter: Math.ceil(after / 1000) });
    }
    default:
      if (status >= 300 && status < 400) {
        return new RequestRejectedError(`${what}: the provider answered with a redirect, which is not followed`, d);
      }
      return status >= 500 ? new ProviderServerError(text, d) : new RequestRejectedError(text, d);
  }
}
