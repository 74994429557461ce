import { z } from 'zod';

/**
 * Fault injection: `POST /_sandbox/faults` makes the next matching requests fail
 * in one way. `phase: "before"` (default) fails without touching state, so the
 * outcome is known (nothing happened); `phase: "after"` lets the request take
 * effect and then fails its response, so the caller cannot know it did.
 */
export const faultRuleSchema = z
  .object({
    method: z
      .string()
      .regex(/^[A-Za-z]+$/)
      .transform((m) => m.toUpperCase())
      .optional(),
    /** Glob over the path: `*` within one segment, `**` across segments. */
    path: z.string().min(1).max(500).startsWith('/'),
    status: z.number().int().min(400).max(599).optional(),
    delayMs: z.number().int().min(0).max(120_000).optional(),
    reset: z.literal(true).optional(),
    stallBody: z.literal(true).optional(),
    count: z.number().int().min(1).max(1000).default(1),
    phase: z.enum(['before', 'after']).default('before'),
  })
  .strip()
  .refine((r) => r.status !== undefined || r.delayMs !== undefined || r.reset || r.stallBody, {
    message: 'a fault needs at least one of status, delayMs, reset, stallBody',
    path: ['status'],
  })
  .refine((r) => [r.status !== undefined, r.reset, r.stallBody].filter(Boolean).length <= 1, {
    message: 'status, reset and stallBody are exclusive',
    path: ['status'],
  });

export type FaultRule = z.output<typeof faultRuleSchema>;

interface ActiveFault {
  readonly id: number;
  readonly rule: FaultRule;
  readonly pattern: RegExp;
  remaining: number;
}

function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** The table of pending faults; each match uses up one of a rule's `count`. */
export class FaultTable {
  #next = 1;
  #faults: ActiveFault[] = [];

  add(rule: FaultRule): { id: number } & FaultRule {
    const id = this.#next++;
    this.#faults.push({ id, rule, pattern: globToRegExp(rule.path), remaining: rule.count });
    return { id, ...rule };
  }

  /** Takes the first pending fault matching this request, if any. */
  take(method: string, path: string): FaultRule | undefined {
    const hit = this.#faults.find(
      (f) => f.remaining > 0 && (!f.rule.method || f.rule.method === method) && f.pattern.test(path),
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
