import { isAnyArrayBuffer, isPromise } from 'node:util/types';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import {
  type BodyReadError,
  collectBody,
  findShapeProblem,
  otherTransferCoding,
  utf8Charset,
} from '../common/body-guard.js';
import { findSecurityCode, jsonHoldsSecurityCode } from '../common/card-fields.js';
import { fieldKeys } from '../common/field-path.js';
import { findDuplicateKey } from '../common/json-text.js';
import { setField } from '../common/own-field.js';
import { HelperHttpError } from './errors.js';
import type { HelperLogger } from './log.js';
import {
  containsPan,
  findPan,
  jsonMayHoldPan,
  jsonNumbersHoldPan,
  jsonStringsHoldPan,
  MAX_DEPTH,
} from './pan-guard.js';
import { requestLog } from './request-log.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The answer to any body or query that carries something shaped like a card number. */
export function cardDataRefused(field: string): HelperHttpError {
  return new HelperHttpError(400, 'TESSERA_CARD_DATA_REFUSED', 'card data must not be sent to this server', {
    field: keyPath(field),
  });
}

/**
 * A body error's `field` that names a path of the sender's keys: `body` when the keys, each harmless alone, spell a
 * card number once joined by `.` (`4242.4242.4242.4242`, a card layout the guard refuses in a body), which no answer
 * echoes (docs/decisions/helper.md#helper-duplicate-keys). The keys are judged as they were sent too, not only as
 * written: `4242\u00204242` twice (the text of an escape, which the guard reads as a space) is written
 * `4242\u005Cu00204242.4242\u005Cu00204242`, which spells nothing, and gave the card number back.
 */
function keyPath(path: string): string {
  return containsPan(path) || containsPan(fieldKeys(path)) ? 'body' : path;
}

function checkShape(value: unknown): void {
  const problem = findShapeProblem(value, MAX_DEPTH);
  if (problem) {
    const code = problem.kind === 'too_deep' ? 'TESSERA_BODY_TOO_DEEP' : 'TESSERA_FORBIDDEN_KEY';
    throw new HelperHttpError(400, code, problem.message, { field: keyPath(problem.field) });
  }
  // A security code cannot be told by its value, only by its name (docs/decisions/helper.md#helper-pan-guard).
  const securityCode = findSecurityCode(value);
  if (securityCode !== undefined) throw cardDataRefused(securityCode);
}

function readError(e: BodyReadError): HelperHttpError {
  return e.reason === 'too_large'
    ? new HelperHttpError(413, 'TESSERA_BODY_TOO_LARGE', e.message, { field: 'body' })
    : new HelperHttpError(400, 'TESSERA_BODY_UNREADABLE', 'the body could not be read', { field: 'body' });
}

/**
 * Parses a JSON object body into `req.body`, refusing everything else before
 * any route sees it: another Content-Type (415), more than `limit` bytes (413),
 * malformed JSON, invalid UTF-8, a non-object, `__proto__`-style keys, deep
 * nesting, and anything that looks like a card number anywhere in the body, or a
 * key named like a security code (`cvv`, `securityCode`) with a value (400
 * `card data must not be sent to this server`), then a key given twice in one
 * object (400 `TESSERA_BODY_DUPLICATE_KEY`; only in text it reads itself, not
 * behind an app-wide `express.json()`). The body is never logged.
 * An empty body is `{}`. See docs/decisions/helper.md#helper-body.
 */
export function jsonBody(limit: number, log: HelperLogger): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    // A body parser the app mounted before the helper (express.json()) has read the stream already:
    // check what it parsed instead of waiting for a stream that has ended. Its media type is held to the same rule:
    // an app-wide express.urlencoded() or express.text() would otherwise let a cross-site form, which needs no CORS
    // preflight, post a charge from a shopper's browser (docs/decisions/helper.md#helper-body).
    if (req.readableEnded || (req as { _body?: boolean })._body) {
      try {
        const sent = hasBody(req);
        if (sent) {
          checkMediaType(req);
          checkEncoding(req);
          checkLength(req, limit);
        }
        const parsed = parsedBody(req, log);
        // `express.raw()` or `express.text()` (an app-wide one, or one typed `application/json` for webhook
        // signatures) left the bytes or the text: they are read here as the helper reads a body itself.
        const raw = readContents(log, req, () => bytesOf(parsed));
        if (raw) {
          if (raw.length > limit) throw tooLarge(limit);
          keepBody(req, parseJson(req, raw));
        } else if (parsed === undefined || (parsed === null && !sent)) {
          // No body, whatever the parser left for it: `{}`, as when read here.
          keepBody(req, {});
        } else {
          // What was checked is what the route reads: a copy, each property read once (a getter's, a Proxy's), so one
          // that throws on a second read, or answers another value, cannot reach the route (it was 500
          // TESSERA_INTERNAL, or a value no check had seen). A chunked body has no Content-Length, and a parser's own
          // limit is often far above bodyLimitBytes: the copy stops, 413, once it is larger.
          const copy = readContents(log, req, () => plainCopy(parsed, limit));
          // A `null` that was sent (`express.json({ strict: false })`) is a body that is no object, as when read here.
          checkParsed(copy);
          keepBody(req, copy);
        }
      } catch (err) {
        return next(err);
      }
      return next();
    }
    collectBody(
      req,
      limit,
      (err, raw) => {
        if (err) return next(readError(err));
        try {
          keepBody(req, parseJson(req, raw!));
        } catch (error) {
          return next(error);
        }
        next();
      },
      res,
    );
  };
}

