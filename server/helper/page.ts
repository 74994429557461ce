import type { Application, Request, Response } from 'express';
import type { HelperLogger } from './log.js';
import { requestLog } from './request-log.js';
import { requireWidgetBundle, type WidgetAsset, widgetVersion } from './widget-asset.js';
import { widgetScriptTag } from './widget-tag.js';

/** What a page that takes a payment needs from the helper, built from its one mount path. */
export interface HelperPage {
  /** Where the helper answers, from the site's root, e.g. `/payments`. */
  readonly baseUrl: string;
  /** The widget's `config-url`. */
  readonly configUrl: string;
  /** Where the page posts `{ cardToken, orderReference, … }`. */
  readonly chargesUrl: string;
  /** The widget bundle (with `?v=<version>`, cached as immutable). */
  readonly widgetUrl: string;
  /** The `<script>` tag of the bundle with its SRI hash and the page's CSP nonce (`res.locals.cspNonce`). */
  readonly scriptTag: string;
}

/**
 * `mountPath` rule: a literal path from the app's root, segments of unreserved URL characters, no trailing slash
 * (Express would read `:`, `*` or `(` as pattern syntax, and the page URLs must be plain paths), and no `.` or `..`
 * segment: a browser resolves those away before it asks (`/shop/../payments/config` is `/payments/config`), so the
 * page's URLs would point where the helper is not.
 */
export const MOUNT_PATH = /^(?:\/(?!\.{1,2}(?:\/|$))[A-Za-z0-9._~-]{1,100}){1,10}$/;

/**
 * The path an Express app answers under: its own mount path, after those of the apps it is mounted in
 * (`parent.use('/shop', app)`). Empty for the top-level app.
 */
function appBase(app: Application | undefined): string {
  let base = '';
  for (let a = app as (Application & { parent?: Application }) | undefined; a; a = a.parent) {
    const mount = a.mountpath;
    if (typeof mount !== 'string') {
      throw new TypeError(
        'helper.page: the app the helper is mounted on is itself mounted at a pattern; mount it at a plain path',
      );
    }
    if (mount !== '/') base = mount.replace(/\/$/, '') + base;
  }
  return base;
}

/**
 * The page side of one helper: `page(req, res)` for the merchant's page routes, and `check(req)` run on the first
 * request the helper answers, which warns when the helper is reached somewhere other than `mountPath` (the page
 * would then point at a path where nothing answers).
 */
export function pageBuilder(mountPath: string | undefined, widget: () => WidgetAsset, log: HelperLogger) {
  // `mountPath` is given for page(), whose script tag needs the bundle: a clone not built fails here, when the helper
  // is created, not inside the first page request (docs/decisions/helper.md#helper-widget-caching).
  if (mountPath !== undefined) requireWidgetBundle('tesseraHelper: option `mountPath` (for helper.page())');
  let settled = false;
  return {
    page(req: Request, res?: Response): HelperPage {
      if (mountPath === undefined) {
        throw new TypeError(
          'helper.page needs the `mountPath` option: tesseraHelper({ mountPath: "/payments", … }) and app.use(helper.mountPath, helper)',
        );
      }
      if (!req || typeof req !== 'object' || !('app' in req)) {
        throw new TypeError('helper.page: pass the Express request of the page route, e.g. helper.page(req, res)');
      }
      const baseUrl = appBase(req.app) + mountPath;
      const nonce = res?.locals?.cspNonce;
      // A bundle removed since the helper was created: the loader's 503 TESSERA_WIDGET_NOT_BUILT (or
      // TESSERA_WIDGET_UNREADABLE, for one that is there but cannot be read), whose cause names the path for the log
      // and whose message may reach a browser (widget-routes.ts).
      const { integrity } = widget();
      const widgetUrl = `${baseUrl}/widget.js?v=${widgetVersion(integrity)}`;
      const scriptTag = widgetScriptTag({
        src: widgetUrl,
        integrity,
        ...(typeof nonce === 'string' ? { nonce } : {}),
      });
      return {
        baseUrl,
        configUrl: `${baseUrl}/config`,
        chargesUrl: `${baseUrl}/charges`,
        widgetUrl,
        scriptTag,
      };
    },
    check(req: Request): void {
      if (settled || mountPath === undefined) return;
      settled = true;
      let expected: string;
      try {
        expected = appBase(req.app) + mountPath;
      } catch {
        expected = mountPath;
      }
      // Express routes paths case-insensitively by default: `/PAYMENTS/config` from any client reaches a helper
      // mounted at `/payments`, and is no sign of a wrong mount.
      if (req.baseUrl.toLowerCase() === expected.toLowerCase()) return;
      requestLog(log, req).warn(
        { event: 'tessera.mount_mismatch', mountPath: expected, baseUrl: req.baseUrl },
        `tessera helper answers at ${JSON.stringify(req.baseUrl)} but its mountPath says ${JSON.stringify(expected)}: mount it with app.use(helper.mountPath, helper)`,
      );
    },
  };
}
