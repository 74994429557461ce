import { BRANDS } from '../../shared/card/brands.js';
import { digitValue } from '../../shared/card/format.js';
import { luhnValid } from '../../shared/card/luhn.js';
import {
  BEYOND_UNICODE,
  numericPrefixWidth,
  referenceAt,
  referenceCodePoint,
  referenceWidth,
} from './char-references.js';
import { fieldPath } from './field-path.js';
import { jsonStringAt, someJsonString } from './json-text.js';

/**
 * Finding card numbers (PANs) in text a server did not expect them in: the helper refuses bodies, queries and
 * paths that hold one and redacts its log lines; the provider clients and the sandbox mask what they keep. One
 * rule for all of them, by digit content, written as a single forward scan (no regular expression), so its cost
 * is linear in the text whatever an attacker sends. See docs/decisions/helper.md#helper-pan-guard.
 *
 * A card number is 13–19 digits that start like a known brand (`shared/card/brands.ts`), have one of that brand's
 * lengths and pass the Luhn check, written either
 * - as one unbroken run of digits, or
 * - as groups in a card layout: 4-4-4-4, 4-4-4-1…4, 4-4-4-4-1…3, 4-6-4 or 4-6-5,
 * where the groups may be parted by white space of any kind and length, and up to {@link MAX_GAP} other characters:
 * dashes, `_ , : | . /`, `+`, letters (`4242x4242y4242z4242`, `4242 then 4242 …`). Where readings overlap they are masked
 * as one; the first group of the first is kept when the reading at its second group is parted alike, or by fewer
 * characters (a port before a card number, `:6379 card 4242 4242 4242 4242`) ({@link hitsIn}).
 *
 * What the scan reads through: digits of every script (`４２`, `٤٢`, `४२`), compatibility digits (superscript
 * `⁴²`, circled `④②`, through NFKC), and invisible format characters (U+200B, U+00AD soft hyphen, U+2060…),
 * which are skipped as if absent; and the separators form and percent-encoding write, in a URL or a form body held
 * by a log line or a JSON string: `+` after a digit (`4242+4242+4242+4242`, as `URLSearchParams` writes spaces), and
 * the escape of any ASCII space, punctuation or symbol (`%20`, `%2D`, `%2B`, `%3A`, `%2F`, `%22`…, either case, and
 * encoded twice: `%2520`), each read as the one character it stands for, where its digits would otherwise sit
 * between the groups or make a hex word of one (`card%3A4242…`) ({@link escapeAt}); so are the escapes of a UTF-8
 * sequence that stands for white space, an invisible character, punctuation or a digit (`%C2%A0`, `%E2%80%8B`,
 * `%E3%80%80`, `%E2%80%93`, `%EF%BC%94`, once or twice encoded), and only those ({@link utf8At}); and HTML character
 * references and JavaScript escapes (`&#32;`, `&#x34;`, `&nbsp;`, `&amp;#32;`, `\u00A0`, `\x20`, `%u00A0`, and
 * percent-encoded: `%26%2332%3B`), read as the character they stand for, whatever it is, never as their digits
 * ({@link referenceEscapeAt}). A `%` right before digits that read as an escape (`%224242`) may be literal
 * (`%4000 0566 5566 5556`): such text is read both ways.
 *
 * What keeps ordinary identifiers out:
 * - a word (letters and digits) made only of digits and hex letters (`a`–`f`) is a hex identifier (a UUID, an
 *   ObjectId, a hash): its digits are never a card number nor a group of one, unless the word is nothing but
 *   4-digit groups parted by single letters (`4242a4242b4242c4242`), a shape random ids practically never have;
 * - a run right after a `+` (or `%2B`) that follows no digit is a phone number (E.164: `+44 20 7946 0958`,
 *   `tel=%2B1-202-555-0143`; a phone number's `+` never follows a digit, so after one it parts groups, and neither
 *   does a raw `+` after a letter or in a run of form spaces: `my+card+is+4242+…`, `4242++4242`), and a run
 *   of more than 6 digits right after `digit.` is a decimal fraction (`1.6893190000000686`: a logged duration once
 *   passed Luhn with a brand prefix);
 * - brand prefixes and lengths: nothing starting with 0, 1, 7 or 9, or with 8 other than UnionPay's 81, is a card
 *   (timestamps, snowflake ids);
 * - 12-digit numbers are not looked for (the last group of a UUID is 12 characters, and all digits in 0.4% of them),
 *   and neither are runs of more than 19 digits or groups in other layouts (8-4-4-4-12, dates, IP addresses).
 */

/** The most characters other than white space that may part two groups of one number. */
export const MAX_GAP = 8;

/** A digit group: its digits (ASCII), where it starts and ends in the text (UTF-16 offsets, end exclusive). */
interface Group {
  digits: string;
  start: number;
  end: number;
  /** Parted from the group before by more than a short gap or a hex identifier: nothing joins across. */
  broken: boolean;
  /** In a hex identifier, or follows a `+` that follows no digit: not a card number, nor part of one. */
  barred: boolean;
  /** How many characters other than white space part this group from the one before (letters, punctuation). */
  gap: number;
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
  /** White space of any kind: parts words, and does not count toward a gap. */
  Space,
  /** Punctuation, symbols: parts words. */
  Other,
}

interface Class {
  kind: Kind;
  /** The ASCII digits a Digit stands for (`⑩` is two). */
  digits: string;
}

