import type { Request } from 'express';
import type { HelperLogger } from './log.js';
import { requestLog } from './request-log.js';

/**
 * Warns once when Express's `trust proxy` makes `req.ip` (the key of the per-IP limits, of charges and of the
 * dashboard's failed host authentications) unreliable: `true` lets
 * any client choose its IP with `X-Forwarded-For`; off while requests carry `X-Forwarded-For` means a proxy in
 * front whose clients all share its address. See docs/helper.md "Rate limits and trust proxy" and docs/decisions/helper.md#helper-rate-limits.
 */
export function trustProxyCheck(log: HelperLogger): (req: Request) => void {
  let warnedTrue = false;
  let warnedOff = false;
  return (req) => {
    if (warnedTrue && warnedOff) return;
    const setting: unknown = req.app?.get('trust proxy');
    if (setting === true && !warnedTrue) {
      warnedTrue = true;
      requestLog(log, req).warn(
        { event: 'tessera.trust_proxy', trustProxy: true },
        "Express's `trust proxy` is true: every client can choose its own IP with X-Forwarded-For, so the per-IP " +
          'limits (card testing, failed dashboard sign-ins) do not hold. Set it to the number of proxies in front of this server (e.g. 1) or their addresses.',
      );
    } else if (!setting && req.headers['x-forwarded-for'] !== undefined && !warnedOff) {
      warnedOff = true;
      requestLog(log, req).warn(
        { event: 'tessera.trust_proxy', trustProxy: setting ?? false },
        "requests carry X-Forwarded-For but Express's `trust proxy` is off: X-Forwarded-For is ignored (it could be " +
          'forged), so if a proxy is in front of this server all its clients share its IP in the per-IP limits. ' +
          'Set `trust proxy` to the number of proxies you run (e.g. 1) or their addresses; never `true`.',
      );
    }
  };
}
