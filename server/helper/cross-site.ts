import type { Request } from 'express';
import { crossSiteRequests, crossSiteWrites } from '../common/cross-site.js';
import { HelperHttpError } from './errors.js';

/**
 * Refuses a browser's write to the helper that another site started (docs/decisions/helper.md#helper-cross-site).
 * The helper already takes only `application/json`, which a cross-site form cannot send and a cross-site `fetch` can
 * only send after a CORS preflight; but an app-wide CORS middleware mounted before the helper (`app.use(cors())`)
 * answers that preflight for every origin, and any site could then post charges from its visitors' browsers. The
 * rule is server/common/cross-site.ts's, with `corsOrigins` trusted and `publicUrl` as the helper's own origin.
 *
 * With `reads`, the rule holds for every method: the dashboard routes, which no other site has any use for, refuse a
 * read another site's page started too, before its host token is read.
 *
 * Returns the error to answer, or `undefined` to go on.
 */
export function crossSiteGuard(
  corsOrigins: readonly string[] | undefined,
  publicUrl: string | undefined,
  reads = false,
): (req: Request) => HelperHttpError | undefined {
  const rule = {
    ...(corsOrigins ? { trusted: corsOrigins } : {}),
    ...(publicUrl ? { ownOrigin: publicUrl } : {}),
  };
  const foreign = reads ? crossSiteRequests(rule) : crossSiteWrites(rule);
  return (req) => (foreign(req) ? refused() : undefined);
}

function refused(): HelperHttpError {
  return new HelperHttpError(
    403,
    'TESSERA_CROSS_SITE_REFUSED',
    'a request from another site was refused; list the page’s origin in the helper’s `corsOrigins` if it is yours',
    { field: 'origin', outcomeKnown: true },
  );
}
