import type { z } from 'zod';
import { badRequest } from './errors.js';

/**
 * Parses `value` with `schema`, turning the first issue into a 400 that names
 * the field (`billingDetails.city`), or the unknown key for a strict schema.
 */
export function parseBody<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const field = [...path, issue.keys[0]!].join('.');
    throw badRequest(field, `${field} is not accepted here`);
  }
  const field = path.join('.') || 'body';
  const message = issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message;
  throw badRequest(field, `${field} ${message}`);
}
