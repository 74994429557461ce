import type { Response } from 'express';
import helmet from 'helmet';
import type { HelperContext } from './context.js';
import { errorBody, HelperHttpError } from './errors.js';
import { logAnswerError } from './request-log.js';

/** What an answer of one helper is checked against: its configured secrets, and its log for the refusal. */
export type AnswerScope = Pick<HelperContext, 'secrets' | 'log'>;

/**
 * The texts an answer is searched for: each secret the log redactor cuts (log.ts `knownSecrets`), and each form the
 * helper's own writers would give it: JSON's escapes (`"`, `\`, control characters), a query value's encoding (the
 * 3-D Secure return's `?chargeId=`) and `encodeURIComponent`'s. A secret of letters, digits, `_` and `-` (every
 * sandbox and sample key) has one form, so one `includes` (docs/decisions/helper.md#helper-secret-guard).
 */
export function answerSecrets(secrets: readonly string[]): string[] {
  const forms = secrets.flatMap((s) => [
    s,
    JSON.stringify(s).slice(1, -1),
    new URLSearchParams({ s }).toString().slice(2),
    encodeURIComponent(s),
  ]);
  return [...new Set(forms)];
}

/**
 * Whether `text`, about to be sent, holds one of the helper's configured secrets whole: one `includes` per secret
 * (docs/decisions/helper.md#helper-secret-guard).
 */
export function holdsSecret(scope: AnswerScope, text: string): boolean {
  for (const secret of scope.secrets) if (text.includes(secret)) return true;
  return false;
}

/**
 * The error answered instead of a `what` (a JSON answer, a `Location`, an error page) that held a configured secret:
 * 502 `TESSERA_PROVIDER_ERROR`, outcome unknown. Only a provider's text (a charge id, a challenge URL, an instrument's
 * label, echoing the `Authorization` header) can put one there, and the helper cannot tell what else of that answer
 * is true. Its cause names what was refused, never the text (docs/decisions/helper.md#helper-secret-guard).
 */
export function secretRefused(what: string): HelperHttpError {
  return new HelperHttpError(
    502,
    'TESSERA_PROVIDER_ERROR',
    'the payment provider answered something this server does not pass on: the outcome is unknown; the shop can look it up',
    { outcomeKnown: false, cause: new Error(`${what} held a configured secret and was not sent`) },
  );
}

/**
 * {@link secretRefused}, for an answer about to be written (not thrown): logged as the error handler logs a 5xx
 * (`tessera.error`, with the request's id), and its code set for the `tessera.request` line.
 */
export function refuseAnswer(scope: AnswerScope, res: Response, what: string): HelperHttpError {
  const refused = secretRefused(what);
  logAnswerError(scope.log, res.req, refused.code, refused);
  res.locals.tesseraErrorCode = refused.code;
  return refused;
}

/**
 * Answers `body` as JSON with `status` and `Cache-Control: no-store`: the answers sent this way (charges, 3-D Secure
 * returns, the dashboard's reads and writes, errors) hold one shopper's or one user's data and a request id of their
 * own, so no cache may keep them (docs/decisions/helper.md#helper-caching). Express's `res.json` would also hash every
 * body into an ETag that, with the request id in the body, never matches twice: that work is skipped.
 * A body that holds one of the helper's configured secrets is not sent: the answer is {@link secretRefused}'s 502,
 * logged as `tessera.error` (docs/decisions/helper.md#helper-secret-guard).
 */
export function sendJson(scope: AnswerScope, res: Response, status: number, body: unknown): void {
  let text = JSON.stringify(body);
  let sent = status;
  if (holdsSecret(scope, text)) {
    const refused = refuseAnswer(scope, res, `a ${status} JSON answer`);
    sent = refused.status;
    text = JSON.stringify(errorBody(refused, res.locals.tesseraRequestId as string));
  }
  res.statusCode = sent;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(text);
}

/** helmet's headers for the helper's own responses: nothing they serve should load or frame anything. */
export interface SecurityHeaders {
  readonly set: readonly (readonly [string, string])[];
  readonly remove: readonly string[];
}

/**
 * Runs helmet once, at creation, and keeps what it sets: with a fixed policy (no per-request directive) its
 * middlewares only set constant headers and remove `X-Powered-By`, so copying the result to each response is the
 * same as running helmet's chain of fourteen middlewares per request.
 */
export function securityHeaders(): SecurityHeaders {
  const set: [string, string][] = [];
  const remove: string[] = [];
  const recorder = {
    setHeader: (name: string, value: unknown) => set.push([name, String(value)]),
    removeHeader: (name: string) => remove.push(name),
  };
  let error: unknown = new Error('helmet did not finish');
  helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  })({} as never, recorder as never, (err?: unknown) => {
    error = err;
  });
  if (error) throw error;
  return { set, remove };
}
