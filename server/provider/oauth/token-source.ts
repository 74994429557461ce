import { z } from 'zod';
import { checkOptions, functionOption, patternOption, show } from '../../common/options.js';
import { InvalidResponseError } from '../errors.js';
import { closeDispatcher, type HttpOptions, httpAcross, httpConfig, httpOptionShape } from '../http/options.js';
import { type Credential, type HttpContext, send } from '../http/transport.js';
import { createRedactor, MIN_SECRET_LENGTH } from '../log.js';
import { CLIENT_ID, DEFAULT_SANDBOX_URL, resolveBaseUrl } from '../urls.js';

/** Options of {@link createTokenSource}. */
export interface TokenSourceOptions extends HttpOptions {
  /** OAuth client id (`cli_…`); its first 8 characters after `cli_` fill `{prefix}` in `authUrl`. */
  readonly clientId: string;
  /** OAuth client secret. Never logged, never in an error message. */
  readonly clientSecret: string;
  /** The access host (account-services-api.md `{auth_url}`), a template with `{prefix}`. Default: the local sandbox. */
  readonly authUrl?: string;
  /**
   * Refresh a cached token this many seconds before it expires (at most half its lifetime), so no call
   * goes out with a token about to lapse. Default 60 (docs/decisions/provider.md#token-refresh).
   */
  readonly refreshMarginSeconds?: number;
  /** Current time in milliseconds since the epoch. Default `Date.now`; tests may pass their own. */
  readonly now?: () => number;
}

/**
 * OAuth 2.0 client-credentials access tokens (RFC 6749 §4.4; DESIGN.md "token endpoint"): cached per scope
 * set, refreshed ahead of expiry, one request in flight per scope set shared by every concurrent caller.
 */
export interface TokenSource {
  /** A valid access token for exactly these scopes (order and duplicates do not matter). */
  token(scopes: readonly string[], signal?: AbortSignal): Promise<string>;
  /** Drops the cached token for these scopes if it is still `refused` (after a 401). */
  invalidate(scopes: readonly string[], refused: string): void;
  /** A credential for the HTTP core: `Bearer <token>`, renewed once after a 401. */
  credential(scopes: readonly string[]): Credential;
  /** Closes the built-in connection pool (not a dispatcher you passed in). */
  close(): Promise<void>;
}

interface CachedToken {
  readonly value: string;
  readonly expiresAt: number;
  readonly refreshAt: number;
}

const FACTORY = 'createTokenSource';

/**
 * The OAuth options of a token source, each with its check; the accounts client takes the same ones
 * (`clientId`, `clientSecret` optional there, as a secret key may replace them).
 */
export const oauthOptionShape = {
  clientId: patternOption(CLIENT_ID, 'must be the OAuth client id, `cli_` and 8 to 196 letters or digits'),
  clientSecret: z
    .string({ error: 'must be the OAuth client secret (a string of at least 8 characters)' })
    .min(8, { error: 'must be the OAuth client secret (a string of at least 8 characters)' })
    .regex(/^[^\r\n]+$/, { error: 'must be the OAuth client secret (one line, no line breaks)' }),
  authUrl: z.string({ error: 'must be a URL string such as "https://{prefix}.example.com"' }).optional(),
  refreshMarginSeconds: z
    .number({ error: 'must be a number of seconds from 0 to 3600' })
    .min(0, { error: 'must be a number of seconds from 0 to 3600' })
    .max(3600, { error: 'must be a number of seconds from 0 to 3600' })
    .optional(),
  now: functionOption<() => number>('returning milliseconds').optional(),
};

/**
 * The longest access token used: 8 KiB. Sent in every call's `Authorization` header, a longer one is refused by most
 * servers' header limits (Node's is 16 KiB for all headers) and, cached, would fail every call until it expired
 * (docs/decisions/provider.md#token-answer).
 */
export const MAX_ACCESS_TOKEN_LENGTH = 8192;

/**
 * The longest a cached token is used, whatever `expires_in` says: 24 hours. `expires_in` is a hint (RFC 6749 §5.1);
 * one of 10^300 seconds would have kept a token until a call was refused (docs/decisions/provider.md#token-answer).
 */
export const MAX_TOKEN_LIFETIME_SECONDS = 24 * 3600;

/** The `operation` of every error the access-token request throws, so the helper can tell it from its own call's. */
export const TOKEN_OPERATION = 'POST /connect/token';

/**
 * Creates a token source.
 *
 * @example
 * const tokens = createTokenSource({ clientId, clientSecret, authUrl: 'https://{prefix}.access.example.com' });
 * const accessToken = await tokens.token(['accounts']);
 */
export function createTokenSource(options: Readonly<TokenSourceOptions>): TokenSource {
  const o = checkOptions(
    FACTORY,
    options,
    { ...oauthOptionShape, ...httpOptionShape },
    { secrets: ['clientSecret'], across: httpAcross },
  );
  return tokenSourceFrom(FACTORY, o);
}

