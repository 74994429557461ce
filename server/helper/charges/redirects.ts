import { unescape as percentDecoded } from 'node:querystring';
import type { Request } from 'express';
import { badRequest } from '../errors.js';

/**
 * A Host header as RFC 9110 §7.2 has it: a registered name or an IP literal, and a port. Each part is one class
 * repeated, parted by `:`, which the name cannot hold: linear.
 */
const HOST = /^(?:\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9.-]{1,253})(?::[0-9]{1,5})?$/;

/**
 * The helper's own absolute URL as the browser sees it: `publicUrl`, else rebuilt from the request. A request whose
 * Host (or, behind a trusted proxy, `X-Forwarded-Proto`) cannot make one is 400 naming the header: built as it came,
 * `new URL` threw (a 500) or the provider refused the 3-D Secure return URL (a 502 blaming the provider), and a Host
 * such as `a\b` made a return URL on another path (docs/decisions/helper.md#helper-3ds).
 */
export function mountUrl(req: Request, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  const host = req.get('host');
  if (host === undefined || !HOST.test(host) || !URL.canParse(`http://${host}`)) {
    throw badRequest(
      'host',
      'the Host header must be a host name or address, with a port if any; behind a proxy, set publicUrl',
    );
  }
  const { protocol } = req;
  if (protocol !== 'https' && protocol !== 'http') {
    throw badRequest('x-forwarded-proto', 'X-Forwarded-Proto must be https or http');
  }
  return `${protocol}://${host}${req.baseUrl}`;
}

const NOWHERE = 'https://helper.invalid';

/**
 * How often a path is percent-decoded before it must have stopped changing: a decoding proxy in front of a decoding
 * app is two; a path still escaped after this many is no merchant's and is refused. Bounds the work at this many
 * linear passes.
 */
const DECODINGS = 8;

/**
 * Whether a path still names a path on the site however often something in front of the merchant's routes
 * percent-decodes it (nginx's `$uri`, a CDN, an app that decodes before routing, one behind the other):
 * `/%2F%2Fevil.example` and `/%5Cevil.example` are paths to the browser but `//evil.example` and `/\evil.example`
 * decoded, which the site's own redirects (a trailing slash added, a login's `next`) send to another host; a decoded
 * `%09`, `%0A` or `%0D` is dropped by a URL parser, so `/%09/evil.example` is one too; and `/%252F%252Fevil.example`
 * is `/%2F%2Fevil.example` to a proxy that passes its decoded path on (`proxy_pass http://app$uri`) to an app that
 * decodes it again. Decoded byte by byte (a broken escape does not hide the others) until nothing changes, each form
 * read as a browser reads a relative `Location`, dot segments included. docs/decisions/helper.md#helper-return-target-decoded
 */
function staysOnSiteDecoded(path: string): boolean {
  let decoded = path;
  for (let pass = 0; pass <= DECODINGS; pass++) {
    const next = percentDecoded(decoded);
    if (!URL.canParse(next, NOWHERE)) return false;
    const url = new URL(next, NOWHERE);
    if (url.origin !== NOWHERE || url.pathname.startsWith('//')) return false;
    if (next === decoded) return true;
    decoded = next;
  }
  return false;
}

/**
 * A target on the helper's own origin, kept as a path (never `//…`): without `publicUrl` that origin comes from the
 * request's Host header, which whoever sends the request controls, and a relative `Location` always stays on the
 * site the shopper's browser is on. Undefined when the path leaves the site when decoded ({@link staysOnSiteDecoded}).
 */
function onSite(url: URL): string | undefined {
  const path = `/${url.pathname.replace(/^\/+/, '')}`;
  return staysOnSiteDecoded(path) ? `${path}${url.search}${url.hash}` : undefined;
}

/**
 * Where the shopper may be sent after 3-D Secure: a path on the helper's own
 * origin (`/order/done`), or an absolute URL on that origin or on one of
 * `redirectOrigins`. Anything else would make the helper an open redirect
 * (docs/decisions/helper.md#helper-3ds). Targets on the own origin are answered as
 * paths, URLs on `redirectOrigins` as they are; on either, a path that leaves the site when percent-decoded is refused.
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
    const path = url.origin === ownOrigin ? onSite(url) : undefined;
    if (path) return path;
  } else {
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (url && (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password) {
      if (allowed.includes(url.origin)) {
        if (staysOnSiteDecoded(url.pathname)) return url.href;
      } else {
        const path = url.origin === ownOrigin ? onSite(url) : undefined;
        if (path) return path;
      }
    }
  }
  throw badRequest(
    field,
    `${field} must be a path on this site (e.g. "/order/done") or a URL on an allowed origin`,
    'TESSERA_REDIRECT_NOT_ALLOWED',
  );
}
