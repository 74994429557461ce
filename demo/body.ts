import type { NextFunction, Request, Response } from 'express';
import { collectBody, utf8Charset } from '../server/common/body-guard.js';
import { DemoError } from './errors.js';

const MEDIA_TYPES = { form: 'application/x-www-form-urlencoded', json: 'application/json' } as const;

export interface BodyOptions {
  /** Most bytes read; a larger body is 413 at once. */
  readonly limit: number;
  /** Most `name=value` pairs of a form; more are 413. */
  readonly parameterLimit?: number;
}

/**
 * Reads the body of one of the demo's forms (`form`: URL-encoded, repeated names as arrays) or JSON posts into
 * `req.body`. A body of another media type is not read (`req.body` stays undefined, so the route names its missing
 * field). A body larger than `limit` is 413 `DEMO_TOO_LARGE` as soon as that is known, without reading the rest
 * (its declared `Content-Length`, or the first byte past the limit): body-parser read the whole of it first, so a
 * client that declared a gigabyte and sent it slowly got no answer until the request timeout (408). A charset other
 * than UTF-8 or a `Content-Encoding` is 415 `DEMO_UNSUPPORTED_MEDIA_TYPE` naming the header. See
 * docs/decisions/demo.md#demo-bodies.
 */
export function demoBody(kind: keyof typeof MEDIA_TYPES, options: BodyOptions) {
  const { limit, parameterLimit = Number.POSITIVE_INFINITY } = options;
  return (req: Request, res: Response, next: NextFunction) => {
    req.body = undefined;
    const [mediaType = '', ...params] = (req.headers['content-type'] ?? '').split(';');
    if (mediaType.trim().toLowerCase() !== MEDIA_TYPES[kind]) return next();
    if (!utf8Charset(params)) {
      return next(unsupported('content-type', `Send the body as ${MEDIA_TYPES[kind]} in UTF-8.`));
    }
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      return next(unsupported('content-encoding', 'Send the body uncompressed (no Content-Encoding).'));
    }
    collectBody(
      req,
      limit,
      (err, raw) => {
        if (err) {
          return next(
            err.reason === 'too_large'
              ? tooLarge(`The request body is larger than ${limit} bytes.`)
              : new DemoError(400, 'DEMO_MALFORMED', 'The request body could not be read.', 'body'),
          );
        }
        const text = raw!.toString('utf8');
        if (kind === 'json') {
          if (text.trim() === '') return next();
          try {
            req.body = JSON.parse(text);
          } catch {
            return next(new DemoError(400, 'DEMO_MALFORMED', 'The request body is not valid JSON.', 'body'));
          }
          return next();
        }
        const pairs = text === '' ? [] : text.split('&');
        if (pairs.length > parameterLimit) return next(tooLarge(`The form has more than ${parameterLimit} fields.`));
        const body: Record<string, string | string[]> = Object.create(null);
        for (const [name, value] of new URLSearchParams(text)) {
          const seen = body[name];
          body[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
        }
        req.body = body;
        next();
      },
      res,
    );
  };
}

const tooLarge = (message: string) => new DemoError(413, 'DEMO_TOO_LARGE', message, 'body');
const unsupported = (field: string, message: string) =>
  new DemoError(415, 'DEMO_UNSUPPORTED_MEDIA_TYPE', message, field);

/**
 * The first middleware of the demo: a request whose body no route read when its answer starts (a page, a 404 or 405,
 * a refusal, a form of another media type, `POST /checkout`) is answered with `Connection: close`, so Node ends the
 * connection once the answer is out instead of draining the rest of the body: a client that declared a gigabyte made
 * the demo read it all to throw away, for as long as it kept sending (up to the 30 s request timeout). A body read to
 * its end keeps the connection alive. See docs/decisions/demo.md#demo-bodies.
 */
export function closeUnreadBodies(req: Request, res: Response, next: NextFunction): void {
  if (req.headers['transfer-encoding'] === undefined && !(Number(req.headers['content-length']) > 0)) {
    next();
    return;
  }
  // Node has no event before the head is written; `writeHead` is where it is (Express's `send` and `end` call it).
  const writeHead = res.writeHead as (...args: unknown[]) => Response;
  res.writeHead = function (this: Response, ...args: unknown[]) {
    if (!req.complete) {
      this.setHeader('Connection', 'close');
      this.shouldKeepAlive = false;
    }
    return writeHead.apply(this, args);
  } as Response['writeHead'];
  next();
}
