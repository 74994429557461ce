import type { Request } from 'express';
import { z } from 'zod';
import {
  booleanOption,
  checkOptions,
  functionOption,
  integerOption,
  loggerOption,
  oneOfOption,
  originOption,
  patternOption,
  secureUrlOption,
  urlTemplateOption,
} from '../common/options.js';
import type { AccountsClient } from '../provider/accounts/client.js';
import { MAX_RESPONSE_BUDGET_BYTES, MAX_RESPONSE_BYTES } from '../provider/http/answer-budget.js';
import type { LegacyClient } from '../provider/legacy/client.js';
import type { CurrencyCode } from '../provider/schemas/currencies.js';
import { CLIENT_ID } from '../provider/urls.js';
import { type HostAuthOptions, type HostClaims, hostAuthOption } from './host-auth.js';
import type { HelperLogger } from './log.js';
import { MOUNT_PATH } from './page.js';
import { type Limit, rateLimitsOption } from './rate-limit.js';
import { storeOption, type TesseraStore } from './store.js';

const FACTORY = 'tesseraHelper';

/** What `resolveCharge` answers: the charge the server decides on. */
export interface ChargeDetails {
  /** Amount in minor units (1999 for 19.99). */
  readonly amount: number;
  /** ISO 4217 code, upper case (`'EUR'`): a typo such as `'EURO'` does not compile. */
  readonly currency: CurrencyCode;
  /** Merchant-unique reference kept for the life of the payment (≤ 50 characters). */
  readonly trackId?: string;
  readonly description?: string;
  /** At most 10 string pairs, ≤ 100 characters each. */
  readonly metadata?: Readonly<Record<string, string>>;
  /** Ask for 3-D Secure (`chargeMode: 2`). */
  readonly threeDSecure?: boolean;
  /**
   * Capture automatically (`true`, the provider's default) after {@link autoCapTime} hours, or only authorise
   * (`false`): the charge stays `Authorised` until you capture it, and lapses after 168 hours.
   */
  readonly autoCapture?: boolean;
  /** Hours from 0 to 168 (decimals allowed: 0.5 is 30 minutes) before an automatic capture; required with `autoCapture: true`. */
  readonly autoCapTime?: number;
}

/** What `onCharge` receives: a charge whose outcome is final, as the provider answered it. */
export interface ChargeEvent {
  /** The provider's charge id (`charge_…`). */
  readonly id: string;
  /** `Authorised`, `Captured`, `Flagged` (all approved) or `Declined`. */
  readonly status: string;
  readonly approved: boolean;
  /** The issuer's response code (`10000` approved, `20051` insufficient funds, …); never sent to the browser unless `exposeDeclineCodes`. */
  readonly responseCode: string;
  /** Amount in minor units and ISO 4217 currency, as charged. */
  readonly amount: number;
  readonly currency: string;
  readonly trackId?: string;
  /** The `orderReference` the page sent (and `resolveCharge` accepted). */
  readonly orderReference: string;
  /** Safe summary of the card (never the number). */
  readonly card: {
    readonly brand: string;
    readonly last4: string;
    readonly expiryMonth: number;
    readonly expiryYear: number;
  };
}

/** Where `onCharge` was called from. */
export interface OnChargeContext {
  /**
   * The request that learned the outcome (the shopper's `POST /charges` or 3-D Secure return). On the return,
   * `req.params` are those of the `POST /charges` that started the charge (its mount path's, plain strings only),
   * not those of the path the provider sent the shopper back to (`publicUrl`'s).
   */
  readonly req: Request;
  /** `charge`: a `POST /charges` (the first one or a retry); `3ds-return`: the provider's 3-D Secure return. */
  readonly source: 'charge' | '3ds-return';
}

/**
 * What `onChallenge` receives: a charge the provider holds for the shopper's 3-D Secure challenge, read back from the
 * provider once it answered the charge with the challenge. Nothing that opens the challenge (its URL, its payment
 * token), no card token, card number or key. The provider gives no time at which the challenge lapses, so there is
 * none here (docs/decisions/helper.md#helper-on-challenge).
 */