const OTHER: Class = { kind: Kind.Other, digits: '' };
const SPACE: Class = { kind: Kind.Space, digits: '' };
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
            : /\s/.test(ch)
              ? SPACE
              : OTHER,
  );
}

/** One test for the categories that matter, by capture group: decimal digit, invisible, letter, white space. */
const CATEGORY = /(\p{Nd})|([\p{Cf}\p{Mn}\p{Me}])|(\p{L})|(\s)/u;
const ALL_DIGITS = /^[0-9]+$/;
/** NFKC forms of enclosed digits: `⑷` is `(4)`, `⒋` is `4.`. */
const ENCLOSED = /^\(?([0-9]{1,2})[.)]?$/;
/** Non-ASCII classes, cached (bounded: text can hold every code point there is). */
const cache = new Map<number, Class>();
const CACHE_MAX = 1 << 16;

/**
 * Blocks whose characters NFKC may turn into ASCII digits, letters or spaces: Latin-1 (`¹`, no-break space),
 * super- and subscripts, number forms and enclosed alphanumerics (`④`, `⑷`), dingbat digits, enclosed CJK
 * numbers, full-width forms, mathematical alphanumerics (`𝟒`), enclosed supplement, segmented digits. Only these
 * are normalised, so other text costs one category test per new character.
 */
function mayFold(cp: number): boolean {
  return (
    (cp >= 0xa0 && cp <= 0xbf) ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    (cp >= 0x2070 && cp <= 0x209f) ||
    (cp >= 0x2150 && cp <= 0x24ff) ||
    (cp >= 0x2776 && cp <= 0x2793) ||
    (cp >= 0x3200 && cp <= 0x33ff) ||
    (cp >= 0xff00 && cp <= 0xffef) ||
    (cp >= 0x1d400 && cp <= 0x1d7ff) ||
    (cp >= 0x1f100 && cp <= 0x1f1ff) ||
    (cp >= 0x1fbf0 && cp <= 0x1fbf9)
  );
}

function classify(cp: number): Class {
  if (cp < 128) return ASCII[cp]!;
  const hit = cache.get(cp);
  if (hit) return hit;
  const ch = String.fromCodePoint(cp);
  let out: Class | undefined;
  const category = CATEGORY.exec(ch);
  // The widget's rule (shared/card/format.ts); the class is cached, so the walk back runs once per code point.
  if (category?.[1]) out = { kind: Kind.Digit, digits: String(digitValue(cp)) };
  if (!out && mayFold(cp)) {
    const folded = ch.normalize('NFKC');
    const enclosed = folded.length > 1 ? ENCLOSED.exec(folded) : null;
    if (ALL_DIGITS.test(folded)) out = { kind: Kind.Digit, digits: folded };
    else if (enclosed) out = { kind: Kind.Digit, digits: enclosed[1]! };
    else if (folded.length === 1 && folded.charCodeAt(0) < 128) out = ASCII[folded.charCodeAt(0)]!;
  }
  out ??= category?.[2] ? SKIP : category?.[3] ? LETTER : category?.[4] ? SPACE : OTHER;
  if (cache.size < CACHE_MAX) cache.set(cp, out);
  return out;
}

/** A percent-escape read as the one character it stands for: its class, how many UTF-16 units it takes, and that character. */
interface Escape extends Class {
  width: number;
  stands: string;
  /**
   * Written with decimal digits only (`%22`, `%40`, and every escape encoded twice, `%25…`), other than `%20` and
   * `%09`: right before a digit, after a literal `%`, they may be a card number's first two digits instead
   * (`%4000 0566 5566 5556`). A UTF-8 sequence's escapes are when the last one is (`%E2%80%81`, `%25E2%2580%2599`).
   */
  numeric: boolean;
  /**
   * Numeric, and with its last `%` literal a group of 4 digits on its own (`%2599`, closing a UTF-8 sequence encoded
   * twice): read both ways whatever follows (`%25E2%2580%2599-0000-0000-0003`), as the scan did before it read them.
   */
  group: boolean;
  /**
   * A percent-escape (`%20`, `%C2%A0`), not a character reference: a raw `+` right after one is a form space, and
   * the `+` it stands for (`%2B`) a literal one. A reference stands for the character itself, as decoded text holds it.
   */
  percent: boolean;
}

/**
 * The escapes of ASCII white space, punctuation and symbols (`%20`, `%2D`, `%2B`, `%3A`, `%2F`, `%22`, …), by byte,
 * once encoded (3 units) and twice (`%2520`, 5 units: the `%` itself escaped as `%25`). Letters and digits are not
 * read through (`%34` stays `%` and `34`): no encoder escapes them.
 */
const ONCE: (Escape | undefined)[] = [];
const TWICE: (Escape | undefined)[] = [];
for (let byte = 0; byte < 128; byte++) {
  const { kind } = ASCII[byte]!;
  if (kind !== Kind.Space && kind !== Kind.Other && kind !== Kind.Plus) continue;
  const stands = kind === Kind.Space ? '' : String.fromCharCode(byte);
  const numeric = byte >> 4 <= 9 && (byte & 15) <= 9 && byte !== 0x20 && byte !== 0x09;
  ONCE[byte] = { kind, digits: '', width: 3, stands, numeric, group: false, percent: true };
  TWICE[byte] = { kind, digits: '', width: 5, stands, numeric: true, group: false, percent: true };
}

/** The value of hex digit `c` (a UTF-16 unit), or 256 when it is none: `hi * 16 + lo` is then 256 or more. */
function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const lower = c | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : 256;
}

