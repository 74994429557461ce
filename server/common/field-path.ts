/** Characters of a key kept as they are, at most. */
const MAX_SEGMENT = 32;

/**
 * A key of untrusted input (a metadata key, any key of a request body) as it may appear in an error's `field` or
 * message: characters that are invisible or can reorder text (C0/C1 controls, zero-width and bidirectional
 * controls, line and paragraph separators, the BOM, tag characters, lone surrogates) and `\` and `"` are written as
 * `\uXXXX` escapes, a long key is cut after 32 characters with `…`, and the empty key is `""`. One pass over the
 * key, no regular expression. Shared by the sandbox's errors, the XML codec (docs/decisions/sandbox.md#error-bodies)
 * and the helper's body errors ({@link fieldPath}, docs/decisions/helper.md#helper-duplicate-keys).
 *
 * @example
 * fieldSegment('a\u202eb') // 'a\\u202Eb'
 */
export function fieldSegment(key: string): string {
  if (key === '') return '""';
  if (key.length <= MAX_SEGMENT && plainAscii(key)) return key;
  let out = '';
  let count = 0;
  for (const ch of key) {
    if (count === MAX_SEGMENT) return `${out}…`;
    count++;
    const cp = ch.codePointAt(0)!;
    out += hidden(cp) ? escapeCodePoint(cp) : ch;
  }
  return out;
}

/**
 * The field of `key` under `path` (a field this wrote, or `''` at the top), as body errors name it: `path.key`, the key
 * through {@link fieldSegment}.
 */
export function fieldPath(path: string, key: string): string {
  const segment = fieldSegment(key);
  return path ? `${path}.${segment}` : segment;
}

/** Printable ASCII without `"` and `\`: the common case, kept as it is without building a new string. */
function plainAscii(key: string): boolean {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

function hidden(cp: number): boolean {
  return (
    cp < 0x20 ||
    (cp >= 0x7f && cp <= 0x9f) ||
    cp === 0x22 || // "
    cp === 0x5c || // \
    cp === 0xad || // soft hyphen
    cp === 0x61c || // Arabic letter mark
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x2028 && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x206f) ||
    (cp >= 0xd800 && cp <= 0xdfff) ||
    cp === 0xfeff ||
    (cp >= 0xfff9 && cp <= 0xfffb) ||
    (cp >= 0xe0000 && cp <= 0xe007f)
  );
}

function escapeCodePoint(cp: number): string {
  const hex = cp.toString(16).toUpperCase();
  return cp > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
}

/**
 * A field that {@link fieldSegment} wrote (one segment, or several joined by `.`) with its escapes read back: the
 * keys as they were sent (a cut key stays cut). For a check of what the keys say, which their escaped form hides: a key
 * sent as `4242\u00204242` (the text of a JavaScript escape, which the card-number guard reads as a space) is written
 * `4242\u005Cu00204242`, which spells nothing (docs/decisions/helper.md#helper-duplicate-keys). One pass, no regular
 * expression.
 */
export function fieldKeys(field: string): string {
  if (!field.includes('\\u')) return field;
  let out = '';
  let i = 0;
  while (i < field.length) {
    const read = field.charCodeAt(i) === 0x5c && field.charCodeAt(i + 1) === 0x75 ? escapeAt(field, i + 2) : undefined;
    if (read) {
      out += String.fromCodePoint(read.cp);
      i = read.end;
    } else {
      out += field[i];
      i++;
    }
  }
  return out;
}

/** The code point of the escape {@link escapeCodePoint} wrote whose hex digits start at `at` (after `\u`), and its end. */
function escapeAt(field: string, at: number): { cp: number; end: number } | undefined {
  const braced = field.charCodeAt(at) === 0x7b; // {
  const start = braced ? at + 1 : at;
  let end = start;
  while (end < field.length && end - start < (braced ? 6 : 4) && isHex(field.charCodeAt(end))) end++;
  if (end === start) return undefined;
  if (braced ? field.charCodeAt(end) !== 0x7d : end - start !== 4) return undefined;
  const cp = Number.parseInt(field.slice(start, end), 16);
  return cp > 0x10ffff ? undefined : { cp, end: braced ? end + 1 : end };
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}
