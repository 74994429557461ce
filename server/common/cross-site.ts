import type { IncomingHttpHeaders } from 'node:http';

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Who may write besides the server's own pages. */
export interface CrossSiteRule {
  /** Origins of other sites that may write all the same (a checkout listed in the helper's `corsOrigins`). */
  readonly trusted?: readonly string[];
  /** The server's own origin as browsers see it (the helper's `publicUrl`); else the request's `Host` names it. */
  readonly ownOrigin?: string;
}

/**
 * The one rule of the helper, the sandbox's controls and the demo's forms for a browser's write that another site
 * started, after Go 1.25's `net/http.CrossOriginProtection` (docs/decisions/helper.md#helper-cross-site). For every
 * method but GET, HEAD and OPTIONS:
 *
 * - an `Origin` in `trusted` passes;
 * - else `Sec-Fetch-Site` decides when the browser sent it (every current engine does): `same-origin` or `none`
 *   (typed or bookmarked) passes, `same-site` and `cross-site` do not;
 * - else an `Origin` must be the server's own: `ownOrigin`, or one whose host is the request's `Host`;
 * - a request with neither header is not a browser's and passes (a server, a test, `curl`).
 *
 * Answers a predicate: true for a write to refuse.
 */
export function crossSiteWrites(
  rule: CrossSiteRule = {},
): (req: { readonly method?: string; readonly headers: IncomingHttpHeaders }) => boolean {
  const foreign = crossSiteRequests(rule);
  return (req) => !SAFE_METHODS.has(req.method ?? 'GET') && foreign(req);
}

/**
 * {@link crossSiteWrites}'s rule for a request of any method: true for one another site's page started. For routes no
 * other site has any use for, reads included (the helper's dashboard routes, docs/decisions/helper.md#helper-cross-site).
 */
export function crossSiteRequests(
  rule: CrossSiteRule = {},
): (req: { readonly headers: IncomingHttpHeaders }) => boolean {
  const trusted: ReadonlySet<string> = new Set(rule.trusted);
  const own = rule.ownOrigin === undefined ? undefined : new URL(rule.ownOrigin).origin;
  return (req) => {
    const origin = req.headers.origin;
    if (origin !== undefined && trusted.has(origin)) return false;
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined) return site !== 'same-origin' && site !== 'none';
    if (origin === undefined || origin === own) return false;
    // `null` (a sandboxed frame, a data: URL) and anything else that is not a URL has no host.
    return !(URL.canParse(origin) && new URL(origin).host === (req.headers.host ?? '').toLowerCase());
  };
}