/**
 * The byte the escape at `i` stands for (`%A0`, or `%25A0` when `twice`), or 256 or more when there is none there.
 */
function byteAt(text: string, i: number, twice: boolean): number {
  if (text.charCodeAt(i) !== 37) return 256;
  const at = twice ? i + 2 : i;
  if (twice && (text.charCodeAt(i + 1) !== 50 || text.charCodeAt(i + 2) !== 53)) return 256;
  return hexValue(text.charCodeAt(at + 1)) * 16 + hexValue(text.charCodeAt(at + 2));
}

/** Punctuation of any script (dashes `‐ – —`, `•`, `·`, `、`): separators, as ASCII punctuation is. */
const PUNCTUATION = /^\p{P}$/u;
/** The least code point a UTF-8 sequence of 2, 3 and 4 bytes may write (less is overlong), by continuation bytes. */
const UTF8_MIN = [0, 0x80, 0x800, 0x10000];
/** The escapes of UTF-8 sequences read, by code point and width; `null` for those not read. Bounded like `cache`. */
const utf8Cache = new Map<number, Escape | null>();

/**
 * The escapes of the UTF-8 sequence at `i` (`%C2%A0`, `%E2%80%8B`, `%EF%BC%94`; twice encoded, `%25C2%25A0`), whose
 * first byte, `lead`, has been read, when it is well formed (no overlong form, no surrogate) and stands for what the
 * scan reads as a separator or a digit in decoded text: white space (a no-break, thin or ideographic space), an
 * invisible character (a zero-width space, a soft hyphen, a combining mark), punctuation (a dash, a bullet, a middle
 * dot), or a digit of any script (full-width `４`, `٤`, circled `④`). Letters and symbols (`%C3%A9`, CJK text, an
 * emoji, `€`) are left as they are written: the words of ordinary encoded text are read as before (decoded,
 * `é4242424242424242` is one word with a letter, and its digits a card number; escaped, a hex word). At most 20
 * characters are looked at: linear. See docs/decisions/helper.md#helper-pan-guard.
 */
