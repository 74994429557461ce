import { isLoopbackHost } from '../../shared/url.js';
import { optionError, show } from '../common/options.js';

/**
 * Base URLs of the provider (account-services-api.md "Addresses"; DESIGN.md "base URLs"). Each is a template
 * in which `{prefix}` stands for {@link clientPrefix} of the client id, e.g.
 * `https://{prefix}.api.example.com`. The defaults point at a local sandbox (`npx tessera-pay sandbox`), which
 * serves every API and the access host on one port.
 */

/** Where `npx tessera-pay sandbox` listens by default. */
export const DEFAULT_SANDBOX_URL = 'http://127.0.0.1:4010';

/**
 * An OAuth client id: `cli_` and 8 to 196 letters or digits. Its first 8 after `cli_` are a host-name label (the
 * spec's `{prefix}`), and the whole id fits the 200 characters every credential is held to. The one rule the
 * sandbox, the token source and the helper check (they took 196, 200 and 100 characters after `cli_`, so the helper
 * refused ids the sandbox was started with).
 */
export const CLIENT_ID = /^cli_[A-Za-z0-9]{8,196}$/;

/** The host prefix of the spec: the first eight characters of the client id after the leading `cli_`. */
export function clientPrefix(clientId: string): string {
  return clientId.replace(/^cli_/, '').slice(0, 8);
}

/**
 * Turns a base-URL option into a URL string without a trailing slash. Throws a TypeError naming `option`
 * when it is not a URL, uses `{prefix}` without a client id, has a query or fragment, or is `http://` to
 * a host that is not loopback (DESIGN.md: "clients refuse http:// except to loopback").
 */
export function resolveBaseUrl(factory: string, option: string, template: unknown, clientId?: string): string {
  if (typeof template !== 'string' || template.length === 0) {
    throw optionError(factory, option, show(template), 'must be a URL string such as "https://{prefix}.example.com"');
  }
  let text = template;
  if (text.includes('{prefix}')) {
    if (clientId === undefined) {
      throw optionError(factory, option, show(template), 'uses {prefix}, which needs the `clientId` option');
    }
    text = text.replaceAll('{prefix}', clientPrefix(clientId));
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw optionError(
      factory,
      option,
      show(template),
      'must be an absolute URL such as "https://{prefix}.example.com"',
    );
  }
  if (/[{}]/.test(decodeURI(url.href))) {
    throw optionError(factory, option, show(template), 'may use no placeholder other than {prefix}');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw optionError(factory, option, show(template), 'must be an https:// URL');
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw optionError(
      factory,
      option,
      show(template),
      'must use https:// (plain http:// is only allowed to loopback: 127.0.0.1, ::1, localhost)',
    );
  }
  if (url.username || url.password) {
    throw optionError(factory, option, 'a URL with user info', 'must not carry credentials (pass keys as options)');
  }
  if (url.search || url.hash) {
    throw optionError(factory, option, show(template), 'must not carry a query or a fragment');
  }
  return trimTrailingSlashes(url.href);
}

/**
 * `s` without its trailing slashes, by a scan from the end: `/\/+$/` retries from every slash of a long run and
 * is quadratic in it.
 */
export function trimTrailingSlashes(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 0x2f) end--;
  return s.slice(0, end);
}
