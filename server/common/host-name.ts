/**
 * The host name of a Host header, without port or IPv6 brackets, lower case. Shared by the sandbox's host rules and
 * the demo's loopback-only check. `/:\d*$/` is anchored and over digits only: linear (regex worst-case suite).
 */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') === -1 ? undefined : h.indexOf(']'));
  return h.replace(/:\d*$/, '');
}