/** The body each request's {@link jsonBody} checked, for the helper's routes: see {@link keepBody}. */
const checked = new WeakMap<Request, unknown>();

/**
 * The body {@link jsonBody} parsed and checked for this request: what the helper's routes read, never `req.body`
 * itself, which a merchant's setup may not let the helper replace (docs/decisions/helper.md#helper-body-kept).
 */
export function checkedBody(req: Request): unknown {
  return checked.get(req);
}

/**
 * Keeps the checked body for the routes ({@link checkedBody}) and puts it in `req.body`, where the merchant's hooks
 * read it. A bridge may have left `req.body` a getter with no setter (a read-only body): the assignment throws, or is
 * ignored, so the body becomes the request's own property instead. A `body` that cannot be redefined (an own
 * property that is not configurable) is left as the bridge made it: the routes read the checked body either way
 * (docs/decisions/helper.md#helper-body-kept).
 */
function keepBody(req: Request, value: unknown): void {
  checked.set(req, value);
  try {
    req.body = value;
    if (req.body === value) return;
  } catch {
    // Read-only, or a getter that throws when read again: defined below.
  }
  try {
    Object.defineProperty(req, 'body', { value, writable: true, configurable: true, enumerable: true });
  } catch {
    // Not configurable: left as it is.
  }
}

/**
 * Runs `read` over what another parser left in `req.body`: what it throws, other than the helper's own answers (413),
 * is a body that cannot be read, as a getter's throw is: a Proxy's trap (getPrototypeOf, ownKeys,
 * getOwnPropertyDescriptor, get) or a property's getter, anywhere in it (docs/decisions/helper.md#helper-body).
 */
function readContents<T>(log: HelperLogger, req: Request, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof HelperHttpError) throw err;
    requestLog(log, req).warn(
      { event: 'tessera.body.unreadable', reason: 'contents', cause: err },
      'reading what req.body holds threw (a Proxy trap or a getter): answered 400',
    );
    throw unreadable();
  }
}

/**
 * What another parser left in `req.body`. A getter that throws (a bridge that parses on first read, and throws on
 * bytes it cannot parse) means the body cannot be read: 400 naming `body`, as for a body the helper cannot read
 * itself, since the bytes are the sender's; the merchant's log gets what was thrown (docs/decisions/helper.md#helper-body).
 * So does a Promise (or any thenable: a bridge that parses asynchronously): the helper reads bodies synchronously, and
 * as an object with no fields it was answered "cardToken is required", a field the sender had sent. A rejected one
 * is handled here, so it is no unhandled rejection.
 */
function parsedBody(req: Request, log: HelperLogger): unknown {
  let body: unknown;
  try {
    body = req.body;
  } catch (err) {
    requestLog(log, req).warn(
      { event: 'tessera.body.unreadable', reason: 'threw', cause: err },
      'req.body threw when read: answered 400',
    );
    throw unreadable();
  }
  const then = readContents(log, req, () => thenOf(body));
  if (then !== undefined) {
    ignoreSettlement(body, then);
    requestLog(log, req).warn(
      { event: 'tessera.body.unreadable', reason: 'promise' },
      'req.body is a Promise: a bridge that parses bodies asynchronously must resolve it before the helper; answered 400',
    );
    throw unreadable();
  }
  return body;
}

const unreadable = () =>
  new HelperHttpError(400, 'TESSERA_BODY_UNREADABLE', 'the body could not be read', { field: 'body' });

const ignore = () => {};

/** A thenable's `then`, called with the value as `this`. */
type Then = (this: unknown, ...args: unknown[]) => unknown;

