import { z } from 'zod';
import { booleanOption, checkOptions, oneOfOption, patternOption } from '../../common/options.js';
import { coerceFromXml } from '../codec/coerce.js';
import { decodeXml, encodeXml } from '../codec/xml.js';
import { InvalidResponseError } from '../errors.js';
import { type CallOptions, checkBody, checkCall, idempotencyKeyOf, pathId, type WriteOptions } from '../http/call.js';
import { closeDispatcher, type HttpOptions, httpAcross, httpConfig, httpOptionShape } from '../http/options.js';
import type { ProviderResult } from '../http/result.js';
import { type Credential, type HttpContext, send } from '../http/transport.js';
import { createRedactor, maskObjectTokens } from '../log.js';
import {
  type CardTokenRequest,
  type ChargeRequest,
  cardTokenResponseSchema,
  chargeResponseSchema,
  type PaymentTokenRequest,
  paymentTokenResponseSchema,
} from '../schemas/legacy.js';
import { DEFAULT_SANDBOX_URL, resolveBaseUrl } from '../urls.js';

/** A card token (`card_tok_…`), typed by the shared schema. */
export interface ProviderCardToken extends z.output<typeof cardTokenResponseSchema> {}
/** A payment token (`pay_tok_…`); a 3-D Secure charge answers with one carrying `redirectUrl`. */
export interface PaymentToken extends z.output<typeof paymentTokenResponseSchema> {}
/** A charge (`charge_…`). */
export interface Charge extends z.output<typeof chargeResponseSchema> {}
/** The answer to a 3-D Secure charge: a `pay_tok_…` and the challenge page the shopper must open. */
export type ThreeDSecureRedirect = PaymentToken & { readonly redirectUrl: string };
export type { CardTokenRequest, ChargeRequest, PaymentTokenRequest };

/** Options of {@link createLegacyClient}. */
export type LegacyClientOptions = LegacyClientSettings & LegacyKeys;

/** The keys of a legacy client: a public key, a secret key or both (leaving both out does not compile). */
export type LegacyKeys =
  | {
      /** Public key (client-side operations: card tokens). */
      readonly publicKey: string;
      /** Secret key (server-to-server: payment tokens, charges). Never logged, never in an error message. */
      readonly secretKey?: string;
    }
  | {
      /** Public key (client-side operations: card tokens). */
      readonly publicKey?: string;
      /** Secret key (server-to-server: payment tokens, charges). Never logged, never in an error message. */
      readonly secretKey: string;
    };

/** Everything a legacy client is configured with besides its keys. */
export interface LegacyClientSettings extends HttpOptions {
  /** Base URL (legacy-card-api.md `{legacy_sandbox_url}` / `{legacy_live_url}`). Default: the local sandbox. */
  readonly baseUrl?: string;
  /** Path scheme: `sandbox` (`/api2/v2/…`, default) or `live` (`/v2/…`). */
  readonly paths?: 'sandbox' | 'live';
  /** Wire format of requests and responses: `json` (default) or `xml` (docs/decisions/sandbox.md#xml-mapping). */
  readonly format?: 'json' | 'xml';
  /** Check every response against its schema and throw InvalidResponseError when it differs. Default false. */
  readonly validateResponses?: boolean;
}

/** A client of the legacy card token and charge API. */
export interface LegacyClient {
  readonly cardTokens: {
    /** `POST …/tokens/card` with the public key: card details → single-use `card_tok_…` (15 minutes). */
    create(body: CardTokenRequest, options?: WriteOptions): Promise<ProviderResult<ProviderCardToken>>;
  };
  readonly paymentTokens: {
    /** `POST …/tokens/payment` with the secret key: `{value, currency, chargeMode}` → `pay_tok_…`. */
    create(body: PaymentTokenRequest, options?: WriteOptions): Promise<ProviderResult<PaymentToken>>;
  };
  readonly charges: {
    /**
     * `POST …/charges/token` with the secret key. Always sends an idempotency key (yours, or a new UUID;
     * docs/decisions/provider.md#client-idempotency),
     * the same one on every retry, so one call never makes two charges. A 3-D Secure charge (`chargeMode: 2`)
     * answers with a payment token whose `redirectUrl` is the challenge: see {@link isThreeDSecureRedirect}.
     */
    create(body: ChargeRequest, options?: WriteOptions): Promise<ProviderResult<Charge | ThreeDSecureRedirect>>;
    /**
     * `GET …/charges/{id}` (a sandbox extension): the charge's current state. Accepts a `charge_…` id, or the
     * `pay_tok_…` of a 3-D Secure charge to verify its outcome after the challenge.
     */
    retrieve(id: string, options?: CallOptions): Promise<ProviderResult<Charge>>;
  };
  /**
   * The answer bytes this client holds now, its answers being read all together (at most `responseBudgetBytes`; 0
   * when no call is reading one): for a gauge (docs/decisions/provider.md#answer-budget).
   */
  readonly heldResponseBytes: number;
  /** The provider's base URL the client calls (`baseUrl` as resolved: no trailing slash), without the path scheme. */
  readonly baseUrl: string;
  /** Closes the built-in connection pool (not a dispatcher you passed in). */
  close(): Promise<void>;
}

