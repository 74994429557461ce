import { z } from 'zod';
import { escapeHtml } from '../common/html.js';
import { checkOptions, patternOption } from '../common/options.js';
import { loadWidgetAsset, widgetVersion } from './widget-asset.js';

/** The options of {@link widgetScriptTag}, each with its check (server/common/options.ts). */
const TAG_OPTIONS = {
  src: z
    .string({ error: 'must be the URL of the widget bundle, e.g. "/payments/widget.js"' })
    .min(1, { error: 'must be the URL of the widget bundle, e.g. "/payments/widget.js"' }),
  integrity: patternOption(/^sha(256|384|512)-[A-Za-z0-9+/=]+$/, 'must be an SRI value like "sha384-…"').optional(),
  nonce: patternOption(/^[A-Za-z0-9+/=_-]+$/, 'must be the base64 nonce').optional(),
};

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
 * as immutable (docs/decisions/helper.md#helper-widget-caching). Attribute values are
 * HTML-escaped.
 *
 * @example
 * widgetScriptTag({ src: '/payments/widget.js', nonce: res.locals.cspNonce })
 * // <script type="module" src="/payments/widget.js?v=…" integrity="sha384-…" crossorigin="anonymous" nonce="…"></script>
 */
export function widgetScriptTag(options: Readonly<WidgetScriptTagOptions>): string {
  const o = checkOptions('widgetScriptTag', options, TAG_OPTIONS, {
    usage: "widgetScriptTag({ src: '/payments/widget.js', nonce: res.locals.cspNonce })",
  });
  const integrity = o.integrity ?? loadWidgetAsset().integrity;
  const nonce = o.nonce ? ` nonce="${escapeHtml(o.nonce)}"` : '';
  const src = o.src.includes('?') ? o.src : `${o.src}?v=${widgetVersion(integrity)}`;
  return `<script type="module" src="${escapeHtml(src)}" integrity="${escapeHtml(integrity)}" crossorigin="anonymous"${nonce}></script>`;
}
