import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { booleanOption, checkOptions, show } from '../common/options.js';

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
   * payment page every script should carry the nonce. See docs/decisions/helper.md#helper-csp.
   */
  readonly strictDynamic?: boolean;
  /** Extra origins for `connect-src` (analytics, the merchant's API on another host). */
  readonly connectSrc?: readonly string[];
  /** Origins allowed to frame the page (`frame-ancestors`); none by default. */
  readonly frameAncestors?: readonly string[];
  /** A `report-uri` for violation reports: an http(s) URL, or a path on the page's site (`/csp-reports`). */
  readonly reportUri?: string;
  /** Send `Content-Security-Policy-Report-Only` instead of enforcing (for a trial run). */
  readonly reportOnly?: boolean;
}

// Visible ASCII only (`!` to `~`): Node refuses a header holding a character above U+00FF or a control character, at
// each response, and sends U+0080 to U+00FF as raw bytes that no browser reads as the host or path meant.
const ORIGIN = /^https?:\/\/[!-~]+$/;
/** What an origin may not hold besides: a space, `;` or `,` would start another source, directive or policy. */
const SOURCE_STOP = /[;,']/;
/**
 * The keyword and scheme sources a list may hold as they are, beside origins: `'self'` (a checkout framed by the
 * shop's own pages: `frameAncestors: ["'self'"]`), `data:`, `blob:`. Not `'none'`: it is each directive's default
 * here (an empty list), and beside other sources browsers ignore it.
 */
const KEYWORDS: ReadonlySet<unknown> = new Set(["'self'", 'data:', 'blob:']);
const isSource = (s: unknown) => KEYWORDS.has(s) || (typeof s === 'string' && ORIGIN.test(s) && !SOURCE_STOP.test(s));

/** Marks the nonce a tesseraCsp made for this response in `res.locals`, apart from one another middleware set. */
const NONCE_OWNER = Symbol('tessera.cspNonce');

/**
 * `Cache-Control: no-store` on a response that reaches its headers without a Cache-Control of its own. The page's
 * nonce is in its body: a shared cache that kept the page would give every visitor the same nonce, and a script
 * injected into the page could then carry it (docs/decisions/helper.md#helper-csp). Set when the headers are written,
 * not now, so a route (or `express.static` behind an app-wide `tesseraCsp`) that sets its own caching keeps it.
 */
function noStoreUnlessSet(res: Response): void {
  const writeHead = res.writeHead;
  res.writeHead = function writeHeadNoStore(this: Response, ...args: unknown[]) {
    if (!this.hasHeader('Cache-Control')) this.setHeader('Cache-Control', 'no-store');
    return (writeHead as (...a: unknown[]) => Response).apply(this, args);
  } as typeof res.writeHead;
}

const httpUrl = (fix: string) =>
  z.string({ error: fix }).refine(
    (s) => {
      try {
        const { protocol } = new URL(s);
        return protocol === 'https:' || protocol === 'http:';
      } catch {
        return false;
      }
    },
    { error: fix },
  );

const sources = z.array(z.unknown(), { error: 'must be an array of origins' }).superRefine((list, ctx) => {
  const bad = list.findIndex((s) => !isSource(s));
  if (bad !== -1) {
    const shown = show(list[bad]);
    ctx.addIssue({
      code: 'custom',
      message:
        list[bad] === "'none'"
          ? `holds ${shown}; leave the list out (or empty) for 'none', the default`
          : `holds ${shown}; use origins like "https://api.example.com" (ASCII: an international host in its xn-- form) or 'self'`,
    });
  }
});

/** The options of {@link tesseraCsp}, each with its check (server/common/options.ts). */
const CSP_OPTIONS = {
  // Its origin goes into connect-src as written: a host may hold `;`, `,` or `'` (URLs take them), which would start
  // another directive (`https://x;form-action`) or policy, like a connectSrc entry that holds one.
  cardTokenUrl: httpUrl('must be an http(s) URL: `helper.cardTokenUrl`').refine(
    (s) => {
      const { origin } = new URL(s);
      return ORIGIN.test(origin) && !SOURCE_STOP.test(origin);
    },
    {
      error:
        'must be an http(s) URL whose host is ASCII without ";", "," or "\'" (an international host in its xn-- form)',
    },
  ),
  strictDynamic: booleanOption().optional(),
  connectSrc: sources.optional(),
  frameAncestors: sources.optional(),
  // The value goes into the header as written: a `;` or `,` would start another directive or policy. CSP takes a
  // URI reference, so a path on the page's own site (`/csp-reports`) is fine too; `//host` would be another site.
  reportUri: z
    .string({ error: 'must be an http(s) URL or a path such as "/csp-reports"' })
    .refine((s) => /^\/(?!\/)/.test(s) || httpUrl('').safeParse(s).success, {
      error: 'must be an http(s) URL or a path such as "/csp-reports"',
    })
    .regex(/^[!-~]*$/, {
      error: 'must be ASCII without spaces: percent-encode the path and write an international host in its xn-- form',
    })
    .regex(/^[^;,']*$/, { error: 'must be a URL without ";", "," or "\'"' })
    .optional(),
  reportOnly: booleanOption().optional(),
};

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
  if (options && typeof options === 'object' && 'method' in options) {
    throw new TypeError('tesseraCsp: call it with options, e.g. `app.use(tesseraCsp({ cardTokenUrl }))`');
  }
  const o = checkOptions('tesseraCsp', options, CSP_OPTIONS, { usage: 'app.use(tesseraCsp({ cardTokenUrl }))' });
  const token = new URL(o.cardTokenUrl).origin;
  const connect = (o.connectSrc ?? []) as string[];
  const ancestors = (o.frameAncestors ?? []) as string[];
  const header = o.reportOnly ? 'Content-Security-Policy-Report-Only' : 'Content-Security-Policy';

  return function tesseraCspMiddleware(_req: Request, res: Response, next: NextFunction) {
    // A second tesseraCsp on the same response (an enforced policy app-wide, a report-only trial on one route) keeps
    // the first one's nonce: a fresh one would leave the first header naming a nonce no script carries.
    const locals = res.locals as { cspNonce?: unknown; [NONCE_OWNER]?: unknown };
    let nonce = locals[NONCE_OWNER] === locals.cspNonce ? locals.cspNonce : undefined;
    if (typeof nonce !== 'string') {
      nonce = randomBytes(18).toString('base64');
      locals.cspNonce = nonce;
      locals[NONCE_OWNER] = nonce;
      noStoreUnlessSet(res);
    }
    const directives = [
      "default-src 'self'",
      `script-src 'nonce-${nonce}'${o.strictDynamic ? " 'strict-dynamic'" : ''}`,
      `style-src 'self' 'nonce-${nonce}'`,
      ["connect-src 'self'", token, ...connect].join(' '),
      "img-src 'self' data:",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      `frame-ancestors ${ancestors.length ? ancestors.join(' ') : "'none'"}`,
      "require-trusted-types-for 'script'",
      ...(o.reportUri ? [`report-uri ${o.reportUri}`] : []),
    ];
    res.setHeader(header, directives.join('; '));
    next();
  };
}
