import { loadWidgetAsset, widgetVersion } from './widget-asset.js';

const ATTR_UNSAFE = /[&"<>]/g;
const ESCAPES: Record<string, string> = { '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' };
const escapeAttr = (s: string) => s.replace(ATTR_UNSAFE, (c) => ESCAPES[c]!);

export interface WidgetScriptTagOptions {
  /** Where the page loads the bundle from, e.g. `/payments/widget.js`. */
  readonly src: string;
  /** The bundle's SRI value (`/config`'s `widgetIntegrity`); read from the built package when omitted. */
  readonly integrity?: string;
  /** The page's CSP nonce (`res.locals.cspNonce` from `tesseraCsp`). */
  readonly nonce?: string;
}

/**
 * The `<script>` tag that loads the widget bundle with Subresource Integrity,
 * `crossorigin="anonymous"` (needed for SRI) and the page's CSP nonce. A `src`
 * without a query gets `?v=<version>` so the helper can let browsers cache it
 * as immutable (docs/DECISIONS.md#helper-widget-caching). Attribute values are
 * HTML-escaped.
 *
 * @example
 * widgetScriptTag({ src: '/payments/widget.js', nonce: res.locals.cspNonce })
 * // <script type="module" src="/payments/widget.js?v=…" integrity="sha384-…" crossorigin="anonymous" nonce="…"></script>
 */
export function widgetScriptTag(options: Readonly<WidgetScriptTagOptions>): string {
  if (!options || typeof options.src !== 'string' || !options.src) {
    throw new TypeError(
      'widgetScriptTag: option `src` must be the URL of the widget bundle, e.g. "/payments/widget.js"',
    );
  }
  const integrity = options.integrity ?? loadWidgetAsset().integrity;
  if (typeof integrity !== 'string' || !/^sha(256|384|512)-[A-Za-z0-9+/=]+$/.test(integrity)) {
    throw new TypeError(
      `widgetScriptTag: option \`integrity\` must be an SRI value like "sha384-…", got ${JSON.stringify(integrity)}`,
    );
  }
  if (
    options.nonce !== undefined &&
    (typeof options.nonce !== 'string' || !/^[A-Za-z0-9+/=_-]+$/.test(options.nonce))
  ) {
    throw new TypeError(
      `widgetScriptTag: option \`nonce\` must be the base64 nonce, got ${JSON.stringify(options.nonce)}`,
    );
  }
  const nonce = options.nonce ? ` nonce="${escapeAttr(options.nonce)}"` : '';
  const src = options.src.includes('?') ? options.src : `${options.src}?v=${widgetVersion(integrity)}`;
  return `<script type="module" src="${escapeAttr(src)}" integrity="${escapeAttr(integrity)}" crossorigin="anonymous"${nonce}></script>`;
}
