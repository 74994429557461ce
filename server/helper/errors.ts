import { validateHeaderName, validateHeaderValue } from 'node:http';
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
  /** The declined charge of a 402 `TESSERA_CARD_DECLINED` (`charge_…`), with its card's brand and last four digits. */
  readonly id?: string;
  readonly status?: 'Declined';
  readonly approved?: false;
  readonly brand?: string;
  readonly last4?: string;
  /** The issuer's response code of a decline, only with the helper option `exposeDeclineCodes`. */
  readonly responseCode?: string;
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

/**
 * Whether `err` can be answered as it is: a status from 400 to 599 and headers Node can send. A `HelperHttpError`
 * the merchant's hook threw may carry anything; answered as it was, a 200 would tell the page a failed charge
 * went through, and a status or header Node refuses made the error handler itself throw, which Express answered
 * with its own HTML page and, outside production, the stack trace.
 */
export function answerable(err: HelperHttpError<string>): boolean {
  if (!Number.isInteger(err.status) || err.status < 400 || err.status > 599) return false;
  try {
    for (const [name, value] of Object.entries(err.headers)) {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    }
  } catch {
    return false;
  }
  return true;
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