function utf8At(text: string, i: number, lead: number, twice: boolean): Escape | undefined {
  if (lead < 0xc2 || lead > 0xf4) return undefined;
  const more = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : 1;
  const step = twice ? 5 : 3;
  let cp = lead & (0x3f >> more);
  for (let k = 1; k <= more; k++) {
    const byte = byteAt(text, i + k * step, twice);
    if (byte < 0x80 || byte > 0xbf) return undefined;
    cp = (cp << 6) | (byte & 0x3f);
  }
  if (cp < UTF8_MIN[more]! || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return undefined;
  const width = (more + 1) * step;
  const key = cp * 32 + width;
  const hit = utf8Cache.get(key);
  if (hit !== undefined) return hit ?? undefined;
  const cls = classify(cp);
  const stands = String.fromCodePoint(cp);
  const read = readThrough(cls, stands);
  // Numeric when its last escape is written with decimal digits (`%E2%80%81`, `%25E2%2580%2599`): before a digit, that
  // `%` may be literal and its digits a card number's first two (`%8171 0000 0000 0006`), as after an ASCII escape.
  const last = 0x80 | (cp & 0x3f);
  const numeric = last >> 4 <= 9 && (last & 15) <= 9;
  const out = read
    ? { kind: cls.kind, digits: cls.digits, width, stands, numeric, group: numeric && twice, percent: true }
    : null;
  if (utf8Cache.size < CACHE_MAX) utf8Cache.set(key, out);
  return out ?? undefined;
}

/**
 * Whether a character written as an escape is read as the one it stands for: white space, an invisible character,
 * punctuation or a digit, what parts or makes a card number's groups in decoded text. Letters and symbols are left as
 * written: the words of ordinary encoded text are read as before.
 */
function readThrough(cls: Class, stands: string): boolean {
  return (
    cls.kind === Kind.Digit ||
    cls.kind === Kind.Space ||
    cls.kind === Kind.Skip ||
    (cls.kind === Kind.Other && PUNCTUATION.test(stands))
  );
}

/**
 * Set by a scan that read a {@link Escape.numeric} escape right before a digit (`%224242…`), or a {@link Escape.group}
 * one: the text may also be read with that `%` literal (`%4000 0566 5566 5556`), and is, by a second scan. A character
 * reference is never read so: `&#…;` and `\uXXXX` are no ordinary text, and read as written, their digits made card
 * numbers the decoded text does not hold (`0&#46;4242424242424242` is a fraction, `to=&#43;4242…` a phone number).
 */
let ambiguous = false;

/**
 * Set by a scan that read a numeric reference past U+10FFFF (`&#4242424242424242`): no encoder writes one, and a
 * reader of the text itself (a log, a JSON API, a dashboard showing the note as text) sees its digits, so the text is
 * also read as written, every reference's digits as digits ({@link rawReferences}), by a second scan.
 */
let beyond = false;

/** Whether the scan running reads every character reference as written (see {@link beyond}). */
let rawReferences = false;

/** `read()`'s answer, the text read as written, references and all (see {@link beyond}). */
function readRaw<T>(read: () => T): T {
  rawReferences = true;
  try {
    return read();
  } finally {
    rawReferences = false;
  }
}

/** The character references read, by {@link referenceAt}'s packed value. Bounded. */
const referenceCache = new Map<number, Escape>();

/**
 * The HTML or JavaScript character reference at `i` (`&#32;`, `&#x34;`, `&nbsp;`, `\u00A0`, `%u00A0`, and their
 * percent-encoded forms, `server/common/char-references.ts`), read as the one character it stands for, whatever it is:
 * `4242&#32;4242…`, `&#52;&#50;…`, `4242\u00204242…`, and a letter or a symbol too (`4242&#233;4242…`), whose digits,
 * read, hid card numbers and made others the decoded text does not hold. See docs/decisions/helper.md#helper-pan-guard.
 */
function referenceEscapeAt(text: string, i: number): Escape | undefined {
  const ref = referenceAt(text, i);
  if (ref < 0) return undefined;
  let cp = referenceCodePoint(ref);
  if (rawReferences) {
    // The text as written: every reference's syntax and digits as themselves, but for one past U+10FFFF, whose
    // syntax before its digits is read as punctuation (`%26%23`, `&amp;#`: a `#` to any reader of the text).
    return cp === BEYOND_UNICODE
      ? { ...OTHER, width: numericPrefixWidth(text, i), stands: '#', numeric: false, group: false, percent: false }
      : undefined;
  }
  if (cp === BEYOND_UNICODE) {
    beyond = true;
    cp = 0xfffd;
  }
  const hit = referenceCache.get(ref);
  if (hit) return hit;
  const cls = classify(cp);
  const stands = String.fromCodePoint(cp);
  const out = {
    kind: cls.kind,
    digits: cls.digits,
    width: referenceWidth(ref),
    stands,
    numeric: false,
    group: false,
    percent: false,
  };
  if (referenceCache.size < CACHE_MAX) referenceCache.set(ref, out);
  return out;
}

/**
 * The escape or character reference at `i`, whose code unit is `c` (only a `%`, `&` or `\` starts one), read as the
 * character it stands for, as the reading `literal` takes it; undefined when there is none there.
 */
function escapedAt(text: string, i: number, c: number, literal: boolean): Escape | undefined {
  if (c !== 37 && c !== 38 && c !== 92) return undefined;
  return referenceEscapeAt(text, i) ?? (c === 37 ? escapeAt(text, i, literal) : undefined);
}

/**
 * The escape at `i` (a `%`) when it stands for ASCII white space, punctuation or a symbol, once or twice encoded
 * (`%2520`: a URL inside a query, a redirect or return URL, has its `%` escaped again): read as that character, as a
 * form-encoded text is read as its decoded text is. In a URL or a form body written into a log line or a JSON string,
 * `4242%204242%204242%204242` is a card number, where the `20` of each escape put digits between its groups, and
 * `card%3A4242…`, `pan%3D4242…` made a hex word of the first group. With `literal`, a numeric escape right before a
 * digit (a {@link Escape.group} one anywhere) is not read (the `%` is itself). The escapes of a UTF-8 sequence are read as one character when it is a
 * separator or a digit ({@link utf8At}): `4242%C2%A04242…` (no-break spaces), `%EF%BC%94242…` (a full-width `４`).
 * Constant work per position: linear. Undefined for any other `%` (a letter or an ASCII digit escaped, a UTF-8
 * sequence of anything else, a broken escape).
 */
function escapeAt(text: string, i: number, literal: boolean): Escape | undefined {
  const byte = hexValue(text.charCodeAt(i + 1)) * 16 + hexValue(text.charCodeAt(i + 2));
  let found = byte < 128 ? ONCE[byte] : utf8At(text, i, byte, false);
  if (byte === 0x25) {
    const inner = hexValue(text.charCodeAt(i + 3)) * 16 + hexValue(text.charCodeAt(i + 4));
    if (inner < 128 && TWICE[inner]) found = TWICE[inner];
    else if (inner >= 128) found = utf8At(text, i, inner, true) ?? found;
  }
  if (!found?.numeric) return found;
  const next = text.charCodeAt(i + found.width);
  if ((next < 48 || next > 57) && !found.group) return found;
  if (literal) return undefined;
  ambiguous = true;
  return found;
}

/**
 * The digit groups of `text`, in order. Linear: each code point is classified once, and each group is looked at
 * again once, when the word it is in ends. A word (a run of letters and digits) made only of hex letters and
 * digits is a hex identifier: its digit runs are barred, and nothing joins across it. In any other word, letters
 * part groups like spaces do (`card4242424242424242please`, `4242x4242y4242z4242`).
 */
function groupsOf(text: string, literal = false): Group[] {
  const groups: Group[] = [];
  let digits = '';
  let start = -1;
  let end = -1;
  let afterPlus = false;
  // Whether the last `+` read parts groups rather than starting a phone number, and whether a raw `+` that parts
  // groups was read since the last letter or digit (form encoding's spaces: `4242++4242`, `4242+-+4242`).
  let plusParts = false;
  let formRun = false;
  // Whether the last character read was a percent-escape: the text around it is percent-encoded.
  let lastEscaped = false;
  // A run right after `digit.` is a decimal fraction (`1.6893190000000686`), not a card number.
  let fraction = false;
  let lastDot = false;
  let beforeLast: Kind = Kind.Other;
  let gap = MAX_GAP + 1;
  let hardSinceLast = true;
  let previous: Kind = Kind.Other;
  // The current word: where its groups start in `groups`, what letters it has, and whether it has the shape of a
  // card number parted by single letters (`4242a4242b4242c4242`: digits first and last, 4-digit groups).
  let inWord = false;
  let wordFirstGroup = -1;
  let wordHex = false;
  let wordLetter = false;
  let wordLetterRun = 0;
  let wordSpaced = true;
  const closeRun = () => {
    if (start < 0) return;
    // A run of more than 19 digits is no card number and no group of one, but it still parts what is around it.
    const long = digits.length > 19;
    const barred = afterPlus || long || (fraction && digits.length > 6);
    groups.push({ digits, start, end, broken: hardSinceLast || gap > MAX_GAP, barred, gap });
    hardSinceLast = long;
    digits = '';
    start = -1;
    gap = 0;
  };
  /** A hex word that is 4-digit groups parted by single letters, 13 digits or more: a card number, not an id. */
  const cardShaped = (endsWithDigit: boolean) => {
    const n = groups.length - wordFirstGroup;
    if (!wordSpaced || !endsWithDigit || n < 4) return false;
    for (let k = wordFirstGroup; k < groups.length - 1; k++) if (groups[k]!.digits.length !== 4) return false;
    return groups[groups.length - 1]!.digits.length <= 4;
  };
  const closeWord = (endsWithDigit: boolean) => {
    closeRun();
    if (wordFirstGroup >= 0 && wordHex && !wordLetter && !cardShaped(endsWithDigit)) {
      for (let k = wordFirstGroup; k < groups.length; k++) groups[k]!.barred = true;
      hardSinceLast = true;
    }
    inWord = false;
    wordFirstGroup = -1;
    wordHex = false;
    wordLetter = false;
    wordLetterRun = 0;
    wordSpaced = true;
  };
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    // Checked for escapes only at a `%`, `&` or `\`: this loop runs once per character of every log line.
    const escaped = escapedAt(text, i, cp, literal);
    const cls = escaped ?? classify(cp);
    const width = escaped ? escaped.width : cp > 0xffff ? 2 : 1;
    i += width;
    if (cls.kind === Kind.Skip) continue;
    if (cls.kind === Kind.Digit) {
      if (start < 0) {
        start = i - width;
        // A phone number's `+` never follows a digit: after one it parts groups (`4242+4242+4242+4242`, a card
        // number as form encoding writes it), and so does a raw one after a letter or in a run of form spaces.
        afterPlus = previous === Kind.Plus && !plusParts;
        fraction = lastDot && beforeLast === Kind.Digit;
        if (wordFirstGroup < 0) wordFirstGroup = groups.length;
      }
      inWord = true;
      formRun = false;
      wordLetterRun = 0;
      // Cap a run's kept digits: past 19 it is barred anyway, and an attacker's megabyte of digits stays cheap.
      if (digits.length < 20) digits += cls.digits;
      end = i;
    } else if (cls.kind === Kind.Hex || cls.kind === Kind.Letter) {
      closeRun();
      // Letters before the word's first digit, or two in a row, are not the single-letter card shape.
      if (!inWord || ++wordLetterRun > 1) wordSpaced = false;
      inWord = true;
      formRun = false;
      if (cls.kind === Kind.Hex) wordHex = true;
      else wordLetter = true;
      gap++;
    } else {
      if (cls.kind === Kind.Plus) {
        // A phone number's `+` follows neither a digit nor a letter: after either it is a space as form encoding
        // writes one (`my+card+is+4242+4242…`), and so is every raw `+` in the same run of separators or right after
        // an escape (`4242%20+4242`: where text is percent-encoded, a literal `+` is `%2B`). An escaped `%2B` is a
        // literal `+`: it parts groups only right after a digit (`4242%2B4242`), else it is a phone's.
        // A character reference's `+` is the decoded text's (`&#43;`): read as a raw one.
        const raw = !escaped?.percent;
        const word = previous === Kind.Digit || previous === Kind.Hex || previous === Kind.Letter;
        plusParts = previous === Kind.Digit || (raw && (word || formRun || lastEscaped));
        if (raw && plusParts) formRun = true;
      }
      closeWord(previous === Kind.Digit);
      // White space parts groups at no cost (`4242         4242`); punctuation counts toward the gap.
      if (cls.kind !== Kind.Space) gap++;
    }
    beforeLast = previous;
    previous = cls.kind;
    // An escaped full stop (`%2E`, `%252E`) is one too: `0%2E4242424242424242` is a fraction, as `0.4242…` is.
    lastDot = escaped ? escaped.stands === '.' : cp === 46;
    lastEscaped = escaped?.percent === true;
  }
  closeWord(previous === Kind.Digit);
  return groups;
}

