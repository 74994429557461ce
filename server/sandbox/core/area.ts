import { SandboxError, SandboxValidationError } from './errors.js';
import type { FaultTable } from './faults.js';
import { chain, type Request, type RequestHandler, type Response, type Router } from './http.js';
import { repeatedHeader } from './repeated-headers.js';
import { pathForLog } from './request-log.js';
import { applyFault, negotiate, type ResponseFormat, writeBody } from './respond.js';

/**
 * One API of the provider served by the sandbox (legacy card API, Account
 * Services, OAuth, sandbox controls). The app mounts each area behind the same
 * core middleware; an area differs in the paths it claims, its wire formats and
 * the body shape of its errors.
 */
export interface SandboxArea {
  readonly name: string;
  /** True for request paths this area answers (checked in order; the first claim wins). */
  claims(path: string): boolean;
  /** Response formats in order of preference; the first is the default. */
  readonly formats: readonly ResponseFormat[];
  /** Writes an error in this area's body shape (through `writeBody`, never `respond`). */
  renderError(err: SandboxError, req: Request, res: Response): void;
  /** Whether pending faults apply to this area (false for the sandbox controls). */
  readonly faultable: boolean;
  /**
   * Runs right after the claim check, before negotiation and faults: for headers every answer of the area must
   * carry, even an injected fault or a 406 (CORS), and for answers that must not consume a fault (preflights).
   */
  readonly prepare?: RequestHandler;
  readonly router: Router;
}

/**
 * The default error shape (legacy API and sandbox controls):
 * `{ requestId, errorCode, message, errors: [{ field, code, message }] }`.
 * See docs/decisions/sandbox.md#error-bodies.
 */
export function renderDefaultError(err: SandboxError, _req: Request, res: Response): void {
  const errors =
    err instanceof SandboxValidationError
      ? err.issues
      : err.field
        ? [{ field: err.field, code: err.code, message: err.message }]
        : [];
  writeBody(
    res,
    err.status,
    { requestId: res.locals.requestId, errorCode: err.code, message: err.message, errors, ...err.extra },
    err.headers,
  );
}

/** Answers one request an area has claimed. */
export type AreaHandler = (req: Request, res: Response) => void;

/**
 * Wraps an area in the core pipeline: its `prepare` step, format negotiation, pending faults, its routes, then
 * 405/404 for what no route answered, and every error rendered in the area's shape.
 */
export function mountArea(area: SandboxArea, ctx: { faults: FaultTable }): AreaHandler {
  const fail = (err: unknown, req: Request, res: Response) => {
    try {
      area.renderError(toSandboxError(err), req, res);
    } catch (e) {
      // Rendering itself failed: still answer, never leave the connection hanging.
      console.error('[tessera-pay sandbox] could not render an error:', e);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      res.end('{"errorCode":"internal_error","message":"internal error in the sandbox"}');
    }
  };

  const unmatched = (req: Request, res: Response) => {
    // A path the area serves, asked with another method: 405 with Allow (RFC 9110 §15.5.6), not 404.
    // OPTIONS on such a path lists the methods. See docs/decisions/sandbox.md#wrong-method.
    const allow = area.router.allowedMethods(req.path);
    // The message names the path with any card number in it masked: the request log keeps the answer, and a
    // number written with `%20` between its groups is one a scan of the answer's text cannot see.
    const path = pathForLog(req.path);
    if (allow.length === 0) {
      fail(new SandboxError(404, 'not_found', `no route for ${req.method} ${path}`), req, res);
    } else if (req.method === 'OPTIONS') {
      res.writeHead(204, { Allow: allow.join(', ') });
      res.end();
    } else {
      const message = `${req.method} is not allowed on ${path}; use ${allow.join(', ')}`;
      const headers = { Allow: allow.join(', ') };
      fail(new SandboxError(405, 'method_not_allowed', message, { field: 'method', headers }), req, res);
    }
  };

  const route = (req: Request, res: Response) =>
    area.router.handle(req, res, (err) => (err === undefined ? unmatched(req, res) : fail(err, req, res)));

  const faulted = (req: Request, res: Response) => {
    const fault = ctx.faults.take(req.method, req.path);
    if (!fault) return route(req, res);
    res.locals.fault = fault;
    const go = () => {
      if (res.destroyed) return;
      if (fault.phase === 'before') {
        res.locals.faultApplied = true;
        if (applyFault(res, fault)) return;
      }
      route(req, res);
    };
    if (fault.delayMs) setTimeout(go, fault.delayMs).unref();
    else go();
  };
  const afterNegotiation = area.faultable ? faulted : route;

  const negotiated = (req: Request, res: Response) => {
    // After `prepare`, so the refusal of a repeated header carries the area's CORS headers like any other error;
    // after negotiation has picked the format, so a legacy client that asked for XML gets it in XML; but before a
    // 406, which it outranks.
    const unacceptable = negotiate(area.formats, req, res);
    const refused = repeatedHeader(req) ?? unacceptable;
    if (refused) fail(refused, req, res);
    else afterNegotiation(req, res);
  };

  const prepare = area.prepare ? [area.prepare] : undefined;
  // One function per area, not one per request: the response knows its request.
  const renderError = (err: SandboxError, res: Response) => area.renderError(err, res.req as Request, res);
  return (req, res) => {
    res.locals.renderError = renderError;
    if (!prepare) return negotiated(req, res);
    chain(prepare, req, res, (err) => (err === undefined ? negotiated(req, res) : fail(err, req, res)));
  };
}

/** Maps anything thrown to a SandboxError; unexpected errors are logged and become a generic 500. */
export function toSandboxError(err: unknown): SandboxError {
  if (err instanceof SandboxError) return err;
  const e = err as { type?: string; status?: number; message?: string };
  // Errors raised by Node's streams or other libraries may carry a 4xx status of their own.
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
    return new SandboxError(e.status, 'bad_request', e.message ?? 'bad request');
  }
  console.error('[tessera-pay sandbox] unexpected error:', err);
  return new SandboxError(500, 'internal_error', 'internal error in the sandbox');
}