/** True when a charge answer is the 3-D Secure redirect (a payment token) rather than a charge. */
export function isThreeDSecureRedirect(data: Charge | ThreeDSecureRedirect): data is ThreeDSecureRedirect {
  return typeof (data as Partial<ThreeDSecureRedirect>).redirectUrl === 'string';
}

const FACTORY = 'createLegacyClient';

/** An API key: 8 to 200 visible ASCII characters; `other` is the prefix of the key it must not be. */
function keyOption(other: 'sk_' | 'pk_') {
  return patternOption(/^[\x21-\x7e]{8,200}$/, 'must be an API key: 8 to 200 visible characters, no spaces').refine(
    (key) => !key.startsWith(other),
    {
      error:
        other === 'sk_' ? 'holds a secret key; pass it as `secretKey`' : 'holds a public key; pass it as `publicKey`',
    },
  );
}

/** The options of {@link createLegacyClient}, each with its check. */
const LEGACY_OPTIONS = {
  publicKey: keyOption('sk_').optional(),
  secretKey: keyOption('pk_').optional(),
  baseUrl: z.string({ error: 'must be a URL string such as "https://{prefix}.example.com"' }).optional(),
  paths: oneOfOption(['sandbox', 'live'], 'must be "sandbox" (/api2/v2/…) or "live" (/v2/…)').optional(),
  format: oneOfOption(['json', 'xml']).optional(),
  validateResponses: booleanOption().optional(),
  ...httpOptionShape,
};

/**
 * What a charge request answers: a charge, or for 3-D Secure a payment token with the challenge's `redirectUrl`. The
 * URL is what tells them apart (as {@link isThreeDSecureRedirect} does): a token without one is not an answer to a
 * charge, so a broken charge cannot pass as a bare `{id, liveMode}` token with every other field dropped.
 */
const chargeOrRedirect = chargeResponseSchema.or(paymentTokenResponseSchema.required({ redirectUrl: true }));

/**
 * Creates a client of the legacy card API.
 *
 * @example
 * const legacy = createLegacyClient({ secretKey: process.env.PROVIDER_SECRET_KEY, baseUrl: 'https://sandbox.example.com' });
 * const { data: charge, requestId } = await legacy.charges.create({ cardToken, value: 1999, currency: 'EUR', email });
 */
