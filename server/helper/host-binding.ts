import type { Request } from 'express';
import type { HelperContext } from './context.js';
import { HelperHttpError } from './errors.js';
import { hookTimeout, LATE, thrownMessage, withinHookTime } from './hooks.js';
import type { HostTokenClaims } from './host-auth.js';
import { requestLog } from './request-log.js';

/**
 * The check of `hostAuth.isBound`, or undefined without one: resolves when the merchant answers `true` for this
 * verified token and this request; throws 401 `TESSERA_HOST_AUTH_UNBOUND` for `false`, 503 for anything else (a throw,
 * an answer that is no boolean, no answer within `hookTimeoutMs`), so a broken or slow check never lets a token
 * through (docs/decisions/helper.md#helper-host-binding).
 */
export function hostBinding(
  ctx: HelperContext,
): ((claims: HostTokenClaims, req: Request) => Promise<void>) | undefined {
  const isBound = ctx.options.hostAuth?.isBound;
  if (!isBound) return undefined;
  const failed = (req: Request, message: string, cause?: unknown): HelperHttpError => {
    requestLog(ctx.log, req).error(
      { event: 'tessera.host_auth.is_bound.failed', ...(cause === undefined ? {} : { cause }) },
      `hostAuth.isBound ${message}`,
    );
    return new HelperHttpError(503, 'TESSERA_HOST_AUTH_UNAVAILABLE', 'the host token cannot be checked right now', {
      outcomeKnown: true,
    });
  };
  return async (claims, req) => {
    let answer: unknown;
    try {
      answer = await withinHookTime(
        ctx,
        'hostAuth.isBound',
        isBound(claims, { req }),
        'the page was answered 503 TESSERA_HOOK_TIMEOUT; its late answer is ignored',
        req,
      );
    } catch (err) {
      throw failed(req, `threw: ${thrownMessage(err)}`, err);
    }
    if (answer === LATE) throw hookTimeout('the host token could not be checked in time; try again');
    if (answer === true) return;
    if (answer === false) {
      throw new HelperHttpError(401, 'TESSERA_HOST_AUTH_UNBOUND', 'the host token does not belong to this session', {
        field: 'authorization',
        headers: { 'WWW-Authenticate': 'Bearer realm="tessera", error="invalid_token"' },
      });
    }
    throw failed(req, `answered ${describe(answer)}, not true or false`);
  };
}

/** A hook's answer in a few words for the log (its type; never its value, which may hold a session id). */
function describe(answer: unknown): string {
  if (answer === null) return 'null';
  if (Array.isArray(answer)) return 'an array';
  return typeof answer === 'object' ? 'an object' : `a ${typeof answer}`;
}
