import type { Request } from 'express';
import { badRequest } from '../errors.js';

/** The helper's own absolute URL as the browser sees it: `publicUrl`, else rebuilt from the request. */
export function mountUrl(req: Request, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  return `${req.protocol}://${req.get('host')}${req.baseUrl}`;
}

/**
 * Where the shopper may be sent after 3-D Secure: a path on the helper's own
 * origin (`/order/done`), or an absolute URL on that origin or on one of
 * `redirectOrigins`. Anything else would make the helper an open redirect
 * (docs/DECISIONS.md#helper-3ds).
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
    if (url.origin === ownOrigin) return url.href;
  } else {
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (url && (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password) {
      if (url.origin === ownOrigin || allowed.includes(url.origin)) return url.href;
    }
  }
  throw badRequest(
    field,
    `${field} must be a path on this site (e.g. "/order/done") or a URL on an allowed origin`,
    'TESSERA_REDIRECT_NOT_ALLOWED',
  );
}
