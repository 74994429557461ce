import type { NextFunction, Request, Response, Router } from 'express';

type Handler = (req: Request, res: Response, next: NextFunction) => unknown;

const METHODS = ['use', 'all', 'get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const;

/** `fn` with a rejected promise passed to `next`, as Express 5 does and Express 4 does not. */
function forwarding(fn: unknown): unknown {
  // Error handlers (4 parameters) and non-functions (paths, arrays of handlers are flattened by Express) stay.
  if (typeof fn !== 'function' || fn.length > 3) return fn;
  const handler = fn as Handler;
  return function forwarded(req: Request, res: Response, next: NextFunction): void {
    const result = handler(req, res, next);
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      (result as Promise<unknown>).then(undefined, (err: unknown) => next(err ?? new Error('route rejected')));
    }
  };
}

/**
 * Makes `router` pass the rejection of an async route handler to the error handler on Express 4 as well: Express 5
 * does it itself, Express 4 leaves the request hanging (express is a peer dependency, `^4.21 || ^5`;
 * docs/decisions/tooling.md#express-versions). Call it before registering routes.
 */
export function forwardRejections<R extends Router>(router: R): R {
  const target = router as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const method of METHODS) {
    const original = target[method]!.bind(router);
    target[method] = (...args: unknown[]) =>
      original(...args.map((a) => (Array.isArray(a) ? a.map(forwarding) : forwarding(a))));
  }
  return router;
}
