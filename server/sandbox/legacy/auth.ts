import { timingSafeEqual } from 'node:crypto';
import type { SandboxCredentials } from '../config.js';
import { SandboxError } from '../core/errors.js';
import type { NextFunction, Request, RequestHandler, Response } from '../core/http.js';

/** Constant-time for equal lengths; keys have public, fixed shapes, so only their length can show. */
function sameKey(sent: Buffer, key: Buffer): boolean {
  return sent.length === key.length && timingSafeEqual(sent, key);
}

/**
 * The legacy API's authentication (legacy-card-api.md, Authentication): `Authorization` carries the raw key. Card
 * tokens take the public key; payment tokens and charges the secret key. A missing, unknown or wrong-kind key is
 * 401 with a body that says which key is needed and never repeats what was sent.
 */
export function requireKey(credentials: SandboxCredentials, kind: 'public' | 'secret'): RequestHandler {
  const wanted = Buffer.from(kind === 'public' ? credentials.publicKey : credentials.secretKey);
  const other = Buffer.from(kind === 'public' ? credentials.secretKey : credentials.publicKey);
  const field = 'Authorization';
  return (req: Request, res: Response, next: NextFunction) => {
    const value = req.headers.authorization;
    if (!value) {
      throw new SandboxError(401, 'authorization_missing', `the Authorization header must carry the ${kind} key`, {
        field,
      });
    }
    const sent = Buffer.from(value);
    if (sameKey(sent, wanted)) {
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
    if (sameKey(sent, other)) {
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
