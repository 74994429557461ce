import { z } from 'zod';
import { checkOptions, oneOfOption, patternOption } from '../../common/options.js';
import { closeDispatcher, type HttpOptions, httpAcross, httpConfig, httpOptionShape } from '../http/options.js';
import type { HttpContext } from '../http/transport.js';
import { createRedactor } from '../log.js';
import { oauthOptionShape, type TokenSource, tokenSourceFrom } from '../oauth/token-source.js';
import { DEFAULT_SANDBOX_URL, resolveBaseUrl } from '../urls.js';
import { type AccountUpdater, accountUpdater } from './account-updater.js';
import { createAccountsCore } from './core.js';
import { type Entities, entities } from './entities.js';
import { type Instruments, instruments } from './instruments.js';
import { type Members, members } from './members.js';
import { type PaymentInstruments, paymentInstruments } from './payment-instruments.js';
import { type ReserveRules, reserveRules } from './reserve-rules.js';
import type { SchemaVersion } from './types.js';

/** Options of {@link createAccountsClient}. Give OAuth client credentials, a secret key, or both. */
export interface AccountsClientOptions<V extends SchemaVersion = '3.0'> extends HttpOptions {
  /** OAuth client id (`cli_…`): its first 8 characters after `cli_` fill `{prefix}` in the URLs. */
  readonly clientId?: string;
  /** OAuth client secret. Never logged, never in an error message. */
  readonly clientSecret?: string;
  /**
   * Secret API key, sent as `Authorization: Bearer <key>` (DESIGN.md) to the operations that accept one
   * (members, payment instruments, reserve rules, stored instruments) when no OAuth credentials are given.
   */
  readonly secretKey?: string;
  /** The API host (`{base_url}`), a template with `{prefix}`. Default: the local sandbox. */
  readonly baseUrl?: string;
  /** The access host (`{auth_url}`, `POST {auth_url}/connect/token`), a template with `{prefix}`. Default: the local sandbox. */
  readonly authUrl?: string;
  /** Entity payload version: `3.0` (default, the latest) or `2.0`; each call can override it. */
  readonly schemaVersion?: V;
  /** Seconds before expiry at which a cached access token is replaced (at most half its lifetime). Default 60. */
  readonly refreshMarginSeconds?: number;
  /** Current time in ms for the token cache. Default `Date.now`. */
  readonly now?: () => number;
}

/** A client of the Account Services API. */
export interface AccountsClient<V extends SchemaVersion = '3.0'> {
  readonly accountUpdater: AccountUpdater;
  readonly entities: Entities<V>;
  readonly members: Members;
  readonly paymentInstruments: PaymentInstruments;
  readonly reserveRules: ReserveRules;
  /** Stored cards (sandbox extension). */
  readonly instruments: Instruments;
  /** The OAuth token source (undefined when only a secret key was given). */
  readonly tokens: TokenSource | undefined;
  /**
   * The answer bytes this client (its token requests included) holds now, its answers being read all together (at
   * most `responseBudgetBytes`; 0 when no call is reading one): for a gauge (docs/decisions/provider.md#answer-budget).
   */
  readonly heldResponseBytes: number;
  /** Closes the built-in connection pool (not a dispatcher you passed in). */
  close(): Promise<void>;
}

const FACTORY = 'createAccountsClient';

/** The options of {@link createAccountsClient}, each with its check. */
const ACCOUNTS_OPTIONS = {
  ...oauthOptionShape,
  clientId: oauthOptionShape.clientId.optional(),
  clientSecret: oauthOptionShape.clientSecret.optional(),
  secretKey: patternOption(/^[\x21-\x7e]{8,200}$/, 'must be an API key: 8 to 200 visible characters')
    .refine((key) => !key.startsWith('pk_'), {
      error: 'holds a public key, which this API refuses server-to-server',
    })
    .optional(),
  baseUrl: z.string({ error: 'must be a URL string such as "https://{prefix}.example.com"' }).optional(),
  schemaVersion: oneOfOption(['3.0', '2.0'], 'must be "3.0" (the latest) or "2.0"').optional(),
  ...httpOptionShape,
};

/**
 * Creates a client of the Account Services API. Requests authenticate with an OAuth access token
 * (client credentials, cached per scope and refreshed ahead of expiry) or, where the API allows, the secret key.
 *
 * @example
 * const accounts = createAccountsClient({
 *   clientId: process.env.PROVIDER_CLIENT_ID, clientSecret: process.env.PROVIDER_CLIENT_SECRET,
 *   baseUrl: 'https://{prefix}.api.example.com', authUrl: 'https://{prefix}.access.example.com',
 * });
 * const { data: rule, etag } = await accounts.reserveRules.retrieve('ent_…', 'rsv_…');
 */
export function createAccountsClient<V extends SchemaVersion = '3.0'>(
  options: Readonly<AccountsClientOptions<V>>,
): AccountsClient<V> {
  const o = checkOptions(FACTORY, options, ACCOUNTS_OPTIONS, {
    secrets: ['clientSecret', 'secretKey'],
    across(o, problem) {
      const oauth = o.clientId !== undefined || o.clientSecret !== undefined;
      if (!oauth && o.secretKey === undefined) {
        problem('give OAuth credentials (`clientId` and `clientSecret`), a `secretKey`, or both');
      }
      if (oauth && o.clientId === undefined) problem('is required with `clientSecret`', 'clientId');
      if (oauth && o.clientSecret === undefined) problem('is required with `clientId`', 'clientSecret');
      if (!oauth && o.authUrl !== undefined) {
        problem('is only used with OAuth credentials (`clientId`, `clientSecret`)', 'authUrl');
      }
      httpAcross(o, problem);
    },
  });
  const { clientId, clientSecret, secretKey } = o;
  const oauth = clientId !== undefined && clientSecret !== undefined;
  const schemaVersion = (o.schemaVersion ?? '3.0') as V;
  const baseUrl = resolveBaseUrl(FACTORY, 'baseUrl', o.baseUrl ?? DEFAULT_SANDBOX_URL, clientId);
  const http: HttpContext = {
    config: httpConfig(o),
    redact: createRedactor([clientSecret, secretKey]),
  };
  const tokens = oauth
    ? tokenSourceFrom(
        FACTORY,
        {
          clientId: clientId!,
          clientSecret: clientSecret!,
          ...(o.authUrl !== undefined ? { authUrl: o.authUrl } : {}),
          ...(o.refreshMarginSeconds !== undefined ? { refreshMarginSeconds: o.refreshMarginSeconds } : {}),
          ...(o.now !== undefined ? { now: o.now } : {}),
        },
        http,
      )
    : undefined;
  const core = createAccountsCore(http, baseUrl, tokens, secretKey);
  return {
    accountUpdater: accountUpdater(core),
    entities: entities(core, schemaVersion),
    members: members(core),
    paymentInstruments: paymentInstruments(core),
    reserveRules: reserveRules(core),
    instruments: instruments(core),
    tokens,
    get heldResponseBytes() {
      return http.config.answerBudget.held;
    },
    close: () => closeDispatcher(http.config),
  };
}