/** Whether `digits` (ASCII, 13–19 of them) is a card number: a brand's prefix and length, and Luhn. */
export function isCardNumber(digits: string): boolean {
  return startsLikeBrand(digits) && luhnValid(digits);
}

/** Whether ASCII `digits` have the length of a known brand and start like it (13–19 digits; Luhn not checked). */
function startsLikeBrand(digits: string): boolean {
  const n = digits.length;
  if (n < 13 || n > 19) return false;
  // The number's first 1–6 digits as integers, read once (the longest brand prefix has 6).
  let head = 0;
  for (let k = 1; k <= PREFIX_MAX; k++) {
    head = head * 10 + digits.charCodeAt(k - 1) - 48;
    heads[k] = head;
  }
  for (const [size, lo, hi] of PREFIXES[n]!) if (heads[size]! >= lo && heads[size]! <= hi) return true;
  return false;
}

/** The brand prefixes of each length of card number (13–19): how many digits each reads, and its range. */
const PREFIXES: (readonly [number, number, number])[][] = [];
for (let n = 0; n <= 19; n++) PREFIXES.push([]);
for (const brand of BRANDS) {
  for (const p of brand.patterns) {
    const [lo, hi] = typeof p === 'number' ? [p, p] : p;
    for (const n of brand.lengths) if (n <= 19) PREFIXES[n]!.push([String(lo).length, lo, hi]);
  }
}
const PREFIX_MAX = Math.max(...PREFIXES.flat().map(([size]) => size));
const heads: number[] = new Array(PREFIX_MAX + 1).fill(0);

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
  const n = g.digits.length;
  // Every layout starts with a 4-digit group; anything else must be a whole number on its own.
  if (g.barred || (n !== 4 && n < 13)) return undefined;
  if (n >= 13) return isCardNumber(g.digits) ? { first: i, last: i } : undefined;
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

