/**
 * The host name of a Host header, without port or IPv6 brackets, lower case. Shared by the sandbox's host rules and
 * the demo's loopback-only check. A bracketed host followed by anything but a port (`[::1]evil.example`, `[::1`) is
 * kept whole, so that no rule takes it for the IP literal inside. `/:\d*$/` and `/^:\d*$/` are anchored and over
 * digits only: linear (regex worst-case suite).
 */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    const rest = end === -1 ? undefined : h.slice(end + 1);
    return rest !== undefined && (rest === '' || /^:\d*$/.test(rest)) ? h.slice(1, end) : h;
  }
  return h.replace(/:\d*$/, '');
}
