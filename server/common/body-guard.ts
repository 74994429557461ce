import type { IncomingMessage, ServerResponse } from 'node:http';
import { fieldPath } from './field-path.js';

/**
 * Request-body safety shared by the Express helper and the sandbox (docs/decisions/tooling.md#server-common): a bounded
 * read and a walk for prototype-polluting keys and absurd nesting. Each caller
 * turns the outcome into an error of its own API's shape.
 */

/**
 * Whether a `Transfer-Encoding` names a coding other than `chunked` (`gzip, chunked`). Node undoes only `chunked` and
 * hands the rest on still encoded, as if it were the body (RFC 9112 §6.1); the sandbox and demo answer 501, the
 * helper 415 naming the header.
 */
export function otherTransferCoding(transferEncoding: string | undefined): boolean {
  return transferEncoding?.split(',').some((coding) => coding.trim().toLowerCase() !== 'chunked') ?? false;
}

/**
 * Whether a `Content-Type`'s parameters (what follows the media type, split at `;`) name no charset or UTF-8. JSON is
 * UTF-8 (RFC 8259 §8.1), and so are the forms of a UTF-8 page: a `charset` parameter may only say so.
 */
export function utf8Charset(params: readonly string[]): boolean {
  for (const param of params) {
    const [name = '', value = ''] = param.split('=');
    if (name.trim().toLowerCase() !== 'charset') continue;
    if (!/^"?utf-?8"?$/i.test(value.trim())) return false;
  }
  return true;
}

/** Keys that could reach an object's prototype when a parsed body is merged or spread. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** What is wrong with a parsed body's shape, where (`field` is a dotted path), and a message for people. */
export type ShapeProblem =
  | { readonly kind: 'too_deep'; readonly field: string; readonly message: string }
  | { readonly kind: 'forbidden_key'; readonly field: string; readonly key: string; readonly message: string };

/**
 * Finds the first forbidden key or the first place nested deeper than `maxDepth`, if any. Keys on the way are
 * written into `field` with {@link fieldPath} (no control or bidirectional character as sent, long keys cut).
 */
export function findShapeProblem(value: unknown, maxDepth: number, path = '', depth = 0): ShapeProblem | undefined {
  if (depth > maxDepth) {
    return { kind: 'too_deep', field: path || 'body', message: `the body is nested deeper than ${maxDepth} levels` };
  }
  if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      const field = fieldPath(path, key);
      if (FORBIDDEN_KEYS.has(key)) {
        return { kind: 'forbidden_key', field, key, message: `the key ${JSON.stringify(key)} is not allowed` };
      }
      const problem = findShapeProblem(v, maxDepth, field, depth + 1);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** Why a bounded read gave up. */
export class BodyReadError extends Error {
  readonly reason: 'too_large' | 'unreadable';
  constructor(reason: BodyReadError['reason'], message: string) {
    super(message);
    this.name = 'BodyReadError';
    this.reason = reason;
  }
}

const EMPTY = Buffer.alloc(0);

/**
 * Reads a request body of at most `limit` bytes and calls `done` once: with the body, or with a BodyReadError.
 * A larger body (declared by `Content-Length` or found while streaming) fails with `too_large` at once. With `res`
 * (every server of ours passes it), the rest of that body is not read: the stream is paused, the answer carries
 * `Connection: close` and Node closes the socket once the answer is flushed, so a client cannot make the server
 * read megabytes after the 413 (docs/decisions/sandbox.md#server-timeouts). Without `res` the rest is drained. A stream
 * error fails with `unreadable`. Callback-based, not a promise: it runs on every POST of the sandbox's and the
 * helper's hot paths.
 */
export function collectBody(
  req: IncomingMessage,
  limit: number,
  done: (err: BodyReadError | null, body?: Buffer) => void,
  res?: ServerResponse,
): void {
  const tooLarge = () => {
    stopReading(req, res);
    return new BodyReadError('too_large', `the body is larger than ${limit} bytes`);
  };
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    done(tooLarge());
    return;
  }
  let first: Buffer | undefined;
  let chunks: Buffer[] | undefined;
  let size = 0;
  let finished = false;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      req.off('data', onData);
      finished = true;
      done(tooLarge());
      return;
    }
    // Most bodies arrive in one chunk: no array and no copy for them.
    if (first === undefined) first = chunk;
    else if (chunks === undefined) chunks = [first, chunk];
    else chunks.push(chunk);
  };
  req.on('data', onData);
  req.once('end', () => {
    if (finished) return;
    finished = true;
    done(null, chunks ? Buffer.concat(chunks, size) : (first ?? EMPTY));
  });
  req.once('error', (e) => {
    if (finished) return;
    finished = true;
    done(new BodyReadError('unreadable', `the body could not be read: ${e.message}`));
  });
}

/**
 * Gives up on the rest of a request body. With the response at hand: pause the stream (the socket stops being
 * read once its buffer is full), mark the answer `Connection: close` so Node ends the socket after flushing it,
 * and destroy the socket when the answer is done, before Node's own clean-up could resume and drain the body.
 */
function stopReading(req: IncomingMessage, res: ServerResponse | undefined): void {
  if (!res) {
    req.resume();
    return;
  }
  req.pause();
  if (!res.headersSent) res.setHeader('Connection', 'close');
  res.shouldKeepAlive = false;
  const socket = req.socket;
  res.once('finish', () => {
    // Half-close first so the answer is sent in full, then drop the connection: nothing more is read.
    socket.end();
    setImmediate(() => socket.destroy());
  });
  res.once('close', () => socket.destroy());
}
