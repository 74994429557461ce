import type { Request } from 'express';
import { badRequest } from '../errors.js';

/** The helper's own absolute URL as the browser sees it: `publicUrl`, else rebuilt from the request. */
export function mountUrl(req: Request, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  return `${req.protocol}://${req.get('host')}${req.baseUrl}`;
}

/**
 * A target on the helper's own origin, kept as a path (never `//…`): without `publicUrl` that origin comes from the
 * request's Host header, which whoever sends the request controls, and a relative `Location` always stays on the
 * site the shopper's browser is on.
 */
const onSite = (url: URL) => `/${url.pathname.replace(/^\/+/, '')}${url.search}${url.hash}`;

/**
 * Where the shopper may be sent after 3-D Secure: a path on the helper's own
 * origin (`/order/done`), or an absolute URL on that origin or on one of
 * `redirectOrigins`. Anything else would make the helper an open redirect
 * (docs/decisions/helper.md#helper-3ds). Targets on the own origin are answered as
 * paths, URLs on `redirectOrigins` as they are.
 */
export function checkReturnTarget(
  field: 'successUrl' | 'failUrl',
  value: string | undefined,
  ownOrigin: string,
  allowed: readonly string[],
): string | undefined {
  if (value === undefined) return undefined;
  if (value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\')) {
    const url = new URL(value, ownOrigin);
    if (url.origin === ownOrigin) return onSite(url);
  } else {
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (url && (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password) {
      if (allowed.includes(url.origin)) return url.href;
      if (url.origin === ownOrigin) return onSite(url);
    }
  }
  throw badRequest(
    field,
    `${field} must be a path on this site (e.g. "/order/done") or a URL on an allowed origin`,
    'TESSERA_REDIRECT_NOT_ALLOWED',
  );
}
