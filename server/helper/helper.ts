import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { readableUrl } from '../common/url-pans.js';
import { forwardRejections } from './async-routes.js';
import { cardDataRefused } from './body.js';
import { DEFAULT_LIMITS, type HelperContext, type ResolvedLimits } from './context.js';
import { cors } from './cors.js';
import { crossSiteGuard } from './cross-site.js';
import { answerable, type ErrorPage, errorBody, HelperHttpError } from './errors.js';
import { createHostVerifier } from './host-auth.js';
import type { KeyCheckResult } from './key-check.js';
import { defaultLogger, knownSecrets, redactingLogger } from './log.js';
import { noRoute } from './methods.js';
import { type TesseraHelperOptions, validateOptions } from './options.js';
import { type HelperPage, pageBuilder } from './page.js';
import { containsPan } from './pan-guard.js';
import { createProvider } from './provider.js';
import { logAnswerError, loggedMountParams, requestLog } from './request-log.js';
import { answerSecrets, holdsSecret, refuseAnswer, securityHeaders, sendJson } from './respond.js';
import { MemoryStore } from './store.js';
import { checkClusterNode, checkEviction } from './store-eviction.js';
import { guardStore } from './store-guard.js';
import { checkStore, type StoreCheckResult } from './store-startup.js';
import { trustProxyCheck } from './trust-proxy.js';
import { widgetLoader, widgetRoutes } from './widget-routes.js';

/** The router `tesseraHelper` returns, with what a page template needs. */
export interface TesseraHelper extends Router {
  /** The provider's card-token URL (for `tesseraCsp({ cardTokenUrl })`). */
  readonly cardTokenUrl: string;
  /** `sandbox` or `production`. */
  readonly environment: 'sandbox' | 'production';
  /** The `mountPath` option: where to mount the helper, `app.use(helper.mountPath, helper)`. */
  readonly mountPath: string | undefined;
  /**
   * For the merchant's page route: the widget's script tag (SRI, and the nonce from `res.locals.cspNonce`), its
   * config URL and the charge URL, all built from `mountPath` (after the path of the app it is mounted on), so
   * the path is written once. Needs the `mountPath` option.
   *
   * @example
   * app.use(payments.mountPath, payments);
   * app.get('/checkout', tesseraCsp({ cardTokenUrl: payments.cardTokenUrl }), (req, res) => {
   *   const { scriptTag, configUrl, chargesUrl } = payments.page(req, res);
   * });
   */
  page(req: Request, res?: Response): HelperPage;
  /**
   * The startup key check (option `startupKeyCheck`, on by default): resolves, never rejects, once the provider
   * answered for each configured key set (`accepted`, `refused` or `unchecked`); a refused or unchecked set was
   * logged once as a warning. Resolves to `{}` when the check is off.
   */
  readonly keyCheck: Promise<KeyCheckResult>;
  /**
   * The startup store check (option `startupStoreCheck`, on by default): resolves, never rejects, once the store
   * answered one read (`{ outcome: 'available' }`) or failed or did not answer within its bound (`'unavailable'`,
   * logged once as a `tessera.store_check` warning). Resolves to `{}` when the check is off or the store is the
   * in-process `MemoryStore`.
   */
  readonly storeCheck: Promise<StoreCheckResult>;
}

const MISUSE =
  'tesseraHelper was mounted without being called: write `app.use(path, tesseraHelper({ … }))`, not `app.use(path, tesseraHelper)`';

function looksLikeRequest(value: unknown): boolean {
  return !!value && typeof value === 'object' && 'method' in value && 'headers' in value && 'url' in value;
}

/** An error Express or its router raised for the request itself (a path parameter that is not valid %-encoding). */
function requestError(err: unknown): HelperHttpError | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  const uri = err instanceof URIError || /decode param/i.test((err as Error).message ?? '');
  return new HelperHttpError(
    uri ? 400 : status,
    'TESSERA_INVALID_REQUEST',
    uri ? 'the URL path is not valid percent-encoding' : 'the request is not valid',
    { field: uri ? 'path' : 'request', cause: err },
  );
}

