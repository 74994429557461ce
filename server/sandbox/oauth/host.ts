import { isIP } from 'node:net';
import { hostName } from '../../common/host-name.js';
import { clientPrefix } from '../../provider/urls.js';
import type { SandboxContext } from '../core/context.js';
import { SandboxError } from '../core/errors.js';
import type { NextFunction, Request, Response } from '../core/http.js';

export { hostName };

/**
 * The spec's host prefix rule (Addresses: the host name starts with the first
 * eight characters of the client id after `cli_`). Reached by a host name, the
 * first label must equal that prefix, else 421 Misdirected Request; reached by
 * an IP address or `localhost` any request is accepted.
 * See docs/decisions/sandbox.md#host-prefix.
 */
export function hostPrefixRule(ctx: SandboxContext) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const name = hostName(req.headers.host ?? '');
    if (name === '' || name === 'localhost' || isIP(name) !== 0) return next();
    const prefix = clientPrefix(ctx.credentials.clientId).toLowerCase();
    if (name.split('.')[0] === prefix) return next();
    next(
      new SandboxError(
        421,
        'host_prefix_mismatch',
        `this account's hosts start with ${JSON.stringify(prefix)}, not ${JSON.stringify(name.split('.')[0])}`,
        { field: 'Host' },
      ),
    );
  };
}
