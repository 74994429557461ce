import { BRANDS } from '../../widget/card/brands.js';
import { luhnValid } from '../../widget/card/luhn.js';

/**
 * Finding card numbers (PANs) in text a server did not expect them in: the helper refuses bodies, queries and
 * paths that hold one and redacts its log lines; the provider clients and the sandbox mask what they keep. One
 * rule for all of them, by digit content, written as a single forward scan (no regular expression), so its cost
 * is linear in the text whatever an attacker sends. See docs/DECISIONS.md#helper-pan-guard.
 *
 * A card number is 13–19 digits that start like a known brand (`widget/card/brands.ts`), have one of that brand's
 * lengths and pass the Luhn check, written either
 * - as one unbroken run of digits, or
 * - as groups in a card layout: 4-4-4-4, 4-4-4-1…4, 4-4-4-4-1…3, 4-6-4 or 4-6-5,
 * where the groups may be parted by up to {@link MAX_GAP} characters of anything that is not a digit or a hex
 * letter: spaces of any kind, tabs, newlines, dashes, `_ , : | . /`, other letters (`4242x4242y4242z4242`).
 *
 * What the scan reads through: digits of every script (`４２`, `٤٢`, `४२`), compatibility digits (superscript
 * `⁴²`, circled `④②`, through NFKC), and invisible format characters (U+200B, U+00AD soft hyphen, U+2060…),
 * which are skipped as if absent.
 *
 * What keeps ordinary identifiers out:
 * - a run of digits touching a hex letter (`a`–`f`) is part of a hex identifier (a UUID, an ObjectId, a hash)
 *   and is never a card number nor a group of one; so hex letters do not part groups;
 * - a run right after `+` is a phone number (E.164);
 * - brand prefixes and lengths: nothing starting with 0, 1, 7, 8 or 9 is a card (timestamps, snowflake ids);
 * - 12-digit numbers are not looked for (the last group of a UUID is 12 characters, and all digits in 0.4% of them),
 *   and neither are runs of more than 19 digits or groups in other layouts (8-4-4-4-12, dates, IP addresses).
 */

/** The most characters that may part two groups of one number. */
export const MAX_GAP = 8;

/** A digit group: its digits (ASCII), where it starts and ends in the text (UTF-16 offsets, end exclusive). */
interface Group {
  digits: string;
  start: number;
  end: number;
  /** Parted from the group before by more than a short gap, a hex identifier or a `+`: nothing joins across. */
  broken: boolean;
  /** Touches a hex letter or follows `+`: not a card number, nor part of one. */
  barred: boolean;
}

enum Kind {
  Digit,
  /** `a`–`f`, `A`–`F` (and their full-width forms). */
  Hex,
  /** Any other letter, of any script. */
  Letter,
  Plus,
  /** Invisible: format characters and combining marks, read as if absent. */
  Skip,
  /** Spaces, punctuation, symbols: what parts words. */
  Other,
}

interface Class {
  kind: Kind;
  /** The ASCII digits a Digit stands for (`⑩` is two). */
  digits: string;
}

const OTHER: Class = { kind: Kind.Other, digits: '' };
const HEX: Class = { kind: Kind.Hex, digits: '' };
const LETTER: Class = { kind: Kind.Letter, digits: '' };
const PLUS: Class = { kind: Kind.Plus, digits: '' };
const SKIP: Class = { kind: Kind.Skip, digits: '' };
const ASCII: Class[] = [];
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  ASCII.push(
    c >= 48 && c <= 57
      ? { kind: Kind.Digit, digits: ch }
      : /[a-fA-F]/.test(ch)
        ? HEX
        : /[a-zA-Z]/.test(ch)
          ? LETTER
          : ch === '+'
            ? PLUS
            : OTHER,
  );
}

const ND = /\p{Nd}/u;
const FORMAT = /[\p{Cf}\p{Mn}\p{Me}]/u;
const LETTERS = /\p{L}/u;
const ALL_DIGITS = /^[0-9]+$/;
/** Non-ASCII classes, cached up to a bound (text can hold a million distinct code points). */
const cache = new Map<number, Class>();
const CACHE_MAX = 4096;
/** Code point → digit value for every non-ASCII `\p{Nd}` character, built on first need. */
let digitValues: Map<number, number> | undefined;

function digitValue(cp: number): number {
  if (!digitValues) {
    // Unicode encodes every decimal digit set as ten consecutive code points, 0 to 9 (sets may be adjacent).
    digitValues = new Map();
    let start = -1;
    for (let c = 0x80; c < 0x20000; c++) {
      if (ND.test(String.fromCodePoint(c))) {
        if (start < 0) start = c;
        digitValues.set(c, (c - start) % 10);
      } else start = -1;
    }
  }
  return digitValues.get(cp) ?? -1;
}