/** The characters other than white space between the groups of `hit`. */
function partedBy(groups: readonly Group[], hit: Hit): number {
  let n = 0;
  for (let k = hit.first + 1; k <= hit.last; k++) n += groups[k]!.gap;
  return n;
}

/**
 * What parts group `k` from the one before, white space and invisible characters left out: `-` in `4242 - 4242`,
 * `` in `4242 4242`. At most {@link MAX_GAP} characters (more part no groups of one number).
 */
function separator(text: string, literal: boolean, groups: readonly Group[], k: number): string {
  let out = '';
  const to = groups[k]!.start;
  for (let i = groups[k - 1]!.end; i < to && out.length <= MAX_GAP * 2; ) {
    const cp = text.codePointAt(i)!;
    const escaped = escapedAt(text, i, cp, literal);
    const cls = escaped ?? classify(cp);
    const width = escaped ? escaped.width : cp > 0xffff ? 2 : 1;
    // An escape is compared as the character it stands for: `%2D` and `%252D` part groups as `-` does.
    if (cls.kind !== Kind.Space && cls.kind !== Kind.Skip) out += escaped ? escaped.stands : text.slice(i, i + width);
    i += width;
  }
  return out;
}

/** Whether the groups of `hit` are all parted alike (`4242-4242-4242-4242`, `4242 4242 4242 4242`). */
function partedAlike(text: string, literal: boolean, groups: readonly Group[], hit: Hit): boolean {
  const first = separator(text, literal, groups, hit.first + 1);
  for (let k = hit.first + 2; k <= hit.last; k++) if (separator(text, literal, groups, k) !== first) return false;
  return true;
}

/**
 * Whether `next`, the reading that starts at the second group of `hit`, is the card number rather than `hit`: its
 * groups are parted alike and those of `hit` are not (`6379 4242-4242-4242-4242`), or both or neither are and its
 * groups are parted by fewer characters other than white space (`6379 card 4242 4242 4242 4242`).
 */
function betterReading(text: string, literal: boolean, groups: readonly Group[], hit: Hit, next: Hit): boolean {
  const alike = partedAlike(text, literal, groups, next);
  if (alike !== partedAlike(text, literal, groups, hit)) return alike;
  return partedBy(groups, next) < partedBy(groups, hit);
}

/**
 * The card numbers in `groups`, left to right, as spans of groups to mask. Two readings may overlap: in
 * `redis :6379 card 4242 4242 4242 4242` the port and the next three groups pass too (`6379424242424242`). A span
 * starts at a reading, or at its second group when the reading that starts there is the better one
 * ({@link betterReading}), so the port is kept; on a tie the earlier one is taken. The span then takes in every
 * reading that starts inside it, however far that one reaches: a reading is never shown more of than its first
 * group (4 digits, part of what a receipt may show), neither in clear after the span (`6379 4242 4242 4242 4242`
 * showed the last group of the second reading, and the mask its third) nor through a chain of readings each
 * giving way to the next (`4242x4111y5555 4248 4242 4244`). Linear: each group is tried as a start once, and the
 * second group of a reading once more.
 */
function* hitsIn(text: string, groups: readonly Group[], literal = false): Generator<Hit> {
  for (let i = 0; i < groups.length; i++) {
    const hit = hitAt(groups, i);
    if (!hit) continue;
    let { first, last } = hit;
    let j = i + 1;
    if (last > first) {
      const next = hitAt(groups, i + 1);
      if (next) {
        if (betterReading(text, literal, groups, hit, next)) first = next.first;
        last = Math.max(last, next.last);
      }
      j = i + 2;
    }
    for (; j <= last; j++) last = Math.max(last, hitAt(groups, j)?.last ?? last);
    yield { first, last };
    i = last;
  }
}

/**
 * Whether `text` is ASCII with fewer than 13 digits, the fewest a card number has: then it holds none, and the scan
 * is skipped (most ids, paths and log fields). Outside ASCII one character may stand for two digits, so even a
 * short text is scanned: `㊷㊷㊷㊷㊷㊷㊷㊷` is 4242 4242 4242 4242 in eight characters. Percent-encoded, each such
 * character's escapes hold at least as many ASCII digits as the digits it stands for (checked over every code point:
 * the fewest is `%DB%B0` for `۰`, and `%E3%8A%B7` for `㊷`), so an escaped card number never has fewer than 13; so do
 * a decimal character reference (`&#2794;`), `\uXXXX` and `%uXXXX` (zero-padded: `\u0AEA`). A hex reference may hold
 * none (`&#xAEA;` is Gujarati `४`, as are the digits 4–9 of three other scripts): text with `#x` is always scanned.
 */