/**
 * The `then` of a Promise (of any realm: Promise.prototype's own, never an own `then` put on it) or of another thenable
 * (an object or function with a `then` method, read once), or `undefined` for a value that is neither.
 */
function thenOf(value: unknown): Then | undefined {
  if (isPromise(value)) return Promise.prototype.then as Then;
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return undefined;
  // A `then` that throws when read (a Proxy, a getter) throws to readContents.
  const then = (value as { then?: unknown }).then;
  return typeof then === 'function' ? (then as Then) : undefined;
}

/**
 * Subscribes to a body that will settle later, as `await` would, without waiting for it: a rejection (the bridge
 * failed to parse bytes the sender chose) is then handled, never an unhandled rejection that stops the process under
 * Node's default `--unhandled-rejections=throw`. A Promise of another realm and a thenable over the bridge's own
 * Promise are handled so too; a `then` that throws is ignored, and one that never settles holds nothing of the request.
 */
function ignoreSettlement(body: unknown, then: Then): void {
  try {
    then.call(body, ignore, ignore);
  } catch {
    // A hostile `then`, or a Promise whose `constructor` throws: nothing to handle.
  }
}

/**
 * The bytes of a body another parser left unparsed: a `Buffer` (`express.raw()`), the text (`express.text()`, as
 * UTF-8), or a `Uint8Array`, another typed array or an `ArrayBuffer` (what a bridge from a fetch-style framework
 * leaves); undefined for anything else.
 */
function bytesOf(parsed: unknown): Buffer | undefined {
  if (typeof parsed === 'string') return Buffer.from(parsed);
  if (Buffer.isBuffer(parsed)) return parsed;
  if (ArrayBuffer.isView(parsed)) return Buffer.from(parsed.buffer, parsed.byteOffset, parsed.byteLength);
  if (isAnyArrayBuffer(parsed)) return Buffer.from(parsed);
  return undefined;
}

/**
 * A copy of what another parser left in `req.body`, of plain objects and arrays, each property read once (the checks
 * and the route read the copy; a trap or getter that throws throws here). Throws 413 once the JSON text of the copy
 * passes `limit`, by a count that is never more than the fewest bytes its JSON text can have (a string is at least its
 * UTF-16 length and two quotes, a number one digit): a body another parser read without a declared length (chunked)
 * is held to `limit` as one read here is, and the copy stops as soon as the count passes it, so its cost is bounded by
 * `limit` too, whatever the parsed value is (an object that shares sub-objects, as a bridge's parser may make, is
 * counted and copied once per place it appears). A value nested past {@link MAX_DEPTH} is not read: `null` stands in
 * its place, which checkShape refuses by its depth as it would the value.
 */
function plainCopy(value: unknown, limit: number): unknown {
  let size = 0;
  const copy = (v: unknown, depth: number): unknown => {
    let out = v;
    if (typeof v === 'string') size += v.length + 2;
    else if (typeof v === 'boolean') size += v ? 4 : 5;
    else if (v === null || typeof v === 'number' || typeof v === 'bigint') size += v === null ? 4 : 1;
    else if (typeof v === 'object') {
      if (depth > MAX_DEPTH) return null;
      size += 2;
      if (Array.isArray(v)) {
        const list: unknown[] = [];
        // Read once, as every other property: a Proxy's or getter's `length` could answer each read differently.
        const length = Number(v.length);
        for (let i = 0; i < length && size <= limit; i++) {
          if (i > 0) size++;
          list.push(copy(v[i], depth + 1));
        }
        out = list;
      } else {
        const object: Record<string, unknown> = {};
        let first = true;
        for (const key of Object.keys(v)) {
          size += key.length + (first ? 3 : 4);
          first = false;
          if (size > limit) break;
          const item = copy((v as Record<string, unknown>)[key], depth + 1);
          // An own `__proto__` key (JSON.parse makes one) stays a key, for checkShape to refuse, not a prototype.
          setField(object, key, item);
        }
        out = object;
      }
    }
    if (size > limit) throw tooLarge(limit);
    return out;
  };
  return copy(value, 0);
}

/** What another parser left in `req.body`, held to the same rules. */
function checkParsed(parsed: unknown): void {
  // Its JSON text is gone: a number JSON.parse rounded (a card number of 17–19 digits) is told by its leading digits.
  const panField = findPan(parsed, { rounded: true });
  if (panField !== undefined) throw cardDataRefused(panField || 'body');
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new HelperHttpError(400, 'TESSERA_BODY_NOT_OBJECT', 'the body must be a JSON object', { field: 'body' });
  }
  checkShape(parsed);
}