function classify(cp: number): Class {
  if (cp < 128) return ASCII[cp]!;
  const hit = cache.get(cp);
  if (hit) return hit;
  const ch = String.fromCodePoint(cp);
  let out: Class;
  const value = ND.test(ch) ? digitValue(cp) : -1;
  if (value >= 0) out = { kind: Kind.Digit, digits: String(value) };
  else if (FORMAT.test(ch)) out = SKIP;
  else {
    const folded = ch.normalize('NFKC');
    if (ALL_DIGITS.test(folded)) out = { kind: Kind.Digit, digits: folded };
    else if (folded.length === 1 && folded.charCodeAt(0) < 128) out = ASCII[folded.charCodeAt(0)]!;
    else out = LETTERS.test(ch) ? LETTER : OTHER;
  }
  if (cache.size < CACHE_MAX) cache.set(cp, out);
  return out;
}

/**
 * The digit groups of `text`, in order. Linear: each code point is classified once, and each group is looked at
 * again once, when the word it is in ends. A word (a run of letters and digits) made only of hex letters and
 * digits is a hex identifier: its digit runs are barred, and nothing joins across it. In any other word, letters
 * part groups like spaces do (`card4242424242424242please`, `4242x4242y4242z4242`).
 */
function groupsOf(text: string): Group[] {
  const groups: Group[] = [];
  let digits = '';
  let start = -1;
  let end = -1;
  let afterPlus = false;
  let gap = MAX_GAP + 1;
  let hardSinceLast = true;
  let previous: Kind = Kind.Other;
  // The current word: where its groups start in `groups`, and what letters it has.
  let wordFirstGroup = -1;
  let wordHex = false;
  let wordLetter = false;
  const closeRun = () => {
    if (start < 0) return;
    // A run of more than 19 digits is no card number and no group of one, but it still parts what is around it.
    const long = digits.length > 19;
    groups.push({ digits, start, end, broken: hardSinceLast || gap > MAX_GAP, barred: afterPlus || long });
    hardSinceLast = long;
    digits = '';
    start = -1;
    gap = 0;
  };
  const closeWord = () => {
    closeRun();
    if (wordFirstGroup >= 0 && wordHex && !wordLetter) {
      for (let k = wordFirstGroup; k < groups.length; k++) groups[k]!.barred = true;
      hardSinceLast = true;
    } else if (wordHex && !wordLetter) hardSinceLast = true;
    wordFirstGroup = -1;
    wordHex = false;
    wordLetter = false;
  };
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const cls = classify(cp);
    i += width;
    if (cls.kind === Kind.Skip) continue;
    if (cls.kind === Kind.Digit) {
      if (start < 0) {
        start = i - width;
        afterPlus = previous === Kind.Plus;
        if (wordFirstGroup < 0) wordFirstGroup = groups.length;
      }
      // Cap a run's kept digits: past 19 it is barred anyway, and an attacker's megabyte of digits stays cheap.
      if (digits.length < 20) digits += cls.digits;
      end = i;
    } else if (cls.kind === Kind.Hex || cls.kind === Kind.Letter) {
      closeRun();
      if (cls.kind === Kind.Hex) wordHex = true;
      else wordLetter = true;
      gap++;
    } else {
      closeWord();
      gap++;
    }
    previous = cls.kind;
  }
  closeWord();
  return groups;
}

/** Whether `digits` (ASCII, 13–19 of them) is a card number: a brand's prefix and length, and Luhn. */
export function isCardNumber(digits: string): boolean {
  const n = digits.length;
  if (n < 13 || n > 19) return false;
  for (const brand of BRANDS) {
    if (!brand.lengths.includes(n)) continue;
    for (const p of brand.patterns) {
      const [lo, hi] = typeof p === 'number' ? [p, p] : p;
      const head = Number(digits.slice(0, String(lo).length));
      if (head >= lo && head <= hi) return luhnValid(digits);
    }
  }
  return false;
}

/** Group lengths of a card number written in groups (the last entry is the range of the last group). */
const LAYOUTS: readonly (readonly [number[], number, number])[] = [
  [[4, 4, 4, 4], 1, 3],
  [[4, 4, 4], 1, 4],
  [[4, 6], 4, 5],
];

/** A card number found: the indexes of its first and last group in the list scanned. */
interface Hit {
  first: number;
  last: number;
}

