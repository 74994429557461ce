import type { z } from 'zod';
import { SandboxValidationError } from './errors.js';

/** Dotted field path of a zod issue: `products.0.price`. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/**
 * Parses `value` with `schema`, or throws a SandboxValidationError naming every
 * field at fault (status 400 by default, as the legacy API and controls answer;
 * the accounts API passes 422).
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, status = 400): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new SandboxValidationError(
    result.error.issues.map((issue) => {
      const field = issuePath(issue.path) || 'body';
      const code = issue.code === 'invalid_type' && issue.input === undefined ? 'required' : `invalid`;
      return { field, code: `${field.replace(/\.\d+/g, '')}_${code}`, message: `${field}: ${issue.message}` };
    }),
    status,
  );
}
