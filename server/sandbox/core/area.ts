import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { SandboxError, SandboxValidationError } from './errors.js';
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
 * See docs/DECISIONS.md#error-bodies.
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

/** Wraps an area in its own router: claim check, format negotiation, faults, routes, error rendering. */
export function mountArea(area: SandboxArea, ctx: { faults: import('./faults.js').FaultTable }): Router {
  const outer = express.Router();
  outer.use((req, res, next) => {
    if (!area.claims(req.path)) return next('router');
    res.locals.renderError = (err: SandboxError, r: Response) => area.renderError(err, req, r);
    next();
  });
  if (area.prepare) outer.use(area.prepare);
  outer.use(negotiate(area.formats));
  if (area.faultable) {
    outer.use((req: Request, res: Response, next: NextFunction) => {
      const fault = ctx.faults.take(req.method, req.path);
      if (!fault) return next();
      res.locals.fault = fault;
      const go = () => {
        if (res.destroyed) return;
        if (fault.phase === 'before') {
          res.locals.faultApplied = true;
          if (applyFault(res, fault)) return;
        }
        next();
      };
      if (fault.delayMs) setTimeout(go, fault.delayMs).unref();
      else go();
    });
  }
  outer.use(area.router);
  outer.use((req: Request, _res: Response, next: NextFunction) => {
    // A path the area serves, asked with another method: 405 with Allow (RFC 9110 §15.5.6), not 404.
    // See docs/DECISIONS.md#wrong-method.
    const allow = allowedMethods(area.router, req.path);
    if (allow.length > 0) {
      next(
        new SandboxError(
          405,
          'method_not_allowed',
          `${req.method} is not allowed on ${req.path}; use ${allow.join(', ')}`,
          {
            field: 'method',
            headers: { Allow: allow.join(', ') },
          },
        ),
      );
      return;
    }
    next(new SandboxError(404, 'not_found', `no route for ${req.method} ${req.path}`));
  });
  outer.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    area.renderError(toSandboxError(err), req, res);
  });
  return outer;
}

/** The parts of an Express 5 router layer that {@link allowedMethods} reads. */
interface RouteLayer {
  readonly route?: { _methods(): string[] };
  match(path: string): unknown;
}

/** The methods `router`'s routes answer on `path` (HEAD with GET), sorted; empty when none match. */
export function allowedMethods(router: Router, path: string): string[] {
  const methods = new Set<string>();
  for (const layer of router.stack as unknown as RouteLayer[]) {
    if (!layer.route) continue;
    let hit: unknown = false;
    try {
      hit = layer.match(path);
    } catch {
      // A parameter that does not percent-decode matches nothing.
    }
    if (hit) for (const m of layer.route._methods()) methods.add(m);
  }
  return [...methods].sort();
}

/** Maps anything thrown to a SandboxError; unexpected errors are logged and become a generic 500. */
export function toSandboxError(err: unknown): SandboxError {
  if (err instanceof SandboxError) return err;
  const e = err as { type?: string; status?: number; message?: string };
  // Express's router could not percent-decode a path parameter (`/charges/%E0%A4%A`).
  if (err instanceof URIError && e.status === 400) {
    return new SandboxError(400, 'path_malformed', 'the path holds malformed percent-encoding', { field: 'path' });
  }
  // Errors raised by Express/body parsers carry a 4xx status of their own.
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
    return new SandboxError(e.status, 'bad_request', e.message ?? 'bad request');
  }
  console.error('[tessera sandbox] unexpected error:', err);
  return new SandboxError(500, 'internal_error', 'internal error in the sandbox');
}
