import type { Response } from 'express';
import helmet from 'helmet';

/**
 * Answers `body` as JSON with `status` and `Cache-Control: no-store`: the answers sent this way (charges, 3-D Secure
 * returns, the dashboard's reads and writes, errors) hold one shopper's or one user's data and a request id of their
 * own, so no cache may keep them (docs/decisions/helper.md#helper-caching). Express's `res.json` would also hash every
 * body into an ETag that, with the request id in the body, never matches twice: that work is skipped.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(JSON.stringify(body));
}

/** helmet's headers for the helper's own responses: nothing they serve should load or frame anything. */
export interface SecurityHeaders {
  readonly set: readonly (readonly [string, string])[];
  readonly remove: readonly string[];
}

/**
 * Runs helmet once, at creation, and keeps what it sets: with a fixed policy (no per-request directive) its
 * middlewares only set constant headers and remove `X-Powered-By`, so copying the result to each response is the
 * same as running helmet's chain of fourteen middlewares per request.
 */
export function securityHeaders(): SecurityHeaders {
  const set: [string, string][] = [];
  const remove: string[] = [];
  const recorder = {
    setHeader: (name: string, value: unknown) => set.push([name, String(value)]),
    removeHeader: (name: string) => remove.push(name),
  };
  let error: unknown = new Error('helmet did not finish');
  helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  })({} as never, recorder as never, (err?: unknown) => {
    error = err;
  });
  if (error) throw error;
  return { set, remove };
}
