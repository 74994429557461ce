import type { NextFunction, Request, RequestHandler, Response } from '../core/http.js';

/**
 * CORS for the card-token endpoint only: browsers call it straight from the merchant's page with the public key,
 * from any origin (no cookies, so `*`). Preflights are answered here, before faults and negotiation. Secret-key
 * endpoints send no CORS headers at all, so a browser can never read their answers.
 */
export function cardTokenCors(path: string): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.path !== path) return next();
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', 'Svc-Request-Id, Idempotent-Replayed, Retry-After');
    if (req.method !== 'OPTIONS') return next();
    res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, Accept, Idempotency-Key');
    res.setHeader('Access-Control-Max-Age', '600');
    res.statusCode = 204;
    res.end();
  };
}
