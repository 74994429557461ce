import type { z } from 'zod';
import { SandboxValidationError } from './errors.js';

/** Dotted field path of a zod issue: `products.0.price`. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/** The value at `path` inside `value` (undefined when any step is missing). */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const key of path) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/**
 * Parses `value` with `schema`, or throws a SandboxValidationError naming every
 * field at fault (status 400 by default, as the legacy API and controls answer;
 * the accounts API passes 422). A field that is absent gets `<field>_required`,
 * any other problem `<field>_invalid` (array indexes left out of the code).
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, status = 400): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const seen = new Set<string>();
  const issues: { field: string; code: string; message: string }[] = [];
  for (const issue of result.error.issues) {
    const field = issuePath(issue.path) || 'body';
    // zod 4 issues do not carry the input by default: look the value up to tell "missing" from "wrong".
    const missing = issue.path.length > 0 && valueAt(value, issue.path) === undefined;
    const message = `${field}: ${issue.message}`;
    if (seen.has(message)) continue;
    seen.add(message);
    issues.push({ field, code: `${field.replace(/\.\d+/g, '')}_${missing ? 'required' : 'invalid'}`, message });
  }
  throw new SandboxValidationError(issues, status);
}