function tooFewDigits(text: string): boolean {
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128) return false;
    if (c >= 48 && c <= 57 && ++digits === 13) return false;
    if (c === 35 && (text.charCodeAt(i + 1) | 32) === 120) return false;
  }
  return true;
}

/**
 * Whether JSON `text` may hold a card number anywhere once parsed (a string, a key, a number, or one split over
 * several values): false when it is ASCII without escapes and has fewer than 13 digits, since then every parsed
 * character is a character of the text (most request bodies: a token, an order reference, an e-mail address).
 * A guard may skip {@link findPan} and {@link jsonNumbersHoldPan} on such text.
 */
export function jsonMayHoldPan(text: string): boolean {
  return text.includes('\\') || !tooFewDigits(text);
}

/** Whether `text` holds a card number, as this module defines one. */
export function containsPan(text: string): boolean {
  if (tooFewDigits(text)) return false;
  ambiguous = false;
  beyond = false;
  const groups = groupsOf(text);
  const maybeLiteral = ambiguous;
  const maybeRaw = beyond;
  if (!hitsIn(text, groups).next().done) return true;
  // A `%` right before digits that read as an escape (`%224242`) may be literal (`%4000 0566 5566 5556`): read so too.
  if (maybeLiteral && !hitsIn(text, groupsOf(text, true), true).next().done) return true;
  return maybeRaw && readRaw(() => !hitsIn(text, groupsOf(text, true), true).next().done);
}

/**
 * `text` with every card number replaced by `mask(digits)` (by default `[card ••••4242]`), separators and all;
 * everything else, ids included, exactly as it was.
 */
export function maskPans(text: string, mask: (digits: string) => string = defaultMask): string {
  return tooFewDigits(text) ? text : maskBoth(text, mask);
}

function maskBoth(text: string, mask: (digits: string) => string): string {
  ambiguous = false;
  beyond = false;
  const groups = groupsOf(text);
  const maybeLiteral = ambiguous;
  const maybeRaw = beyond;
  let found = spansOf(text, groups, false);
  if (maybeRaw)
    found = mergeSpans(
      found,
      readRaw(() => spansOf(text, groupsOf(text, true), true)),
    );
  // A `%` right before digits that read as an escape (`%224242`) may be literal (`%4000 0566 5566 5556`): the text is
  // read so too, and where the two readings' spans overlap they are masked as one (rare: text without such an escape
  // pays nothing more). Both readings are of the text itself, never of the first one's masks, whose digits (the last 4)
  // would join what is left into readings the text does not hold, and differ from one redactor to another.
  return maskSpans(text, maybeLiteral ? mergeSpans(found, spansOf(text, groupsOf(text, true), true)) : found, mask);
}

/** A stretch of text to mask: UTF-16 offsets (end exclusive) and the digits of the groups it covers. */
interface Span {
  start: number;
  end: number;
  digits: string;
  /** The groups it covers (indexes into `groups`), for a merge to take only the digits past another span. */
  groups: readonly Group[];
  first: number;
  last: number;
}

function spansOf(text: string, groups: Group[], literal: boolean): Span[] {
  const spans: Span[] = [];
  for (const { first, last } of hitsIn(text, groups, literal)) {
    let digits = '';
    for (let k = first; k <= last; k++) digits += groups[k]!.digits;
    spans.push({ start: groups[first]!.start, end: groups[last]!.end, digits, groups, first, last });
  }
  return spans;
}

/**
 * The spans of two readings of one text, each list in order, as one list in order: overlapping spans are one, whose
 * digits are the first one's and those of the other's groups past its end. Linear: each group is looked at once.
 */
function mergeSpans(a: readonly Span[], b: readonly Span[]): Span[] {
  const out: Span[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const next = j >= b.length || (i < a.length && a[i]!.start <= b[j]!.start) ? a[i++]! : b[j++]!;
    const current = out[out.length - 1];
    if (!current || next.start >= current.end) {
      out.push({ ...next });
      continue;
    }
    for (let k = next.first; k <= next.last; k++) {
      const g = next.groups[k]!;
      if (g.start >= current.end) current.digits += g.digits;
    }
    current.end = Math.max(current.end, next.end);
  }
  return out;
}

function maskSpans(text: string, spans: readonly Span[], mask: (digits: string) => string): string {
  let out = '';
  let at = 0;
  for (const { start, end, digits } of spans) {
    out += text.slice(at, start) + mask(digits);
    at = end;
  }
  return at === 0 ? text : out + text.slice(at);
}

const defaultMask = (digits: string) => `[card ••••${digits.slice(-4)}]`;

/** Nesting beyond this is refused by the body guards rather than walked. */
export const MAX_DEPTH = 32;

/**
 * Text that is nothing but digits and separators (`"4242 4242"`, `"4242+4242"`, `"4242%204242"`, at most 40 of them):
 * a fragment a card number may be split into. An escape counts as the character it stands for ({@link escapeAt}):
 * the ASCII separators' escapes, once or twice encoded (`%20`, `%2D`, `%2B`, `%2C`, `%2E`, `%2F`, `%09`, `%0A`, `%0D`,
 * `%3A`, `%5F`, `%7C`; `%2520`), and those of UTF-8 white space, invisible characters, dashes and digits that the
 * class holds (`%C2%A0`, `%E2%80%8B`, `%EF%BC%94`). One pass, at most 40 characters read: linear.
 */
const FRAGMENT_CHAR = /^[\p{Nd}\s\p{Pd}._,:|/+\p{Cf}]$/u;

