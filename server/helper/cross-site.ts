import type { Request } from 'express';
import { HelperHttpError } from './errors.js';

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses a browser's write to the helper that another site started (docs/decisions/helper.md#helper-cross-site),
 * after Go's `net/http.CrossOriginProtection`. The helper already takes only `application/json`, which a cross-site
 * form cannot send and a cross-site `fetch` can only send after a CORS preflight; but an app-wide CORS middleware
 * mounted before the helper (`app.use(cors())`) answers that preflight for every origin, and any site could then
 * post charges from its visitors' browsers. So, for every method but GET, HEAD and OPTIONS:
 *
 * - an `Origin` listed in `corsOrigins` passes;
 * - else `Sec-Fetch-Site` decides when the browser sent it (every current engine does): `same-origin` or `none`
 *   (typed or bookmarked) passes, `same-site` and `cross-site` do not;
 * - else an `Origin` must be the helper's own: the origin of `publicUrl`, or the request's `Host`;
 * - a request with neither header is not a browser's and passes (a server, a test, `curl`).
 *
 * Returns the error to answer, or `undefined` to go on.
 */
export function crossSiteGuard(
  corsOrigins: readonly string[] | undefined,
  publicUrl: string | undefined,
): (req: Request) => HelperHttpError | undefined {
  const trusted: ReadonlySet<string> = new Set(corsOrigins);
  const own = publicUrl === undefined ? undefined : new URL(publicUrl).origin;
  return (req) => {
    if (SAFE_METHODS.has(req.method)) return undefined;
    const origin = req.headers.origin;
    if (origin !== undefined && trusted.has(origin)) return undefined;
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined) return site === 'same-origin' || site === 'none' ? undefined : refused();
    if (origin === undefined || origin === own) return undefined;
    // `null` (a sandboxed frame, a data: URL) and anything else that is not a URL has no host.
    if (URL.canParse(origin) && new URL(origin).host === req.headers.host) return undefined;
    return refused();
  };
}

function refused(): HelperHttpError {
  return new HelperHttpError(
    403,
    'TESSERA_CROSS_SITE_REFUSED',
    'a request from another site was refused; list the page’s origin in the helper’s `corsOrigins` if it is yours',
    { field: 'origin', outcomeKnown: true },
  );
}
