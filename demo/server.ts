import { readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import helmet from 'helmet';
import pino from 'pino';
import { crossSiteWrites } from '../server/common/cross-site.js';
import { hostName } from '../server/common/host-name.js';
import { packageRoot } from '../server/common/package-root.js';
import { guardServer, type ServerTimeouts, serverOptions } from '../server/common/server-guard.js';
import { maskUrlPans } from '../server/common/url-pans.js';
import { type HelperLogger, RedisStore, redactingLogger, tesseraCsp, tesseraHelper } from '../server/helper/index.js';
import { createAccountsClient, createLegacyClient } from '../server/provider/index.js';
import { type RunningSandbox, startSandbox } from '../server/sandbox/index.js';
import { isLoopbackHost } from '../shared/url.js';
import { closeUnreadBodies } from './body.js';
import { consoleRoutes } from './console.js';
import { DemoError, errorHandler } from './errors.js';
import { demoFixtures, payoutInstrumentIds } from './fixtures.js';
import { createHostIssuer, HOST_ALGORITHM, HOST_AUDIENCE, HOST_ISSUER } from './host-tokens.js';
import { onlyMethods } from './methods.js';
import { platformRoutes } from './platform.js';
import { recordChallenge, recordCharge } from './provider.js';
import { DemoSessions } from './session.js';
import { resolveCharge, shopRoutes } from './shop.js';
import type { TestCardRow } from './shop-pages.js';
import { ShopState } from './state.js';

/** The demo's icon: a card in the demo's accent colour (SVG, which every engine takes as a favicon). */
const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="2" y="7" width="28" height="19" rx="3" fill="#1a73e8"/><rect x="2" y="11" width="28" height="4" fill="#0b3d91"/></svg>';

export interface DemoOptions {
  /** Port of the demo site (default 3000); 0 picks a free one. */
  readonly port?: number;
  /** Port of the embedded sandbox (default 4010); 0 picks a free one. */
  readonly sandboxPort?: number;
  /** Loopback address both bind (default 127.0.0.1). */
  readonly host?: string;
  /** Where the helper and the demo server log (default: pino at `LOG_LEVEL`, else `info`, on stdout). */
  readonly logger?: HelperLogger;
  /** Connection timeouts in ms for the demo and its embedded sandbox (docs/decisions/sandbox.md#server-timeouts). */
  readonly timeouts?: ServerTimeouts;
  /**
   * `redis://…` (or `rediss://…`): the helper keeps its state in this Redis (`RedisStore`), as several instances
   * would; without it, in the process's memory. The CLI takes it from `TESSERA_REDIS_URL`.
   */
  readonly redisUrl?: string;
  /**
   * Host names the demo answers besides loopback ones, for a proxy that forwards another name to it (a cloud dev
   * environment's port forwarding, say). Any other `Host` is 421: a page of another site could otherwise point its
   * own name at 127.0.0.1 and drive the demo (DNS rebinding). The CLI takes them from `TESSERA_DEMO_ALLOWED_HOSTS`
   * (comma-separated).
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Express's `trust proxy`, for a proxy of yours in front of the demo: the number of proxies, or their addresses
   * (`["loopback"]`, `["127.0.0.1"]`: the demo listens on loopback only, so its proxy runs on the same machine, and
   * every local process can then send these headers); never `true`, which would let any client choose its own address
   * and scheme. Only then does a request that reached the proxy over HTTPS (`X-Forwarded-Proto: https` from a trusted
   * address) count as `req.secure`, and get a `Secure` session cookie (docs/decisions/demo.md#demo-sessions). Default:
   * none trusted. The CLI takes it from `TESSERA_DEMO_TRUST_PROXY` (a number, or comma-separated addresses).
   */
  readonly trustProxy?: number | readonly string[];
}

export interface RunningDemo {
  /** Base URL of the demo site, e.g. `http://127.0.0.1:3000`; the shop is at `/`. */
  readonly url: string;
  /** The embedded sandbox (its URL, clock, credentials). */
  readonly sandbox: RunningSandbox;
  /** The sandbox's test cards, as the shop lists them. */
  testCards(): Promise<readonly TestCardRow[]>;
  /** Stops the site, the clients and the sandbox. */
  close(): Promise<void>;
}

function checkOptions(options: DemoOptions): void {
  if (!options || typeof options !== 'object') throw new TypeError('startDemo: expected an options object');
  for (const name of ['port', 'sandboxPort'] as const) {
    const v = options[name];
    if (v !== undefined && !(Number.isInteger(v) && v >= 0 && v <= 65535)) {
      throw new TypeError(`startDemo: option \`${name}\` must be an integer from 0 to 65535, got ${JSON.stringify(v)}`);
    }
  }
  if (
    options.allowedHosts !== undefined &&
    !(Array.isArray(options.allowedHosts) && options.allowedHosts.every((h) => typeof h === 'string' && h !== ''))
  ) {
    throw new TypeError(
      `startDemo: option \`allowedHosts\` must be an array of host names, got ${JSON.stringify(options.allowedHosts)}`,
    );
  }
  if (options.host !== undefined && !isLoopbackHost(String(options.host))) {
    throw new TypeError(
      `startDemo: option \`host\` must be a loopback address (the embedded sandbox serves plain HTTP), got ${JSON.stringify(options.host)}`,
    );
  }
  const trust = options.trustProxy;
  if (trust !== undefined) {
    const listed = Array.isArray(trust) && trust.length > 0 && trust.every((a) => typeof a === 'string' && a !== '');
    let bad = !(listed || (Number.isInteger(trust) && (trust as number) >= 0));
    // Express compiles the addresses when the setting is made, and throws for one it cannot read.
    if (!bad && listed) {
      try {
        express().set('trust proxy', [...(trust as readonly string[])]);
      } catch {
        bad = true;
      }
    }
    if (bad) {
      throw new TypeError(
        `startDemo: option \`trustProxy\` must be the number of proxies in front of the demo or a non-empty array of their addresses or subnets (such as ["loopback"]), never true; got ${JSON.stringify(trust)}`,
      );
    }
  }
  const logger = options.logger as unknown as Record<string, unknown> | undefined;
  if (logger !== undefined && !['debug', 'info', 'warn', 'error'].every((m) => typeof logger?.[m] === 'function')) {
    throw new TypeError('startDemo: option `logger` must be a pino-compatible logger (debug, info, warn, error)');
  }
  if (options.redisUrl !== undefined && !/^rediss?:\/\/[^\s]+$/.test(String(options.redisUrl))) {
    throw new TypeError('startDemo: option `redisUrl` must be a redis:// or rediss:// URL');
  }
}

/**
 * Starts the whole demo in this process: the sandbox with the demo platform fixtures, the helper mounted at
 * `/api` exactly as a merchant would mount it, and the demo site (shop `/`, platform dashboard `/platform`,
 * sandbox console `/sandbox`) under the helper's strict CSP.
 *
 * @example
 * const demo = await startDemo({ port: 0, sandboxPort: 0 });
 * console.log(`${demo.url}/`, demo.sandbox.url);
 * await demo.close();
 */
export async function startDemo(options: DemoOptions = {}): Promise<RunningDemo> {
  checkOptions(options);
  const host = options.host ?? '127.0.0.1';
  const fixtures = demoFixtures();
  const sandbox = await startSandbox({
    port: options.sandboxPort ?? 4010,
    host,
    fixtures,
    timeouts: options.timeouts,
  });
  const creds = sandbox.credentials;
  // Every line the demo writes goes through the helper's redaction, its own request lines included: a card number
  // typed into a URL (`GET /api/4242424242424242`) must not reach the log (docs/decisions/helper.md#helper-logging).
  const log: HelperLogger = redactingLogger(
    options.logger ?? pino({ name: 'tessera-demo', level: process.env.LOG_LEVEL ?? 'info' }),
    [creds.secretKey, creds.clientSecret],
  );
  const now = () => sandbox.clock.nowMs();
  const state = new ShopState();
  // What a session owns (cart, orders) follows it to the new id its sign-in gives it.
  const sessions = new DemoSessions({ onRotate: (from, to) => state.moveSession(from, to) });
  const { sessionOf } = sessions;
  const legacy = createLegacyClient({ secretKey: creds.secretKey, baseUrl: sandbox.url, logger: log });
  // The demo back end's own reads (reserve rules, saved cards): what a merchant's server reads for its pages.
  const accounts = createAccountsClient({
    clientId: creds.clientId,
    clientSecret: creds.clientSecret,
    baseUrl: sandbox.url,
    authUrl: sandbox.url,
    now,
    logger: log,
  });
  const issuer = await createHostIssuer(now);
  const store = options.redisUrl ? new RedisStore({ url: options.redisUrl }) : undefined;

  const helper = tesseraHelper({
    environment: 'sandbox',
    // The one place the helper's path is written: the pages get their URLs from helper.page().
    mountPath: '/api',
    publicKey: creds.publicKey,
    secretKey: creds.secretKey,
    legacyBaseUrl: sandbox.url,
    clientId: creds.clientId,
    clientSecret: creds.clientSecret,
    accountsBaseUrl: sandbox.url,
    authBaseUrl: sandbox.url,
    resolveCharge: resolveCharge(state, sessionOf),
    // Orders are marked paid here, on the server, from the provider's answer (docs/helper.md "Fulfilling an order").
    onCharge: recordCharge(state, now),
    // A 3-D Secure challenge started: the order waits for the shopper's bank (docs/helper.md "When a 3-D Secure challenge
    // starts").
    onChallenge: recordChallenge(state),
    hostAuth: {
      issuer: HOST_ISSUER,
      audience: HOST_AUDIENCE,
      algorithms: [HOST_ALGORITHM],
      key: issuer.publicJwk,
      // A token works only with the session it was issued to, while that session is signed in as its user
      // (docs/decisions/demo.md#demo-host-binding).
      isBound: sessions.isBound,
    },
    // The dashboard's list of payout instruments comes from the platform's records, as it must with the real provider.
    paymentInstrumentIds: payoutInstrumentIds(fixtures),
    // Everyone trying the demo shares 127.0.0.1: the per-IP limits are raised, the per-session ones kept.
    rateLimits: {
      requestsPerIp: { max: 1000, windowMs: 600_000 },
      chargesPerIp: { max: 200, windowMs: 600_000 },
      declinesPerIp: { max: 50, windowMs: 600_000 },
      // Dashboard tokens that expired while a tab stood open are refused too: shared by everyone on loopback.
      hostAuthFailuresPerIp: { max: 600, windowMs: 60_000 },
    },
    sessionId: sessionOf,
    logger: log,
    now,
    ...(store ? { store } : {}),
  });

  let cards: Promise<readonly TestCardRow[]> | undefined;
  const testCards = () => {
    cards ??= fetch(`${sandbox.url}/_sandbox/test-cards`, { signal: AbortSignal.timeout(5000) })
      .then((r) => (r.ok ? (r.json() as Promise<TestCardRow[]>) : []))
      .catch(() => {
        cards = undefined;
        return [];
      });
    return cards;
  };

  const app = express();
  app.disable('x-powered-by');
  // `req.secure` (and so the session cookie's `Secure` flag, and the helper's return URLs' scheme) follows
  // X-Forwarded-Proto only from the proxies the developer names (docs/decisions/demo.md#demo-sessions).
  if (options.trustProxy !== undefined) {
    app.set('trust proxy', typeof options.trustProxy === 'number' ? options.trustProxy : [...options.trustProxy]);
  }
  // A body no route reads is not drained: the answer closes the connection (docs/decisions/demo.md#demo-bodies).
  app.use(closeUnreadBodies);
  app.use((req, res, next) => {
    const start = performance.now();
    res.on('finish', () =>
      log.info(
        {
          event: 'demo.request',
          method: req.method,
          // The whole path (Express strips a mount point from req.path by now), read as a route reads it when it
          // holds a card number: `/4242%204242%204242%204242` is one that a raw-text scan cannot see.
          path: maskUrlPans(req.originalUrl.split('?')[0]!),
          status: res.statusCode,
          ms: Math.round(performance.now() - start),
        },
        'request',
      ),
    );
    next();
  });
  // The demo answers on loopback only, and a page of another site that points its own name at 127.0.0.1 (DNS
  // rebinding) would be same-origin with it, its forms and reads included: every request must name a loopback host
  // (docs/decisions/demo.md#demo-cross-site).
  const allowed = new Set((options.allowedHosts ?? []).map((h) => hostName(h)));
  app.use((req, _res, next) => {
    const name = hostName(req.headers.host ?? '');
    if (isLoopbackHost(name) || allowed.has(name)) return next();
    // HTTP/1.0 may leave Host out or empty (HTTP/1.1 may not: 400 before this, in guardServer): it then names no
    // host to allow, and the pages and the helper's return URLs are built from it (docs/decisions/demo.md#demo-host-header).
    if (name === '') {
      return next(
        new DemoError(
          400,
          'DEMO_HOST_MISSING',
          'Send a Host header naming the address you reached the demo at, such as 127.0.0.1:3000.',
          'host',
        ),
      );
    }
    // A host name is at most 253 characters; a longer Host is not repeated whole.
    const shown = name.slice(0, 253);
    next(
      new DemoError(
        421,
        'DEMO_HOST_REFUSED',
        `This demo answers at a loopback address such as 127.0.0.1. To reach it as ${JSON.stringify(shown)} through a proxy of yours, start it with TESSERA_DEMO_ALLOWED_HOSTS=${shown}.`,
        'host',
      ),
    );
  });
  app.use(sessions.middleware());
  app.use(helper.mountPath!, helper);
  const publicDir = join(packageRoot(), 'demo', 'public');
  // The files and the icon carry the pages' security headers too (nosniff above all), with a policy that lets a file
  // opened as a document (the SVG icon) run and load nothing; the pages get theirs below, with the nonce.
  const fileHeaders = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  });
  // `redirect: false`: `/static` was a 301 to `/static/`, a folder it does not list (404).
  app.use(
    '/static',
    fileHeaders,
    express.static(publicDir, { index: false, fallthrough: true, maxAge: '5m', redirect: false }),
  );
  // A file it serves, asked with another method, is 405 like the routes (express.static passes such a request on).
  const files = new Set(readdirSync(publicDir).map((name) => `/${name}`));
  app.use('/static', (req, res, next) => (files.has(req.path) ? onlyMethods('GET')(req, res, next) : next()));
  // Browsers ask every origin for /favicon.ico; a 404 there was a console error on every demo page.
  app
    .route('/favicon.ico')
    .get(fileHeaders, (_req, res) => {
      res.type('image/svg+xml').set('Cache-Control', 'public, max-age=86400').send(FAVICON);
    })
    .all(onlyMethods('GET'));
  app.use(helmet({ contentSecurityPolicy: false }), tesseraCsp({ cardTokenUrl: helper.cardTokenUrl }));
  // The demo's own forms (cart, checkout, the sandbox console) post without a preflight, so any site a visitor has
  // open could post them; the console would then reset or fault the sandbox, whose own controls refuse other sites.
  // The rule is the helper's and the sandbox's (server/common/cross-site.ts; docs/decisions/demo.md#demo-cross-site).
  const foreign = crossSiteWrites();
  app.use((req, _res, next) => {
    if (!foreign(req)) return next();
    next(new DemoError(403, 'DEMO_CROSS_SITE_REFUSED', 'A form from another site was refused.', 'origin'));
  });
  app.use(
    shopRoutes({
      state,
      sessions,
      legacy,
      testCards,
      now,
      helperPage: helper.page,
    }),
  );
  app.use(platformRoutes({ accounts, issuer, sessions, now, log, helperUrl: (req) => helper.page(req).baseUrl }));
  app.use(consoleRoutes({ sandboxUrl: sandbox.url, state, legacy }));
  app.use((_req, _res, next) => next(new DemoError(404, 'DEMO_NOT_FOUND', 'There is no page here.')));
  app.use(errorHandler(log));

  const server = createServer(serverOptions(options.timeouts), app).listen(options.port ?? 3000, host);
  // Slow or endless requests are cut off, and Node's own 400/408/431/417, a missing or repeated Host (400) and
  // CONNECT (501) carry the demo's JSON error body, its field in lower case as the demo's own errors name it.
  guardServer(
    server,
    (_status, code, message, field) => ({ code, message, ...(field ? { field: field.toLowerCase() } : {}) }),
    options.timeouts,
  );
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  } catch (err) {
    await store?.close();
    await sandbox.close();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    sandbox,
    testCards,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await Promise.all([legacy.close(), accounts.close(), store?.close()]);
      await sandbox.close();
    },
  };
}
