// Character references that text written for another reader holds: HTML's (`&#32;`, `&#x34;`, `&nbsp;`), and
// JavaScript's (`\u0020`, `\xA0`, `escape()`'s `%u00A0`). Read one at a time, for the card-number scan of
// server/common/pan.ts, which decides which of the characters they stand for it reads (docs/decisions/helper.md#helper-pan-guard).
// A leaf module: no import, no regular expression, constant work per call.

/**
 * The named HTML references read: those an HTML encoder writes for the characters the card-number scan reads as a
 * separator (PHP's `htmlentities` writes the Latin-1 and general-punctuation ones, and with `ENT_HTML5` the ASCII
 * punctuation ones; a page's author the spaces). Letters and symbols are left out, as are names of anything else:
 * `&amp;` `&lt;` `&quot;` stay as written. Case-sensitive, as HTML's are, and only with their `;`.
 */
const NAMED = new Map<string, number>([
  // White space.
  ['nbsp', 0xa0],
  ['ensp', 0x2002],
  ['emsp', 0x2003],
  ['numsp', 0x2007],
  ['thinsp', 0x2009],
  ['hairsp', 0x200a],
  ['Tab', 0x09],
  ['NewLine', 0x0a],
  // Invisible.
  ['shy', 0xad],
  ['ZeroWidthSpace', 0x200b],
  ['zwnj', 0x200c],
  ['zwj', 0x200d],
  ['lrm', 0x200e],
  ['rlm', 0x200f],
  ['NoBreak', 0x2060],
  // Punctuation.
  ['hyphen', 0x2010],
  ['dash', 0x2010],
  ['ndash', 0x2013],
  ['mdash', 0x2014],
  ['bull', 0x2022],
  ['middot', 0xb7],
  ['period', 0x2e],
  ['comma', 0x2c],
  ['colon', 0x3a],
  ['lowbar', 0x5f],
  ['sol', 0x2f],
  ['verbar', 0x7c],
]);
/** The longest name in {@link NAMED}: no more letters are read. */
const NAME_MAX = 14;

/**
 * What an HTML numeric reference to 0x80–0x9F stands for (the HTML standard's table, windows-1252): `&#150;` is an
 * en dash in every browser. 0 where the code point is kept.
 */
const C1 = [
  0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017d, 0, 0,
  0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0, 0x017e, 0x0178,
];

