import type { Request } from 'express';
import { z } from 'zod';
import { secureUrl } from '../../shared/url.js';
import type { AccountsClient } from '../provider/accounts/client.js';
import type { LegacyClient } from '../provider/legacy/client.js';
import { HOST_ALGORITHMS, type HostAuthOptions } from './host-auth.js';
import type { HelperLogger } from './log.js';
import { MOUNT_PATH } from './page.js';
import type { Limit } from './rate-limit.js';
import type { TesseraStore } from './store.js';
import { closest } from './suggest.js';

const FACTORY = 'tesseraHelper';

/** Options whose values are never shown in an error message (`key` of hostAuth may be a private key by mistake). */
const SECRET_OPTIONS = new Set(['secretKey', 'clientSecret', 'key']);

const fn = <T>(what: string) => z.custom<T>((v) => typeof v === 'function', { message: `must be a function ${what}` });

const httpsUrl = (example: string) =>
  z.string().refine((s) => secureUrl(s) !== undefined, {
    message: `must be an https:// URL (http:// only to loopback) such as ${JSON.stringify(example)}`,
  });

/** A base-URL template: `{prefix}` stands for the client id's host prefix. */
const templateUrl = (example: string) =>
  z.string().refine((s) => httpsUrl(example).safeParse(s.replaceAll('{prefix}', 'prefix')).success, {
    message: `must be an https:// URL template (http:// only to loopback) such as ${JSON.stringify(example)}`,
  });

const limitSchema = z
  .strictObject({
    max: z.number().int().min(1).max(1_000_000),
    windowMs: z.number().int().min(1000).max(86_400_000),
  })
  .or(z.literal(false));

const rateLimitsSchema = z.strictObject({
  requestsPerIp: limitSchema.optional(),
  chargesPerIp: limitSchema.optional(),
  chargesPerSession: limitSchema.optional(),
  declinesPerIp: limitSchema.optional(),
  declinesPerSession: limitSchema.optional(),
  hostRequestsPerUser: limitSchema.optional(),
});

const stringOrList = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

const hostAuthSchema = z
  .strictObject({
    issuer: stringOrList,
    audience: stringOrList,
    algorithms: z
      .array(
        z.enum(HOST_ALGORITHMS, { message: `must list only asymmetric algorithms: ${HOST_ALGORITHMS.join(', ')}` }),
      )
      .min(1),
    jwksUrl: httpsUrl('https://auth.example.com/.well-known/jwks.json').optional(),
    key: z
      .custom<NonNullable<HostAuthOptions['key']>>((v) => typeof v === 'string' || (!!v && typeof v === 'object'), {
        message: 'must be a public key: SPKI PEM text, a public JWK or a KeyObject',
      })
      .optional(),
    clockToleranceSeconds: z.number().int().min(0).max(30).optional(),
    maxAgeSeconds: z.number().int().min(1).max(86_400).optional(),
    maxLifetimeSeconds: z.number().int().min(60).max(86_400).optional(),
    requireLowS: z.boolean().optional(),
    jwksTimeoutMs: z.number().int().min(100).max(30_000).optional(),
  })
  .refine((a) => (a.jwksUrl === undefined) !== (a.key === undefined), {
    message: 'needs exactly one of `jwksUrl` and `key`',
  });

const clientSchema = <T>(methods: readonly string[], what: string) =>
  z.custom<T>(
    (v) => !!v && typeof v === 'object' && methods.every((m) => typeof (v as Record<string, unknown>)[m] === 'object'),
    { message: `must be a ${what} instance` },
  );

/** What `resolveCharge` answers: the charge the server decides on. */
export interface ChargeDetails {
  /** Amount in minor units (1999 for 19.99). */
  readonly amount: number;
  /** ISO 4217 code. */
  readonly currency: string;
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
  /** The request that learned the outcome (the shopper's `POST /charges` or 3-D Secure return). */
  readonly req: Request;
  /** `charge`: a `POST /charges` (the first one or a retry); `3ds-return`: the provider's 3-D Secure return. */
  readonly source: 'charge' | '3ds-return';
}

/** The validated charge request body as `resolveCharge` sees it (never an amount). */
export interface ChargeRequestBody {
  readonly orderReference: string;
  readonly email?: string;
  readonly customerId?: string;
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
  /** `sub` of the host token that asked. */
  readonly user: string;
}

