import type { z } from 'zod';
import { fieldSegment } from '../common/field-path.js';
import { fixOf } from '../common/options.js';
import { badRequest } from './errors.js';

/** The value at `path` inside `value` (zod 4 does not report the input of an issue by default). */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path) {
    if (!at || typeof at !== 'object' || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/**
 * Parses `value` with `schema`, turning the first issue into a 400 that names
 * the field (`billingDetails.city`), or the unknown key for a strict schema
 * (escaped and cut by `fieldSegment`: the key is the sender's).
 */
export function parseBody<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  // Keys come from the request: shown escaped and cut (no control or bidi character reaches the answer).
  const path = issue.path.map((key) => fieldSegment(String(key)));
  if (issue.code === 'unrecognized_keys') {
    const field = [...path, fieldSegment(issue.keys[0]!)].join('.');
    throw badRequest(field, `${field} is not accepted here`);
  }
  const field = path.join('.') || 'body';
  const message =
    issue.code === 'invalid_type' && valueAt(value, issue.path) === undefined ? 'is required' : fixOf(issue);
  // A rule across fields says it whole ("email or customerId is required"); the others are said of their field.
  throw badRequest(field, message.startsWith(`${field} `) ? message : `${field} ${message}`);
}
