import type { Router } from 'express';
import { secureUrlOption } from '../common/options.js';
import { type AccountsClient, createAccountsClient } from '../provider/accounts/client.js';
import { createLegacyClient, type LegacyClient } from '../provider/legacy/client.js';
import { createTokenSource } from '../provider/oauth/token-source.js';
import { DEFAULT_SANDBOX_URL, trimTrailingSlashes } from '../provider/urls.js';
import { accountRoutes } from './accounts/routes.js';
import { chargeRoutes } from './charges/route.js';
import type { HelperContext } from './context.js';
import { checkKeys, type KeyCheckResult, keyProbes, probeLogger } from './key-check.js';
import type { HelperLogger } from './log.js';
import type { ValidatedOptions } from './options.js';

/** The provider side of one helper: the widget's card-token URL and the routes that call the provider. */
export interface HelperProvider {
  readonly cardTokenUrl: string;
  /** Registers the routes that call the provider on `router`. */
  mount(router: Router, ctx: HelperContext): void;
  /** Asks the provider once whether it accepts the configured keys; logs what it refuses, never rejects. */
  checkKeys(): Promise<KeyCheckResult>;
}

/**
 * Builds the provider clients from validated options (or takes the ready ones)
 * and the routes that use them. The clients refuse `http://` to anything but
 * loopback, so no secret crosses a network in clear (DESIGN.md invariant).
 */
export function createProvider(o: ValidatedOptions, log: HelperLogger): HelperProvider {
  const live = o.environment === 'production';
  const given = o.legacyClient as LegacyClient | undefined;
  // A ready client without `legacyBaseUrl`: the widget's card-token URL and the key check's public-key probe go to
  // the provider that client calls, not to the local sandbox (a merchant's wrapper that has no `baseUrl` keeps the
  // default, as before).
  const fromClient = o.legacyBaseUrl === undefined ? clientBaseUrl(given) : undefined;
  const base = trimTrailingSlashes(o.legacyBaseUrl ?? fromClient ?? DEFAULT_SANDBOX_URL);
  const http = {
    logger: log,
    // A shopper waits on these calls: 10 s per attempt instead of the clients' 30 s (docs/decisions/helper.md#helper-upstream).
    timeoutMs: o.providerTimeoutMs ?? 10_000,
    ...(o.providerMaxRetries === undefined ? {} : { maxRetries: o.providerMaxRetries }),
    ...(o.providerResponseBudgetBytes === undefined ? {} : { responseBudgetBytes: o.providerResponseBudgetBytes }),
  };
  const legacy =
    given ?? createLegacyClient({ secretKey: o.secretKey!, baseUrl: base, paths: live ? 'live' : 'sandbox', ...http });
  let accounts = o.accountsClient as AccountsClient | undefined;
  if (!accounts && o.clientId) {
    accounts = createAccountsClient({
      clientId: o.clientId,
      clientSecret: o.clientSecret!,
      ...(o.accountsBaseUrl === undefined ? {} : { baseUrl: o.accountsBaseUrl }),
      ...(o.authBaseUrl === undefined ? {} : { authUrl: o.authBaseUrl }),
      ...(o.now === undefined ? {} : { now: o.now }),
      ...http,
    });
  }
  return {
    cardTokenUrl: `${base}${live ? '/v2' : '/api2/v2'}/tokens/card`,
    mount: (router, ctx) => {
      chargeRoutes(ctx, legacy, router);
      if (accounts) accountRoutes(ctx, accounts, router);
    },
    checkKeys: async () => {
      // Clients of their own, one attempt each, logging only at debug, closed after (docs/decisions/helper.md#helper-key-check).
      const quiet = { logger: probeLogger(log), timeoutMs: http.timeoutMs, maxRetries: 0 };
      const paths = live ? ('live' as const) : ('sandbox' as const);
      const secret = o.secretKey
        ? createLegacyClient({ secretKey: o.secretKey, baseUrl: base, paths, ...quiet })
        : legacy;
      const pub = o.publicKey
        ? createLegacyClient({ publicKey: o.publicKey, baseUrl: base, paths, ...quiet })
        : undefined;
      const oauth =
        o.clientId && o.clientSecret
          ? createTokenSource({
              clientId: o.clientId,
              clientSecret: o.clientSecret,
              ...(o.authBaseUrl === undefined ? {} : { authUrl: o.authBaseUrl }),
              ...(o.now === undefined ? {} : { now: o.now }),
              ...quiet,
            })
          : accounts?.tokens;
      try {
        return await checkKeys(keyProbes({ secret, public: pub, oauth }), log);
      } finally {
        const own = [secret === legacy ? undefined : secret, pub, oauth === accounts?.tokens ? undefined : oauth];
        await Promise.all(own.map((c) => c?.close().catch(() => undefined)));
      }
    },
  };
}

/** `legacyBaseUrl`'s own check (server/helper/options.ts), for the `baseUrl` of a ready client. */
const SECURE_BASE_URL = secureUrlOption('https://api.provider.example');

/**
 * The `baseUrl` of a ready legacy client, checked as `legacyBaseUrl` is: the widget posts card numbers to the card-token
 * URL made from it. A merchant's wrapper without a string `baseUrl`, or whose getter throws, has none (the default
 * stays, as before the property existed); one that is not an https:// URL (http:// only to loopback) without a user
 * or password is refused at once: an empty or relative one would have the widget post card numbers to the merchant's
 * own server, an http:// one send them in clear.
 */
function clientBaseUrl(client: LegacyClient | undefined): string | undefined {
  let value: unknown;
  try {
    value = client?.baseUrl;
  } catch {
    return undefined;
  }
  if (typeof value !== 'string') return undefined;
  if (!SECURE_BASE_URL.safeParse(value).success) {
    throw new TypeError(
      'tesseraHelper: legacyClient has a baseUrl that is not an https:// URL (http:// only to loopback) without a user or password; ' +
        'the widget’s card-token URL is made from it: pass `legacyBaseUrl`, or a client from `createLegacyClient`',
    );
  }
  return value;
}