/** The value of hex digit `c` (a UTF-16 unit), or -1. */
function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const lower = c | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/** The value of exactly `n` hex digits at `j`, or -1. */
function hexAt(text: string, j: number, n: number): number {
  let v = 0;
  for (let k = 0; k < n; k++) {
    const d = hexDigit(text.charCodeAt(j + k));
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/**
 * How many UTF-16 units ASCII character `code` takes at `j`, written at `level`: as itself (0), percent-encoded
 * (`%26`, 1) or percent-encoded twice (`%2526`, 2); 0 when it is not there.
 */
function syntaxAt(text: string, j: number, code: number, level: number): number {
  if (level === 0) return text.charCodeAt(j) === code ? 1 : 0;
  if (text.charCodeAt(j) !== 37) return 0;
  const at = level === 2 ? j + 2 : j;
  if (level === 2 && (text.charCodeAt(j + 1) !== 50 || text.charCodeAt(j + 2) !== 53)) return 0;
  return hexAt(text, at + 1, 2) === code ? at + 3 - j : 0;
}

/** Packed references: `codePoint * WIDTHS + width` (a code point takes 21 bits, a width up to 31: below 2^53). */
const WIDTHS = 2 ** 31;

/**
 * The code point a numeric reference past U+10FFFF is packed with (`&#4242424242424242`, `&#x110000;`): a browser shows
 * U+FFFD, but no encoder writes one, and its digits are what any other reader of the text sees (a log, a JSON API, a
 * dashboard that shows the note as text). See docs/decisions/helper.md#helper-pan-guard.
 */
export const BEYOND_UNICODE = 0x110000;

/** The code point of a reference {@link referenceAt} packed. */
export function referenceCodePoint(ref: number): number {
  return Math.floor(ref / WIDTHS);
}

/** How many UTF-16 units a reference {@link referenceAt} packed takes. */
export function referenceWidth(ref: number): number {
  return ref % WIDTHS;
}

/**
 * The reference at `i`, packed (read it with {@link referenceCodePoint} and {@link referenceWidth}), or -1 when there
 * is none. What is read:
 * - HTML numeric references, decimal or hex (`&#52;`, `&#x34;`, `&#X34;`), as the HTML standard's numeric character
 *   reference state reads them: every digit up to the first that is none (so any run of leading zeros,
 *   `&#0000000052;`), then the `;` if there is one (`&#52&#50` is `42`, `&#x34 ` is `4 `; `&#524242` is one code
 *   point, U+7FFD2, never `4` and `242`), standing for what a browser decodes them to (`&#150;` an en dash; `&#0;` or
 *   a surrogate U+FFFD; past U+10FFFF {@link BEYOND_UNICODE}, which a browser shows as U+FFFD); the named ones of
 *   {@link NAMED}; and either with their `&` escaped once more, `&amp;#32;`, as an HTML encoder writes text that held
 *   one. A numeric reference's digits are read to their end
 *   whatever their number: linear all the same, since the digits after one `#` are read by the one start before it,
 *   and the scan goes on past them (docs/decisions/helper.md#helper-pan-guard);
 * - JavaScript's `\uXXXX` (a surrogate pair as one character, a lone surrogate itself) and `\xXX`, and `escape()`'s
 *   `%uXXXX`;
 * - each of those with its syntax characters (`& # ; \`) percent-encoded once or twice, as a URL or a form carries
 *   such text (`%26%2332%3B`, `%2526nbsp%253B`, `%5Cu0020`), and `%25uXXXX`.
 * Letters and digits are never escaped by an encoder, so they are read only as written. Anything encoded three
 * times, `\u{…}`, `\\u0020` and a named reference without its `;` are not read.
 */
export function referenceAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 38) return htmlAt(text, i, 0);
  if (c === 92) return scriptAt(text, i, 0);
  if (c !== 37) return -1;
  // `%u00A0`, `%25u00A0`.
  const twice = text.charCodeAt(i + 1) === 50 && text.charCodeAt(i + 2) === 53;
  const u = twice ? i + 3 : i + 1;
  if (text.charCodeAt(u) === 117) return unitsAt(text, i, u - i);
  const level = twice ? 2 : 1;
  if (syntaxAt(text, i, 38, level)) return htmlAt(text, i, level);
  if (syntaxAt(text, i, 92, level)) return scriptAt(text, i, level);
  return -1;
}

function packed(cp: number, width: number): number {
  return width >= WIDTHS ? -1 : cp * WIDTHS + width;
}

/**
 * How many UTF-16 units the syntax of the numeric reference at `i` takes before its first digit (`&#` 2, `&#x` 3,
 * `%26%23` 6, `&amp;#` 6): what a reader of the text itself sees as punctuation before the digits, when the reference
 * is past U+10FFFF ({@link BEYOND_UNICODE}). Call it only where {@link referenceAt} read one.
 */
export function numericPrefixWidth(text: string, i: number): number {
  const twice = text.charCodeAt(i + 1) === 50 && text.charCodeAt(i + 2) === 53;
  const level = text.charCodeAt(i) !== 37 ? 0 : twice ? 2 : 1;
  let j = hashAt(text, i, level);
  j += syntaxAt(text, j, 35, level);
  return ((text.charCodeAt(j) | 32) === 120 ? j + 1 : j) - i;
}

/** Where the `#` (or the name) of the HTML reference at `i` is, past its `&` and an `&amp;`, written at `level`. */
function hashAt(text: string, i: number, level: number): number {
  let j = i + syntaxAt(text, i, 38, level);
  // `&amp;` then the reference: what an encoder writes for text that already held one (once more, not twice more).
  if (text.startsWith('amp', j)) {
    const semi = syntaxAt(text, j + 3, 59, level);
    if (semi) j += 3 + semi;
  }
  return j;
}