export interface ChallengeEvent {
  /** The provider's charge id (`charge_…`): the `id` that `onCharge` receives once the challenge ends. */
  readonly id: string;
  /** The `orderReference` the page sent (and `resolveCharge` accepted). */
  readonly orderReference: string;
  /** Amount in minor units and ISO 4217 currency, as `resolveCharge` decided them and the provider holds them. */
  readonly amount: number;
  readonly currency: string;
  /** The `trackId` and `metadata` `resolveCharge` gave, when it gave them (the provider holds the `trackId` meanwhile). */
  readonly trackId?: string;
  readonly metadata?: Readonly<Record<string, string>>;
  /** When the provider created the charge, and so the challenge started (ISO 8601, the provider's `created`). */
  readonly startedAt: string;
}

/** Where `onChallenge` was called from. */
export interface OnChallengeContext {
  /** The shopper's `POST /charges` that started the challenge (or, rarely, a retry of it: see `onChallenge`). */
  readonly req: Request;
}

/** The validated charge request body as `resolveCharge` sees it (never an amount). */
export interface ChargeRequestBody {
  readonly orderReference: string;
  readonly email?: string;
  readonly customerId?: string;
}

/** What `paymentInstrumentIds` receives besides the entity id. */
export interface PaymentInstrumentIdsContext {
  /** The verified host token's claims (the signed-in user `iss` and `sub`, the entities and stored cards it may use). */
  readonly claims: HostClaims;
  /** The dashboard's request, e.g. to read your own session. */
  readonly req: Request;
}

/** What `onCardUpdated` receives after the account updater changed a stored card. */
export interface CardUpdatedEvent {
  readonly instrumentId: string;
  readonly status: string;
  /** Safe summary: bin, last4, expiry (never the number). Absent for CARD_CLOSED. */
  readonly card?: {
    readonly bin: string;
    readonly last4: string;
    readonly expiryMonth: number;
    readonly expiryYear: number;
  };
  /** `sub` of the host token that asked: unique only within its {@link issuer}. */
  readonly user: string;
  /**
   * `iss` of the host token that asked, one of `hostAuth.issuer`: with several issuers, the same `user` of two of them
   * is two people (RFC 7519 §4.1.2).
   */
  readonly issuer: string;
}

/**
 * Options of {@link tesseraHelper}. Required: `publicKey`, `resolveCharge`, and `secretKey` or a ready
 * `legacyClient` (leaving both out does not compile). The dashboard routes also need the OAuth client
 * (`clientId`/`clientSecret` or `accountsClient`) and `hostAuth`.
 */
export type TesseraHelperOptions = TesseraHelperSettings & HelperChargeKey;

/**
 * How the helper charges: with the secret key, or through a legacy client you built. One of them is required
 * (a compile error without either); giving both is refused when the helper is built.
 */
export type HelperChargeKey =
  | {
      /** The secret key for charges. Never logged, never answered. */
      readonly secretKey: string;
      /** A ready legacy client, instead of `secretKey` (its own logger and timeouts apply). */
      readonly legacyClient?: LegacyClient;
    }
  | {
      /** The secret key for charges. Never logged, never answered. */
      readonly secretKey?: string;
      /** A ready legacy client, instead of `secretKey` (its own logger and timeouts apply). */
      readonly legacyClient: LegacyClient;
    };

