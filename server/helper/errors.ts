import type { Request } from 'express';
import { TesseraError } from '../provider/errors.js';
import type { HelperErrorCode } from './error-codes.js';

/**
 * An error the helper answers to the browser as it is: a status, a stable
 * `code`, a short message, and the `field` at fault when there is one.
 * Upstream faults also say whether the charge's outcome is known.
 *
 * The helper's own codes are {@link HelperErrorCode} (error-codes.ts); `resolveCharge` and `onCharge` may throw
 * one with a code of your own (`new HelperHttpError(409, 'ORDER_CLOSED', …)`), answered as it is.
 */
export class HelperHttpError<C extends string = HelperErrorCode> extends TesseraError<C> {
  readonly status: number;
  readonly field: string | undefined;
  readonly outcomeKnown: boolean | undefined;
  readonly headers: Readonly<Record<string, string>>;
  /** Extra fields of the answer (e.g. `chargeId`, or the `limit` and `option` of a 429). */
  readonly details: Readonly<Record<string, string>>;

  constructor(
    status: number,
    code: C,
    message: string,
    extra: {
      field?: string;
      outcomeKnown?: boolean;
      headers?: Record<string, string>;
      details?: Record<string, string>;
      cause?: unknown;
    } = {},
  ) {
    super(code, message, { cause: extra.cause });
    this.status = status;
    this.field = extra.field;
    this.outcomeKnown = extra.outcomeKnown;
    this.headers = extra.headers ?? {};
    this.details = extra.details ?? {};
  }
}

/** The JSON body of every error answer: `{ code, message, field?, outcomeKnown?, requestId }`. */
export interface HelperErrorBody {
  /** A {@link HelperErrorCode}, or your own code from a `HelperHttpError` that `resolveCharge` threw. */
  readonly code: HelperErrorCode | (string & {});
  readonly message: string;
  readonly field?: string;
  readonly outcomeKnown?: boolean;
  /** A charge the answer is about (`TESSERA_ON_CHARGE_FAILED`): for the shopper to quote to support. */
  readonly chargeId?: string;
  /** The limit a 429 hit (`declinesPerSession`) and the option that sets it (`rateLimits.declinesPerSession`). */
  readonly limit?: string;
  readonly option?: string;
  readonly requestId: string;
}

export function errorBody(err: HelperHttpError<string>, requestId: string): HelperErrorBody {
  return {
    code: err.code,
    message: err.message,
    ...(err.field === undefined ? {} : { field: err.field }),
    ...(err.outcomeKnown === undefined ? {} : { outcomeKnown: err.outcomeKnown }),
    ...err.details,
    requestId,
  };
}

/** 400 naming the field. */
export function badRequest(
  field: string,
  message: string,
  code: HelperErrorCode = 'TESSERA_INVALID_REQUEST',
): HelperHttpError {
  return new HelperHttpError(400, code, message, { field });
}

/**
 * Renders an error as an HTML page, for routes a browser reaches by navigation (the 3-D Secure return): a route sets
 * one in `res.locals.tesseraErrorPage`, and the helper's error handler answers with it instead of JSON.
 */
export type ErrorPage = (req: Request, err: HelperHttpError<string>, requestId: string) => string;
