/**
 * A small seeded pseudo-random generator (mulberry32): numbers in [0, 1), the same sequence for the same seed, so
 * a corpus is the same on every run and a failure can be replayed.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A chooser of one of `items` at random, driven by `next` (so seeded runs choose the same). */
export const picker =
  (next: () => number) =>
  <T>(items: readonly T[]): T =>
    items[Math.floor(next() * items.length)]!;

/**
 * `value` written into a URL, a query or a form: as text (JSON for anything but a string), percent-encoded. A lone
 * surrogate, which none of them can carry, becomes U+FFFD on the way (`encodeURIComponent` would throw).
 */
export function urlEncoded(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return encodeURIComponent(Buffer.from(text).toString());
}

/** Values a hostile or broken client puts where a field should be: wrong types, edge numbers, odd text. */
export const ODD_VALUES: readonly unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  -0,
  Number.MAX_SAFE_INTEGER + 2,
  '',
  ' ',
  '0',
  '１２３',
  '\u0000',
  '\u202e',
  '\ud800',
  '🧾'.repeat(60),
  'x'.repeat(3000),
  '<data>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection payload, literally
  '${jndi:ldap://x}',
  "'; DROP TABLE charges; --",
  [],
  [1, 'a', null],
  {},
  { nested: { deeper: [{}] } },
  { __proto: 1 },
];

/**
 * `base` with one to three fields replaced by a value from `values`; with probability 0.15 each, the field is one
 * of `extraKeys` instead (an unknown or forbidden name, `__proto__` included, set as an own property).
 */
export function mutate(
  base: Record<string, unknown>,
  next: () => number,
  values: readonly unknown[] = ODD_VALUES,
  extraKeys: readonly string[] = ['extra'],
): Record<string, unknown> {
  const pick = picker(next);
  const body: Record<string, unknown> = { ...base };
  const keys = Object.keys(base);
  const n = 1 + Math.floor(next() * 3);
  for (let i = 0; i < n; i++) {
    const key = next() < 0.15 ? pick(extraKeys) : pick(keys);
    Object.defineProperty(body, key, { value: pick(values), enumerable: true, writable: true, configurable: true });
  }
  return body;
}
