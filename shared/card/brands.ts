/**
 * The card brand table shared by the widget (detection, formatting, CVV length)
 * and the sandbox (validation). Dependency-free and DOM-free on purpose: the
 * sandbox imports it, never the reverse.
 *
 * Prefix ranges follow the networks' published IIN ranges as collected by
 * braintree/credit-card-type; where two brands claim a prefix, the longer
 * (more specific) pattern wins, e.g. 6011 is Discover although 6 is Maestro.
 */

export type BrandId = 'visa' | 'mastercard' | 'amex' | 'discover' | 'diners' | 'jcb' | 'unionpay' | 'maestro';

/** A single prefix (`4`) or an inclusive range of prefixes of equal length (`[2221, 2720]`). */
export type Pattern = number | readonly [number, number];

export interface Brand {
  readonly id: BrandId;
  /** Human name, also used as the legacy API's `paymentMethod`. */
  readonly name: string;
  readonly patterns: readonly Pattern[];
  /** Allowed total lengths of the card number. */
  readonly lengths: readonly number[];
  /** Indexes after which a space is shown while typing (4-4-4-4 is [4, 8, 12]). */
  readonly gaps: readonly number[];
  readonly cvvLength: 3 | 4;
  /** Whether numbers of this brand must pass the Luhn check (UnionPay need not). */
  readonly luhn: boolean;
}

const FOUR_FOUR = [4, 8, 12, 16] as const;

export const BRANDS: readonly Brand[] = [
  { id: 'visa', name: 'Visa', patterns: [4], lengths: [13, 16, 19], gaps: FOUR_FOUR, cvvLength: 3, luhn: true },
  {
    id: 'mastercard',
    name: 'Mastercard',
    patterns: [
      [51, 55],
      [2221, 2720],
    ],
    lengths: [16],
    gaps: FOUR_FOUR,
    cvvLength: 3,
    luhn: true,
  },
  { id: 'amex', name: 'American Express', patterns: [34, 37], lengths: [15], gaps: [4, 10], cvvLength: 4, luhn: true },
  {
    id: 'discover',
    name: 'Discover',
    patterns: [6011, [644, 649], 65, [622126, 622925]],
    lengths: [16, 19],
    gaps: FOUR_FOUR,
    cvvLength: 3,
    luhn: true,
  },
  {
    id: 'diners',
    name: 'Diners Club',
    patterns: [[300, 305], 36, 38, 39],
    lengths: [14, 16, 19],
    gaps: [4, 10],
    cvvLength: 3,
    luhn: true,
  },
  {
    id: 'jcb',
    name: 'JCB',
    patterns: [[3528, 3589]],
    lengths: [16, 17, 18, 19],
    gaps: FOUR_FOUR,
    cvvLength: 3,
    luhn: true,
  },
  {
    id: 'unionpay',
    name: 'UnionPay',
    patterns: [62, 81],
    lengths: [14, 15, 16, 17, 18, 19],
    gaps: FOUR_FOUR,
    cvvLength: 3,
    luhn: false,
  },
  {
    id: 'maestro',
    name: 'Maestro',
    patterns: [493698, [500000, 504174], [504176, 506698], [506779, 508999], [56, 59], 63, 67, 6],
    lengths: [12, 13, 14, 15, 16, 17, 18, 19],
    gaps: FOUR_FOUR,
    cvvLength: 3,
    luhn: true,
  },
];

export const BRAND_IDS: readonly BrandId[] = /* @__PURE__ */ BRANDS.map((b) => b.id);

/** The brand with this id, or undefined. */
export function brandById(id: string): Brand | undefined {
  return BRANDS.find((b) => b.id === id);
}

/**
 * How well `digits` matches one pattern: the pattern's length when the number's
 * leading digits fall in it, 0 when they cannot. A number shorter than the
 * pattern matches partially (score = digits typed) when it could still grow into it.
 */
function matchScore(digits: string, pattern: Pattern): number {
  const [lo, hi] = typeof pattern === 'number' ? [pattern, pattern] : pattern;
  const width = String(lo).length;
  if (digits.length >= width) {
    const head = Number(digits.slice(0, width));
    return head >= lo && head <= hi ? width : 0;
  }
  const n = digits.length;
  const head = Number(digits);
  const loHead = Number(String(lo).slice(0, n));
  const hiHead = Number(String(hi).slice(0, n));
  return head >= loHead && head <= hiHead ? n - 0.5 : 0;
}

/**
 * Detects the brand from the leading digits (non-digits are ignored).
 * Returns undefined when nothing matches or the prefix is still ambiguous.
 *
 * @example detectBrand('3782') // amex brand
 */
export function detectBrand(input: string): Brand | undefined {
  const digits = input.replace(/\D/g, '');
  if (digits.length === 0) return undefined;
  let best: Brand | undefined;
  let bestScore = 0;
  let tie = false;
  for (const brand of BRANDS) {
    let score = 0;
    for (const p of brand.patterns) score = Math.max(score, matchScore(digits, p));
    if (score > bestScore) {
      best = brand;
      bestScore = score;
      tie = false;
    } else if (score > 0 && score === bestScore) {
      tie = true;
    }
  }
  return tie ? undefined : best;
}
