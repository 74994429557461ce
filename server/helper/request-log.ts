import type { Request, Response } from 'express';
import type { HelperLogger } from './log.js';

/** What a line written for a request adds: the id of its answer, and the mount path's parameters of a charge. */
interface RequestScope {
  readonly requestId: string;
  readonly mountParams?: Readonly<Record<string, string>>;
}

/**
 * Names the charge's shop in every line of its request (`/shops/:shop/payments`): the bounded copy of the mount path's
 * parameters that `onCharge` sees (records.ts `mountParams`). Set only when there is one, so a helper mounted at a
 * plain path writes nothing more.
 */
export function logMountParams(res: Response, params: Readonly<Record<string, string>>): void {
  for (const _ in params) {
    res.locals.tesseraMountParams = params;
    return;
  }
}

/** The `mountParams` of {@link logMountParams}, or undefined. */
export function loggedMountParams(res: Response): Readonly<Record<string, string>> | undefined {
  return res.locals.tesseraMountParams as Readonly<Record<string, string>> | undefined;
}

/**
 * The helper's logger for a line written on behalf of `req`: each line gets the `requestId` of its answer (the
 * `X-Request-Id` header, the body's `requestId`, the `tessera.request` line) and, for a charge of a helper under a path
 * with parameters, `mountParams` ({@link logMountParams}). Built where a line is written, never per request: the lines
 * are a request's failures, and a charge that succeeds pays nothing (docs/decisions/helper.md#helper-log-request-id).
 * Its fields come last and win over a line's own of the same name. Without `req` (nothing to name), `log` itself.
 */
export function requestLog(log: HelperLogger, req: Request | undefined): HelperLogger {
  const res = req?.res;
  const requestId = res?.locals.tesseraRequestId as string | undefined;
  if (!res || requestId === undefined) return log;
  const mountParams = loggedMountParams(res);
  const scope: RequestScope = mountParams ? { requestId, mountParams } : { requestId };
  const at =
    (level: keyof HelperLogger) =>
    (obj: object, msg?: string): void =>
      log[level]({ ...obj, ...scope }, msg);
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** The `tessera.error` line of a 5xx answered for `req`: its code and the error, cause and all (docs/helper.md "Log events"). */
export function logAnswerError(log: HelperLogger, req: Request | undefined, code: string, err: unknown): void {
  requestLog(log, req).error({ event: 'tessera.error', code, err }, 'tessera helper error');
}
