import { type BodyReadError, collectBody, findShapeProblem } from '../../common/body-guard.js';
import { checkXmlEncoding, decodeXml, UTF8_ENCODING_NAMES, XmlCodecError } from '../../provider/codec/xml.js';
import { SandboxError } from './errors.js';
import type { BodyFormat, NextFunction, Request, RequestHandler, Response } from './exchange.js';

/** Wire formats a route accepts for its request body. */
export type { BodyFormat } from './exchange.js';

/** Default request body limit; larger bodies get 413. */
export const MAX_BODY_BYTES = 64 * 1024;
/** Deepest nesting accepted in a JSON or form body. */
export const MAX_BODY_DEPTH = 32;

const utf8 = new TextDecoder('utf-8', { fatal: true });

function mediaType(req: Request): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** The `charset` parameter of the Content-Type, lower case and unquoted; undefined when absent. */
function charsetOf(req: Request): string | undefined {
  const m = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(req.headers['content-type'] ?? '');
  return m ? m[2]!.toLowerCase() : undefined;
}

function formatOf(type: string): BodyFormat | undefined {
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml')) return 'xml';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  return undefined;
}

/** Rejects prototype-polluting keys and absurd nesting anywhere in a parsed body. */
export function checkShape(value: unknown): void {
  const problem = findShapeProblem(value, MAX_BODY_DEPTH);
  if (!problem) return;
  const code = problem.kind === 'too_deep' ? 'body_too_deep' : 'forbidden_key';
  throw new SandboxError(400, code, problem.message, { field: problem.field });
}

function readError(e: BodyReadError): SandboxError {
  return e.reason === 'too_large'
    ? new SandboxError(413, 'body_too_large', e.message, { field: 'body' })
    : new SandboxError(400, 'body_unreadable', e.message);
}

/**
 * Parses the request body in one of `formats` (chosen by Content-Type) into
 * `req.body`: JSON, the legacy XML mapping, or form-encoded. Answers 413 over
 * `limit`, 415 for another Content-Type, a charset other than UTF-8 (in Content-Type, a UTF-16 byte order mark or an
 * XML declaration) or a `Content-Encoding`, 400 for malformed input, invalid
 * UTF-8, a DOCTYPE, `__proto__`-style keys, deep nesting or a form parameter sent twice. An empty body is `{}`.
 */
export function parseBody(formats: readonly BodyFormat[], limit = MAX_BODY_BYTES): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    collectBody(
      req,
      limit,
      (err, raw) => {
        if (err) return next(readError(err));
        let body: unknown;
        try {
          body = parseRaw(formats, req, res, raw!);
        } catch (error) {
          return next(error);
        }
        req.body = body;
        next();
      },
      res,
    );
  };
}

/** Parses a body read in full, as {@link parseBody} describes; throws a SandboxError for what it refuses. */
function parseRaw(formats: readonly BodyFormat[], req: Request, res: Response, raw: Buffer): unknown {
  res.locals.rawBodyBytes = raw.length;
  if (raw.length === 0) return {};
  const type = mediaType(req);
  const format = formatOf(type);
  if (!format || !formats.includes(format)) {
    const allowed = formats.map((f) => (f === 'form' ? 'application/x-www-form-urlencoded' : `application/${f}`));
    throw new SandboxError(415, 'unsupported_media_type', `Content-Type must be ${allowed.join(' or ')}`, {
      field: 'Content-Type',
    });
  }
  // A compressed body is refused, not read as if it were plain (docs/decisions/sandbox.md#body-limits).
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    throw new SandboxError(415, 'content_encoding_unsupported', 'send the body uncompressed (no Content-Encoding)', {
      field: 'Content-Encoding',
    });
  }
  const charset = charsetOf(req);
  // Bodies are read as UTF-8 (ASCII is a subset); a body declared in another charset is refused, not misread.
  if (charset !== undefined && !UTF8_ENCODING_NAMES.has(charset)) {
    throw new SandboxError(415, 'charset_unsupported', `the body must be UTF-8, not ${JSON.stringify(charset)}`, {
      field: 'Content-Type',
    });
  }
  // A UTF-16 or UTF-32 byte order mark (UTF-32LE's starts as UTF-16LE's): the body is in another encoding, not broken
  // UTF-8 (docs/decisions/sandbox.md#xml-encoding).
  const bom = byteOrderMark(raw);
  if (bom) {
    throw new SandboxError(
      415,
      'charset_unsupported',
      `the body starts with a ${bom} byte order mark; it must be UTF-8`,
      {
        field: 'body',
      },
    );
  }
  res.locals.bodyFormat = format;
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    if (format === 'xml') {
      try {
        checkXmlEncoding(raw.toString('latin1'));
      } catch (e) {
        throw xmlError(e);
      }
    }
    throw new SandboxError(400, 'body_encoding', 'the body is not valid UTF-8', { field: 'body' });
  }
  let body: unknown;
  if (format === 'json') {
    try {
      body = JSON.parse(text);
    } catch {
      throw new SandboxError(400, 'body_malformed', 'the body is not valid JSON', { field: 'body' });
    }
  } else if (format === 'xml') {
    try {
      // Text exactly as written: `<value> 1999</value>` is the string " 1999", as in JSON (legacy-xml-coercion).
      body = decodeXml(text, { trim: false });
    } catch (e) {
      throw xmlError(e);
    }
  } else {
    body = parseForm(text);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new SandboxError(400, 'body_not_object', 'the body must be an object', { field: 'body' });
  }
  checkShape(body);
  return body;
}

/** The encoding a UTF-16 or UTF-32 byte order mark at the start of `raw` names, or undefined. */
function byteOrderMark(raw: Buffer): string | undefined {
  if (raw.length >= 4 && raw[0] === 0 && raw[1] === 0 && raw[2] === 0xfe && raw[3] === 0xff) return 'UTF-32';
  if (raw.length >= 2 && ((raw[0] === 0xff && raw[1] === 0xfe) || (raw[0] === 0xfe && raw[1] === 0xff))) {
    return 'UTF-16';
  }
  return undefined;
}

/** The SandboxError for what `decodeXml` refused. */
function xmlError(e: unknown): unknown {
  if (!(e instanceof XmlCodecError)) return e;
  // A declared encoding other than UTF-8 is refused like a `charset` parameter naming it, on the body.
  if (e.code === 'xml_encoding') return new SandboxError(415, 'charset_unsupported', e.message, { field: 'body' });
  // `forbidden_key` names its path as a JSON body's would (`metadata.constructor`); the rest are about the body.
  return new SandboxError(400, e.code, e.message, { field: e.field ?? 'body' });
}

/** A form body; a parameter sent twice is refused (RFC 6749 §3.1). */
function parseForm(text: string): Record<string, string> {
  const params = new URLSearchParams(text);
  // A null-prototype object keeps a `__proto__` field as a plain key, so checkShape refuses it
  // exactly as it does in JSON instead of the assignment being silently dropped.
  const form: Record<string, string> = Object.create(null);
  for (const [k, v] of params) {
    // RFC 6749 §3.1: "Request and response parameters MUST NOT be included more than once."
    if (Object.hasOwn(form, k)) {
      throw new SandboxError(400, 'duplicate_parameter', `the parameter ${JSON.stringify(k)} is sent twice`, {
        field: k,
      });
    }
    form[k] = v;
  }
  return form;
}
