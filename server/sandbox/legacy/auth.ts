import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { SandboxCredentials } from '../config.js';
import { SandboxError } from '../core/errors.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * The legacy API's authentication (legacy-card-api.md, Authentication): `Authorization` carries the raw key. Card
 * tokens take the public key; payment tokens and charges the secret key. A missing, unknown or wrong-kind key is
 * 401 with a body that says which key is needed and never repeats what was sent.
 */
export function requireKey(credentials: SandboxCredentials, kind: 'public' | 'secret'): RequestHandler {
  // Digests of equal length make the comparison constant-time whatever was sent; the keys' are computed once.
  const wanted = digest(kind === 'public' ? credentials.publicKey : credentials.secretKey);
  const other = digest(kind === 'public' ? credentials.secretKey : credentials.publicKey);
  const field = 'Authorization';
  return (req: Request, res: Response, next: NextFunction) => {
    const value = req.headers.authorization;
    if (!value) {
      throw new SandboxError(401, 'authorization_missing', `the Authorization header must carry the ${kind} key`, {
        field,
      });
    }
    const sent = digest(value);
    if (timingSafeEqual(sent, wanted)) {
      res.locals.principal = `${kind}_key`;
      return next();
    }
    if (/^Bearer\s/i.test(value)) {
      throw new SandboxError(
        401,
        'authorization_scheme',
        `the legacy API takes the raw ${kind} key in Authorization, without "Bearer "`,
        { field },
      );
    }
    if (timingSafeEqual(sent, other)) {
      throw new SandboxError(
        401,
        kind === 'public' ? 'public_key_required' : 'secret_key_required',
        kind === 'public'
          ? 'card tokens are created with the public key, never the secret key'
          : 'this endpoint needs the secret key; the public key only creates card tokens',
        { field },
      );
    }
    throw new SandboxError(401, 'authorization_invalid', `the Authorization header does not hold a valid ${kind} key`, {
      field,
    });
  };
}
