/**
 * The one secure-URL rule, for the widget and the server alike. Card data and keys must never travel in
 * clear text, so plain `http:` is allowed only to this machine (the local sandbox): 127.0.0.0/8, ::1 or
 * `localhost` (DESIGN.md "HTTPS": clients refuse `http://` except to loopback).
 */

/** Whether `host` (a hostname, bracketed or not for IPv6, any case) is a loopback host. */
export function isLoopbackHost(host: string): boolean {
  return /^(localhost|::1|\[::1]|127(\.\d{1,3}){3})$/i.test(host);
}

/**
 * `url` resolved against `base` when it is `https:`, or `http:` to a loopback host;
 * undefined for anything else (other schemes, plain HTTP to the network, unparsable input).
 */
export function secureUrl(url: string, base?: string): URL | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url, base);
  } catch {
    return undefined;
  }
  const { protocol, hostname } = parsed;
  return protocol === 'https:' || (protocol === 'http:' && isLoopbackHost(hostname)) ? parsed : undefined;
}