/** Everything {@link TesseraHelperOptions} holds besides the charge key. */
export interface TesseraHelperSettings {
  /** `sandbox` (default) or `production`; shown to the widget in `/config`. */
  readonly environment?: 'sandbox' | 'production';
  /** The public key the widget uses for card tokens (shown in `/config`). */
  readonly publicKey: string;
  /** Base URL of the legacy card API (default: the local sandbox). */
  readonly legacyBaseUrl?: string;
  /** OAuth client id for the Account Services API: `cli_` and 8 to 196 letters or digits. */
  readonly clientId?: string;
  /** OAuth client secret. Never logged, never answered. */
  readonly clientSecret?: string;
  /** Base URL template of the Account Services API (`{prefix}` allowed). */
  readonly accountsBaseUrl?: string;
  /** Base URL template of the access host (OAuth token endpoint). */
  readonly authBaseUrl?: string;
  /** A ready Account Services client, instead of `clientId`/`clientSecret`. */
  readonly accountsClient?: AccountsClient;
  /** Timeout of each attempt of a provider call made by the clients the helper builds (default 10 000 ms). */
  readonly providerTimeoutMs?: number;
  /** Retries of a failed provider call where safe (same idempotency key), 0–5 (default 2). */
  readonly providerMaxRetries?: number;
  /**
   * The most answer bytes each provider client the helper builds holds at once, all its calls together, 4 MiB to
   * 4 GiB (default 64 MiB). An answer that would pass it is not read: 503 `TESSERA_PROVIDER_UNAVAILABLE`
   * (docs/decisions/provider.md#answer-budget).
   */
  readonly providerResponseBudgetBytes?: number;
  /**
   * How long a request waits for one of your hooks (`resolveCharge`, `onCharge`, `onChallenge`, `onCardUpdated`,
   * `paymentInstrumentIds`, `hostAuth.isBound`), 100–120 000 ms (default 15 000), each hook on its own: a charge
   * waits for `resolveCharge` and then `onCharge` (or `onChallenge`), a dashboard request for `hostAuth.isBound` and
   * then `paymentInstrumentIds`. A hook still running then is left to finish and logged (`tessera.hook.timeout`), and
   * the request is answered without it: 503 when the answer depends on it, the 3-D Secure 202 after `onChallenge`,
   * the page's 200 after `onCardUpdated` (docs/decisions/helper.md#helper-hook-timeout).
   */
  readonly hookTimeoutMs?: number;
  /**
   * How long `GET /entities/:entityId/payment-instruments` waits for the provider, all its reads together (each still
   * under `providerTimeoutMs` and its retries), 100–120 000 ms (default 15 000), counted once `paymentInstrumentIds`
   * has answered. Then the reads in flight are cancelled, no more are sent, and the page gets 504
   * `TESSERA_PROVIDER_TIMEOUT` (`outcomeKnown: true`), never part of the list. docs/decisions/helper.md#helper-instrument-list-deadline
   */
  readonly instrumentListTimeoutMs?: number;
  /**
   * Decides amount, currency and the rest of a charge from the order reference. Required. Answer `undefined`
   * (or `null`) for an order that does not exist or may not be paid (400 `TESSERA_UNKNOWN_ORDER`), or throw a
   * `HelperHttpError` to answer with your own status and code. `req.params` holds the parameters of the path the
   * helper is mounted under (`req.params.shop` at `/shops/:shop/payments`).
   */
  readonly resolveCharge: (
    req: Request,
    body: ChargeRequestBody,
  ) => ChargeDetails | null | undefined | Promise<ChargeDetails | null | undefined>;
  /** Verification of host-page JWTs for the dashboard routes. */
  readonly hostAuth?: HostAuthOptions;
  /**
   * Called on your server once per charge when its outcome is final (approved, declined or flagged), before the
   * shopper's answer is sent: record the order as paid here, never from what the browser says. Called exactly
   * once per charge across retries, double submits and instances (with a shared `store`). When it throws (or
   * rejects), the shopper gets 503 `TESSERA_ON_CHARGE_FAILED` (never "paid"), the error is logged, and the next
   * retry of the same card token (or of the 3-D Secure return) calls it again. docs/decisions/helper.md#helper-on-charge
   */
  readonly onCharge?: (charge: ChargeEvent, context: OnChargeContext) => void | Promise<void>;
  /**
   * Called on your server once per 3-D Secure challenge, when the provider answered a charge with one and before the
   * shopper's 202 is sent: note that the order waits for the shopper's bank (hold stock, tell a shopper who comes back
   * without finishing it). Called once per challenge across retries, double submits and instances (with a shared
   * `store`). The challenge exists whatever it does: when it throws (or rejects) or has not settled within
   * `hookTimeoutMs`, it is logged (`tessera.on_challenge.failed`, `tessera.hook.timeout`) and the 202 is sent all the
   * same; the outcome still reaches `onCharge`. docs/decisions/helper.md#helper-on-challenge
   */
  readonly onChallenge?: (challenge: ChallengeEvent, context: OnChallengeContext) => void | Promise<void>;
  /** Send the issuer's `responseCode` of a declined charge to the browser (default false: one generic decline). */
  readonly exposeDeclineCodes?: boolean;
  /** Limits; each may be `false` to switch it off. Defaults in docs/decisions/helper.md#helper-rate-limits. */
  readonly rateLimits?: {
    /** Every `POST /charges` of one IP, valid or not, counted before its body is read, and every 3-D Secure return. */
    readonly requestsPerIp?: Limit | false;
    readonly chargesPerIp?: Limit | false;
    readonly chargesPerSession?: Limit | false;
    readonly declinesPerIp?: Limit | false;
    readonly declinesPerSession?: Limit | false;
    /**
     * Every declined charge of the shop (every instance sharing the store): at `max` in `windowMs`, every charge is
     * refused with 429 until the window ends. Off (`false`) by default: whoever can make declines can then pause the
     * shop's sales for a window. docs/decisions/helper.md#helper-declines-total
     */
    readonly declinesTotal?: Limit | false;
    /** Dashboard requests of one user: the host token's `iss` and `sub` together (default 120 a minute). */
    readonly hostRequestsPerUser?: Limit | false;
    /**
     * Dashboard requests of one IP answered 401 (host token missing or refused), default 60 a minute: past it, every
     * dashboard request of that IP is 429 before its token is checked. docs/decisions/helper.md#helper-rate-limits
     */
    readonly hostAuthFailuresPerIp?: Limit | false;
  };
  /** The shopper's session id for per-session limits (default: `req.sessionID` of express-session, if any). */
  readonly sessionId?: (req: Request) => string | undefined;
  /** A pino-compatible logger (default: pino). Everything logged is redacted. */
  readonly logger?: HelperLogger;
  /** Where results and counters live (default: a {@link MemoryStore}). */
  readonly store?: TesseraStore;
  /** Called after the account updater returned a new card or expiry (or closed it). */
  readonly onCardUpdated?: (event: CardUpdatedEvent) => void | Promise<void>;
  /**
   * The payout instruments (`ppi_…`) of a sub-entity that your platform recorded when it added them, for
   * `GET /entities/:entityId/payment-instruments`: the provider's API reads one instrument by id and has no list
   * operation, so the helper reads each id you give (in your order, at most 100) and leaves out any the provider no
   * longer has. Called only after the host token allowed the entity. Without it the route uses the sandbox's list
   * extension (`environment: 'sandbox'`) or answers 501 `TESSERA_LIST_NOT_CONFIGURED`.
   * docs/decisions/helper.md#helper-instrument-list
   *
   * Also called by `GET` and `PATCH /entities/:entityId/payment-instruments/:id`: an id it does not name for the entity
   * is 404 `TESSERA_NOT_FOUND` before the provider is asked, so another sub-entity's instrument cannot be read or made
   * the payout default even by a provider that ignored the entity in its path. docs/decisions/helper.md#helper-instrument-owner
   */
  readonly paymentInstrumentIds?: (
    entityId: string,
    context: PaymentInstrumentIdsContext,
  ) => readonly string[] | Promise<readonly string[]>;
  /** Origins allowed to call the helper from another origin (CORS). Off by default. */
  readonly corsOrigins?: readonly string[];
  /** The helper's public URL as browsers see it (e.g. `https://shop.example/payments`); default: from each request. */
  readonly publicUrl?: string;
  /** Origins besides the helper's own that `successUrl`/`failUrl` may point to. */
  readonly redirectOrigins?: readonly string[];
  /**
   * Largest accepted request body in bytes (default 16 384), also for a body an app-wide parser read first (by its
   * `Content-Length`, or its size when left as bytes or text).
   */
  readonly bodyLimitBytes?: number;
  /** Clock in epoch ms (default `Date.now`); tests pass the sandbox's virtual clock. */
  readonly now?: () => number;
  /**
   * Check the keys with the provider once at startup and log a warning for each set it refuses (default true;
   * docs/decisions/helper.md#helper-key-check). The result is `helper.keyCheck`.
   */
  readonly startupKeyCheck?: boolean;
  /**
   * Read one key of the store once at startup and log a warning when it fails or does not answer in time (default
   * true; docs/decisions/helper.md#helper-store-check). The result is `helper.storeCheck`.
   */
  readonly startupStoreCheck?: boolean;
  /**
   * Where you mount the helper (`app.use(helper.mountPath, helper)`), e.g. `/payments`: the one place the path is
   * written; `helper.page(req, res)` builds the page's script tag, config and charge URLs from it. A plain path, no
   * pattern: under a path with parameters (`/shops/:shop/payments`) leave it out and write the page's URLs with
   * `widgetScriptTag`.
   */
  readonly mountPath?: string;
}

