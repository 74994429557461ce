import { createPublicKey, type KeyObject, type webcrypto } from 'node:crypto';
import type { Request } from 'express';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  errors,
  type FetchImplementation,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
  jwksCache,
  jwtVerify,
} from 'jose';
import { z } from 'zod';
import { functionOption, integerOption, secureUrlOption } from '../common/options.js';
import { HelperHttpError } from './errors.js';
import { boundedJwksFetch, JWKS_CACHE_MAX_AGE_MS, JWKS_RETRY_MS, JwksRetryLater } from './jwks-fetch.js';
import { staleJwksLog } from './jwks-stale-log.js';
import type { HelperLogger } from './log.js';

/** Asymmetric JWS algorithms a host token may use. HMAC and `none` are never accepted. */
export const HOST_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;
export type HostAlgorithm = (typeof HOST_ALGORITHMS)[number];

/**
 * A verification key: SPKI PEM text, a public JWK, a Node `KeyObject`, or a WebCrypto `CryptoKey` (what jose's
 * `importSPKI`, `importJWK` and `generateKeyPair` give).
 */
export type HostKey = string | Record<string, unknown> | KeyObject | webcrypto.CryptoKey;

/**
 * How the helper checks the short-lived JWT the merchant's own back end issues
 * for a signed-in user of its dashboard (sent as `Authorization: Bearer …`).
 * See docs/decisions/helper.md#helper-host-jwt for the claims.
 */
export interface HostAuthOptions {
  /** Expected `iss` (one or several). */
  readonly issuer: string | readonly string[];
  /** Expected `aud` (one or several): one of its own per deployment, so a token made for one is refused by another. */
  readonly audience: string | readonly string[];
  /** Allowed algorithms, asymmetric only (e.g. `['ES256']`). */
  readonly algorithms: readonly HostAlgorithm[];
  /**
   * HTTPS URL of the issuer's JWKS (loopback may be HTTP). Exactly one of `jwksUrl` and `key`. After two failed fetches
   * in a row it is not fetched again for 5 s (requests that need it answer 503 meanwhile).
   */
  readonly jwksUrl?: string;
  /**
   * The issuer's public key: SPKI PEM, a public JWK, a public `KeyObject` or a public WebCrypto `CryptoKey` (jose's
   * `importSPKI`, `importJWK`; it verifies only the algorithm it was imported for, which `algorithms` must list).
   * Exactly one of `jwksUrl` and `key`.
   */
  readonly key?: HostKey;
  /** Leeway for `exp`/`nbf`/`iat`, 0–30 seconds (default 5). */
  readonly clockToleranceSeconds?: number;
  /** When set, tokens must also be younger than this (`now − iat`). */
  readonly maxAgeSeconds?: number;
  /**
   * Longest lifetime a token may have, 60–86 400 seconds (default 3600): `exp − iat` and `exp − now` may not
   * exceed it, and `iat` is required (docs/decisions/helper.md#helper-host-jwt).
   */
  readonly maxLifetimeSeconds?: number;
  /**
   * Refuse ES256/ES384/ES512 signatures whose `s` is above half the curve order (the "high-s" twin every ECDSA
   * signature has). Off by default: OpenSSL, Node and jose sign high-s about half the time, so only turn it on
   * when your issuer normalises to low-s (docs/decisions/helper.md#helper-host-jwt-low-s).
   */
  readonly requireLowS?: boolean;
  /** How long one JWKS fetch may take before the request answers 503 (default 5000 ms, 100–30000). */
  readonly jwksTimeoutMs?: number;
  /**
   * While the JWKS cannot be fetched (network error, timeout, 5xx, an unreadable answer), keep verifying with the last
   * set fetched for at most this many seconds after it went stale, as RFC 5861's `stale-if-error` counts: a set is
   * used without fetching for 10 minutes after its fetch, then kept up to this long more while the issuer fails (so
   * with 300, up to 15 minutes after the last good fetch). 0–86 400; default 0: a set older than 10 minutes is not
   * used while its issuer is down, and every request that needs it answers 503. A key the issuer has removed stays
   * usable up to 10 minutes plus this long after the last good fetch while the issuer is unreachable; a fetch that
   * succeeds replaces the set at once, and a `kid` the kept set lacks is still 503
   * (docs/decisions/helper.md#helper-jwks-stale-if-error). Logged once when the kept set starts answering (`tessera.host_auth.jwks.stale`), once if it grows too old while the issuer still fails
   * (`….stale_expired`), and once when a fetch succeeds again (`….recovered`).
   */
  readonly jwksStaleIfErrorSeconds?: number;
  /**
   * Checks a verified token against the request it came with: answer `true` when the token belongs to it (a token
   * bound to the user's session, as DPoP binds one to a key), `false` to refuse it (401 `TESSERA_HOST_AUTH_UNBOUND`,
   * counted by `rateLimits.hostAuthFailuresPerIp`). Also the place for revocation: answer `false` for a token whose
   * session has ended or whose `jti` you revoked. Called only for a token whose signature and claims passed, before
   * the per-user limit; waited for at most `hookTimeoutMs`. A throw, or an answer other than `true` or `false`, is
   * 503 `TESSERA_HOST_AUTH_UNAVAILABLE` and a timeout 503 `TESSERA_HOOK_TIMEOUT`: never a pass
   * (docs/decisions/helper.md#helper-host-binding).
   *
   * @example
   * // The token carries `sid`: an HMAC of the session id under a key of your server, never the id itself.
   * isBound: (claims, { req }) =>
   *   req.session?.userId === claims.sub && safeEqual(claims.sid, hmac(sessionKey, req.sessionID)),
   */
  readonly isBound?: (claims: HostTokenClaims, context: HostBindingContext) => boolean | Promise<boolean>;
}

