import type { Request } from 'express';
import { UNREADABLE } from '../common/logged-error.js';
import type { HelperContext } from './context.js';
import { HelperHttpError } from './errors.js';
import { requestLog } from './request-log.js';

/** How long a request waits for one of the merchant's hooks by default (`hookTimeoutMs`). */
export const DEFAULT_HOOK_TIMEOUT_MS = 15_000;

/** What {@link withinHookTime} answers for a hook that has not settled in time. */
export const LATE: unique symbol = Symbol('late');

/** The merchant's hooks a request waits for. */
export type HookName =
  | 'resolveCharge'
  | 'onCharge'
  | 'onChallenge'
  | 'onCardUpdated'
  | 'paymentInstrumentIds'
  | 'hostAuth.isBound';

/**
 * What a merchant's hook answered (`work`, a value or a promise), or {@link LATE} once it has not settled within
 * `hookTimeoutMs`, logged as `tessera.hook.timeout` for `req` with what happens next (`then`). The hook itself runs on
 * (JavaScript cannot stop it); the caller decides what its late result means
 * (docs/decisions/helper.md#helper-hook-timeout). A late rejection is handled here, so it is never an unhandled
 * rejection. A hook that throws at once throws in its caller, before this is called.
 */
export function withinHookTime<T>(
  ctx: HelperContext,
  hook: HookName,
  work: T | PromiseLike<T>,
  then: string,
  req: Request,
): Promise<T | typeof LATE> {
  const timeoutMs = ctx.options.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, LATE);
  });
  const settled = Promise.resolve(work);
  return Promise.race([settled, late]).then(
    (result) => {
      clearTimeout(timer);
      if (result === LATE) {
        settled.catch(() => undefined);
        requestLog(ctx.log, req).error(
          { event: 'tessera.hook.timeout', hook, timeoutMs },
          `${hook} has not settled within ${timeoutMs} ms (hookTimeoutMs): ${then}`,
        );
      }
      return result;
    },
    (err: unknown) => {
      clearTimeout(timer);
      throw err;
    },
  );
}

/** 503 `TESSERA_HOOK_TIMEOUT`: a hook the answer depends on is still running, and nothing was done yet. */
export function hookTimeout(message: string): HelperHttpError {
  return new HelperHttpError(503, 'TESSERA_HOOK_TIMEOUT', message, {
    outcomeKnown: true,
    headers: { 'Retry-After': '2' },
  });
}

/**
 * What a merchant's hook threw, in words for a log line's message: an Error's message, else the value as a string.
 * Reading it may throw (`String()` of an object without a prototype, a getter that throws); the hook's failure must
 * still be answered as one (its 503 or 500 and its log line), never as the helper's own 500. The value itself goes
 * in the line as `cause`, written in the shape of every error (server/common/logged-error.ts).
 */
export function thrownMessage(value: unknown): string {
  try {
    return value instanceof Error ? String(value.message) : String(value);
  } catch {
    return UNREADABLE;
  }
}
