import { randomBytes } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import type { AccountScope } from '../../provider/schemas/accounts/index.js';
import type { SandboxContext } from '../core/context.js';
import { SandboxError } from '../core/errors.js';

/** Issuer and audience of sandbox access tokens. */
export const TOKEN_ISSUER = 'tessera-sandbox';
/** Lifetime of an access token, in seconds of sandbox time. */
export const TOKEN_TTL_SECONDS = 3600;

/** What a valid access token grants. */
export interface TokenGrant {
  readonly clientId: string;
  readonly scopes: readonly string[];
}

/**
 * Signs and verifies the sandbox's OAuth access tokens: HS256 JWTs (jose) with a
 * 256-bit key generated when the sandbox starts, `iat`/`exp` on the sandbox
 * clock, the granted scopes in `scope` (RFC 9068 §2.2.3). Verification runs at
 * the sandbox's now, so advancing the clock expires tokens.
 * See docs/decisions/sandbox.md#oauth-tokens.
 */
export class TokenIssuer {
  readonly #key = new Uint8Array(randomBytes(32));
  readonly #ctx: SandboxContext;

  constructor(ctx: SandboxContext) {
    this.#ctx = ctx;
  }

  async issue(clientId: string, scopes: readonly string[]): Promise<string> {
    const now = Math.floor(this.#ctx.clock.nowMs() / 1000);
    return new SignJWT({ scope: scopes.join(' '), client_id: clientId })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setIssuer(TOKEN_ISSUER)
      .setAudience(TOKEN_ISSUER)
      .setSubject(clientId)
      .setJti(this.#ctx.newId('tok_'))
      .setIssuedAt(now)
      .setExpirationTime(now + TOKEN_TTL_SECONDS)
      .sign(this.#key);
  }

  /** Verifies a token; throws a 401 SandboxError (`token_expired`, `token_invalid`) otherwise. */
  async verify(token: string): Promise<TokenGrant> {
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        algorithms: ['HS256'],
        issuer: TOKEN_ISSUER,
        audience: TOKEN_ISSUER,
        typ: 'at+jwt',
        currentDate: this.#ctx.clock.now(),
        requiredClaims: ['exp', 'sub', 'scope'],
      });
      if (typeof payload.scope !== 'string' || payload.sub !== this.#ctx.credentials.clientId) {
        throw new errors.JWTInvalid('unexpected claims');
      }
      return { clientId: payload.sub, scopes: payload.scope.split(' ').filter(Boolean) };
    } catch (e) {
      if (e instanceof errors.JWTExpired) throw unauthorized('token_expired', 'the access token has expired');
      throw unauthorized('token_invalid', 'the access token is malformed or its signature is not valid');
    }
  }
}

const issuers = new WeakMap<SandboxContext, TokenIssuer>();

/** The one token issuer of a sandbox (shared by the token endpoint and every area that checks tokens). */
export function tokenIssuerFor(ctx: SandboxContext): TokenIssuer {
  let issuer = issuers.get(ctx);
  if (!issuer) {
    issuer = new TokenIssuer(ctx);
    issuers.set(ctx, issuer);
  }
  return issuer;
}

/** A 401 with the RFC 6750 §3 challenge. */
export function unauthorized(code: string, message: string): SandboxError {
  const challenge =
    code === 'authorization_required'
      ? 'Bearer realm="tessera-sandbox"'
      : `Bearer realm="tessera-sandbox", error="invalid_token", error_description="${message.replace(/["\\]/g, "'")}"`;
  return new SandboxError(401, code, message, { headers: { 'WWW-Authenticate': challenge } });
}

/** A 403 naming the scopes that would have been enough (RFC 6750 §3.1 insufficient_scope). */
export function forbidden(code: string, message: string, scopes: readonly AccountScope[]): SandboxError {
  const scope = scopes.join(' ');
  return new SandboxError(403, code, message, {
    headers: { 'WWW-Authenticate': `Bearer realm="tessera-sandbox", error="insufficient_scope", scope="${scope}"` },
  });
}