/**
 * Options of {@link tesseraHelper}. Only `resolveCharge`, `publicKey` and
 * `secretKey` (or `legacyClient`) are required; the dashboard routes need the
 * OAuth client (`clientId`/`clientSecret` or `accountsClient`) and `hostAuth`.
 */
export interface TesseraHelperOptions {
  /** `sandbox` (default) or `production`; shown to the widget in `/config`. */
  readonly environment?: 'sandbox' | 'production';
  /** The public key the widget uses for card tokens (shown in `/config`). */
  readonly publicKey?: string;
  /** The secret key for charges. Never logged, never answered. */
  readonly secretKey?: string;
  /** Base URL of the legacy card API (default: the local sandbox). */
  readonly legacyBaseUrl?: string;
  /** OAuth client id for the Account Services API. */
  readonly clientId?: string;
  /** OAuth client secret. Never logged, never answered. */
  readonly clientSecret?: string;
  /** Base URL template of the Account Services API (`{prefix}` allowed). */
  readonly accountsBaseUrl?: string;
  /** Base URL template of the access host (OAuth token endpoint). */
  readonly authBaseUrl?: string;
  /** A ready legacy client, instead of `secretKey` (its own logger and timeouts apply). */
  readonly legacyClient?: LegacyClient;
  /** A ready Account Services client, instead of `clientId`/`clientSecret`. */
  readonly accountsClient?: AccountsClient;
  /** Timeout of each attempt of a provider call made by the clients the helper builds (default 10 000 ms). */
  readonly providerTimeoutMs?: number;
  /** Retries of a failed provider call where safe (same idempotency key), 0–5 (default 2). */
  readonly providerMaxRetries?: number;
  /**
   * Decides amount, currency and the rest of a charge from the order reference. Required. Answer `undefined`
   * (or `null`) for an order that does not exist or may not be paid (400 `TESSERA_UNKNOWN_ORDER`), or throw a
   * `HelperHttpError` to answer with your own status and code.
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
   * retry of the same card token (or of the 3-D Secure return) calls it again. docs/DECISIONS.md#helper-on-charge
   */
  readonly onCharge?: (charge: ChargeEvent, context: OnChargeContext) => void | Promise<void>;
  /** Send the issuer's `responseCode` of a declined charge to the browser (default false: one generic decline). */
  readonly exposeDeclineCodes?: boolean;
  /** Limits; each may be `false` to switch it off. Defaults in docs/DECISIONS.md#helper-rate-limits. */
  readonly rateLimits?: {
    /** Every `POST /charges` of one IP, valid or not, counted before its body is read. */
    readonly requestsPerIp?: Limit | false;
    readonly chargesPerIp?: Limit | false;
    readonly chargesPerSession?: Limit | false;
    readonly declinesPerIp?: Limit | false;
    readonly declinesPerSession?: Limit | false;
    readonly hostRequestsPerUser?: Limit | false;
  };
  /** The shopper's session id for per-session limits (default: `req.sessionID` of express-session, if any). */
  readonly sessionId?: (req: Request) => string | undefined;
  /** A pino-compatible logger (default: pino). Everything logged is redacted. */
  readonly logger?: HelperLogger;
  /** Where results and counters live (default: a {@link MemoryStore}). */
  readonly store?: TesseraStore;
  /** Called after the account updater returned a new card or expiry (or closed it). */
  readonly onCardUpdated?: (event: CardUpdatedEvent) => void | Promise<void>;
  /** Origins allowed to call the helper from another origin (CORS). Off by default. */
  readonly corsOrigins?: readonly string[];
  /** The helper's public URL as browsers see it (e.g. `https://shop.example/payments`); default: from each request. */
  readonly publicUrl?: string;
  /** Origins besides the helper's own that `successUrl`/`failUrl` may point to. */
  readonly redirectOrigins?: readonly string[];
  /** Largest accepted request body in bytes (default 16 384). */
  readonly bodyLimitBytes?: number;
  /** Clock in epoch ms (default `Date.now`); tests pass the sandbox's virtual clock. */
  readonly now?: () => number;
  /**
   * Check the keys with the provider once at startup and log a warning for each set it refuses (default true;
   * docs/DECISIONS.md#helper-key-check). The result is `helper.keyCheck`.
   */
  readonly startupKeyCheck?: boolean;
  /**
   * Where you mount the helper (`app.use(helper.mountPath, helper)`), e.g. `/payments`: the one place the path is
   * written; `helper.page(req, res)` builds the page's script tag, config and charge URLs from it.
   */
  readonly mountPath?: string;
}

