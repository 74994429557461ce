import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * CORS for an explicit allowlist of origins (off when the list is empty):
 * allowed origins get `Access-Control-Allow-Origin` echoed, `Vary: Origin`,
 * `Access-Control-Expose-Headers: Retry-After, X-Request-Id` (neither is a CORS-safelisted response header, so a page
 * on a listed origin could not read when to retry a 429 or 503, nor the request id, without it),
 * and preflights for GET/POST/PATCH with `Authorization` and `Content-Type`.
 * No credentials mode: the dashboard routes use a bearer token; one bound to a cookie (`hostAuth.isBound`) needs the
 * helper on the dashboard's own origin (docs/decisions/helper.md#helper-cors).
 * A preflight from any other origin gets 204 without CORS headers, so the
 * browser blocks the call. See docs/decisions/helper.md#helper-cors.
 */
export function cors(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  return (req: Request, res: Response, next: NextFunction) => {
    res.vary('Origin');
    const origin = req.headers.origin;
    const ok = typeof origin === 'string' && allowed.has(origin);
    if (ok) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Expose-Headers', 'Retry-After, X-Request-Id');
    }
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      if (ok) {
        res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PATCH');
        res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
        res.setHeader('Access-Control-Max-Age', '600');
      }
      res.status(204).end();
      return;
    }
    next();
  };
}
