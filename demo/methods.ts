import type { NextFunction, Request, Response } from 'express';
import { DemoError } from './errors.js';

/**
 * The last handler of one of the demo's routes (`router.route(path).get(…).all(onlyMethods('GET'))`): what reaches
 * it was asked with a method the route does not take. `OPTIONS` is 204 with `Allow`; anything else is 405
 * `DEMO_METHOD_NOT_ALLOWED` (field `method`) with `Allow` (RFC 9110 §15.5.6), in the demo's error shape: JSON, or the
 * error page for a browser navigation. `Allow` names HEAD wherever GET is (Express answers HEAD with the GET
 * handler). See docs/decisions/demo.md#demo-wrong-method.
 */
export function onlyMethods(...methods: ('GET' | 'POST')[]) {
  const allow = [...new Set(methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])))].sort().join(', ');
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'OPTIONS') {
      res.set('Allow', allow).status(204).end();
      return;
    }
    next(
      new DemoError(405, 'DEMO_METHOD_NOT_ALLOWED', `${req.method} is not allowed here; use ${allow}.`, 'method', {
        Allow: allow,
      }),
    );
  };
}
