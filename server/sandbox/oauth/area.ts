import { createHash, timingSafeEqual } from 'node:crypto';
import { OAUTH_CLIENT_ERRORS, tokenRequestSchema } from '../../provider/schemas/accounts/index.js';
import { SVC_VERSION, svcVersion } from '../accounts/errors.js';
import type { SandboxArea } from '../core/area.js';
import { parseBody } from '../core/body.js';
import type { SandboxContext } from '../core/context.js';
import { SandboxError } from '../core/errors.js';
import { claimPaths, type Request, type Response, Router } from '../core/http.js';
import { respond, writeBody } from '../core/respond.js';
import { clientScopes } from './client.js';
import { hostPrefixRule } from './host.js';
import { TOKEN_TTL_SECONDS, tokenIssuerFor } from './tokens.js';

const OAUTH_ERRORS: ReadonlySet<string> = new Set(OAUTH_CLIENT_ERRORS);
/** RFC 6749 §3.3 scope-token characters. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

function oauthError(status: number, error: string, description: string, headers?: Record<string, string>) {
  return new SandboxError(status, error, description, { headers });
}

/**
 * The RFC 6749 §5.2 `error` for any error of this endpoint (core errors included). §5.2 defines no name for a
 * wrong host (421), an unknown path (404) or a wrong method (405): they are `invalid_request`, with the status
 * kept and `error_description` saying what is wrong. 5xx keep the registry's `server_error` and
 * `temporarily_unavailable` (docs/decisions/sandbox.md#oauth-tokens).
 */
function oauthErrorName(err: SandboxError): string {
  if (OAUTH_ERRORS.has(err.code)) return err.code;
  if (err.status === 503) return 'temporarily_unavailable';
  if (err.status >= 500) return 'server_error';
  return 'invalid_request';
}

function sameSecret(a: string, b: string): boolean {
  const h = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(h(a), h(b));
}

/** Client credentials from the form or from HTTP Basic (RFC 6749 §2.3.1); both at once → invalid_request. */
function clientCredentials(req: Request, form: { client_id?: string; client_secret?: string }) {
  const header = req.headers.authorization;
  if (!header) return { id: form.client_id, secret: form.client_secret, basic: false };
  const m = /^Basic +([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (!m) throw oauthError(400, 'invalid_request', 'Authorization must be HTTP Basic client authentication');
  if (form.client_id !== undefined || form.client_secret !== undefined) {
    throw oauthError(400, 'invalid_request', 'authenticate the client with HTTP Basic or the form, not both');
  }
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw oauthError(400, 'invalid_request', 'HTTP Basic credentials must be client_id:client_secret');
  try {
    return {
      id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
      secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
      basic: true,
    };
  } catch {
    throw oauthError(400, 'invalid_request', 'HTTP Basic credentials are not valid form-encoding');
  }
}

/**
 * `POST /connect/token`: OAuth 2.0 client credentials (DESIGN.md: token endpoint; RFC 6749 §4.4).
 * Answers `{access_token, token_type: "Bearer", expires_in, scope}`; errors in the RFC 6749 §5.2 shape
 * plus `request_id`. See docs/decisions/sandbox.md#oauth-tokens.
 */
export function oauthArea(ctx: SandboxContext): SandboxArea {
  const issuer = tokenIssuerFor(ctx);
  const router = new Router();
  router.use(svcVersion, hostPrefixRule(ctx));
  router.post('/connect/token', parseBody(['form']), async (req: Request, res: Response) => {
    const parsed = tokenRequestSchema.safeParse(req.body);
    if (!parsed.success) {
      const field = parsed.error.issues[0]?.path.join('.') || 'body';
      throw oauthError(400, 'invalid_request', `${field} is missing or not valid`);
    }
    const form = parsed.data;
    const client = clientCredentials(req, form);
    if (!client.id || !client.secret)
      throw oauthError(401, 'invalid_client', 'client_id and client_secret are required');
    const ok =
      sameSecret(client.id, ctx.credentials.clientId) && sameSecret(client.secret, ctx.credentials.clientSecret);
    if (!ok) {
      const challenge = client.basic ? { 'WWW-Authenticate': 'Basic realm="tessera-sandbox"' } : undefined;
      throw oauthError(401, 'invalid_client', 'unknown client or wrong client secret', challenge);
    }
    if (form.grant_type !== 'client_credentials') {
      throw oauthError(400, 'unsupported_grant_type', 'only grant_type=client_credentials is supported');
    }
    const allowed = clientScopes(ctx.fixtures);
    const asked = (form.scope ?? '').split(' ').filter(Boolean);
    for (const scope of asked) {
      if (!SCOPE_TOKEN.test(scope) || !allowed.includes(scope)) {
        throw oauthError(400, 'invalid_scope', `the client may not have the scope ${JSON.stringify(scope)}`);
      }
    }
    // No scope asked: every scope the client may have (RFC 6749 §3.3; docs/decisions/sandbox.md#oauth-scopes).
    const scopes = asked.length ? [...new Set(asked)] : [...allowed];
    const token = await issuer.issue(client.id, scopes);
    respond(
      res,
      200,
      { access_token: token, token_type: 'Bearer', expires_in: TOKEN_TTL_SECONDS, scope: scopes.join(' ') },
      NO_STORE,
    );
  });

  return {
    name: 'oauth',
    // Any case and a trailing slash, as the router matches them (docs/decisions/sandbox.md#sandbox-http).
    claims: claimPaths([], ['/connect/token']),
    formats: ['json'],
    faultable: true,
    renderError(err, _req, res) {
      res.setHeader('Svc-Version', SVC_VERSION);
      const error = oauthErrorName(err);
      writeBody(
        res,
        err.status,
        { error, error_description: err.message, request_id: res.locals.requestId },
        { ...NO_STORE, ...err.headers },
      );
    },
    router,
  };
}
