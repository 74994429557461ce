import { type SandboxError, SandboxValidationError } from '../core/errors.js';
import type { NextFunction, Request, Response } from '../core/http.js';
import { writeBody } from '../core/respond.js';

/** `Svc-Version` on every Account Services and OAuth response: the spec's reference version (Versioning). */
export const SVC_VERSION = '1.0.0';

/** The `error_type` of each status (docs/decisions/sandbox.md#accounts-errors). */
const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'request_malformed',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  409: 'conflict',
  412: 'precondition_failed',
  413: 'request_too_large',
  415: 'unsupported_media_type',
  421: 'misdirected_request',
  422: 'request_invalid',
  428: 'precondition_required',
  429: 'too_many_requests',
  500: 'internal_error',
  502: 'bad_gateway',
  503: 'service_unavailable',
  504: 'gateway_timeout',
};

/** Sets `Svc-Version` (the core already set `Svc-Request-Id`). */
export function svcVersion(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Svc-Version', SVC_VERSION);
  next();
}

/**
 * Renders any error of the Account Services API: `{request_id, error_type, error_codes[]}` plus extras
 * (`_links` of a 409). Validation errors list one code per field; others carry their own code.
 */
export function renderAccountsError(err: SandboxError, _req: Request, res: Response): void {
  res.setHeader('Svc-Version', SVC_VERSION);
  const codes = err instanceof SandboxValidationError ? [...new Set(err.issues.map((i) => i.code))] : [err.code];
  const errorType = ERROR_TYPES[err.status] ?? (err.status >= 500 ? 'internal_error' : 'request_error');
  writeBody(
    res,
    err.status,
    { request_id: res.locals.requestId, error_type: errorType, error_codes: codes, ...err.extra },
    err.headers,
  );
}
