import type { IncomingMessage } from 'node:http';

/**
 * Request-body safety shared by the Express helper and the sandbox (docs/DECISIONS.md#server-common): a bounded
 * read and a walk for prototype-polluting keys and absurd nesting. Each caller
 * turns the outcome into an error of its own API's shape.
 */

/** Keys that could reach an object's prototype when a parsed body is merged or spread. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** What is wrong with a parsed body's shape, where (`field` is a dotted path), and a message for people. */
export type ShapeProblem =
  | { readonly kind: 'too_deep'; readonly field: string; readonly message: string }
  | { readonly kind: 'forbidden_key'; readonly field: string; readonly key: string; readonly message: string };

/** Finds the first forbidden key or the first place nested deeper than `maxDepth`, if any. */
export function findShapeProblem(value: unknown, maxDepth: number, path = '', depth = 0): ShapeProblem | undefined {
  if (depth > maxDepth) {
    return { kind: 'too_deep', field: path || 'body', message: `the body is nested deeper than ${maxDepth} levels` };
  }
  if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      const field = path ? `${path}.${key}` : key;
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

/**
 * Reads a request body of at most `limit` bytes. A larger body (declared by
 * `Content-Length` or found while streaming) rejects with `too_large` at once;
 * the rest is drained, not buffered, so the connection can answer. A stream
 * error rejects with `unreadable`.
 */
export function readBounded(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => new BodyReadError('too_large', `the body is larger than ${limit} bytes`);
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', (e) => reject(new BodyReadError('unreadable', `the body could not be read: ${e.message}`)));
  });
}
