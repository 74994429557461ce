import { createHash, timingSafeEqual } from 'node:crypto';
import type { AccountScope } from '../../provider/schemas/accounts/index.js';
import type { SandboxContext } from '../core/context.js';
import type { NextFunction, Request, RequestHandler, Response } from '../core/http.js';
import { forbidden, tokenIssuerFor, unauthorized } from './tokens.js';

const digest = (s: string) => createHash('sha256').update(s).digest();
/** Compares a presented key with a real one in constant time. */
function sameKey(presented: string, real: string): boolean {
  return timingSafeEqual(digest(presented), digest(real));
}

export interface AuthRule {
  /** Any one of these OAuth scopes is enough. */
  readonly scopes: readonly AccountScope[];
  /** Whether the secret API key is accepted too (spec: "Support for secret keys depends on the endpoint"). */
  readonly secretKey: boolean;
}

/**
 * Checks `Authorization: Bearer <access token | secret key>` (DESIGN.md: auth header) against one
 * endpoint's rule. Missing, malformed, expired (sandbox clock) or forged → 401; a valid credential
 * that may not call the endpoint (scope missing, secret or public key where not accepted) → 403.
 */
export function requireAuth(ctx: SandboxContext, rule: AuthRule): RequestHandler {
  const issuer = tokenIssuerFor(ctx);
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const header = req.headers.authorization;
      if (!header) throw unauthorized('authorization_required', 'send Authorization: Bearer <access token>');
      const match = /^Bearer +([\x21-\x7e]+)$/i.exec(header.trim());
      if (!match) throw unauthorized('authorization_malformed', 'Authorization must be "Bearer <credential>"');
      const credential = match[1]!;
      const { secretKey, publicKey } = ctx.credentials;
      if (sameKey(credential, secretKey)) {
        if (!rule.secretKey)
          throw forbidden('secret_key_not_allowed', 'this endpoint needs an OAuth access token', rule.scopes);
        res.locals.principal = 'secret_key';
        return next();
      }
      if (sameKey(credential, publicKey)) {
        throw forbidden('public_key_not_allowed', 'the public key may not call this endpoint', rule.scopes);
      }
      if (/^(sk|pk)_/.test(credential)) throw unauthorized('key_invalid', 'the API key is not valid');
      const grant = await issuer.verify(credential);
      if (!rule.scopes.some((s) => grant.scopes.includes(s))) {
        throw forbidden('scope_required', `the access token lacks the scope ${rule.scopes.join(' or ')}`, rule.scopes);
      }
      // Idempotency keys belong to the client, not to one access token (core/idempotency.ts).
      res.locals.principal = `client:${grant.clientId}`;
      next();
    } catch (e) {
      next(e);
    }
  };
}
