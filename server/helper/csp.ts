import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

export interface CspOptions {
  /**
   * The provider's card-token URL (or just its origin): the only place besides
   * `'self'` the page may connect to. Take it from the helper's `/config`
   * (`cardTokenUrl`) or `helper.cardTokenUrl`.
   */
  readonly cardTokenUrl: string;
  /**
   * Add `'strict-dynamic'` to `script-src`, letting nonce-bearing scripts load
   * further scripts (needed by tag managers and loaders). Off by default: on a
   * payment page every script should carry the nonce. See docs/DECISIONS.md#helper-csp.
   */
  readonly strictDynamic?: boolean;
  /** Extra origins for `connect-src` (analytics, the merchant's API on another host). */
  readonly connectSrc?: readonly string[];
  /** Origins allowed to frame the page (`frame-ancestors`); none by default. */
  readonly frameAncestors?: readonly string[];
  /** A `report-uri` for violation reports. */
  readonly reportUri?: string;
  /** Send `Content-Security-Policy-Report-Only` instead of enforcing (for a trial run). */
  readonly reportOnly?: boolean;
}

const SOURCE = /^(https?:\/\/[^\s;,']+|'self'|'none'|data:|blob:)$/;

function originOf(option: string, url: string): string {
  try {
    const u = new URL(url);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('scheme');
    return u.origin;
  } catch {
    throw new TypeError(`tesseraCsp: option \`${option}\` must be an http(s) URL, got ${JSON.stringify(url)}`);
  }
}

function checkSources(option: string, list: readonly string[] | undefined): readonly string[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new TypeError(`tesseraCsp: option \`${option}\` must be an array of origins`);
  for (const s of list) {
    if (typeof s !== 'string' || !SOURCE.test(s)) {
      throw new TypeError(
        `tesseraCsp: option \`${option}\` holds ${JSON.stringify(s)}; use origins like "https://api.example.com"`,
      );
    }
  }
  return list;
}

/**
 * A Content-Security-Policy middleware for checkout pages. Each response gets a
 * fresh nonce in `res.locals.cspNonce`; put it on every `<script>` (see
 * `widgetScriptTag`) and `<style>`. The policy:
 *
 * `default-src 'self'; script-src 'nonce-…'; style-src 'self' 'nonce-…';
 * connect-src 'self' <token origin>; img-src 'self' data:; object-src 'none';
 * base-uri 'none'; form-action 'self'; frame-ancestors 'none';
 * require-trusted-types-for 'script'`
 *
 * @example
 * app.get('/checkout', tesseraCsp({ cardTokenUrl: helper.cardTokenUrl }), (req, res) =>
 *   res.send(page(widgetScriptTag({ src: '/payments/widget.js', nonce: res.locals.cspNonce }))));
 */
export function tesseraCsp(options: Readonly<CspOptions>): RequestHandler {
  if (!options || typeof options !== 'object' || 'method' in options) {
    throw new TypeError('tesseraCsp: call it with options, e.g. `app.use(tesseraCsp({ cardTokenUrl }))`');
  }
  const token = originOf('cardTokenUrl', options.cardTokenUrl);
  const connect = checkSources('connectSrc', options.connectSrc);
  const ancestors = checkSources('frameAncestors', options.frameAncestors);
  if (options.reportUri !== undefined) {
    originOf('reportUri', options.reportUri);
    // The value goes into the header as written: a `;` or `,` would start another directive or policy.
    if (/[\s;,']/.test(options.reportUri)) {
      throw new TypeError(
        `tesseraCsp: option \`reportUri\` must be a URL without spaces, ";", "," or "'", got ${JSON.stringify(options.reportUri)}`,
      );
    }
  }
  const header = options.reportOnly ? 'Content-Security-Policy-Report-Only' : 'Content-Security-Policy';

  return function tesseraCspMiddleware(_req: Request, res: Response, next: NextFunction) {
    const nonce = randomBytes(18).toString('base64');
    res.locals.cspNonce = nonce;
    const directives = [
      "default-src 'self'",
      `script-src 'nonce-${nonce}'${options.strictDynamic ? " 'strict-dynamic'" : ''}`,
      `style-src 'self' 'nonce-${nonce}'`,
      ["connect-src 'self'", token, ...connect].join(' '),
      "img-src 'self' data:",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      `frame-ancestors ${ancestors.length ? ancestors.join(' ') : "'none'"}`,
      "require-trusted-types-for 'script'",
      ...(options.reportUri ? [`report-uri ${options.reportUri}`] : []),
    ];
    res.setHeader(header, directives.join('; '));
    next();
  };
}
