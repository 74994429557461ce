/** Entity dates: the 2.0 string form, the 3.0 object form, and the checks both share (docs/decisions/sandbox.md#entity-versions). */
import type { EntityForm } from '../store.js';

const obj = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

type Dmy = { day: number; month: number; year: number };

/** `YYYY-MM-DD` → `{day, month, year}` (2.0 → the stored 3.0 form). */
export function dateToV3(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const [year, month, day] = value.split('-').map(Number);
  return { day, month, year };
}

/** `{day, month, year}` → `YYYY-MM-DD`. */
export function dateToV2(value: unknown): unknown {
  const d = obj(value) as Dmy | undefined;
  if (!d) return value;
  return `${String(d.year).padStart(4, '0')}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
}

/** Applies `convert` to every date field of an individual or company payload (a copy). */
export function mapDates(part: Record<string, unknown>, convert: (v: unknown) => unknown): Record<string, unknown> {
  const out = { ...part };
  for (const key of ['date_of_birth', 'date_of_incorporation']) if (key in out) out[key] = convert(out[key]);
  if (Array.isArray(out.representatives)) {
    out.representatives = out.representatives.map((r) => mapDates(r as Record<string, unknown>, convert));
  }
  return out;
}

function isRealDate(d: Dmy): boolean {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day));
  return t.getUTCFullYear() === d.year && t.getUTCMonth() === d.month - 1 && t.getUTCDate() === d.day;
}

/** Issues of dates that exist in no calendar, lie in the future or make a person younger than 18. */
export function dateIssues(form: EntityForm, part: Record<string, unknown>, now: Date) {
  const issues: { field: string; code: string; message: string }[] = [];
  const adult = Date.UTC(now.getUTCFullYear() - 18, now.getUTCMonth(), now.getUTCDate());
  const check = (field: string, code: string, value: unknown, person: boolean) => {
    const d = obj(value) as Dmy | undefined;
    if (!d) return;
    const t = Date.UTC(d.year, d.month - 1, d.day);
    if (!isRealDate(d) || t > now.getTime())
      issues.push({ field, code: `${code}_invalid`, message: `${field}: not a real past date` });
    else if (person && t > adult)
      issues.push({ field, code: `${code}_under_age`, message: `${field}: must be 18 or older` });
  };
  check(`${form}.date_of_birth`, `${form}.date_of_birth`, part.date_of_birth, true);
  check(`${form}.date_of_incorporation`, `${form}.date_of_incorporation`, part.date_of_incorporation, false);
  if (Array.isArray(part.representatives)) {
    part.representatives.forEach((r, i) => {
      check(
        `${form}.representatives.${i}.date_of_birth`,
        `${form}.representatives.date_of_birth`,
        obj(r)?.date_of_birth,
        true,
      );
    });
  }
  return issues;
}