function isFragment(text: string): boolean {
  let n = 0;
  for (let i = 0; i < text.length; n++) {
    if (n === 40) return false;
    const cp = text.codePointAt(i)!;
    const escaped = escapedAt(text, i, cp, false);
    if (escaped) {
      if (escaped.kind !== Kind.Space && !FRAGMENT_CHAR.test(escaped.stands)) return false;
      i += escaped.width;
    } else {
      const width = cp > 0xffff ? 2 : 1;
      if (!FRAGMENT_CHAR.test(text.slice(i, i + width))) return false;
      i += width;
    }
  }
  return n > 0;
}

function fragmentGroups(text: string): Group[] | undefined {
  if (!isFragment(text)) return undefined;
  const groups = groupsOf(text);
  return groups.length > 0 ? groups : undefined;
}

/**
 * The dotted path of the first key or value in `value` that holds a card number (`billingDetails.addressLine1`,
 * `items.0`), `''` for the top level, or undefined when there is none. Numbers are read by their decimal text;
 * a key that holds one is named by its parent's path with `[key]` (never by the key itself, which would echo the
 * number). A number split over neighbouring string values (`{"a":"4242 4242","b":"4242 4242"}`) is found too:
 * strings that are nothing but digit groups are read as one text, in document order, and the path names the last.
 */
export function findPan(value: unknown, { rounded = false }: { rounded?: boolean } = {}): string | undefined {
  const state: WalkState = { fragments: [], hit: undefined, rounded };
  walk(value, '', 0, state);
  return state.hit;
}

interface WalkState {
  fragments: Group[];
  hit: string | undefined;
  /**
   * Whether a number may be one `JSON.parse` rounded, its text gone: then an integer past 2^53 whose digits start like
   * a card brand of that length is read as a card number (see {@link mayBeRoundedPan}).
   */
  rounded: boolean;
}

/**
 * Whether `value` may be a card number of 17–19 digits that `JSON.parse` rounded (past 2^53 a double keeps about 16
 * significant digits, so Luhn can no longer be checked): an integer that is not safe, of 13–19 digits, that starts
 * like a brand with that length. Its leading digits, the card's issuer and most of its account number, are exact.
 * Numbers starting with 1, 7, 8 or 9 (snowflake ids, timestamps in nanoseconds) are no brand's.
 */
export function mayBeRoundedPan(value: number): boolean {
  if (!Number.isInteger(value) || Number.isSafeInteger(value)) return false;
  // Below 1e21 a number's text has no exponent: past that it is no card's length anyway.
  return startsLikeBrand(String(Math.abs(value)));
}

/**
 * Whether a number or bigint a program holds (not JSON text) is a card number: by its decimal digits (of its whole
 * part: its text is one run of digits, so no scan), or, for a number past 2^53, by its leading digits
 * ({@link mayBeRoundedPan}: it may be one `JSON.parse` rounded). What the helper's log redactor masks, as the body
 * guard refuses it (`findPan(…, { rounded: true })`). Constant work: every number of every log line is checked.
 */
export function numberHoldsPan(value: number | bigint): boolean {
  if (typeof value === 'bigint') return isCardNumber(String(value < 0n ? -value : value));
  const whole = Math.trunc(Math.abs(value));
  // Fewer than 13 digits (most numbers: statuses, durations, amounts), or NaN.
  if (!(whole >= 1e12)) return false;
  return isCardNumber(String(whole)) || mayBeRoundedPan(whole);
}

function walk(value: unknown, path: string, depth: number, state: WalkState) {
  if (state.hit !== undefined || depth > MAX_DEPTH) return;
  if (typeof value === 'number' || typeof value === 'bigint') {
    // A number is read whole; numbers never join into a split card number: `[4299, 1999, 2499, 5998]` is a list
    // of prices, not a card (one list in ten would pass Luhn).
    if (containsPan(String(value)) || (state.rounded && typeof value === 'number' && mayBeRoundedPan(value))) {
      state.hit = path;
    }
    state.fragments = [];
    return;
  }
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
      // Written as other body errors write a key (escaped, cut): the path may become an answer's `field`.
      walk(child, fieldPath(path, key), depth + 1, state);
      if (state.hit !== undefined) return;
    }
  }
}

/**
 * Whether a string of JSON text, a key or a value, holds a card number once its escapes are decoded: what
 * {@link findPan} cannot see in the parsed value when `JSON.parse` dropped it, as it drops the value of a key that
 * comes again later in the same object (`{"email":"4242…","email":"a@b.co"}`). Each string is read on its own
 * (strings are not joined into a split card number here: {@link findPan} does that for those the parsed value kept).
 * For text `JSON.parse` accepted. Linear.
 */
export function jsonStringsHoldPan(text: string): boolean {
  return someJsonString(text, (start, end, escaped) => containsPan(jsonStringAt(text, start, end, escaped)));
}

/**
 * Whether JSON text holds, outside its strings, a number of 13–19 digits that is a card number: what
 * `JSON.parse` rounds away (a 19-digit number loses its last digits) and {@link findPan} therefore cannot see.
 * Strings are skipped (they are checked parsed), so a hex id in a string is not read digit by digit. Linear.
 */
export function jsonNumbersHoldPan(text: string): boolean {
  let inString = false;
  let run = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    if (inString) {
      if (c === 92 /* \\ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c >= 48 && c <= 57) {
      run++;
      continue;
    }
    if (run >= 13 && run <= 19 && isCardNumber(text.slice(i - run, i))) return true;
    run = 0;
    if (c === 34) inString = true;
  }
  return false;
}
