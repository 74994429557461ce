import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { exportJWK, type JWTPayload, SignJWT } from 'jose';
import pino from 'pino';
import {
  type HelperChargeKey,
  type MemoryStore,
  type TesseraHelper,
  type TesseraHelperOptions,
  type TesseraHelperSettings,
  type TesseraStore,
  tesseraHelper,
} from '../../../server/helper/index.js';
import type { RunningSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';

/**
 * A store of a merchant's own kind: the seven required methods of `TesseraStore` over `memory`, without the
 * optional ones; `replace` swaps or adds methods.
 */
export function requiredMethods(memory: MemoryStore, replace: Partial<TesseraStore> = {}): TesseraStore {
  return {
    get: (k) => memory.get(k),
    set: (k, v, t) => memory.set(k, v, t),
    hit: (k, w) => memory.hit(k, w),
    count: (k) => memory.count(k),
    unhit: (k) => memory.unhit(k),
    claim: (k, v, t) => memory.claim(k, v, t),
    release: (k, v) => memory.release(k, v),
    ...replace,
  };
}

/** Everything the helper logged, as parsed pino lines, plus the raw text to scan. */
export interface CapturedLog {
  readonly lines: Record<string, unknown>[];
  text(): string;
}

/** A real pino logger writing into memory, at `debug`, with pino's defaults unless `options` say otherwise. */
export function captureLogger(options: pino.LoggerOptions = {}): { logger: pino.Logger; log: CapturedLog } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  const logger = pino({ level: 'debug', ...options }, stream);
  return {
    logger,
    log: {
      get lines() {
        return chunks
          .join('')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      },
      text: () => chunks.join(''),
    },
  };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

/** Serves a merchant's own Express `app` on an ephemeral loopback port: its base URL and a `close` that ends it. */
export async function serveApp(app: express.Express): Promise<{ base: string; close(): Promise<void> }> {
  const server = createServer(app);
  return { base: await listen(server), close: closer(server) };
}

export interface RunningHelper {
  /** Base URL of the mount point, e.g. `http://127.0.0.1:1234/payments`. */
  readonly url: string;
  readonly helper: TesseraHelper;
  readonly log: CapturedLog;
  close(): Promise<void>;
}

/** Mounts `tesseraHelper(options)` at `/payments` of a real Express app on an ephemeral loopback port. */
export async function startHelper(
  // Omit is not distributive: keep the charge-key union whole.
  options: Omit<TesseraHelperSettings, 'logger'> & HelperChargeKey,
  loggerOptions?: pino.LoggerOptions,
): Promise<RunningHelper> {
  const { logger, log } = captureLogger(loggerOptions);
  // The startup key check adds provider requests these suites would count; key-check.test.ts covers it.
  const helper = tesseraHelper({ startupKeyCheck: false, ...options, logger });
  const app = express();
  app.use('/payments', helper);
  const server = createServer(app);
  const base = await listen(server);
  return { url: `${base}/payments`, helper, log, close: closer(server) };
}

/** A local JWKS endpoint with one signing key, and a signer of host tokens. */
export interface Issuer {
  readonly jwksUrl: string;
  readonly issuer: string;
  readonly audience: string;
  readonly publicKey: KeyObject;
  readonly privateKey: KeyObject;
  /** Signs `claims` with ES256 (iss, aud, sub, iat, exp 5 min filled in unless given). */
  sign(
    claims?: JWTPayload,
    options?: { exp?: number; iat?: number; header?: Record<string, unknown> },
  ): Promise<string>;
  close(): Promise<void>;
}

export async function startIssuer(now: () => number = Date.now): Promise<Issuer> {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'host-1', alg: 'ES256', use: 'sig' };
  const server = createServer((req, res) => {
    if (req.url === '/jwks.json') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  const base = await listen(server);
  const issuer = 'https://merchant.example';
  const audience = 'tessera-helper';
  return {
    jwksUrl: `${base}/jwks.json`,
    issuer,
    audience,
    publicKey,
    privateKey,
    sign: (claims = {}, opts = {}) => {
      const seconds = Math.floor(now() / 1000);
      return new SignJWT({ iss: issuer, aud: audience, sub: 'usr_1', ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: 'host-1', ...opts.header })
        .setIssuedAt(opts.iat ?? seconds)
        .setExpirationTime(opts.exp ?? seconds + 300)
        .sign(privateKey);
    },
    close: closer(server),
  };
}

/** The options that point a helper's charges at `sb` (its keys and legacy API, no retries). */
export function legacyHelperOptions(sb: RunningSandbox) {
  return {
    publicKey: sb.credentials.publicKey,
    secretKey: sb.credentials.secretKey,
    legacyBaseUrl: sb.url,
    providerMaxRetries: 0,
  } satisfies Partial<TesseraHelperOptions>;
}

/** Every rate limit off, for tests that exercise something else; spread and override the one a test needs. */
export const NO_RATE_LIMITS = {
  requestsPerIp: false,
  chargesPerIp: false,
  chargesPerSession: false,
  declinesPerIp: false,
  declinesPerSession: false,
  hostRequestsPerUser: false,
} as const satisfies TesseraHelperOptions['rateLimits'];

/**
 * The options that point a helper at `sb` for both provider APIs (keys, OAuth client, base URLs, its clock, no
 * retries) and accept `issuer`'s JWTs on the dashboard routes. Tests add `resolveCharge` and what they exercise.
 */
export function sandboxHelperOptions(sb: RunningSandbox, issuer: Issuer) {
  return {
    ...legacyHelperOptions(sb),
    clientId: sb.credentials.clientId,
    clientSecret: sb.credentials.clientSecret,
    accountsBaseUrl: sb.url,
    authBaseUrl: sb.url,
    now: () => sb.clock.nowMs(),
    hostAuth: { issuer: issuer.issuer, audience: issuer.audience, algorithms: ['ES256'], jwksUrl: issuer.jwksUrl },
  } satisfies Partial<TesseraHelperOptions>;
}

/** A fresh single-use card token from the sandbox, made with the public key as the widget would. */
export async function cardToken(sb: RunningSandbox, number = '4242424242424242'): Promise<string> {
  const r = await call(`${sb.url}/api2/v2/tokens/card`, {
    body: { number, expiryMonth: 12, expiryYear: 2030, cvv: number.length === 15 ? '1234' : '123' },
    headers: { authorization: sb.credentials.publicKey },
  });
  if (r.status !== 200) throw new Error(`card token: ${r.status} ${r.text}`);
  return r.json.id as string;
}

/** The sandbox's log entries of charge requests (`POST …/charges/token`), oldest first. */
export async function sandboxCharges(sb: RunningSandbox): Promise<Record<string, unknown>[]> {
  const r = await call(`${sb.url}/_sandbox/requests?limit=200`);
  return (r.json.data as Record<string, unknown>[])
    .filter((e) => e.method === 'POST' && e.path === '/api2/v2/charges/token')
    .reverse();
}

/**
 * The shopper's answer to a 3-D Secure challenge on the sandbox's page, without following its redirect: the
 * return URL the browser would be sent to (the helper's `…/charges/3ds-return?cko-payment-token=…`).
 */
export async function answerChallenge(
  sb: RunningSandbox,
  redirectUrl: string,
  outcome: 'pass' | 'fail' = 'pass',
): Promise<string> {
  const r = await fetch(new URL(redirectUrl, sb.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `outcome=${outcome}`,
    redirect: 'manual',
  });
  if (r.status !== 303) throw new Error(`the challenge answered ${r.status}: ${await r.text()}`);
  return r.headers.get('location')!;
}

/** The sandbox's Account Services requests since its last reset (`GET /a/b` each), oldest first. */
export async function accountsCalls(sb: RunningSandbox): Promise<string[]> {
  const r = await call(`${sb.url}/_sandbox/requests?limit=200`);
  return (r.json.data as { method: string; path: string }[])
    .filter((e) => e.path.startsWith('/accounts/'))
    .map((e) => `${e.method} ${e.path}`)
    .reverse();
}

/** Adds a sandbox fault (`POST /_sandbox/faults`). */
export async function fault(sb: RunningSandbox, rule: Record<string, unknown>): Promise<void> {
  const r = await call(`${sb.url}/_sandbox/faults`, { body: rule });
  if (r.status !== 201) throw new Error(`fault: ${r.status} ${r.text}`);
}

/** Reads a charge back from the sandbox with the secret key. */
export async function sandboxCharge(sb: RunningSandbox, id: string): Promise<Record<string, unknown>> {
  const r = await call(`${sb.url}/api2/v2/charges/${id}`, { headers: { authorization: sb.credentials.secretKey } });
  if (r.status !== 200) throw new Error(`charge ${id}: ${r.status} ${r.text}`);
  return r.json;
}

/** A promise the test opens when it chooses. */
export function gate(): { opened: Promise<void>; open(): void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}