/** The token source behind {@link createTokenSource}, from options already checked by {@link oauthOptionShape}. */
export function tokenSourceFrom(
  factory: string,
  options: Readonly<TokenSourceOptions>,
  shared?: HttpContext,
): TokenSource {
  const { clientId, clientSecret } = options;
  const authUrl = resolveBaseUrl(factory, 'authUrl', options.authUrl ?? DEFAULT_SANDBOX_URL, clientId);
  const margin = options.refreshMarginSeconds ?? 60;
  const now = options.now ?? Date.now;
  const http: HttpContext = shared ?? {
    config: httpConfig(options),
    redact: createRedactor([clientSecret]),
  };
  const url = `${authUrl}/connect/token`;
  const cache = new Map<string, CachedToken>();
  const inflight = new Map<string, Promise<CachedToken>>();

  const keyOf = (scopes: readonly string[]): string => {
    if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string' || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))) {
      throw new TypeError(`token(scopes): scopes must be an array of OAuth scope strings; got ${show(scopes)}`);
    }
    return [...new Set(scopes)].sort().join(' ');
  };

  async function request(scope: string, signal?: AbortSignal): Promise<CachedToken> {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    });
    if (scope) form.set('scope', scope);
    const sentAt = now();
    const result = await send<unknown>(http, {
      method: 'POST',
      url,
      operation: TOKEN_OPERATION,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: form.toString(),
      logBody: { grant_type: 'client_credentials', client_id: clientId, scope },
      decode: (text) => JSON.parse(text),
      effectFree: true,
      ...(signal ? { signal } : {}),
    });
    const body = result.data as Record<string, unknown> | undefined;
    const accessToken = body?.access_token;
    const expiresIn = body?.expires_in;
    // Sent as `Authorization: Bearer <token>`: a token with a space or a control character (CR LF) cannot be a header
    // value, and kept in the cache it would fail every call until it expires (RFC 6750 §2.1 b64token is stricter).
    // One shorter than the redactor replaces could not be kept out of logs and errors; one past 8 KiB would not fit
    // most servers' header limits (docs/decisions/provider.md#token-answer).
    if (
      typeof accessToken !== 'string' ||
      accessToken.length < MIN_SECRET_LENGTH ||
      accessToken.length > MAX_ACCESS_TOKEN_LENGTH ||
      !/^[\x21-\x7e]+$/.test(accessToken) ||
      typeof body?.token_type !== 'string' ||
      body.token_type.toLowerCase() !== 'bearer' ||
      typeof expiresIn !== 'number' ||
      !(expiresIn > 0)
    ) {
      throw new InvalidResponseError(
        `${TOKEN_OPERATION} answered without a bearer access_token (${MIN_SECRET_LENGTH} to ${MAX_ACCESS_TOKEN_LENGTH} visible ASCII characters) and a positive expires_in`,
        {
          status: result.status,
          requestId: result.requestId,
          outcomeKnown: true,
          operation: TOKEN_OPERATION,
        },
      );
    }
    http.redact.add(accessToken);
    // expires_in is in SECONDS (RFC 6749 §5.1); counted from when the request was sent, to be safe, and at most a day.
    const lifetimeMs = Math.min(expiresIn, MAX_TOKEN_LIFETIME_SECONDS) * 1000;
    const expiresAt = sentAt + lifetimeMs;
    const refreshAt = expiresAt - Math.min(margin * 1000, lifetimeMs / 2);
    http.config.logger?.info({ event: 'provider.token', scope, expiresIn }, 'provider access token issued');
    return { value: accessToken, expiresAt, refreshAt };
  }

  async function token(scopes: readonly string[], signal?: AbortSignal): Promise<string> {
    return tokenFor(keyOf(scopes), signal);
  }

  async function tokenFor(key: string, signal?: AbortSignal): Promise<string> {
    const cached = cache.get(key);
    const t = now();
    if (cached && t < cached.refreshAt) return cached.value;
    let pending = inflight.get(key);
    if (!pending) {
      // No caller's signal here: the request is shared, one caller giving up must not fail the others.
      pending = request(key).then(
        (fresh) => {
          cache.set(key, fresh);
          inflight.delete(key);
          return fresh;
        },
        (error: unknown) => {
          inflight.delete(key);
          throw error;
        },
      );
      inflight.set(key, pending);
    }
    try {
      return (await (signal ? abortable(pending, signal) : pending)).value;
    } catch (error) {
      // A refresh ahead of time that failed: the current token is still good until it expires.
      if (cached && now() < cached.expiresAt && !signal?.aborted) return cached.value;
      throw error;
    }
  }

  function invalidate(scopes: readonly string[], refused: string): void {
    const key = keyOf(scopes);
    if (cache.get(key)?.value === refused) cache.delete(key);
  }

  return {
    token,
    invalidate,
    credential(scopes) {
      const key = keyOf(scopes);
      return {
        authorization: async (signal) => `Bearer ${await tokenFor(key, signal)}`,
        renew: async (refused, signal) => {
          const old = refused.replace(/^Bearer /, '');
          if (cache.get(key)?.value === old) cache.delete(key);
          return (await tokenFor(key, signal)) !== old;
        },
      };
    },
    close: async () => {
      if (!shared) await closeDispatcher(http.config);
    },
  };
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
