import type { z } from 'zod';
import { SandboxValidationError } from '../core/errors.js';
import { keyProblem, locateIssue, valueAt } from '../core/validate.js';

type Issue = z.core.$ZodIssue;

/**
 * `<dotted field>_<problem>` without array indexes: `individual.first_name_required`, `profile.mccs_invalid`.
 * The field is located by walking `schema` (core/validate.ts), so a key the caller chose never becomes part of a
 * code (a record's bad key is `<record>_key_invalid`) and reaches `field` and the message only made safe.
 */
export function issueCode(
  schema: z.ZodType,
  issue: Issue,
  input: unknown,
  prefix: readonly PropertyKey[] = [],
): { field: string; code: string; message: string } {
  const aboutKey = keyProblem(issue);
  const { field, name } = locateIssue(schema, aboutKey ? issue.path.slice(0, -1) : issue.path, prefix);
  const message = `${field}: ${aboutKey ?? issue.message}`;
  const custom = (issue as { params?: { code?: unknown } }).params?.code;
  if (typeof custom === 'string') return { field, code: custom, message };
  let problem = 'invalid';
  // zod 4 issues do not carry their input: look the value up to tell "missing" from "wrong".
  if (aboutKey) problem = 'key_invalid';
  else if (issue.path.length > 0 && issue.code !== 'custom' && valueAt(input, issue.path) === undefined)
    problem = 'required';
  else if (issue.code === 'too_big') problem = issue.origin === 'string' ? 'too_long' : 'too_large';
  else if (issue.code === 'too_small') problem = issue.origin === 'string' ? 'too_short' : 'too_small';
  return { field, code: `${name}_${problem}`, message };
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
    result.error.issues.map((issue) => issueCode(schema, issue, value, prefix)),
    422,
  );
}

/** A one-field 422. */
export function invalid(field: string, code: string, message: string): SandboxValidationError {
  return new SandboxValidationError([{ field, code, message: `${field}: ${message}` }], 422);
}