/** What `hostAuth.isBound` receives besides the claims. */
export interface HostBindingContext {
  /** The dashboard's request, with your app's cookies and session (a same-origin `fetch` sends them). */
  readonly req: Request;
}

const stringOrList = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)], {
  error: 'must be a string or a non-empty array of strings',
});

/** The `hostAuth` option of the helper, checked when the helper is built. */
export const hostAuthOption = z
  .strictObject({
    issuer: stringOrList,
    audience: stringOrList,
    algorithms: z
      .array(z.enum(HOST_ALGORITHMS, { error: `must list only asymmetric algorithms: ${HOST_ALGORITHMS.join(', ')}` }))
      .min(1),
    jwksUrl: secureUrlOption('https://auth.example.com/.well-known/jwks.json').optional(),
    key: z
      .custom<HostKey>((v) => typeof v === 'string' || (!!v && typeof v === 'object'), {
        error: 'must be a public key: SPKI PEM text, a public JWK, a KeyObject or a CryptoKey',
      })
      .optional(),
    clockToleranceSeconds: integerOption(0, 30).optional(),
    maxAgeSeconds: integerOption(1, 86_400).optional(),
    maxLifetimeSeconds: integerOption(60, 86_400).optional(),
    requireLowS: z.boolean().optional(),
    jwksTimeoutMs: integerOption(100, 30_000).optional(),
    jwksStaleIfErrorSeconds: integerOption(0, 86_400).optional(),
    isBound: functionOption<NonNullable<HostAuthOptions['isBound']>>('`(claims, { req }) => boolean`').optional(),
  })
  .refine((a) => (a.jwksUrl === undefined) !== (a.key === undefined), {
    error: 'needs exactly one of `jwksUrl` and `key`',
  });

