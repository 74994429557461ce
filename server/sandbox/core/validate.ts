import type { z } from 'zod';
import { fieldSegment } from '../../common/field-path.js';
import { type Walkable, WRAPPERS } from '../../provider/schemas/zod-walk.js';
import { SandboxValidationError } from './errors.js';

/**
 * Where a zod issue is, told by walking the schema beside its path (docs/decisions/sandbox.md#error-bodies):
 * - `field`: the dotted path for people (`products.0.price`, `metadata.gift note`); a key the caller chose (a
 *   record's key, or any segment the schema does not name) is written with {@link fieldSegment}, so no control or
 *   bidirectional character and no 100-character key reaches the answer as it was sent;
 * - `name`: the schema's field names only (`products.price`, `metadata`), for stable error codes: array indexes and
 *   the caller's keys are left out.
 */
export interface IssueLocation {
  readonly field: string;
  readonly name: string;
}

interface Step {
  /** The schema of the value at this segment (undefined when unknown). */
  readonly next: Walkable | undefined;
  /** `field`: a name the schema gives; `index`: an array position; `key`: a key the caller chose. */
  readonly kind: 'field' | 'index' | 'key';
}

/** How `schema` reads `segment`, or undefined when it has no such place. */
function step(schema: Walkable, segment: PropertyKey, depth = 0): Step | undefined {
  if (depth > 32) return undefined;
  const def = schema._zod.def;
  if (WRAPPERS.has(def.type) && def.innerType) return step(def.innerType, segment, depth + 1);
  switch (def.type) {
    case 'lazy':
      return def.getter ? step(def.getter(), segment, depth + 1) : undefined;
    case 'pipe':
      return (def.in && step(def.in, segment, depth + 1)) || (def.out ? step(def.out, segment, depth + 1) : undefined);
    case 'object':
      return def.shape && typeof segment === 'string' && Object.hasOwn(def.shape, segment)
        ? { next: def.shape[segment], kind: 'field' }
        : undefined;
    case 'record':
      return { next: def.valueType, kind: 'key' };
    case 'array':
      return typeof segment === 'number' ? { next: def.element, kind: 'index' } : undefined;
    case 'tuple':
      return typeof segment === 'number'
        ? { next: def.items?.[segment] ?? def.rest ?? undefined, kind: 'index' }
        : undefined;
    case 'union':
      for (const option of def.options ?? []) {
        const found = step(option, segment, depth + 1);
        if (found) return found;
      }
      return undefined;
    case 'intersection':
      return (
        (def.left && step(def.left, segment, depth + 1)) ||
        (def.right ? step(def.right, segment, depth + 1) : undefined)
      );
    default:
      return undefined;
  }
}

/** A segment the schema does not know but that reads as a field name (a rule's own `path: ['email']`). */
const NAME_LIKE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Locates an issue's `path` in `schema` (see {@link IssueLocation}); `prefix` is prepended as schema names. */
export function locateIssue(
  schema: z.ZodType,
  path: readonly PropertyKey[],
  prefix: readonly PropertyKey[] = [],
): IssueLocation {
  const field: string[] = prefix.map(String);
  const name: string[] = prefix.filter((p) => typeof p === 'string' && !/^\d+$/.test(p)).map(String);
  let at: Walkable | undefined = schema as unknown as Walkable;
  for (const segment of path) {
    const found: Step | undefined = at ? step(at, segment) : undefined;
    at = found?.next;
    const kind = found?.kind;
    if (kind === 'field') {
      field.push(String(segment));
      name.push(String(segment));
    } else if (kind === 'index' || typeof segment === 'number') {
      field.push(String(segment));
    } else if (kind === 'key') {
      field.push(fieldSegment(String(segment)));
    } else {
      const text = String(segment);
      field.push(fieldSegment(text));
      if (NAME_LIKE.test(text)) name.push(text);
    }
  }
  return { field: field.join('.') || 'body', name: name.join('.') || 'body' };
}

/** The value at `path` inside `value` (undefined when any step is missing). */
export function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const key of path) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/**
 * The problem part of a code and the reason for people of an issue that is about a record's key (zod's
 * `invalid_key`): the record's own message ("must be an object …") says nothing of why, the key's issues do.
 */
export function keyProblem(issue: z.core.$ZodIssue): string | undefined {
  if (issue.code !== 'invalid_key') return undefined;
  const key = String(issue.path[issue.path.length - 1] ?? '');
  const reasons = issue.issues.map((i) => i.message).filter(Boolean);
  const why = reasons.length > 0 ? [...new Set(reasons)].join('; ') : 'is not allowed';
  return `${key === '' ? 'a key' : `the key "${fieldSegment(key)}"`} ${why}`;
}

/**
 * Parses `value` with `schema`, or throws a SandboxValidationError naming every
 * field at fault (status 400 by default, as the legacy API and controls answer;
 * the accounts API passes 422). A field that is absent gets `<field>_required`, a bad key of a record
 * `<field>_key_invalid` (the record's field, not the key: `metadata_key_invalid`), any other problem
 * `<field>_invalid`. Codes name schema fields only (array indexes and keys the caller chose left out).
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, status = 400): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const seen = new Set<string>();
  const issues: { field: string; code: string; message: string }[] = [];
  for (const issue of result.error.issues) {
    const aboutKey = keyProblem(issue);
    // A bad key is a problem of the record that holds it: its field, with the key (made safe) in the message.
    const where = locateIssue(schema, aboutKey ? issue.path.slice(0, -1) : issue.path);
    // zod 4 issues do not carry the input by default: look the value up to tell "missing" from "wrong".
    const missing = !aboutKey && issue.path.length > 0 && valueAt(value, issue.path) === undefined;
    const message = `${where.field}: ${aboutKey ?? issue.message}`;
    if (seen.has(message)) continue;
    seen.add(message);
    const problem = aboutKey ? 'key_invalid' : missing ? 'required' : 'invalid';
    issues.push({ field: where.field, code: `${where.name}_${problem}`, message });
  }
  throw new SandboxValidationError(issues, status);
}