export function createLegacyClient(options: Readonly<LegacyClientOptions>): LegacyClient {
  const o = checkOptions(FACTORY, options, LEGACY_OPTIONS, {
    secrets: ['publicKey', 'secretKey'],
    across(o, problem) {
      if (o.publicKey === undefined && o.secretKey === undefined) {
        problem('give `publicKey` (card tokens), `secretKey` (charges, payment tokens) or both');
      }
      httpAcross(o, problem);
    },
  });
  const { publicKey, secretKey } = o;
  const base = resolveBaseUrl(FACTORY, 'baseUrl', o.baseUrl ?? DEFAULT_SANDBOX_URL);
  const paths = o.paths ?? 'sandbox';
  const format = o.format ?? 'json';
  const validate = o.validateResponses ?? false;
  const http: HttpContext = { config: httpConfig(o), redact: createRedactor([publicKey, secretKey]) };
  // legacy-card-api.md: sandbox paths under /api2/v2, live under /v2 (docs/decisions/sandbox.md#legacy-paths).
  const prefix = paths === 'sandbox' ? '/api2/v2' : '/v2';
  const root = base + prefix;
  const mediaType = format === 'xml' ? 'application/xml' : 'application/json';
  const headers = { 'Content-Type': mediaType, Accept: mediaType };
  const getHeaders = { Accept: mediaType };
  const keyCredential = (key: string): Credential => ({ authorization: () => key });
  const publicCredential = publicKey === undefined ? undefined : keyCredential(publicKey);
  const secretCredential = secretKey === undefined ? undefined : keyCredential(secretKey);

  function need(credential: Credential | undefined, operation: string, option: string): Credential {
    if (!credential) throw new TypeError(`${operation} needs the \`${option}\` option of ${FACTORY}`);
    return credential;
  }

  // By the answer's Content-Type (errors may come as JSON whatever was asked); XML gets its types from the schema.
  const decoder =
    (schema: z.ZodType) =>
    (text: string, contentType: string | null): unknown =>
      contentType?.includes('xml') ? coerceFromXml(schema, decodeXml(text)) : JSON.parse(text);
  const reader = (schema: z.ZodType) => ({ schema, decode: decoder(schema) });
  const read = {
    cardToken: reader(cardTokenResponseSchema),
    paymentToken: reader(paymentTokenResponseSchema),
    chargeOrRedirect: reader(chargeOrRedirect),
    charge: reader(chargeResponseSchema),
  };
  type Reader = (typeof read)[keyof typeof read];

  function checked<T>(result: ProviderResult<T>, schema: z.ZodType, operation: string): ProviderResult<T> {
    if (!validate) return result;
    const parsed = schema.safeParse(result.data);
    if (parsed.success) return { ...result, data: parsed.data as T };
    const issue = parsed.error.issues[0];
    throw new InvalidResponseError(
      `${operation} answered with a body that does not match its schema at ${JSON.stringify(issue?.path.join('.') ?? '')}: ${issue?.message ?? 'invalid'}`,
      {
        status: result.status,
        requestId: result.requestId,
        outcomeKnown: false,
        operation,
        body: http.redact(result.data),
      },
    );
  }

  /**
   * Sends a POST; throws a `TypeError` at once for a body that is not an object. Not `async`: without response
   * validation the core's promise is returned as it is, no further async step per call.
   */
  function post<T>(
    path: string,
    body: unknown,
    credential: Credential,
    { schema, decode }: Reader,
    options: WriteOptions | undefined,
    idempotencyKey: string | undefined,
  ): Promise<ProviderResult<T>> {
    const operation = `POST ${prefix}${path}`;
    const object = checkBody(operation, body);
    const sent = send<T>(http, {
      method: 'POST',
      url: root + path,
      operation,
      headers,
      body: format === 'xml' ? encodeXml(object) : JSON.stringify(object),
      logBody: object,
      credential,
      decode,
      ...(idempotencyKey ? { idempotencyKey } : {}),
      ...(options?.signal ? { signal: options.signal } : {}),
    });
    return validate ? sent.then((result) => checked(result, schema, operation)) : sent;
  }

  return {
    cardTokens: {
      async create(body, options) {
        const op = 'cardTokens.create';
        checkCall(op, options);
        const credential = need(publicCredential, op, 'publicKey');
        return post('/tokens/card', body, credential, read.cardToken, options, idempotencyKeyOf(op, options, false));
      },
    },
    paymentTokens: {
      async create(body, options) {
        const op = 'paymentTokens.create';
        checkCall(op, options);
        const credential = need(secretCredential, op, 'secretKey');
        const key = idempotencyKeyOf(op, options, false);
        return post('/tokens/payment', body, credential, read.paymentToken, options, key);
      },
    },
    charges: {
      // Not `async` (the path of every charge): an async function that returns a promise settles two microtask
      // turns after it; wrong use still rejects, as from the others.
      create(body, options) {
        try {
          const op = 'charges.create';
          checkCall(op, options);
          const credential = need(secretCredential, op, 'secretKey');
          const key = idempotencyKeyOf(op, options, true);
          return post('/charges/token', body, credential, read.chargeOrRedirect, options, key);
        } catch (err) {
          return Promise.reject(err);
        }
      },
      async retrieve(id, options) {
        const op = 'charges.retrieve';
        checkCall(op, options);
        const credential = need(secretCredential, op, 'secretKey');
        const path = `/charges/${pathId(op, 'id', id)}`;
        const operation = `GET ${prefix}${maskObjectTokens(path)}`;
        const result = await send<Charge>(http, {
          method: 'GET',
          url: root + path,
          operation,
          headers: getHeaders,
          credential,
          decode: read.charge.decode,
          ...(options?.signal ? { signal: options.signal } : {}),
        });
        return checked(result, chargeResponseSchema, operation);
      },
    },
    get heldResponseBytes() {
      return http.config.answerBudget.held;
    },
    baseUrl: base,
    close: () => closeDispatcher(http.config),
  };
}