/** What the helper reads from a verified host token. */
export interface HostClaims {
  /**
   * The issuer (`iss`) the token came from, one of `hostAuth.issuer`: a `sub` is unique only within its issuer
   * (RFC 7519 §4.1.2), so with several issuers a user is `iss` and `sub` together.
   */
  readonly iss: string;
  /** The signed-in user (`sub`), unique only within its {@link iss}: with it, for logs and per-user limits. */
  readonly sub: string;
  /** Sub-entity ids (`ent_…`) this user may see and change instruments of. */
  readonly entities: readonly string[];
  /** Stored-card instrument ids (`src_…`) this user may refresh through the account updater. */
  readonly instruments: readonly string[];
}

/**
 * Every claim of a verified host token, frozen: {@link HostClaims} as the helper checked them (`entities` and
 * `instruments` are `[]` when absent), and the rest as the issuer wrote them (`aud`, `exp`, `iat`, `jti`, and your own,
 * such as a session binding), for `hostAuth.isBound`.
 */
export type HostTokenClaims = HostClaims & { readonly [claim: string]: unknown };

/** A PEM private key of any kind (`PRIVATE KEY`, `EC PRIVATE KEY`, `RSA PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`). */
const PRIVATE_PEM = /-----BEGIN [A-Z ]{0,20}PRIVATE KEY-----/;
const PRIVATE_KEY_REFUSED =
  'tesseraHelper: option `hostAuth.key` is a private key: pass its public half (`createPublicKey(privateKey)`, or the public JWK); the helper only verifies host tokens';

/**
 * The algorithms a WebCrypto key may verify, by what it was imported or generated for: its algorithm, hash and curve
 * (`importSPKI(pem, 'RS256')` gives an RSASSA-PKCS1-v1_5 key with SHA-256, which verifies RS256 only). Empty for a key
 * that verifies no host token (RSA-OAEP, ECDH, X25519, a SHA-1 hash).
 */