/**
 * The options of {@link TesseraHelperOptions}, each with its check (server/common/options.ts). The schemas of the
 * options with a module of their own live there: `hostAuth` in host-auth.ts, `rateLimits` in rate-limit.ts,
 * `store` in store.ts.
 */
const HELPER_OPTIONS = {
  environment: oneOfOption(['sandbox', 'production']).optional(),
  publicKey: patternOption(/^pk_[A-Za-z0-9_]{8,200}$/, 'must be a public key such as "pk_…"').optional(),
  secretKey: patternOption(/^sk_[A-Za-z0-9_]{8,200}$/, 'must be a secret key such as "sk_…"').optional(),
  legacyBaseUrl: secureUrlOption('https://api.provider.example').optional(),
  clientId: patternOption(CLIENT_ID, 'must be a client id: `cli_` and 8 to 196 letters or digits').optional(),
  clientSecret: z
    .string({ error: 'must be the OAuth client secret' })
    .min(8, { error: 'must be the OAuth client secret' })
    .max(500)
    .optional(),
  accountsBaseUrl: urlTemplateOption('https://{prefix}.api.provider.example').optional(),
  authBaseUrl: urlTemplateOption('https://{prefix}.access.provider.example').optional(),
  legacyClient: z
    .custom<LegacyClient>((v) => !!v && typeof v === 'object' && typeof (v as LegacyClient).charges === 'object', {
      error: 'must be a LegacyClient instance (from `createLegacyClient`)',
    })
    .optional(),
  accountsClient: z
    .custom<AccountsClient>(
      (v) =>
        !!v &&
        typeof v === 'object' &&
        typeof (v as AccountsClient).accountUpdater === 'object' &&
        typeof (v as AccountsClient).paymentInstruments === 'object',
      { error: 'must be an AccountsClient instance (from `createAccountsClient`)' },
    )
    .optional(),
  providerTimeoutMs: integerOption(100, 120_000).optional(),
  providerMaxRetries: integerOption(0, 5).optional(),
  providerResponseBudgetBytes: integerOption(MAX_RESPONSE_BYTES, MAX_RESPONSE_BUDGET_BYTES).optional(),
  hookTimeoutMs: integerOption(100, 120_000).optional(),
  instrumentListTimeoutMs: integerOption(100, 120_000).optional(),
  resolveCharge: functionOption<TesseraHelperOptions['resolveCharge']>('`(req, body) => ({ amount, currency })`'),
  hostAuth: hostAuthOption.optional(),
  rateLimits: rateLimitsOption.optional(),
  sessionId: functionOption<NonNullable<TesseraHelperOptions['sessionId']>>('`(req) => string | undefined`').optional(),
  logger: loggerOption<HelperLogger>().optional(),
  store: storeOption.optional(),
  onCardUpdated: functionOption<NonNullable<TesseraHelperOptions['onCardUpdated']>>('`(event) => void`').optional(),
  paymentInstrumentIds: functionOption<NonNullable<TesseraHelperOptions['paymentInstrumentIds']>>(
    '`(entityId, { claims, req }) => string[]`',
  ).optional(),
  onCharge: functionOption<NonNullable<TesseraHelperOptions['onCharge']>>('`(charge, context) => void`').optional(),
  onChallenge: functionOption<NonNullable<TesseraHelperOptions['onChallenge']>>(
    '`(challenge, context) => void`',
  ).optional(),
  exposeDeclineCodes: booleanOption().optional(),
  corsOrigins: z.array(originOption()).optional(),
  publicUrl: secureUrlOption('https://shop.example/payments').optional(),
  redirectOrigins: z.array(originOption()).optional(),
  bodyLimitBytes: integerOption(1024, 1_048_576).optional(),
  now: functionOption<() => number>('returning epoch milliseconds').optional(),
  startupKeyCheck: booleanOption().optional(),
  startupStoreCheck: booleanOption().optional(),
  mountPath: z
    .string({ error: 'must be a plain path such as "/payments"' })
    .regex(MOUNT_PATH, { error: 'must be a plain path such as "/payments" (no trailing slash, no patterns)' })
    .optional(),
};

