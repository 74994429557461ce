import type { Router } from 'express';
import { type AccountsClient, createAccountsClient } from '../provider/accounts/client.js';
import { createLegacyClient, type LegacyClient } from '../provider/legacy/client.js';
import { DEFAULT_SANDBOX_URL, trimTrailingSlashes } from '../provider/urls.js';
import { accountRoutes } from './accounts/routes.js';
import { chargeRoutes } from './charges/route.js';
import type { HelperContext } from './context.js';
import type { HelperLogger } from './log.js';
import type { ValidatedOptions } from './options.js';

/** The provider side of one helper: the widget's card-token URL and the routes that call the provider. */
export interface HelperProvider {
  readonly cardTokenUrl: string;
  /** Registers the routes that call the provider on `router`. */
  mount(router: Router, ctx: HelperContext): void;
}

/**
 * Builds the provider clients from validated options (or takes the ready ones)
 * and the routes that use them. The clients refuse `http://` to anything but
 * loopback, so no secret crosses a network in clear (DESIGN.md invariant).
 */
export function createProvider(o: ValidatedOptions, log: HelperLogger): HelperProvider {
  const live = o.environment === 'production';
  const base = trimTrailingSlashes(o.legacyBaseUrl ?? DEFAULT_SANDBOX_URL);
  const http = {
    logger: log,
    // A shopper waits on these calls: 10 s per attempt instead of the clients' 30 s (docs/DECISIONS.md#helper-upstream).
    timeoutMs: o.providerTimeoutMs ?? 10_000,
    ...(o.providerMaxRetries === undefined ? {} : { maxRetries: o.providerMaxRetries }),
  };
  const legacy =
    (o.legacyClient as LegacyClient | undefined) ??
    createLegacyClient({ secretKey: o.secretKey!, baseUrl: base, paths: live ? 'live' : 'sandbox', ...http });
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
  };
}
