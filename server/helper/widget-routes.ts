import { createHash } from 'node:crypto';
import { Router } from 'express';
import type { HelperContext } from './context.js';
import { HelperHttpError } from './errors.js';
import {
  loadWidgetAsset,
  loadWidgetLocale,
  loadWidgetSourceMap,
  WIDGET_FILE,
  type WidgetAsset,
  WidgetBundleError,
  widgetVersion,
} from './widget-asset.js';

/**
 * Loads the built widget once it exists: at the first call that finds it,
 * then cached. Missing bundle → a 503 naming the fix (`npm run build`)
 * rather than a crash at startup of a server that may not serve it at all;
 * a bundle that is there but cannot be read (EACCES, EISDIR, …) → a 503 that
 * says so, the error's code and the path in its logged cause.
 */
export function widgetLoader(): () => WidgetAsset {
  let asset: WidgetAsset | undefined;
  return () => {
    if (asset) return asset;
    try {
      asset = loadWidgetAsset();
      return asset;
    } catch (cause) {
      if (cause instanceof WidgetBundleError && !cause.missing) {
        throw new HelperHttpError(503, 'TESSERA_WIDGET_UNREADABLE', 'the widget bundle could not be read', { cause });
      }
      throw new HelperHttpError(
        503,
        'TESSERA_WIDGET_NOT_BUILT',
        'the widget bundle is not built; run `npm run build`',
        {
          cause,
        },
      );
    }
  };
}

/**
 * `GET /config`: what the widget needs and nothing more: the public key, the
 * card-token URL, the environment and the bundle's SRI value.
 * `GET /widget.js?v=<version>`: the bundle, cached for a year as immutable
 * when `v` is the current version (what `widgetScriptTag` writes); without it
 * or with a stale one, `no-cache` with an ETag, so a new release is never hidden
 * behind an old immutable copy whose SRI hash no longer matches the page
 * (docs/decisions/helper.md#helper-widget-caching).
 * `GET /locales/<code>.json`: the widget's locale files, `no-cache` with an ETag.
 * `GET /tessera-card-form.js.map`: the bundle's source map, where the bundle's `sourceMappingURL` points (a path
 * relative to `widget.js`), `no-cache` with an ETag.
 */
export function widgetRoutes(ctx: HelperContext, router: Router = Router()): Router {
  router.get('/config', (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.json({
      publicKey: ctx.publicKey,
      cardTokenUrl: ctx.cardTokenUrl,
      environment: ctx.environment,
      widgetIntegrity: ctx.widget().integrity,
    });
  });
  router.get('/widget.js', (req, res) => {
    const asset = ctx.widget();
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    res.setHeader(
      'Cache-Control',
      req.query.v === widgetVersion(asset.integrity) ? 'public, max-age=31536000, immutable' : 'no-cache',
    );
    res.setHeader('ETag', `"${asset.integrity}"`);
    res.send(asset.body);
  });
  // Read again whenever the bundle changed (a `vite build --watch`), so the map always belongs to the bundle served.
  let map: { body: Buffer; etag: string; bundle: string } | undefined;
  router.get(`/${WIDGET_FILE}.map`, (_req, res, next) => {
    const bundle = ctx.widget().integrity;
    if (map?.bundle !== bundle) {
      const body = loadWidgetSourceMap();
      if (!body) return next();
      map = { body, etag: etagOf(body), bundle };
    }
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('ETag', map.etag);
    res.send(map.body);
  });
  // The widget fetches `locales/<code>.json` beside its bundle, checked against hashes pinned in the bundle.
  const locales = new Map<string, { body: Buffer; etag: string }>();
  router.get('/locales/:file', (req, res, next) => {
    const name = String(req.params.file);
    let file = locales.get(name);
    if (!file) {
      const body = loadWidgetLocale(name);
      if (!body) return next();
      file = { body, etag: etagOf(body) };
      locales.set(name, file);
    }
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('ETag', file.etag);
    res.send(file.body);
  });
  return router;
}

const etagOf = (body: Buffer) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