const origin = z.string().refine(
  (s) => {
    try {
      return new URL(s).origin === s;
    } catch {
      return false;
    }
  },
  { message: 'must be an origin such as "https://shop.example" (scheme, host, optional port; no path)' },
);

const optionsSchema = z
  .strictObject({
    environment: z.enum(['sandbox', 'production']).optional(),
    publicKey: z
      .string()
      .regex(/^pk_[A-Za-z0-9_]{8,200}$/, { message: 'must be a public key such as "pk_…"' })
      .optional(),
    secretKey: z
      .string()
      .regex(/^sk_[A-Za-z0-9_]{8,200}$/, { message: 'must be a secret key such as "sk_…"' })
      .optional(),
    legacyBaseUrl: httpsUrl('https://api.provider.example').optional(),
    clientId: z
      .string()
      .regex(/^cli_[A-Za-z0-9]{8,100}$/, { message: 'must be a client id such as "cli_…"' })
      .optional(),
    clientSecret: z.string().min(8, { message: 'must be the OAuth client secret' }).max(500).optional(),
    accountsBaseUrl: templateUrl('https://{prefix}.api.provider.example').optional(),
    authBaseUrl: templateUrl('https://{prefix}.access.provider.example').optional(),
    legacyClient: clientSchema<LegacyClient>(['charges'], 'LegacyClient (from `createLegacyClient`)').optional(),
    accountsClient: clientSchema<AccountsClient>(
      ['accountUpdater', 'paymentInstruments'],
      'AccountsClient (from `createAccountsClient`)',
    ).optional(),
    providerTimeoutMs: z.number().int().min(100).max(120_000).optional(),
    providerMaxRetries: z.number().int().min(0).max(5).optional(),
    resolveCharge: fn<TesseraHelperOptions['resolveCharge']>('`(req, body) => ({ amount, currency })`'),
    hostAuth: hostAuthSchema.optional(),
    rateLimits: rateLimitsSchema.optional(),
    sessionId: fn<NonNullable<TesseraHelperOptions['sessionId']>>('`(req) => string | undefined`').optional(),
    logger: z
      .custom<HelperLogger>(
        (v) =>
          !!v &&
          typeof v === 'object' &&
          ['debug', 'info', 'warn', 'error'].every((m) => typeof (v as Record<string, unknown>)[m] === 'function'),
        { message: 'must be a pino-compatible logger (debug, info, warn and error methods)' },
      )
      .optional(),
    store: z
      .custom<TesseraStore>(
        (v) =>
          !!v &&
          typeof v === 'object' &&
          ['get', 'set', 'hit', 'count', 'unhit', 'claim', 'release'].every(
            (m) => typeof (v as Record<string, unknown>)[m] === 'function',
          ),
        { message: 'must implement TesseraStore (get, set, hit, count, unhit, claim, release)' },
      )
      .optional(),
    onCardUpdated: fn<NonNullable<TesseraHelperOptions['onCardUpdated']>>('`(event) => void`').optional(),
    onCharge: fn<NonNullable<TesseraHelperOptions['onCharge']>>('`(charge, context) => void`').optional(),
    exposeDeclineCodes: z.boolean().optional(),
    corsOrigins: z.array(origin).optional(),
    publicUrl: httpsUrl('https://shop.example/payments').optional(),
    redirectOrigins: z.array(origin).optional(),
    bodyLimitBytes: z.number().int().min(1024).max(1_048_576).optional(),
    now: fn<() => number>('returning epoch milliseconds').optional(),
    startupKeyCheck: z.boolean().optional(),
    mountPath: z
      .string()
      .regex(MOUNT_PATH, { message: 'must be a plain path such as "/payments" (no trailing slash, no patterns)' })
      .optional(),
  })
  .superRefine((o, ctx) => {
    const need = (cond: boolean, path: string, message: string) => {
      if (cond) ctx.addIssue({ code: 'custom', path: [path], message });
    };
    need(
      o.legacyClient === undefined && o.secretKey === undefined,
      'secretKey',
      'is required (or pass `legacyClient`)',
    );
    need(o.publicKey === undefined, 'publicKey', 'is required: the widget needs it for card tokens');
    need(
      o.legacyClient !== undefined && o.secretKey !== undefined,
      'legacyClient',
      'replaces `secretKey`; pass one or the other (`legacyBaseUrl` still gives the card-token URL)',
    );
    const oauth = o.clientId !== undefined || o.clientSecret !== undefined;
    need(
      oauth && (o.clientId === undefined || o.clientSecret === undefined),
      o.clientId ? 'clientSecret' : 'clientId',
      'is required with the other OAuth option',
    );
    need(
      o.accountsClient !== undefined && oauth,
      'accountsClient',
      'replaces `clientId`/`clientSecret`; pass one or the other',
    );
    const accounts = oauth || o.accountsClient !== undefined;
    need(
      accounts && o.hostAuth === undefined,
      'hostAuth',
      'is required with the Account Services client: the dashboard routes need host JWTs',
    );
    need(
      !accounts && o.hostAuth !== undefined,
      'hostAuth',
      'needs `clientId`/`clientSecret` (or `accountsClient`) for the dashboard routes',
    );
    const production = o.environment === 'production';
    need(
      production && o.legacyBaseUrl === undefined,
      'legacyBaseUrl',
      'is required when `environment` is "production" (the default is the local sandbox)',
    );
    need(
      production && o.clientId !== undefined && (o.accountsBaseUrl === undefined || o.authBaseUrl === undefined),
      o.accountsBaseUrl === undefined ? 'accountsBaseUrl' : 'authBaseUrl',
      'is required when `environment` is "production" (the default is the local sandbox)',
    );
    need(
      production && /_sbox_/.test(o.publicKey ?? ''),
      'publicKey',
      'is a sandbox key but `environment` is "production"',
    );
  });

