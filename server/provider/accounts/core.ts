import type { CallOptions, WriteOptions } from '../http/call.js';
import { checkBody, checkCall, decodeJson, idempotencyKeyOf } from '../http/call.js';
import type { ProviderResult } from '../http/result.js';
import { type Credential, type Exchange, type HttpContext, send } from '../http/transport.js';
import { maskObjectTokens } from '../log.js';
import type { TokenSource } from '../oauth/token-source.js';
import { ACCOUNT_ID_MAX, type AccountIdPrefix, isAccountId } from '../schemas/accounts/ids.js';

/** Which credentials an operation accepts (account-services-api.md, each endpoint's "Auth"; docs/decisions/provider.md#client-auth). */
export interface AuthRule {
  /** OAuth scope the operation needs. */
  readonly scope: string;
  /** Whether a secret API key is accepted instead ("OAuth scope accounts or secret API key"). */
  readonly secretKey: boolean;
}

/**
 * Checks an id used in a path: its prefix and the provider's id rule, the one the sandbox and the helper check
 * (docs/decisions/provider.md#account-ids). No id can move the request to another path or another kind of resource.
 */
export function accountPathId(operation: string, name: string, prefix: AccountIdPrefix, value: unknown): string {
  if (!isAccountId(prefix, value)) {
    throw new TypeError(
      `${operation}: \`${name}\` must be \`${prefix}\` and 1 to ${ACCOUNT_ID_MAX} letters, digits, _ or -; got ${maskObjectTokens(JSON.stringify(value) ?? String(value))}`,
    );
  }
  return value;
}

/** One Account Services request, before auth and encoding. */
export interface AccountsRequest {
  /** The public method name, for TypeErrors (`reserveRules.update`). */
  readonly name: string;
  readonly method: Exchange['method'];
  readonly path: string;
  readonly auth: AuthRule;
  readonly body?: unknown;
  readonly accept?: string;
  readonly ifMatch?: string;
  readonly options?: CallOptions | WriteOptions;
}

/** What the resource files share: one `call` that authenticates, encodes and sends. */
export interface AccountsCore {
  call<T>(request: AccountsRequest): Promise<ProviderResult<T>>;
}

/** Builds the shared core of an accounts client. */
export function createAccountsCore(
  http: HttpContext,
  baseUrl: string,
  tokens: TokenSource | undefined,
  secretKey: string | undefined,
): AccountsCore {
  const bySecretKey: Credential | undefined = secretKey ? { authorization: () => `Bearer ${secretKey}` } : undefined;
  const byScope = new Map<string, Credential>();

  function credential(name: string, auth: AuthRule): Credential {
    if (tokens) {
      let c = byScope.get(auth.scope);
      if (!c) {
        c = tokens.credential([auth.scope]);
        byScope.set(auth.scope, c);
      }
      return c;
    }
    if (auth.secretKey && bySecretKey) return bySecretKey;
    throw new TypeError(
      `${name} needs OAuth credentials (the \`clientId\` and \`clientSecret\` options, scope ${auth.scope})${auth.secretKey ? '' : '; the provider does not accept a secret key for it'}`,
    );
  }

  return {
    call<T>(r: AccountsRequest): Promise<ProviderResult<T>> {
      checkCall(r.name, r.options);
      const headers: Record<string, string> = { Accept: r.accept ?? 'application/json' };
      let body: string | undefined;
      if (r.body !== undefined) {
        body = JSON.stringify(checkBody(r.name, r.body));
        headers['Content-Type'] = 'application/json';
      }
      if (r.ifMatch !== undefined) headers['If-Match'] = r.ifMatch;
      const idempotencyKey =
        r.method === 'POST' || r.method === 'PATCH' ? idempotencyKeyOf(r.name, r.options, false) : undefined;
      return send<T>(http, {
        method: r.method,
        url: baseUrl + r.path,
        operation: `${r.method} ${maskObjectTokens(r.path)}`,
        headers,
        ...(body !== undefined ? { body, logBody: r.body } : {}),
        credential: credential(r.name, r.auth),
        decode: decodeJson,
        ...(idempotencyKey ? { idempotencyKey } : {}),
        ...(r.options?.signal ? { signal: r.options.signal } : {}),
      });
    },
  };
}

/** Scope rules used by the resource files. */
export const ACCOUNTS_ONLY: AuthRule = { scope: 'accounts', secretKey: false };
export const ACCOUNTS_OR_KEY: AuthRule = { scope: 'accounts', secretKey: true };
export const UPDATER: AuthRule = { scope: 'vault:real-time-account-updater', secretKey: false };
