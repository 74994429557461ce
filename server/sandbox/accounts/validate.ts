import type { z } from 'zod';
import { SandboxValidationError } from '../core/errors.js';

type Issue = z.core.$ZodIssue;

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const key of path) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** `<dotted field>_<problem>` without array indexes: `individual.first_name_required`, `profile.mccs_invalid`. */
export function issueCode(
  issue: Issue,
  input: unknown,
  prefix: readonly PropertyKey[] = [],
): { field: string; code: string } {
  const path = [...prefix, ...issue.path].map(String);
  const field = path.join('.') || 'body';
  const named = path.filter((p) => !/^\d+$/.test(p)).join('.') || 'body';
  const custom = (issue as { params?: { code?: unknown } }).params?.code;
  if (typeof custom === 'string') return { field, code: custom };
  let problem = 'invalid';
  // zod 4 issues do not carry their input: look the value up to tell "missing" from "wrong".
  if (issue.path.length > 0 && issue.code !== 'custom' && valueAt(input, issue.path) === undefined)
    problem = 'required';
  else if (issue.code === 'too_big') problem = issue.origin === 'string' ? 'too_long' : 'too_large';
  else if (issue.code === 'too_small') problem = issue.origin === 'string' ? 'too_short' : 'too_small';
  return { field, code: `${named}_${problem}` };
}

/**
 * Parses with `schema` or throws a 422 naming each field (docs/decisions/sandbox.md#accounts-errors):
 * codes like `source_options.card.number_invalid`; a schema may set its own code in `params.code`.
 */
export function parse422<S extends z.ZodType>(
  schema: S,
  value: unknown,
  prefix: readonly PropertyKey[] = [],
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new SandboxValidationError(
    result.error.issues.map((issue) => {
      const { field, code } = issueCode(issue, value, prefix);
      return { field, code, message: `${field}: ${issue.message}` };
    }),
    422,
  );
}

/** A one-field 422. */
export function invalid(field: string, code: string, message: string): SandboxValidationError {
  return new SandboxValidationError([{ field, code, message: `${field}: ${message}` }], 422);
}