/** An HTML reference at `i`, its `&`, `#` and `;` written at `level`. */
function htmlAt(text: string, i: number, level: number): number {
  let j = hashAt(text, i, level);
  const hash = syntaxAt(text, j, 35, level);
  if (!hash) {
    let name = '';
    for (; name.length <= NAME_MAX; j++) {
      const lower = text.charCodeAt(j) | 32;
      if (lower < 97 || lower > 122) break;
      name += text[j];
    }
    const cp = NAMED.get(name);
    const semi = syntaxAt(text, j, 59, level);
    return cp !== undefined && semi ? packed(cp, j + semi - i) : -1;
  }
  j += hash;
  const hex = (text.charCodeAt(j) | 32) === 120;
  if (hex) j++;
  // The HTML standard's numeric character reference state: digits to the first non-digit, the value capped past
  // U+10FFFF (it is U+FFFD whatever more digits follow), then a `;` if there is one; without it the reference ends
  // all the same (a missing-semicolon parse error, decoded by every browser). No digit: `&#` or `&#x` stays as it is.
  const start = j;
  let cp = 0;
  for (; ; j++) {
    const c = text.charCodeAt(j);
    const d = hex ? hexDigit(c) : c >= 48 && c <= 57 ? c - 48 : -1;
    if (d < 0) break;
    if (cp <= 0x10ffff) cp = cp * (hex ? 16 : 10) + d;
  }
  if (j === start) return -1;
  // A percent-encoded reference's `;` may be written as itself: decoded, `%26%2352;` is `&#52;` all the same.
  const semi = syntaxAt(text, j, 59, level) || syntaxAt(text, j, 59, 0);
  // What a browser shows for a reference to nothing: U+FFFD, a symbol; past U+10FFFF it is that too, but marked, for
  // the scan to read its digits as written as well.
  if (cp > 0x10ffff) cp = BEYOND_UNICODE;
  else if (cp === 0 || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
  else if (cp >= 0x80 && cp <= 0x9f) cp = C1[cp - 0x80] || cp;
  return packed(cp, j + semi - i);
}

/** A JavaScript escape at `i` (`\u0020`, `\xA0`), its `\` written at `level`. */
function scriptAt(text: string, i: number, level: number): number {
  const slash = syntaxAt(text, i, 92, level);
  const kind = text.charCodeAt(i + slash);
  if (kind === 117) return unitsAt(text, i, slash);
  if (kind !== 120) return -1;
  const v = hexAt(text, i + slash + 1, 2);
  return v < 0 ? -1 : packed(v, slash + 3);
}

/**
 * A `\uXXXX` or `%uXXXX` at `i` whose prefix (`\`, `%5C`, `%`, `%25`…) takes `prefix` units before its `u`, and the
 * low surrogate after a high one written the same way (`\uD835\uDFD2`, `𝟒`).
 */
function unitsAt(text: string, i: number, prefix: number): number {
  const unit = hexAt(text, i + prefix + 1, 4);
  if (unit < 0) return -1;
  const width = prefix + 5;
  if (unit < 0xd800 || unit > 0xdfff) return packed(unit, width);
  // A lone surrogate is what JavaScript decodes it to: itself, a character of no class (never its digits).
  if (unit > 0xdbff) return packed(unit, width);
  // The low surrogate's prefix must be written as the high one's.
  const next = i + width;
  for (let k = 0; k < prefix; k++) if (text.charCodeAt(next + k) !== text.charCodeAt(i + k)) return packed(unit, width);
  const low = text.charCodeAt(next + prefix) === 117 ? hexAt(text, next + prefix + 1, 4) : -1;
  if (low < 0xdc00 || low > 0xdfff) return packed(unit, width);
  const cp = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
  return packed(cp, width * 2);
}
