import { isIP } from 'node:net';
import { z } from 'zod';
import { hostName } from '../../common/host-name.js';
import { SandboxError } from './errors.js';

/**
 * Which `Host` the sandbox controls (`/_sandbox/…`) answer: DNS rebinding. A page at `evil.example` that re-resolves
 * its own name to 127.0.0.1 is same-origin with the sandbox, so the Origin rule (controls.ts) lets it through; but
 * its requests still name `evil.example` (or `tessdemo.evil.example`: the API's prefix rule is no defence) in
 * `Host`. So the controls answer only a name no other site can point at the sandbox: an IP address, `localhost` and
 * `*.localhost` (RFC 6761: always loopback, never asked of DNS), or a name the operator listed in `controlHosts`.
 * Anything else is 421 Misdirected Request, code `control_host_refused`, field `Host`.
 * See docs/decisions/sandbox.md#sandbox-controls.
 */

/** A DNS name is at most 253 characters; a longer `Host` is not repeated whole. */
const MAX_NAME = 253;

/** `localhost` or a name under it (`app.localhost`), no empty label. No regex: the name is the client's text. */
function isLocalhostName(name: string): boolean {
  const labels = name.split('.');
  return labels.at(-1) === 'localhost' && labels.every((label) => label !== '');
}

/** Whether `value` names one host: letters, digits, `-`, `_` in labels of 1 to 63, at most 253 in all; or an IP. */
function isHostNameEntry(value: string): boolean {
  if (isIP(value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value) !== 0) return true;
  if (value.length === 0 || value.length > MAX_NAME) return false;
  // Bounded, anchored, one character class per label: linear (and over an option, not a request).
  return value.split('.').every((label) => /^[A-Za-z0-9_-]{1,63}$/.test(label));
}

/** The host name inside a URL or `name:port` given by mistake, when it is a valid entry. */
function hostInside(value: string): string | undefined {
  try {
    const { hostname } = new URL(value.includes('://') ? value : `http://${value}`);
    return hostname !== value && isHostNameEntry(hostname) ? hostname : undefined;
  } catch {
    return undefined;
  }
}

/** What is wrong with one entry of `controlHosts` (or `--control-host`), as a fix ("must …"); undefined if nothing. */
export function controlHostProblem(value: string): string | undefined {
  if (isHostNameEntry(value)) return undefined;
  if (value.includes('*')) return 'must name one host: wildcards are not supported, list each name';
  const inside = hostInside(value);
  const hint = inside === undefined ? ', such as "sandbox.internal"' : `; did you mean ${JSON.stringify(inside)}?`;
  return `must be a host name without scheme, port or path${hint}`;
}

/** Most names `controlHosts` may list. */
export const MAX_CONTROL_HOSTS = 100;

/** The `controlHosts` option of `startSandbox` and `createSandboxApp` (server/common/options.ts). */
export const controlHostsOption = z
  .array(z.string(), { error: 'must be an array of host names such as ["sandbox.internal"]' })
  .max(MAX_CONTROL_HOSTS, { error: `must list at most ${MAX_CONTROL_HOSTS} host names` })
  .superRefine((names, ctx) => {
    names.forEach((name, i) => {
      const problem = controlHostProblem(name);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', path: [i], message: problem });
    });
  });

/**
 * The rule for `controlHosts`: a function of a request's `Host` that answers the refusal, or undefined to let it
 * through. An empty or absent `Host` (HTTP/1.0 may leave it out; no browser does) names no host to rebind and passes.
 */
export function controlHostRule(
  controlHosts: readonly string[] = [],
): (host: string | undefined) => SandboxError | undefined {
  const allowed: ReadonlySet<string> = new Set(controlHosts.map((h) => hostName(h)));
  return (host) => {
    const name = hostName(host ?? '');
    if (name === '' || isIP(name) !== 0 || isLocalhostName(name) || allowed.has(name)) return undefined;
    const shown = JSON.stringify(name.slice(0, MAX_NAME));
    return new SandboxError(
      421,
      'control_host_refused',
      `the sandbox controls answer only at an IP address, localhost or a name given in controlHosts (tessera-pay sandbox --control-host), not at ${shown}`,
      { field: 'Host' },
    );
  };
}