export type ValidatedOptions = z.output<typeof optionsSchema>;

function shown(path: string, value: unknown): string {
  const last = path.split('.').pop()!;
  if (SECRET_OPTIONS.has(last)) {
    return typeof value === 'string' ? `a string of ${value.length} characters` : typeof value;
  }
  if (typeof value === 'function') return 'a function';
  if (value === undefined) return 'undefined';
  try {
    // Secrets nested in a shown object are hidden too.
    const text = JSON.stringify(value, (k, v) => (SECRET_OPTIONS.has(k) ? '[hidden]' : v));
    if (text === undefined) return String(value);
    return text.length > 160 ? `${text.slice(0, 157)}...` : text;
  } catch {
    return typeof value;
  }
}

function at(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const k of path) v = v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let s: z.ZodType | undefined = schema;
  for (const k of path) {
    const shape = objectShape(s);
    s = shape?.[String(k)];
  }
  return Object.keys(objectShape(s) ?? {});
}

function objectShape(s: z.ZodType | undefined): Record<string, z.ZodType> | undefined {
  let cur: unknown = s;
  for (let i = 0; i < 6 && cur; i++) {
    const def = (cur as { def?: Record<string, unknown> }).def;
    if (!def) return undefined;
    if (def.type === 'object') return def.shape as Record<string, z.ZodType>;
    cur = def.innerType ?? def.in ?? (Array.isArray(def.options) ? def.options[0] : def.left) ?? def.schema;
  }
  return undefined;
}

/** The fix for one zod issue, phrased as "must …". */
function fixOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'too_small':
      return `must be at least ${issue.minimum}`;
    case 'too_big':
      return `must be at most ${issue.maximum}`;
    case 'invalid_value':
      if (!issue.message.startsWith('Invalid')) return issue.message;
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_type':
      return `must be ${issue.expected === 'array' ? 'an array' : `a ${issue.expected}`}`;
    default:
      return issue.message;
  }
}

/**
 * Validates the options once, at the call: every problem becomes one TypeError
 * naming the option, showing the bad value (never a secret's) and the fix.
 */
export function validateOptions(options: unknown): ValidatedOptions {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(
      `${FACTORY}: expected an options object such as \`${FACTORY}({ publicKey, secretKey, resolveCharge })\`, got ${shown('', options)}`,
    );
  }
  const result = optionsSchema.safeParse(options);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const parent = issue.path.map(String);
      const known = knownKeys(optionsSchema as unknown as z.ZodType, issue.path);
      return issue.keys
        .map((key) => {
          const name = [...parent, key].join('.');
          const guess = closest(key, known);
          return `unknown option \`${name}\`.${guess ? ` Did you mean \`${[...parent, guess].join('.')}\`?` : ` Known options: ${known.join(', ')}.`}`;
        })
        .join('\n  ');
    }
    const name = issue.path.map(String).join('.');
    return `option \`${name}\` ${fixOf(issue)}; got ${shown(name, at(options, issue.path))}`;
  });
  throw new TypeError(`${FACTORY}: ${lines.join('\n  ')}`);
}
