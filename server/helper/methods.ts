import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { HelperHttpError } from './errors.js';

/** What this reads of a layer of an Express router's stack: the same in Express 4 and 5. */
interface StackLayer {
  readonly route?: { readonly methods: Readonly<Record<string, boolean | undefined>> };
  /** Express 4 answers a boolean, Express 5 (the `router` package) the match or `false`. */
  match(path: string): unknown;
}

/**
 * The methods the routes of `router` take on `path`, sorted, with HEAD wherever GET is (Express answers HEAD with the
 * GET handler); empty when no route takes the path, or when one takes every method (`.all()`). Read from the router's
 * own stack, so `Allow` lists exactly what the router routes and no list of methods is written twice.
 */
export function allowedMethods(router: Router, path: string): string[] {
  const methods = new Set<string>();
  for (const layer of router.stack as unknown as readonly StackLayer[]) {
    if (!layer.route) continue;
    let matched: unknown;
    try {
      matched = layer.match(path);
    } catch {
      // A path parameter that is not valid %-encoding: Express refused the request before any route, this is unused.
      continue;
    }
    if (!matched) continue;
    for (const [method, on] of Object.entries(layer.route.methods)) {
      if (!on) continue;
      if (method === '_all') return [];
      methods.add(method.toUpperCase());
    }
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

/**
 * The helper's last route: a path some route takes, asked with a method none of them takes, is 405
 * `TESSERA_METHOD_NOT_ALLOWED` (field `method`) with `Allow` (RFC 9110 §15.5.6); anything else that got here is 404
 * `TESSERA_ROUTE_NOT_FOUND`, and so is `OPTIONS` (a listed origin's CORS preflight was answered before any route).
 * A route that took the method and passed the request on (an unknown locale file) stays 404 too. Answered before any
 * route's own checks, the host JWT's included (docs/decisions/helper.md#helper-wrong-method).
 */
export function noRoute(router: Router): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const allowed = req.method === 'OPTIONS' ? [] : allowedMethods(router, req.path);
    if (allowed.length > 0 && !allowed.includes(req.method)) {
      const allow = allowed.join(', ');
      next(
        new HelperHttpError(405, 'TESSERA_METHOD_NOT_ALLOWED', `${req.method} is not allowed here; use ${allow}`, {
          field: 'method',
          headers: { Allow: allow },
        }),
      );
      return;
    }
    next(new HelperHttpError(404, 'TESSERA_ROUTE_NOT_FOUND', `no route for ${req.method} ${req.path}`));
  };
}