/** The card number starting at group `i`, if one does (longest layout first). */
function hitAt(groups: readonly Group[], i: number): Hit | undefined {
  const g = groups[i]!;
  if (g.barred) return undefined;
  if (g.digits.length >= 13 && isCardNumber(g.digits)) return { first: i, last: i };
  for (const [fixed, lo, hi] of LAYOUTS) {
    let digits = '';
    let j = i;
    let ok = true;
    for (const size of fixed) {
      const h = groups[j];
      if (!h || h.barred || h.digits.length !== size || (j > i && h.broken)) {
        ok = false;
        break;
      }
      digits += h.digits;
      j++;
    }
    if (!ok) continue;
    const tail = groups[j];
    // The longest reading first: 4-4-4-4-3 before 4-4-4-4.
    if (tail && !tail.barred && !tail.broken && tail.digits.length >= lo && tail.digits.length <= hi) {
      if (isCardNumber(digits + tail.digits)) return { first: i, last: j };
    }
    if (fixed.length === 4 && isCardNumber(digits)) return { first: i, last: j - 1 };
  }
  return undefined;
}

function* hitsIn(groups: readonly Group[]): Generator<Hit> {
  for (let i = 0; i < groups.length; i++) {
    const hit = hitAt(groups, i);
    if (hit) {
      yield hit;
      i = hit.last;
    }
  }
}

/** Whether `text` holds a card number, as this module defines one. */
export function containsPan(text: string): boolean {
  // 13 digits are the fewest a card number has.
  if (text.length < 13) return false;
  return !hitsIn(groupsOf(text)).next().done;
}

/**
 * `text` with every card number replaced by `mask(digits)` (by default `[card ••••4242]`), separators and all;
 * everything else, ids included, exactly as it was.
 */
export function maskPans(text: string, mask: (digits: string) => string = defaultMask): string {
  if (text.length < 13) return text;
  const groups = groupsOf(text);
  let out = '';
  let at = 0;
  for (const { first, last } of hitsIn(groups)) {
    let digits = '';
    for (let k = first; k <= last; k++) digits += groups[k]!.digits;
    out += text.slice(at, groups[first]!.start) + mask(digits);
    at = groups[last]!.end;
  }
  return at === 0 ? text : out + text.slice(at);
}

const defaultMask = (digits: string) => `[card ••••${digits.slice(-4)}]`;

/** Nesting beyond this is refused by the body guards rather than walked. */
export const MAX_DEPTH = 32;

/**
 * Text that is nothing but digits and separators (`"4242 4242"`, at most 40 characters): a fragment a card number
 * may be split into. One character class under one quantifier: linear.
 */
const FRAGMENT = /^[\p{Nd}\s\p{Pd}._,:|/\p{Cf}]{1,40}$/u;

function fragmentGroups(text: string): Group[] | undefined {
  if (!FRAGMENT.test(text)) return undefined;
  const groups = groupsOf(text);
  return groups.length > 0 ? groups : undefined;
}

/**
 * The dotted path of the first key or value in `value` that holds a card number (`billingDetails.addressLine1`,
 * `items.0`), `''` for the top level, or undefined when there is none. Numbers are read by their decimal text;
 * a key that holds one is named by its parent's path with `[key]` (never by the key itself, which would echo the
 * number). A number split over neighbouring values (`{"a":"4242 4242","b":"4242 4242"}`) is found too: values
 * that are nothing but digit groups are read as one text, in document order, and the path names the last.
 */
export function findPan(value: unknown): string | undefined {
  const state: { fragments: Group[]; hit: string | undefined } = { fragments: [], hit: undefined };
  walk(value, '', 0, state);
  return state.hit;
}

function walk(value: unknown, path: string, depth: number, state: { fragments: Group[]; hit: string | undefined }) {
  if (state.hit !== undefined || depth > MAX_DEPTH) return;
  if (typeof value === 'number' || typeof value === 'bigint') value = String(value);
  if (typeof value === 'string') {
    if (containsPan(value)) {
      state.hit = path;
      return;
    }
    const fragment = fragmentGroups(value);
    if (!fragment) {
      state.fragments = [];
      return;
    }
    // Each value starts a new stretch of text: its first group follows the last value's across a short gap.
    const joined = fragment.map((g, k) => (k === 0 ? { ...g, broken: false } : g));
    state.fragments = state.fragments.concat(joined).slice(-6);
    for (let i = 0; i < state.fragments.length; i++) {
      if (hitAt(state.fragments, i)) {
        state.hit = path;
        return;
      }
    }
    return;
  }
  if (value && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    for (const [key, child] of entries) {
      if (containsPan(key)) {
        state.hit = path ? `${path}.[key]` : '[key]';
        return;
      }
      walk(child, path ? `${path}.${key}` : key, depth + 1, state);
      if (state.hit !== undefined) return;
    }
  }
}
