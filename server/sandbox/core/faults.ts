import { z } from 'zod';
import { SandboxError, SandboxValidationError } from './errors.js';
import { locateIssue, parseWith } from './validate.js';

/** Methods a fault may name: those the sandbox answers (a typo such as `POTS` would never match). */
const FAULT_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * Most fault rules pending at once. Every request is matched against each pending rule, so an endless table made
 * every request slower and held memory for good (docs/decisions/sandbox.md#fault-table).
 */
export const MAX_PENDING_FAULTS = 100;

/**
 * Fault injection: `POST /_sandbox/faults` makes the next matching requests fail
 * in one way. `phase: "before"` (default) fails without touching state, so the
 * outcome is known (nothing happened); `phase: "after"` lets the request take
 * effect and then fails its response, so the caller cannot know it did.
 */
const faultFields = z.object({
  method: z
    .string({ error: `must be one of ${FAULT_METHODS.join(', ')}` })
    .transform((m) => m.toUpperCase())
    .pipe(z.enum(FAULT_METHODS, { error: `must be one of ${FAULT_METHODS.join(', ')}` }))
    .optional(),
  /** Glob over the path: `*` within one segment, `**` across segments. */
  path: z.string().min(1).max(500).startsWith('/'),
  status: z.number().int().min(400).max(599).optional(),
  /** With `status`: a `Retry-After` header (seconds) on the injected answer, as a real 429/503 may carry. */
  retryAfter: z.number().int().min(0).max(3600).optional(),
  delayMs: z.number().int().min(0).max(120_000).optional(),
  reset: z.literal(true).optional(),
  stallBody: z.literal(true).optional(),
  count: z.number().int().min(1).max(1000).default(1),
  phase: z.enum(['before', 'after']).default('before'),
});

export const faultRuleSchema = faultFields
  .refine((r) => r.status !== undefined || r.delayMs !== undefined || r.reset || r.stallBody, {
    message: 'a fault needs at least one of status, delayMs, reset, stallBody',
    path: ['status'],
  })
  .refine((r) => r.retryAfter === undefined || r.status !== undefined, {
    message: 'retryAfter goes with status',
    path: ['retryAfter'],
  })
  .refine((r) => [r.status !== undefined, r.reset, r.stallBody].filter(Boolean).length <= 1, {
    message: 'status, reset and stallBody are exclusive',
    path: ['status'],
  });

export type FaultRule = z.output<typeof faultFields>;

const SETTINGS = Object.keys(faultFields.shape);

/**
 * A fault rule from a request body, or a 400 naming every field at fault. A setting the schema does not know is one
 * of them (`rest` for `reset`): dropping it, as other bodies' unknown fields are, added a different fault than the
 * one asked for (docs/decisions/sandbox.md#fault-table).
 */
export function parseFaultRule(body: unknown): FaultRule {
  const unknown = body && typeof body === 'object' ? Object.keys(body).filter((k) => !SETTINGS.includes(k)) : [];
  if (unknown.length === 0) return parseWith(faultRuleSchema, body);
  throw new SandboxValidationError(
    unknown.map((key) => {
      // The code is fixed, never built from the caller's key (docs/decisions/sandbox.md#error-bodies).
      const { field } = locateIssue(faultRuleSchema, [key]);
      return {
        field,
        code: 'fault_setting_unknown',
        message: `${field}: is not a fault setting (${SETTINGS.join(', ')})`,
      };
    }),
    400,
  );
}

interface ActiveFault {
  readonly id: number;
  readonly rule: FaultRule;
  readonly glob: readonly GlobToken[];
  remaining: number;
}

/** One step of a path glob: `**` (anything), `*` (anything within a segment), `?` (one character but `/`), or a literal. */
type GlobToken = '**' | '*' | '?' | { readonly literal: string };

function compileGlob(glob: string): GlobToken[] {
  const tokens: GlobToken[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      tokens.push('**');
      i++;
    } else if (c === '*' || c === '?') tokens.push(c);
    else tokens.push({ literal: c });
  }
  return tokens;
}

/**
 * Whether `path` matches the glob, by dynamic programming over glob steps × path characters: time is at most
 * their product, whatever the glob. (A glob turned into a RegExp, such as `/**a**a**a…!`, backtracks
 * exponentially on a long path and would stall every request the fault table sees.)
 */
function globMatches(tokens: readonly GlobToken[], path: string): boolean {
  const n = path.length;
  // row[j]: the steps so far match the first j characters of the path.
  let row = new Uint8Array(n + 1);
  row[0] = 1;
  for (const t of tokens) {
    const next = new Uint8Array(n + 1);
    let any = 0;
    for (let j = 0; j <= n; j++) {
      const ch = path[j - 1];
      if (t === '**') next[j] = row[j] || (j > 0 && next[j - 1]) ? 1 : 0;
      else if (t === '*') next[j] = row[j] || (j > 0 && next[j - 1] && ch !== '/') ? 1 : 0;
      else if (t === '?') next[j] = j > 0 && row[j - 1] && ch !== '/' ? 1 : 0;
      else next[j] = j > 0 && row[j - 1] && ch === t.literal ? 1 : 0;
      any |= next[j]!;
    }
    // No prefix of the path matches the steps so far: no later step can match (most rules end here at once).
    if (!any) return false;
    row = next;
  }
  return row[n] === 1;
}

/** The table of pending faults; each match uses up one of a rule's `count`. */
export class FaultTable {
  #next = 1;
  #faults: ActiveFault[] = [];

  add(rule: FaultRule): { id: number } & FaultRule {
    if (this.#faults.length >= MAX_PENDING_FAULTS) {
      throw new SandboxError(
        409,
        'fault_table_full',
        `at most ${MAX_PENDING_FAULTS} faults may be pending; DELETE /_sandbox/faults clears them`,
        { field: 'path' },
      );
    }
    const id = this.#next++;
    this.#faults.push({ id, rule, glob: compileGlob(rule.path), remaining: rule.count });
    return { id, ...rule };
  }

  /** Takes the first pending fault matching this request, if any. */
  take(method: string, path: string): FaultRule | undefined {
    const hit = this.#faults.find(
      (f) => f.remaining > 0 && (!f.rule.method || f.rule.method === method) && globMatches(f.glob, path),
    );
    if (!hit) return undefined;
    hit.remaining--;
    if (hit.remaining === 0) this.#faults = this.#faults.filter((f) => f !== hit);
    return hit.rule;
  }

  list(): ({ id: number; remaining: number } & FaultRule)[] {
    return this.#faults.map((f) => ({ id: f.id, remaining: f.remaining, ...f.rule }));
  }

  clear(): void {
    this.#faults = [];
  }
}