/** Whether the request carried a body (RFC 9112 §6.3: a length above zero, or a transfer coding). */
function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * A body another parser read is held to `limit` by its declared `Content-Length`, before it is scanned: the reading
 * is paid for, the scan and the checks need not be. A chunked body has no declared length: what was parsed of it is
 * measured instead ({@link plainCopy}).
 */
function checkLength(req: Request, limit: number): void {
  const length = Number(req.headers['content-length']);
  if (length > limit) throw tooLarge(limit);
}

const tooLarge = (limit: number) =>
  new HelperHttpError(413, 'TESSERA_BODY_TOO_LARGE', `the body is larger than ${limit} bytes`, { field: 'body' });

/** A body must be `application/json`, in UTF-8 if a charset is named; else 415. */
function checkMediaType(req: Request): void {
  const [mediaType = '', ...params] = (req.headers['content-type'] ?? '').split(';');
  if (mediaType.trim().toLowerCase() !== 'application/json' || !utf8Charset(params)) {
    throw new HelperHttpError(415, 'TESSERA_UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json in UTF-8', {
      field: 'content-type',
    });
  }
}

/**
 * A compressed body (`Content-Encoding: gzip`, …) is not read: 415 naming the header. Unpacking it would let a small
 * request make a large body, and a browser's `fetch` never compresses what it sends (RFC 9110 §8.4, §15.5.16).
 * Nor is a body with a transfer coding other than `chunked` (`Transfer-Encoding: gzip, chunked`): Node undoes only
 * `chunked` and hands on the rest still compressed, which would be refused as malformed UTF-8 or JSON, naming the
 * wrong problem (docs/decisions/helper.md#helper-body).
 */
function checkEncoding(req: Request): void {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    throw compressed('content-encoding', 'send the body uncompressed (no Content-Encoding)');
  }
  if (otherTransferCoding(req.headers['transfer-encoding'])) {
    throw compressed('transfer-encoding', 'send the body uncompressed (no Transfer-Encoding but chunked)');
  }
}

const compressed = (field: string, message: string) =>
  new HelperHttpError(415, 'TESSERA_UNSUPPORTED_MEDIA_TYPE', message, { field });

/** The body read in full, parsed and checked as {@link jsonBody} describes. */
function parseJson(req: Request, raw: Buffer): unknown {
  if (raw.length === 0) return {};
  checkMediaType(req);
  checkEncoding(req);
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new HelperHttpError(400, 'TESSERA_BODY_ENCODING', 'the body is not valid UTF-8', { field: 'body' });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Even a malformed body must not reach a log or an echo when it carries a card number.
    if (containsPan(text)) throw cardDataRefused('body');
    throw new HelperHttpError(400, 'TESSERA_BODY_MALFORMED', 'the body is not valid JSON', { field: 'body' });
  }
  if (jsonMayHoldPan(text)) {
    // Read as a body parsed behind an app-wide parser is read (the same answer, field and all, for the same bytes): a
    // number past 2^53 that starts like a brand of its length is refused even when its text is no card number, as a
    // browser's JSON.stringify writes a 19-digit card number rounded (4329363667431089800 as 4329363667431089700) and
    // a client may send one in exponent form (4.3293636674310898e18). The raw numbers catch the exact digits of a card
    // number anywhere in the text, and the raw strings one in a value a later duplicate key overwrote (the parsed body
    // no longer holds it); anything past MAX_DEPTH is refused by checkShape.
    const panField = findPan(parsed, { rounded: true });
    if (panField !== undefined || jsonNumbersHoldPan(text) || jsonStringsHoldPan(text)) {
      throw cardDataRefused(panField || 'body');
    }
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new HelperHttpError(400, 'TESSERA_BODY_NOT_OBJECT', 'the body must be a JSON object', { field: 'body' });
  }
  checkShape(parsed);
  // A code in the value of a key that comes again later in its object, blank there (`{"cvv":"123","cvv":""}`), is in
  // the text but not in the parsed body checkShape read.
  if (jsonHoldsSecurityCode(text)) throw cardDataRefused('body');
  // Last, so a duplicate whose overwritten value holds card data is refused as card data, never named: `JSON.parse`
  // keeps a repeated key's last value, a WAF or a middleware may read its first (docs/decisions/helper.md#helper-duplicate-keys).
  const duplicate = findDuplicateKey(text);
  if (duplicate !== undefined) {
    throw new HelperHttpError(400, 'TESSERA_BODY_DUPLICATE_KEY', 'the body gives a key more than once', {
      field: keyPath(duplicate),
    });
  }
  return parsed;
}
