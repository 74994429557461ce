import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

/** The demo's session cookie: an opaque random id, HttpOnly, SameSite=Lax. */
export const SESSION_COOKIE = 'tessera_demo';
const ID = /^[A-Za-z0-9_-]{22}$/;

/** The session id the request carries, or undefined. */
export function sessionOf(req: Request): string | undefined {
  const header = req.headers.cookie ?? '';
  for (const part of header.split(';')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === SESSION_COOKIE && value && ID.test(value)) return value;
  }
  return undefined;
}

/**
 * Gives every visitor a session (the cart, the orders it may pay, the helper's per-session limits) in
 * `res.locals.session`. A real shop has its own session middleware; this one is just enough for the demo.
 */
export function sessions() {
  return (req: Request, res: Response, next: NextFunction) => {
    let id = sessionOf(req);
    if (!id) {
      id = randomBytes(16).toString('base64url');
      res.append('Set-Cookie', `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax`);
      // Later middleware (the helper's sessionId option) reads the cookie header: make the new id visible there.
      req.headers.cookie = `${req.headers.cookie ? `${req.headers.cookie}; ` : ''}${SESSION_COOKIE}=${id}`;
    }
    res.locals.session = id;
    next();
  };
}
