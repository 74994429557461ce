/**
 * The only URLs the widget talks to are the token URL, the config URL and its own locale
 * files. Card data must never travel in clear text, so plain `http:` is refused unless the
 * host is this machine (the local sandbox): 127.0.0.0/8, ::1 or `localhost`
 * (DESIGN.md "HTTPS": clients refuse `http://` except to loopback).
 */

/** Whether `hostname` (as `URL#hostname` spells it) is a loopback host. */
export function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * `url` resolved against `base` when it is `https:`, or `http:` to a loopback host;
 * undefined for anything else (other schemes, plain HTTP to the network, unparsable input).
 */
export function secureUrl(url: string, base: string): URL | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url, base);
  } catch {
    return undefined;
  }
  const { protocol, hostname } = parsed;
  return protocol === 'https:' || (protocol === 'http:' && isLoopback(hostname)) ? parsed : undefined;
}
