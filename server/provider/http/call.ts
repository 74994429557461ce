import { randomUUID } from 'node:crypto';
import { maskObjectTokens } from '../log.js';

/** Per-call options every operation takes. */
export interface CallOptions {
  /** Aborts the call (and any retry wait); the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** Per-call options of writes that may carry an idempotency key. */
export interface WriteOptions extends CallOptions {
  /**
   * Sent in the idempotency header (default `Idempotency-Key`) and reused by every retry of this call, which
   * makes the write safe to retry. Charges generate one when none is given.
   */
  readonly idempotencyKey?: string;
}

const ID = /^[A-Za-z0-9_-]{1,128}$/;
const KEY = /^[\x21-\x7e]{1,255}$/;

/** Checks an id used in a path (no `/`, no `..`: it cannot move the request elsewhere; docs/decisions/provider.md#client-validation). */
export function pathId(operation: string, name: string, value: unknown): string {
  if (typeof value !== 'string' || !ID.test(value)) {
    throw new TypeError(
      `${operation}: \`${name}\` must be an id of letters, digits, _ and -; got ${maskObjectTokens(JSON.stringify(value) ?? String(value))}`,
    );
  }
  return value;
}

/** The caller's idempotency key, checked, or a new random one when `generate` is set. */
export function idempotencyKeyOf(
  operation: string,
  options: WriteOptions | undefined,
  generate: boolean,
): string | undefined {
  const key = options?.idempotencyKey;
  if (key === undefined) return generate ? randomUUID() : undefined;
  if (typeof key !== 'string' || !KEY.test(key)) {
    throw new TypeError(
      `${operation}: \`idempotencyKey\` must be 1 to 255 visible ASCII characters (a UUID is ideal); got ${JSON.stringify(key)}`,
    );
  }
  return key;
}

/** Checks the per-call options object. */
export function checkCall(operation: string, options: unknown): void {
  if (options === undefined) return;
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`${operation}: options must be an object; got ${JSON.stringify(options)}`);
  }
  const signal = (options as CallOptions).signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError(`${operation}: \`signal\` must be an AbortSignal`);
  }
}

/** Checks that a request body is a plain object before it is encoded. */
export function checkBody(operation: string, body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new TypeError(
      `${operation}: the request body must be an object; got ${body === null ? 'null' : Array.isArray(body) ? 'an array' : typeof body}`,
    );
  }
  return body as Record<string, unknown>;
}

/** JSON decoder for APIs that answer JSON only. */
export function decodeJson(text: string): unknown {
  return JSON.parse(text);
}
