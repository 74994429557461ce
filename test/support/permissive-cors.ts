import type { NextFunction, Request, Response } from 'express';

/**
 * What `app.use(cors())` of the `cors` package does by default, as many apps mount it for their own APIs: every
 * origin allowed, every preflight answered. The helper's cross-site tests mount it before the helper.
 */
export function permissiveCors(req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  if (req.method === 'OPTIONS') {
    res.setHeader('Access-Control-Allow-Methods', 'GET,HEAD,PUT,PATCH,POST,DELETE');
    res.setHeader('Access-Control-Allow-Headers', String(req.headers['access-control-request-headers'] ?? ''));
    res.status(204).end();
    return;
  }
  next();
}