/** The helper's options once checked. */
export type ValidatedOptions = z.output<z.ZodObject<typeof HELPER_OPTIONS>>;

/**
 * Validates the options once, at the call: every problem becomes one line of one TypeError naming the option,
 * showing the bad value (never a secret's) and the fix.
 */
export function validateOptions(options: unknown): ValidatedOptions {
  return checkOptions(FACTORY, options, HELPER_OPTIONS, {
    // `key` of hostAuth may be a private key given by mistake, and so may a wrong `publicKey` be the secret key (the
    // mistake its check exists for): neither value is shown, as the legacy client's check does not show them.
    secrets: ['secretKey', 'clientSecret', 'key', 'publicKey'],
    usage: `${FACTORY}({ publicKey, secretKey, resolveCharge })`,
    across(o, problem) {
      if (o.legacyClient === undefined && o.secretKey === undefined) {
        problem('is required (or pass `legacyClient`)', 'secretKey');
      }
      if (o.publicKey === undefined) problem('is required: the widget needs it for card tokens', 'publicKey');
      if (o.legacyClient !== undefined && o.secretKey !== undefined) {
        problem(
          'replaces `secretKey`; pass one or the other (`legacyBaseUrl` still gives the card-token URL)',
          'legacyClient',
        );
      }
      const oauth = o.clientId !== undefined || o.clientSecret !== undefined;
      if (oauth && (o.clientId === undefined || o.clientSecret === undefined)) {
        problem('is required with the other OAuth option', o.clientId ? 'clientSecret' : 'clientId');
      }
      if (o.accountsClient !== undefined && oauth) {
        problem('replaces `clientId`/`clientSecret`; pass one or the other', 'accountsClient');
      }
      const accounts = oauth || o.accountsClient !== undefined;
      if (accounts && o.hostAuth === undefined) {
        problem('is required with the Account Services client: the dashboard routes need host JWTs', 'hostAuth');
      }
      if (!accounts && o.hostAuth !== undefined) {
        problem('needs `clientId`/`clientSecret` (or `accountsClient`) for the dashboard routes', 'hostAuth');
      }
      if (!accounts && o.paymentInstrumentIds !== undefined) {
        problem(
          'serves a dashboard route: it needs `clientId`/`clientSecret` (or `accountsClient`) and `hostAuth`',
          'paymentInstrumentIds',
        );
      }
      const production = o.environment === 'production';
      const sandboxDefault = 'is required when `environment` is "production" (the default is the local sandbox)';
      if (production && o.legacyBaseUrl === undefined) problem(sandboxDefault, 'legacyBaseUrl');
      // Without it the 3-D Secure return URL given to the provider is built from the charge request's Host, which its
      // sender chooses: the provider's own challenge page then sends the shopper to that host
      // (docs/decisions/helper.md#helper-3ds).
      if (production && o.publicUrl === undefined) {
        problem(
          'is required when `environment` is "production": the provider sends shoppers back to it after 3-D Secure, ' +
            'and without it that URL would come from each request’s Host header, which the sender chooses',
          'publicUrl',
        );
      }
      if (production && o.clientId !== undefined && o.accountsBaseUrl === undefined) {
        problem(sandboxDefault, 'accountsBaseUrl');
      } else if (production && o.clientId !== undefined && o.authBaseUrl === undefined) {
        problem(sandboxDefault, 'authBaseUrl');
      }
      if (production && o.publicKey?.includes('_sbox_')) {
        problem('is a sandbox key but `environment` is "production"', 'publicKey');
      }
    },
  });
}