function cryptoKeyAlgorithms(key: webcrypto.CryptoKey): HostAlgorithm[] {
  const algorithm = key.algorithm as { name: string; hash?: { name?: string }; namedCurve?: string };
  const bits = { 'SHA-256': '256', 'SHA-384': '384', 'SHA-512': '512' }[algorithm.hash?.name ?? ''];
  switch (algorithm.name) {
    case 'RSASSA-PKCS1-v1_5':
      return bits ? [`RS${bits}` as HostAlgorithm] : [];
    case 'RSA-PSS':
      return bits ? [`PS${bits}` as HostAlgorithm] : [];
    case 'ECDSA': {
      const alg = { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' }[algorithm.namedCurve ?? ''];
      return alg ? [alg as HostAlgorithm] : [];
    }
    case 'Ed25519':
      return ['EdDSA', 'Ed25519'];
    default:
      return [];
  }
}

/**
 * A WebCrypto key as the helper verifies with it: as it is, so jose holds every token to the algorithm, hash and curve
 * the key was made for, and to its `verify` usage, as it does for any CryptoKey (a KeyObject made from it would verify
 * RS512 and PS256 tokens with a key imported for RS256, and signatures with an encryption key). Refused at
 * configuration, naming `hostAuth.key`, when it is private or secret, or verifies none of `algorithms`.
 */
function importCryptoKey(key: webcrypto.CryptoKey, algorithms: readonly HostAlgorithm[]): webcrypto.CryptoKey {
  if (key.type === 'private') throw new TypeError(PRIVATE_KEY_REFUSED);
  if (key.type !== 'public') {
    throw new TypeError('tesseraHelper: option `hostAuth.key` must be an asymmetric public key, not a secret');
  }
  const fits = key.usages.includes('verify') ? cryptoKeyAlgorithms(key) : [];
  if (fits.length === 0) {
    throw new TypeError(
      `tesseraHelper: option \`hostAuth.key\` is a CryptoKey for ${key.algorithm.name} with usages [${key.usages.join(', ')}]: it verifies no host token; import the issuer's public key for verifying (jose's \`importSPKI(pem, 'ES256')\`, \`importJWK(jwk, 'ES256')\`)`,
    );
  }
  if (algorithms.length > 0 && !algorithms.some((alg) => fits.includes(alg))) {
    throw new TypeError(
      `tesseraHelper: option \`hostAuth.key\` verifies only ${fits.join(', ')}, which \`hostAuth.algorithms\` (${algorithms.join(', ')}) does not list`,
    );
  }
  return key;
}

/**
 * Turns `key` into a public KeyObject (a WebCrypto key is kept as it is: {@link importCryptoKey}); throws a TypeError
 * naming `hostAuth.key` when it cannot, and for a private key: the helper only verifies, so the issuer's signing key
 * has no business in its options (docs/decisions/helper.md#helper-host-jwt).
 */
export function importHostKey(
  key: HostKey,
  algorithms: readonly HostAlgorithm[] = [],
): KeyObject | webcrypto.CryptoKey {
  // A WebCrypto key (Node's global class: `webcrypto.CryptoKey` is not exported on Node 20).
  if (typeof globalThis.CryptoKey === 'function' && key instanceof globalThis.CryptoKey) {
    return importCryptoKey(key as webcrypto.CryptoKey, algorithms);
  }
  // Text and JWKs first: createPublicKey would quietly derive the public half of a private one.
  const isPrivate =
    typeof key === 'string'
      ? PRIVATE_PEM.test(key)
      : !('asymmetricKeyType' in key) && (key as Record<string, unknown>).d !== undefined;
  if (isPrivate) throw new TypeError(PRIVATE_KEY_REFUSED);
  let keyObject: KeyObject;
  try {
    if (typeof key === 'string') keyObject = createPublicKey(key);
    else if ('asymmetricKeyType' in key || 'symmetricKeySize' in key) keyObject = key as KeyObject;
    else {
      if ((key as Record<string, unknown>).kty === 'oct') throw new Error('symmetric');
      keyObject = createPublicKey({ key: key as never, format: 'jwk' });
    }
  } catch (cause) {
    throw new TypeError(
      'tesseraHelper: option `hostAuth.key` must be an asymmetric public key (SPKI PEM, public JWK, KeyObject or CryptoKey); symmetric keys are not accepted',
      { cause },
    );
  }
  if (keyObject.type === 'secret') {
    throw new TypeError('tesseraHelper: option `hostAuth.key` must be an asymmetric public key, not a secret');
  }
  if (keyObject.type === 'private') throw new TypeError(PRIVATE_KEY_REFUSED);
  return keyObject;
}

const stringList = (v: unknown): v is string[] =>
  Array.isArray(v) && v.length <= 1000 && v.every((s) => typeof s === 'string');

/** Default of `maxLifetimeSeconds`: an hour (docs/decisions/helper.md#helper-host-jwt). */
export const DEFAULT_HOST_TOKEN_LIFETIME_SECONDS = 3600;

/** Orders of the curves of ES256/ES384/ES512 (SEC 2 §2.4.2, §2.5.1, §2.6.1) and the byte length of each half. */
const CURVE_ORDERS: Readonly<Record<string, { n: bigint; size: number }>> = {
  ES256: { n: 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n, size: 32 },
  ES384: {
    n: 0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973n,
    size: 48,
  },
  ES512: {
    n: 0x01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409n,
    size: 66,
  },
};

/**
 * True when `token` is an ES256/384/512 JWS whose `s` lies above n/2: the twin `(r, n − s)` of a valid signature
 * verifies too (ECDSA malleability). Other algorithms, and tokens too broken to read, are left to jose.
 */
export function isHighS(token: string): boolean {
  const [header, , signature] = token.split('.');
  if (header === undefined || signature === undefined) return false;
  let alg: unknown;
  try {
    alg = (JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown }).alg;
  } catch {
    return false;
  }
  const curve = typeof alg === 'string' ? CURVE_ORDERS[alg] : undefined;
  if (!curve) return false;
  const bytes = Buffer.from(signature, 'base64url');
  if (bytes.length !== curve.size * 2) return false;
  const s = BigInt(`0x${bytes.subarray(curve.size).toString('hex')}`);
  return s > curve.n >> 1n;
}