/**
 * The Express router a merchant mounts on its own server: it turns a
 * single-use `card_tok_` into a charge with the secret key (amount and currency
 * decided by `resolveCharge`), serves the widget bundle and its config, and
 * gives the merchant's own dashboard pages the account updater and sub-entity
 * payout instruments behind host JWTs. Options are validated here, once.
 *
 * @example
 * app.use('/payments', tesseraHelper({
 *   publicKey: process.env.TESSERA_PUBLIC_KEY,
 *   secretKey: process.env.TESSERA_SECRET_KEY,
 *   resolveCharge: async (req, { orderReference }) => {
 *     const order = await orders.find(orderReference);
 *     return { amount: order.totalMinor, currency: order.currency, trackId: order.id };
 *   },
 * }));
 *
 * Given the `mountPath` option, the helper's `mountPath` is typed `string`, so `app.use(helper.mountPath, helper)`
 * type-checks.
 */
export function tesseraHelper(
  options: Readonly<TesseraHelperOptions> & { readonly mountPath: string },
): TesseraHelper & { readonly mountPath: string };
export function tesseraHelper(options: Readonly<TesseraHelperOptions>): TesseraHelper;
export function tesseraHelper(options: Readonly<TesseraHelperOptions>): TesseraHelper {
  if (looksLikeRequest(options)) {
    const err = new TypeError(MISUSE);
    // biome-ignore lint/complexity/noArguments: Express passes (req, res, next) when the factory itself is mounted
    const next = arguments[2];
    if (typeof next === 'function') {
      next(err);
      return undefined as never;
    }
    throw err;
  }
  const o = validateOptions(options);
  const now = o.now ?? Date.now;
  const secrets = knownSecrets([o.secretKey, o.clientSecret]);
  const log = redactingLogger(o.logger ?? defaultLogger(), secrets);
  const limits = Object.fromEntries(
    Object.entries(DEFAULT_LIMITS).map(([name, fallback]) => {
      const given = o.rateLimits?.[name as keyof ResolvedLimits];
      return [name, given === false ? undefined : (given ?? fallback)];
    }),
  ) as unknown as ResolvedLimits;
  const environment = o.environment ?? 'sandbox';
  const provider = createProvider(o, log);

  const ctx: HelperContext = {
    options: o,
    environment,
    publicKey: o.publicKey!,
    cardTokenUrl: provider.cardTokenUrl,
    store: o.store ? guardStore(o.store) : new MemoryStore({ now }),
    log,
    secrets: answerSecrets(secrets),
    limits,
    now,
    bodyLimit: o.bodyLimitBytes ?? 16_384,
    widget: widgetLoader(),
    sessionOf:
      o.sessionId ??
      ((req: Request) => {
        const id = (req as unknown as { sessionID?: unknown }).sessionID;
        return typeof id === 'string' && id ? id : undefined;
      }),
    checkProxy: trustProxyCheck(log),
    verifyHost: o.hostAuth ? createHostVerifier(o.hostAuth, now, log) : undefined,
  };

  const pages = pageBuilder(o.mountPath, ctx.widget, log);
  // Async route handlers reject into the error handler on Express 4 too (docs/decisions/tooling.md#express-versions).
  // mergeParams: a hook's `req.params` holds those of the path the helper is mounted under (`/shops/:shop/payments`),
  // which the merchant cannot ask of a router it did not create; a route's own parameter wins over one of the same name.
  const router = forwardRejections(express.Router({ mergeParams: true })) as TesseraHelper;
  // helmet's headers on every response, errors included (taken once: see securityHeaders).
  const headers = securityHeaders();
  // Checked in this first middleware, not a layer of its own: one routing step less per request.
  const crossSite = crossSiteGuard(o.corsOrigins, o.publicUrl);
  const withCors = o.corsOrigins?.length ? cors(o.corsOrigins) : undefined;
  router.use((req: Request, res: Response, next: NextFunction) => {
    for (const [name, value] of headers.set) res.setHeader(name, value);
    for (const name of headers.remove) res.removeHeader(name);
    const requestId = `hreq_${randomUUID()}`;
    res.locals.tesseraRequestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    pages.check(req);
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const line: Record<string, unknown> = {
        event: 'tessera.request',
        requestId,
        method: req.method,
        route: (req.route?.path as string | undefined) ?? 'unmatched',
        status: res.statusCode,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
      };
      if (res.locals.tesseraErrorCode) line.code = res.locals.tesseraErrorCode;
      // The shop of a charge under a path with parameters (docs/decisions/helper.md#helper-log-request-id).
      const mountParams = loggedMountParams(res);
      if (mountParams) line.mountParams = mountParams;
      // Assigned, not spread: this runs once per request.
      if (res.locals.tesseraLog) Object.assign(line, res.locals.tesseraLog);
      log.info(line, 'tessera request');
    });
    const guarded = () => {
      // A card number in the URL (query or path) is refused like one in a body, before any route reads it.
      if (containsPan(readableUrl(req.originalUrl))) return next(cardDataRefused('query'));
      const refused = crossSite(req);
      if (refused) return next(refused);
      next();
    };
    // CORS headers come before the refusals above, so a listed origin's page can read those answers too.
    if (withCors) withCors(req, res, guarded);
    else guarded();
  });

  // Routes are registered on this router itself, not on nested routers: one routing pass per request.
  widgetRoutes(ctx, router);
  provider.mount(router, ctx);

  // 405 with `Allow` for a path some route takes, read from this router's own routes; 404 for anything else.
  router.use(noRoute(router));
  router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    let known =
      err instanceof HelperHttpError
        ? err
        : (requestError(err) ??
          new HelperHttpError(500, 'TESSERA_INTERNAL', 'the payment helper failed unexpectedly', {
            cause: err,
          }));
    if (!answerable(known)) {
      // A HelperHttpError of a merchant's hook with a status that is no error (200, 302) or one Node refuses (1000):
      // answered as the helper's own failure rather than as it is (docs/decisions/helper.md#helper-charges).
      requestLog(log, req).error(
        { event: 'tessera.error.unanswerable', code: known.code, status: String(known.status) },
        'a HelperHttpError with a status outside 400 to 599, or a header that cannot be sent, was answered as a 500',
      );
      known = new HelperHttpError(500, 'TESSERA_INTERNAL', 'the payment helper failed unexpectedly', { cause: err });
    }
    if (known.status >= 500) logAnswerError(log, req, known.code, err);
    res.locals.tesseraErrorCode = known.code;
    if (res.headersSent) return;
    for (const [name, value] of Object.entries(known.headers)) res.setHeader(name, value);
    const page = res.locals.tesseraErrorPage as ErrorPage | undefined;
    if (page) {
      const requestId = res.locals.tesseraRequestId as string;
      let html = page(req, known, requestId);
      if (holdsSecret(ctx, html)) {
        // A charge id the provider echoed a secret into, in the page's reference (docs/decisions/helper.md#helper-secret-guard).
        known = refuseAnswer(ctx, res, `a ${known.status} error page`);
        html = page(req, known, requestId);
      }
      // The refusal's page holds nothing of the provider's; were it to hold a secret still (one the request itself sent
      // and the page repeats), it is not sent either: the JSON refusal below is.
      if (!holdsSecret(ctx, html)) {
        res.status(known.status).setHeader('Cache-Control', 'no-store');
        res.type('html').end(html);
        return;
      }
    }
    sendJson(ctx, res, known.status, errorBody(known, res.locals.tesseraRequestId as string));
  });

  // A shared Redis that may evict the helper's keys is a warning in the log, once (never a failure); a plain client on
  // one node of a Redis Cluster is an error in the log, once.
  void checkEviction(ctx.store, log);
  void checkClusterNode(ctx.store, log);
  // Started now, answered in the background: a provider that is slow or down never holds up startup.
  const keyCheck: Promise<KeyCheckResult> =
    o.startupKeyCheck === false ? Promise.resolve({}) : provider.checkKeys().catch(() => ({}));
  // The same for the store: a wrong Redis URL or password, or a Redis that is down, is said now rather than at the
  // first shopper's 503 (docs/decisions/helper.md#helper-store-check).
  const storeCheck: Promise<StoreCheckResult> =
    o.startupStoreCheck === false ? Promise.resolve({}) : checkStore(ctx.store, log).catch(() => ({}));

  Object.defineProperties(router, {
    cardTokenUrl: { value: ctx.cardTokenUrl, enumerable: true },
    environment: { value: environment, enumerable: true },
    mountPath: { value: o.mountPath, enumerable: true },
    page: { value: pages.page, enumerable: true },
    keyCheck: { value: keyCheck, enumerable: true },
    storeCheck: { value: storeCheck, enumerable: true },
  });
  return router;
}