/**
 * Whether an error the JWKS lookup threw is the issuer's fault, not the token's: the JWKS could not be fetched
 * (network error, timeout, a body over `JWKS_MAX_BYTES`), answered other than 200, sent a body that is not JSON (also a
 * body cut off by the timeout), or holds a key jose refuses. jose throws its bare `JOSEError` only for the fetch (`ERR_JOSE_GENERIC`). A
 * 401 there would tell the page to drop a good token while the issuer is down. Only errors of the lookup itself are
 * asked about: anything thrown after it (WebCrypto's `DataError` for an ES384 header against a P-256 key) is the
 * token's, a 401 (docs/decisions/helper.md#helper-host-jwt).
 */
function keySourceFault(err: unknown): boolean {
  return (
    !(err instanceof errors.JOSEError) ||
    err instanceof errors.JWKSTimeout ||
    err instanceof errors.JWKSInvalid ||
    err.code === 'ERR_JOSE_GENERIC'
  );
}

function reasonOf(err: unknown): string {
  // jose reports a token older than maxTokenAge as expired too, by its iat.
  if (err instanceof errors.JWTExpired && err.claim === 'iat') {
    return 'the host token is older than maxAgeSeconds allows';
  }
  if (err instanceof errors.JWTExpired) return 'the host token has expired';
  if (err instanceof errors.JWTClaimValidationFailed && err.reason === 'lifetime') {
    return "the host token's lifetime is longer than the helper accepts";
  }
  if (err instanceof errors.JWSSignatureVerificationFailed && err.message.includes('high-s')) {
    return "the host token's signature is not in low-s form";
  }
  if (err instanceof errors.JWTClaimValidationFailed) {
    return err.claim === 'typ'
      ? "the host token's typ header is not JWT"
      : `the host token's ${err.claim} claim is not accepted`;
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return "the host token's algorithm is not allowed";
  return 'the host token is not valid';
}

/**
 * What jose leaves to the caller (docs/decisions/helper.md#helper-host-jwt): a `typ` header, when present, must say JWT
 * (RFC 8725 §3.11: an access token, logout token or other typed JWT of the same issuer is not a host token), and
 * `iat` may not lie in the future beyond the tolerance even without `maxAgeSeconds`, and the token may not live longer
 * than `maxLifetimeSeconds` (`exp − iat`, and `exp − now`).
 */
function checkExtras(
  typ: unknown,
  payload: { iat?: unknown; exp?: unknown },
  toleranceSeconds: number,
  maxLifetimeSeconds: number,
  nowMs: number,
): void {
  const { iat, exp } = payload;
  if (typ !== undefined && (typeof typ !== 'string' || !/^(application\/)?jwt$/i.test(typ))) {
    throw new errors.JWTClaimValidationFailed('unexpected "typ" JWT header value', {}, 'typ', 'check_failed');
  }
  if (typeof iat === 'number' && iat > nowMs / 1000 + toleranceSeconds) {
    throw new errors.JWTClaimValidationFailed(
      '"iat" claim timestamp check failed (it should be in the past)',
      {},
      'iat',
      'check_failed',
    );
  }
  // A token that lives longer than the limit is refused even when it is young: a leaked token must die soon.
  const nowSeconds = nowMs / 1000;
  if (
    typeof iat === 'number' &&
    typeof exp === 'number' &&
    (exp - iat > maxLifetimeSeconds || exp - nowSeconds > maxLifetimeSeconds + toleranceSeconds)
  ) {
    throw new errors.JWTClaimValidationFailed(
      `"exp" lies more than ${maxLifetimeSeconds} seconds after "iat" or now`,
      {},
      'exp',
      'lifetime',
    );
  }
}

/**
 * The last JWKS jose loaded, for `jwksStaleIfErrorSeconds`. `loaded` is jose's `jwksCache`: jose writes each set it
 * loads there (`cache.jwks = json`), which notes when, by the helper's clock and by the monotonic one. `recent()` is a
 * resolver over that set while it has been stale (older than jose's cache age, JWKS_CACHE_MAX_AGE_MS) for at most
 * `seconds`, by both clocks (a helper clock that stands still or jumps back cannot stretch the window), else undefined
 * (always, with `seconds` 0). jose asks for it only once its set is past the cache age (a fresh set answers without a
 * fetch) or lacks a `kid`, so the window counts from the set going stale, as RFC 5861's `stale-if-error` does: counted
 * from the fetch, any window up to the cache age was never used
 * (docs/decisions/helper.md#helper-jwks-stale-if-error). `onLoad` is called after each load.
 */
function staleKeySets(seconds: number, now: () => number, onLoad: () => void) {
  let last: { set: JSONWebKeySet; at: number; mono: number; keys?: ReturnType<typeof createLocalJWKSet> } | undefined;
  const loaded = {
    uat: undefined as number | undefined,
    get jwks() {
      return last?.set;
    },
    set jwks(set: JSONWebKeySet | undefined) {
      last = set && { set, at: now(), mono: performance.now() };
      onLoad();
    },
  };
  return {
    loaded: loaded as unknown as Record<string, never>,
    /** How long ago, by the helper's clock, the kept set was loaded; undefined before the first load. */
    ageMs: () => (last ? now() - last.at : undefined),
    recent() {
      if (!last || seconds === 0) return undefined;
      const maxAgeMs = JWKS_CACHE_MAX_AGE_MS + seconds * 1000;
      if (now() - last.at > maxAgeMs || performance.now() - last.mono > maxAgeMs) return undefined;
      last.keys ??= createLocalJWKSet(last.set);
      return last.keys;
    },
  };
}

/** A verifier of host tokens; `verify` resolves the claims or throws a 401/503 HelperHttpError. */
export function createHostVerifier(options: HostAuthOptions, now: () => number, log: HelperLogger) {
  /**
   * When the JWKS lookup last failed on the issuer's side, by the helper's clock (which tests move) and by the
   * monotonic one: the wait ends when either says it is over, so a helper clock that stands still or jumps back
   * cannot make it last.
   */
  let faultAt: { at: number; mono: number } | undefined;
  /**
   * Failed fetches since the set was last loaded: the wait starts at the second. One alone is a blip (a refresh of a set
   * older than jose's 10 minutes, a rotated key's new `kid`, the first token after a start): the next request fetches
   * again rather than every user's being 503 for JWKS_RETRY_MS (docs/decisions/helper.md#helper-host-jwt).
   */
  let failedInARow = 0;
  const waiting = () => {
    if (faultAt === undefined || failedInARow < 2) return false;
    const t = now();
    return t >= faultAt.at && t < faultAt.at + JWKS_RETRY_MS && performance.now() < faultAt.mono + JWKS_RETRY_MS;
  };
  const staleSeconds = options.jwksStaleIfErrorSeconds ?? 0;
  // What an operator sees of the kept set: when it starts and stops answering, and when the issuer is back.
  const staleLog = staleJwksLog(log, staleSeconds, now);
  const stale = options.jwksUrl ? staleKeySets(staleSeconds, now, staleLog.loaded) : undefined;
  /** The status of the issuer's answer to the fetch in flight (jose makes one at a time), for the log. */
  let answered: number | undefined;
  const jwks: ReturnType<typeof createRemoteJWKSet> | undefined = options.jwksUrl
    ? createRemoteJWKSet(new URL(options.jwksUrl), {
        timeoutDuration: options.jwksTimeoutMs ?? 5000,
        cooldownDuration: 30_000,
        // jose's own default, named: the stale window counts from the end of it.
        cacheMaxAge: JWKS_CACHE_MAX_AGE_MS,
        // jose writes each set it loads here: the last good one, for jwksStaleIfErrorSeconds.
        [jwksCache]: stale!.loaded,
        // At most JWKS_MAX_BYTES of body, read under the same timeout; none at all for JWKS_RETRY_MS after a second
        // failed lookup in a row, so a flood of tokens (random `kid`s) while the issuer fails cannot make one fetch each.
        // A lookup the loaded set answers makes no fetch and goes on (docs/decisions/helper.md#helper-host-jwt).
        [customFetch]: ((url, init) => {
          if (waiting()) return Promise.reject(new JwksRetryLater());
          answered = undefined;
          return boundedJwksFetch(url, init).then((response) => {
            answered = response.status;
            return response;
          });
        }) satisfies FetchImplementation,
      })
    : undefined;
  const key = jwks ? undefined : importHostKey(options.key!, options.algorithms);
  /** The errors the JWKS lookup threw that are the issuer's fault; with a configured key there are none. */
  const sourceFaults = new WeakSet<object>();
  const getKey: JWTVerifyGetKey | undefined = jwks
    ? async (header, token) => {
        try {
          return await jwks(header, token);
        } catch (err) {
          if (keySourceFault(err) && err !== null && typeof err === 'object') {
            // A fetch not made does not start the wait again: it ends JWKS_RETRY_MS after the last real failure. The
            // lookups that shared one fetch (jose makes one at a time) share its error: one failure, counted once.
            if (!(err instanceof JwksRetryLater) && !sourceFaults.has(err)) {
              faultAt = { at: now(), mono: performance.now() };
              failedInARow++;
              staleLog.failed(err, answered);
            }
            sourceFaults.add(err);
            // The issuer failed: the last good set, if it is recent enough, answers instead; a `kid` it lacks, or a
            // key of it that cannot be used (the set jose loaded and failed on: a private key), is still the issuer's
            // fault, 503, never the token's 401 (docs/decisions/helper.md#helper-jwks-stale-if-error).
            const kept = stale!.recent();
            if (kept) {
              try {
                const found = await kept(header, token);
                staleLog.served(stale!.ageMs() ?? 0);
                return found;
              } catch (keptErr) {
                if (!(keptErr instanceof errors.JWKSNoMatchingKey) && !keySourceFault(keptErr)) throw keptErr;
              }
            } else {
              staleLog.tooOld(stale!.ageMs() ?? 0);
            }
          }
          throw err;
        } finally {
          // jose fetches only when its set is not cooling down (30 s after a load): cooling down now, a load succeeded
          // since the last failure, which a caller's token cannot fake.
          if (jwks.coolingDown) failedInARow = 0;
        }
      }
    : undefined;

  return async function verify(header: string | undefined): Promise<HostTokenClaims> {
    // The scheme is case-insensitive (RFC 9110 §11.1) and followed by one or more spaces (RFC 6750 §2.1
    // `"Bearer" 1*SP b64token`); the token is a compact JWS of at most 8 KiB. The spaces and the token's characters
    // are disjoint classes: linear.
    const match = /^[Bb][Ee][Aa][Rr][Ee][Rr] +([A-Za-z0-9_.~+/=-]{1,8192})$/.exec(header ?? '');
    if (!match) {
      throw new HelperHttpError(401, 'TESSERA_HOST_AUTH_MISSING', 'send the host token as `Authorization: Bearer …`', {
        field: 'authorization',
        headers: { 'WWW-Authenticate': 'Bearer realm="tessera"' },
      });
    }
    let payload: Record<string, unknown>;
    try {
      const verifyOptions = {
        algorithms: [...options.algorithms],
        issuer: typeof options.issuer === 'string' ? options.issuer : [...options.issuer],
        audience: typeof options.audience === 'string' ? options.audience : [...options.audience],
        clockTolerance: options.clockToleranceSeconds ?? 5,
        currentDate: new Date(now()),
        requiredClaims: ['exp', 'iat', 'sub'],
        ...(options.maxAgeSeconds === undefined ? {} : { maxTokenAge: options.maxAgeSeconds }),
      };
      // Checked before jose, so a refused twin costs no key lookup (docs/decisions/helper.md#helper-host-jwt-low-s).
      if (options.requireLowS && isHighS(match[1]!)) {
        throw new errors.JWSSignatureVerificationFailed('high-s ECDSA signature');
      }
      const result = getKey
        ? await jwtVerify(match[1]!, getKey, verifyOptions)
        : await jwtVerify(match[1]!, key!, verifyOptions);
      payload = result.payload;
      checkExtras(
        result.protectedHeader.typ,
        payload,
        verifyOptions.clockTolerance,
        options.maxLifetimeSeconds ?? DEFAULT_HOST_TOKEN_LIFETIME_SECONDS,
        now(),
      );
    } catch (err) {
      if (err !== null && typeof err === 'object' && sourceFaults.has(err)) {
        // Checked before the body is read and the provider called: nothing was done, and the same request may be sent
        // again (an upstream fault says whether its outcome is known, docs/decisions/helper.md#helper-host-jwt).
        throw new HelperHttpError(503, 'TESSERA_HOST_AUTH_UNAVAILABLE', 'the host token cannot be checked right now', {
          outcomeKnown: true,
          cause: err,
        });
      }
      throw new HelperHttpError(401, 'TESSERA_HOST_AUTH_INVALID', reasonOf(err), {
        field: 'authorization',
        headers: { 'WWW-Authenticate': 'Bearer realm="tessera", error="invalid_token"' },
        cause: err,
      });
    }
    const { iss, sub, entities = [], instruments = [] } = payload;
    // jose has matched `iss` against `hostAuth.issuer` (a string); checked again so the type says so. An empty `sub`
    // names no user (jose takes it as present), and every such token would share one per-user budget.
    if (typeof iss !== 'string' || typeof sub !== 'string' || !stringList(entities) || !stringList(instruments)) {
      throw invalidClaims(
        'the host token needs `sub` (string) and optional `entities`/`instruments` (arrays of strings)',
      );
    }
    if (sub === '') throw invalidClaims("the host token's sub claim is empty");
    // Frozen to the bottom, the lists copied: a hook given them (`isBound`, `paymentInstrumentIds`) cannot widen what
    // the token allows, nor change a nested claim (`cnf`, an `aud` list) that the next hook reads.
    return deepFreeze({
      ...payload,
      iss,
      sub,
      entities: [...entities],
      instruments: [...instruments],
    });
  };
}

/**
 * Freezes a verified payload and every object and array in it. jose parsed it from JSON for this request only (plain
 * objects and arrays, at most 8 KiB of token): walked with a list, not recursion, so a deeply nested claim costs no
 * stack.
 */
function deepFreeze<T extends object>(root: T): Readonly<T> {
  const pending: object[] = [root];
  for (let value = pending.pop(); value !== undefined; value = pending.pop()) {
    Object.freeze(value);
    for (const child of Object.values(value)) {
      if (child !== null && typeof child === 'object' && !Object.isFrozen(child)) pending.push(child);
    }
  }
  return root;
}

/** 401 for a verified token whose claims the helper cannot use. */
function invalidClaims(message: string): HelperHttpError {
  return new HelperHttpError(401, 'TESSERA_HOST_AUTH_INVALID', message, {
    field: 'authorization',
    headers: { 'WWW-Authenticate': 'Bearer realm="tessera", error="invalid_token"' },
  });
}

export type HostVerifier = ReturnType<typeof createHostVerifier>;

/** 403 for a verified user asking about something its claims do not name. */
export function forbidden(field: string, what: string): HelperHttpError {
  return new HelperHttpError(403, 'TESSERA_HOST_FORBIDDEN', `the host token does not allow this ${what}`, { field });
}
