import { XMLBuilder, XMLValidator } from 'fast-xml-parser';
import { FORBIDDEN_KEYS } from '../../common/body-guard.js';
import { fieldSegment } from '../../common/field-path.js';
import { setField } from '../../common/own-field.js';

/**
 * The XML mapping of the legacy API (spec: "XML bodies use a root element data
 * with one child element per field"), shared by the sandbox and the client.
 * See docs/decisions/sandbox.md#xml-mapping.
 *
 * - The root element is `<data>`; each field is a child element.
 * - An object is an element with one child per field.
 * - An array is the element repeated once per item: `products: [a, b]` → `<products>…</products><products>…</products>`.
 * - A key that is not a valid XML name (metadata keys may be anything) is written as `<item key="…">value</item>`.
 * - `null` is an empty element with `nil="true"`; `undefined` is left out.
 * - A character XML 1.0 cannot hold (a C0 control, a lone surrogate, U+FFFE/U+FFFF) is written as U+FFFD.
 * - Numbers and booleans are written as text. Reading gives strings back: the reader's schema decides types
 *   (see `coerceFromXml`), because XML itself carries none.
 *
 * Reading refuses a DOCTYPE (so no entity declarations can exist), leaves entities unexpanded apart from the
 * five predefined ones, and limits nesting depth and element count.
 */

export const XML_ROOT = 'data';
export const XML_MAX_DEPTH = 32;
export const XML_MAX_ELEMENTS = 10_000;
/**
 * Attributes in a whole document. The mapping writes at most one per element (`key`, or `nil`); the parser and the
 * validator spend some ten microseconds on each, and more than linear time on many in one tag, so a document of
 * 8 MiB of attributes once held the event loop for a minute.
 */
export const XML_MAX_ATTRIBUTES = 10_000;

/**
 * Why an XML document was refused; `code` is stable. `forbidden_key` (an element or `key` named `__proto__`,
 * `constructor` or `prototype`) comes with `field`, the dotted path of that key as a JSON body would name it
 * (`metadata.constructor`); the other codes are about the whole document.
 */
export class XmlCodecError extends Error {
  readonly code:
    | 'forbidden_key'
    | 'xml_doctype'
    | 'xml_encoding'
    | 'xml_malformed'
    | 'xml_root'
    | 'xml_too_deep'
    | 'xml_too_many_attributes'
    | 'xml_too_many_elements';
  readonly field: string | undefined;
  constructor(code: XmlCodecError['code'], message: string, field?: string) {
    super(message);
    this.code = code;
    this.field = field;
    this.name = 'XmlCodecError';
  }
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * Encoding names read as UTF-8 (lower case), in an XML declaration or a `charset` parameter: UTF-8 itself and
 * US-ASCII, its subset. Any other is refused, never misread (docs/decisions/sandbox.md#xml-encoding).
 */
export const UTF8_ENCODING_NAMES: ReadonlySet<string> = new Set(['utf-8', 'utf8', 'us-ascii']);

/** Encodes a plain object as the legacy API's XML document. */
export function encodeXml(value: Record<string, unknown>): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${builder.build({ [XML_ROOT]: toNodes(value) })}`;
}

type XmlNode = Record<string, unknown> | string;

// Characters outside XML 1.0's Char production (C0 controls but tab/LF/CR, lone surrogates, U+FFFE/U+FFFF).
const NOT_XML_CHAR = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

/** Text XML 1.0 can carry: a character it cannot (even as a reference) becomes U+FFFD, so the document stays well-formed. */
function xmlText(text: string): string {
  return text.replace(NOT_XML_CHAR, '\ufffd');
}

function toNodes(value: unknown): unknown {
  if (value === null) return { '@_nil': 'true' };
  if (Array.isArray(value)) return value.map(toNodes);
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    const items: XmlNode[] = [];
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined) continue;
      if (NAME.test(k) && k !== 'item' && !k.toLowerCase().startsWith('xml')) {
        // An own `__proto__` key (JSON.parse makes them) is written as its element, for the reader to refuse by
        // path as a JSON body's is; assigned, it became `out`'s prototype and the field vanished from the document.
        setField(out, k, toNodes(v));
      } else {
        const node = toNodes(v);
        const key = xmlText(k);
        items.push(
          typeof node === 'object' && node !== null && !Array.isArray(node)
            ? { '@_key': key, ...(node as object) }
            : { '@_key': key, '#text': node as string },
        );
      }
    }
    if (items.length > 0) out.item = items;
    return out;
  }
  return typeof value === 'number' ? plainNumber(value) : xmlText(String(value));
}

/**
 * A number as a plain decimal, never in exponent form (`1e-7` is written `0.0000001`): the reader takes plain
 * decimals only (docs/decisions/sandbox.md#legacy-xml-coercion), so what is written is always read back as the same
 * number. The digits are `String(n)`'s (the shortest that round-trip), only the point moves.
 */
export function plainNumber(n: number): string {
  const s = String(n);
  const e = s.indexOf('e');
  if (e < 0) return s;
  const sign = s.startsWith('-') ? '-' : '';
  const mantissa = s.slice(sign.length, e);
  const dot = mantissa.indexOf('.');
  const digits = dot < 0 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  const point = (dot < 0 ? mantissa.length : dot) + Number(s.slice(e + 1));
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  suppressEmptyNode: true,
  suppressBooleanAttributes: false,
  processEntities: true,
});

/**
 * Every element name is stored with this prefix (`$` cannot start an XML name), and `fromNode` takes it off, so that
 * `__proto__`, `constructor` and `prototype` are refused by their path and `toString` and the like arrive as written.
 * (fast-xml-parser, which built the tree before, refused the first three with an error naming no place and renamed
 * the others.)
 */
const NAME_MARK = '$';

/** XML's white space (§2.3 S): space, tab, CR, LF. */
const XML_SPACE_ONLY = /^[ \t\r\n]*$/;

export interface DecodeXmlOptions {
  /**
   * `true` (the default) trims the text of every element, as a reader of a provider's answers wants; `false` keeps
   * it exactly as written, as the sandbox reads requests, so that `<value> 1999</value>` reaches the schema as
   * `" 1999"`, the same string a JSON body would carry (docs/decisions/sandbox.md#legacy-xml-coercion). Whitespace
   * between elements is never data either way.
   */
  readonly trim?: boolean;
}

/**
 * Decodes the legacy API's XML document into a plain object of strings, nested
 * objects and arrays (an element seen more than once becomes an array). Throws
 * {@link XmlCodecError} for a DOCTYPE, malformed XML, a root other than `<data>`,
 * or a document nested deeper than {@link XML_MAX_DEPTH}.
 */
export function decodeXml(text: string, options: DecodeXmlOptions = {}): Record<string, unknown> {
  if (/<!DOCTYPE/i.test(text) || /<!ENTITY/i.test(text)) {
    throw new XmlCodecError('xml_doctype', 'XML documents with a DOCTYPE or entity declarations are not accepted');
  }
  refuseEncoding(declaredEncoding(text));
  const { skeleton, top } = scan(text, options.trim !== false);
  // The markup's syntax (names, attributes, tags closed in order, one root) is judged by fast-xml-parser's validator,
  // on the document's markup alone: character data, comments and attribute values, which it would read one
  // character at a time, are left out (scan has checked them).
  if (XMLValidator.validate(skeleton) !== true) malformed();
  const keys = Object.keys(top);
  if (keys.length !== 1 || keys[0] !== NAME_MARK + XML_ROOT) {
    throw new XmlCodecError('xml_root', `the XML root element must be <${XML_ROOT}>`);
  }
  const value = fromNode(top[NAME_MARK + XML_ROOT], '');
  if (value === null || (typeof value === 'string' && XML_SPACE_ONLY.test(value))) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new XmlCodecError('xml_root', `<${XML_ROOT}> must contain one element per field`);
  }
  return value as Record<string, unknown>;
}

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const DQUOTE = 0x22;
const SQUOTE = 0x27;

function malformed(): never {
  throw new XmlCodecError('xml_malformed', 'the body is not well-formed XML');
}

/** An element being read: its children by name (`$name`), its text and the two attributes the mapping uses. */
interface Open {
  readonly name: string;
  readonly children: Record<string, unknown>;
  /** The text pieces so far, joined; undefined when there is none. */
  text: string | undefined;
  /**
   * Character data since the last child, CDATA section or processing instruction (comments do not end it), its
   * references expanded; when trimming, without its leading white space and without `gap`.
   */
  piece: string;
  /** When trimming, the white space after the piece's last other character: text only if more of the piece follows. */
  gap: string;
  readonly attributes: Record<string, string> | undefined;
}

/** `\r\n` and a lone `\r` read as `\n` (XML 1.0 §2.11). */
function newlines(s: string): string {
  return s.includes('\r') ? s.replace(/\r\n?/g, '\n') : s;
}

/**
 * XML 1.0's Name production (§2.3, fifth edition). A name ends at XML white space, `/`, `>` or `?>`, never at other
 * characters JavaScript calls white space: fast-xml-parser, which built the tree before, cut names at `\s`, so
 * `<a\u00a0>` (no XML name) was read as `<a>`, and `<a\u1680b>` (a name of three characters) and `a\u1680key="…"`
 * were read as `<a>` and `key`. One character class repeated, so linear.
 */
const NAME_START =
  ':A-Z_a-z\\u00c0-\\u00d6\\u00d8-\\u00f6\\u00f8-\\u02ff\\u0370-\\u037d\\u037f-\\u1fff\\u200c-\\u200d\\u2070-\\u218f\\u2c00-\\u2fef\\u3001-\\ud7ff\\uf900-\\ufdcf\\ufdf0-\\ufffd\\u{10000}-\\u{effff}';
const XML_NAME = new RegExp(`^[${NAME_START}][-.0-9\\u00b7\\u0300-\\u036f\\u203f-\\u2040${NAME_START}]*$`, 'u');

/** Whether `text` from `from` to `to` is XML white space only. */
function spaceOnly(text: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (!isSpace(text.charCodeAt(k))) return false;
  return true;
}

/**
 * Reads the document in one forward pass: checks the structural limits (depth, element and attribute count), every
 * reference and the grossest malformations, builds the tree, and writes the markup's skeleton for the validator.
 * Linear in the input by construction: every step moves forward, and the only searches (`indexOf` for a comment's,
 * CDATA section's, processing instruction's or quoted value's end) start where the scan is and never look at a
 * character twice; text is taken by slices, never a character at a time. A regular expression did the checks before
 * and backtracked cubically on `<a<a<a…` (6 KB held the process for 15 s), and fast-xml-parser's parser, which built
 * the tree, appended each character of text to a string (0.6 s for 4 MiB); see docs/decisions/sandbox.md#xml-mapping
 * and #xml-decoding-speed.
 *
 * The tree is the one fast-xml-parser built with the options used before (`trimValues` as `trim`), for `fromNode` to
 * read, but with references expanded where the text is taken (textReader; CDATA is literal): an element is its text
 * (the pieces between its children, CDATA sections and processing instructions, each trimmed as written when `trim`,
 * then joined), or an object of its children by `$name` (a repeated name an array) with `#text`, and `@_key` (expanded)
 * / `@_nil` (as written) when it has those attributes. `top` holds the elements outside any other (the validator
 * refuses more than one).
 */
function scan(text: string, trim: boolean): { skeleton: string; top: Record<string, unknown> } {
  const n = text.length;
  if (hasNonXmlChar(text)) malformed();
  const readText = textReader(text);
  // Where the document proper starts (after a byte order mark): the only place for an XML declaration.
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  // The next `<` and the next `]]>` at or after where the last search started, for the checks of attribute values and
  // character data: the scan asks with ever later positions, so one forward search serves them all (see
  // forwardSearch).
  const nextLt = forwardSearch(text, '<');
  const nextCdataEnd = forwardSearch(text, ']]>');
  const skeleton: string[] = start === 1 ? ['\ufeff'] : [];
  const stack: Open[] = [];
  const top: Record<string, unknown> = {};
  let elements = 0;
  let attributes = 0;

  const flush = (open: Open) => {
    const { piece } = open;
    open.gap = ''; // trailing white space: no more of the piece follows
    if (piece === '') return;
    open.piece = '';
    open.text = open.text === undefined ? piece : open.text + piece;
  };
  const close = (open: Open) => {
    flush(open);
    const { children, text: t, attributes: a } = open;
    let value: unknown;
    if (t !== undefined && t !== '') children['#text'] = t;
    if (a !== undefined) value = Object.assign(children, a);
    else {
      const keys = Object.keys(children);
      value = keys.length === 0 ? '' : keys.length === 1 && t !== undefined && t !== '' ? t : children;
    }
    const siblings = stack.at(-1)?.children ?? top;
    const key = NAME_MARK + open.name;
    const had = siblings[key];
    if (had === undefined) siblings[key] = value;
    else if (Array.isArray(had)) had.push(value);
    else siblings[key] = [had, value];
  };
  /** Something outside the root that is not markup to the validator: one space keeps its place. */
  const outside = () => {
    if (skeleton.at(-1) !== ' ') skeleton.push(' ');
  };
  /**
   * Character data from `from` to `to`: inside the root, text with its references checked and expanded, in one pass
   * (textReader); outside it, white space only (so no reference either).
   */
  const data = (from: number, to: number) => {
    if (from >= to) return;
    const open = stack.at(-1);
    if (open !== undefined) {
      // `]]>` ends a CDATA section and nothing else: character data may not hold it (XML 1.0 §2.4).
      const cdataEnd = nextCdataEnd(from);
      if (cdataEnd >= 0 && cdataEnd + 3 <= to) malformed();
      if (!trim) {
        open.piece += readText(from, to, true);
        return;
      }
      // The piece is trimmed as written, before its references are expanded (`&#x20;` is text, never trimmed): its
      // leading white space is dropped here, white space after its last other character is held in `gap` until more
      // of the piece follows (after a comment) or dropped when the piece ends. No `&` is white space, so the trimmed
      // parts hold no reference to check.
      let end = to;
      while (end > from && isTrimmed(text.charCodeAt(end - 1))) end--;
      if (end === from) {
        if (open.piece !== '') open.gap += newlines(text.slice(from, to));
        return;
      }
      let begin = from;
      if (open.piece === '') while (isTrimmed(text.charCodeAt(begin))) begin++;
      open.piece += open.gap + readText(begin, end, true);
      open.gap = end < to ? newlines(text.slice(end, to)) : '';
      return;
    }
    for (let k = from; k < to; k++) {
      const c = text.charCodeAt(k);
      if (!isSpace(c) && !(k === 0 && c === 0xfeff)) malformed();
    }
    if (from > 0 || text.charCodeAt(0) !== 0xfeff || to > 1) outside();
  };

  let i = text.indexOf('<');
  data(0, i < 0 ? n : i);
  while (i >= 0) {
    const next = text.charCodeAt(i + 1);
    if (next === BANG) {
      // A comment or a CDATA section (a DOCTYPE was refused before); anything else after `<!` is not XML.
      let end: number;
      const cdata = text.startsWith('![CDATA[', i + 1);
      if (text.startsWith('!--', i + 1)) {
        // A comment ends at its first `--`, which must be its `-->` (XML 1.0 §2.5: `--` may not occur inside one).
        end = text.indexOf('--', i + 4) + 3;
        if (text.charCodeAt(end - 1) !== GT) malformed();
      } else if (cdata) end = text.indexOf(']]>', i + 9) + 3;
      else malformed();
      if (end < 3) malformed();
      const open = stack.at(-1);
      if (open === undefined) {
        // Only comments, processing instructions and white space may stand outside the root (XML 1.0 §2.1 Misc).
        if (cdata) malformed();
        outside();
      } else if (cdata) {
        flush(open);
        // CDATA is literal text (XML 1.0 §2.7): nothing in it is a reference.
        const content = newlines(text.slice(i + 9, end - 3));
        if (content !== '') open.text = open.text === undefined ? content : open.text + content;
      }
      i = text.indexOf('<', end);
      data(end, i < 0 ? n : i);
      continue;
    }
    if (next === QUESTION) {
      // A processing instruction ends at the first `?>` (XML 1.0 §2.6; quotes mean nothing in it).
      const end = text.indexOf('?>', i + 2);
      if (end < 0) malformed();
      const open = stack.at(-1);
      if (open !== undefined) flush(open);
      // Its target is a name, up to white space or the `?>` (§2.6). `xml` in any case is no target: `<?xml` at the very
      // start is the XML declaration (read by declaredEncoding), anywhere else it is not XML. The validator reads the
      // instruction as its target alone, and would miss `<?xml?>` inside an element.
      let t = i + 2;
      while (t < end && !isSpace(text.charCodeAt(t))) t++;
      const target = text.slice(i + 2, t);
      const declaration = i === start && target === 'xml';
      if (!XML_NAME.test(target) || (!declaration && target.toLowerCase() === 'xml')) malformed();
      skeleton.push(declaration ? '<?xml?>' : '<?x?>');
      i = text.indexOf('<', end + 2);
      data(end + 2, i < 0 ? n : i);
      continue;
    }
    const closing = next === SLASH;
    // To the tag's `>`, over quoted attribute values (which may hold `>` and `/`); `<` cannot appear in a tag. The
    // skeleton gets the tag without its attribute values and with each run of white space as its first character.
    let j = closing ? i + 2 : i + 1;
    let nameEnd = -1;
    let gt = -1;
    let copied = i;
    // The last run of characters that are neither white space nor `=`: the name of the attribute whose value follows.
    let tokenStart = -1;
    let tokenEnd = -1;
    let attrs: Record<string, string> | undefined;
    while (j < n) {
      const c = text.charCodeAt(j);
      if (c === GT) {
        gt = j;
        break;
      }
      if (c === LT) malformed();
      if (nameEnd < 0 && (c === SLASH || isSpace(c))) nameEnd = j;
      if (c === DQUOTE || c === SQUOTE) {
        // Every attribute has a quoted value (one without is refused by the validator after this scan).
        if (++attributes > XML_MAX_ATTRIBUTES) {
          throw new XmlCodecError('xml_too_many_attributes', `more than ${XML_MAX_ATTRIBUTES} XML attributes`);
        }
        const quote = text.indexOf(c === DQUOTE ? '"' : "'", j + 1);
        if (quote < 0) malformed();
        // An attribute value cannot hold `<` (XML 1.0 §3.1, AttValue).
        const lt = nextLt(j + 1);
        if (lt >= 0 && lt < quote) malformed();
        const name = tokenStart < 0 ? '' : text.slice(tokenStart, tokenEnd);
        if (name === 'key') {
          // Trimmed as written, then its references expanded (as text is).
          let from = j + 1;
          let to = quote;
          if (trim) {
            while (to > from && isTrimmed(text.charCodeAt(to - 1))) to--;
            while (from < to && isTrimmed(text.charCodeAt(from))) from++;
          }
          attrs ??= {};
          attrs['@_key'] = readText(from, to, true);
        } else {
          // Every other value's references are checked; `nil` is compared as written (`nil="&#116;rue"` is no nil).
          readText(j + 1, quote, false);
          if (name === 'nil') {
            const value = newlines(text.slice(j + 1, quote));
            attrs ??= {};
            attrs['@_nil'] = trim ? value.trim() : value;
          }
        }
        skeleton.push(text.slice(copied, j + 1));
        copied = quote;
        tokenStart = -1;
        j = quote + 1;
      } else if (isSpace(c)) {
        let k = j + 1;
        while (k < n && isSpace(text.charCodeAt(k))) k++;
        if (k > j + 1) {
          skeleton.push(text.slice(copied, j + 1));
          copied = k;
        }
        j = k;
      } else {
        // An attribute name ends at XML white space or `=` only (`a\u1680key` is no `key`; see XML_NAME).
        if (c !== 0x3d /* = */) {
          if (tokenEnd !== j || tokenStart < 0) tokenStart = j;
          tokenEnd = j + 1;
        }
        j++;
      }
    }
    if (gt < 0 || gt === (closing ? i + 2 : i + 1)) malformed();
    skeleton.push(text.slice(copied, gt + 1));
    if (closing) {
      // `</name S?>`, the name of the open element exactly (the validator trims JavaScript's white space off names).
      const end = nameEnd < 0 ? gt : nameEnd;
      const open = stack.pop();
      if (open === undefined || text.slice(i + 2, end) !== open.name || !spaceOnly(text, end, gt)) malformed();
      close(open);
    } else {
      if (++elements > XML_MAX_ELEMENTS) {
        throw new XmlCodecError('xml_too_many_elements', `more than ${XML_MAX_ELEMENTS} XML elements`);
      }
      const parent = stack.at(-1);
      if (parent !== undefined) flush(parent);
      const name = text.slice(i + 1, nameEnd < 0 ? gt : nameEnd);
      if (!XML_NAME.test(name)) malformed();
      const open: Open = { name, children: {}, text: undefined, piece: '', gap: '', attributes: attrs };
      if (text.charCodeAt(gt - 1) === SLASH) close(open);
      else if (stack.push(open) > XML_MAX_DEPTH) {
        throw new XmlCodecError('xml_too_deep', `XML nesting deeper than ${XML_MAX_DEPTH}`);
      }
    }
    i = text.indexOf('<', gt + 1);
    data(gt + 1, i < 0 ? n : i);
  }
  return { skeleton: skeleton.join(''), top };
}

/**
 * A code unit that is not a Char by itself: a C0 control other than tab, LF and CR, U+FFFE, U+FFFF, or a surrogate
 * (a Char only as half of a pair). One character class, no `u` flag: linear, and a fast search of the text.
 */
const NOT_BMP_CHAR = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd]/;

/**
 * Whether `text` holds a character outside XML 1.0's Char production (§2.2): a C0 control other than tab, LF and CR,
 * a lone surrogate, U+FFFE or U+FFFF. The search above finds the first code unit to look at (none in most text, and
 * it reads 4 MiB in a few milliseconds); from there a loop, not the `u` regular expression used before (0.25 s on
 * 4 MiB), tells pairs from lone surrogates.
 */
function hasNonXmlChar(text: string): boolean {
  const first = text.search(NOT_BMP_CHAR);
  if (first < 0) return false;
  for (let k = first; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c >= 0x20 && c < 0xd800) continue;
    if (c < 0x20) {
      if (c !== 0x09 && c !== 0x0a && c !== 0x0d) return true;
    } else if (c >= 0xdc00 && c <= 0xdfff) return true;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const low = text.charCodeAt(k + 1);
      if (!(low >= 0xdc00 && low <= 0xdfff)) return true;
      k++;
    } else if (c === 0xfffe || c === 0xffff) return true;
  }
  return false;
}

function refuseEncoding(encoding: string | undefined): void {
  if (encoding !== undefined && !UTF8_ENCODING_NAMES.has(encoding.toLowerCase())) {
    throw new XmlCodecError(
      'xml_encoding',
      `the XML declaration names the encoding ${JSON.stringify(encoding)}; the document must be UTF-8`,
    );
  }
}

/**
 * Throws `xml_encoding` when the XML declaration at the start of `text` names an encoding other than UTF-8 or
 * US-ASCII; says nothing of anything else (a missing or unreadable declaration is {@link decodeXml}'s to judge). For
 * bytes that are not UTF-8, read as Latin-1: a declaration is ASCII in any ASCII-compatible encoding, so a body that
 * declares `ISO-8859-1` is told so, not merely "not valid UTF-8".
 */
export function checkXmlEncoding(text: string): void {
  let encoding: string | undefined;
  try {
    encoding = declaredEncoding(text);
  } catch {
    return;
  }
  refuseEncoding(encoding);
}

/** XML's white space (§2.3 S). */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

const VERSION_NUM = /^1\.[0-9]+$/;
const ENC_NAME = /^[A-Za-z][A-Za-z0-9._-]*$/;

/**
 * The encoding the document's XML declaration names, or undefined when it names none or there is no declaration.
 * A document that starts with `<?xml` and white space (after a byte order mark, if the caller kept one) starts with
 * an XML declaration, read by XML 1.0 §2.8's XMLDecl: `version`, then optionally `encoding` and `standalone`, in that
 * order, each `name = "value"`; one that does not fit (`<?xml foo?>`, `encoding` before `version`) is
 * `xml_malformed`, so an encoding cannot hide in a declaration the parser would skip. Hand-written and forward-only:
 * the declaration is read once (fast-xml-parser's validator checks none of it).
 */
function declaredEncoding(text: string): string | undefined {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  if (!text.startsWith('<?xml', start)) return undefined;
  const after = text.charCodeAt(start + 5);
  if (!isSpace(after) && after !== QUESTION) return undefined; // another processing instruction (`<?xml-stylesheet`)
  const end = text.indexOf('?>', start + 5);
  if (end < 0) malformed();
  let i = start + 5;
  const space = (): boolean => {
    const from = i;
    while (i < end && isSpace(text.charCodeAt(i))) i++;
    return i > from;
  };
  /** `name Eq quoted-value` at `i`, its value; undefined when `name` is not there. */
  const pseudo = (name: string): string | undefined => {
    if (!text.startsWith(name, i)) return undefined;
    i += name.length;
    space();
    if (text.charCodeAt(i) !== 0x3d /* = */) malformed();
    i++;
    space();
    const quote = text.charCodeAt(i);
    if (quote !== DQUOTE && quote !== SQUOTE) malformed();
    const close = text.indexOf(quote === DQUOTE ? '"' : "'", i + 1);
    if (close < 0 || close > end) malformed();
    const value = text.slice(i + 1, close);
    i = close + 1;
    return value;
  };
  if (!space()) malformed();
  const version = pseudo('version');
  if (version === undefined || !VERSION_NUM.test(version)) malformed();
  let spaced = space();
  let encoding: string | undefined;
  if (spaced && text.startsWith('encoding', i)) {
    encoding = pseudo('encoding');
    if (encoding === undefined || !ENC_NAME.test(encoding)) malformed();
    spaced = space();
  }
  if (spaced && text.startsWith('standalone', i)) {
    const standalone = pseudo('standalone');
    if (standalone !== 'yes' && standalone !== 'no') malformed();
    space();
  }
  if (i !== end) malformed();
  return encoding;
}

const HASH = 0x23;
const AMP = 0x26;
const SEMICOLON = 0x3b;

/** A predefined entity (XML 1.0 §4.6): its name with the `;`, without the `&`, and the code of its character. */
type Entity = readonly [name: string, code: number];
const LT_ENTITY: Entity = ['lt;', 0x3c];
const GT_ENTITY: Entity = ['gt;', 0x3e];
const AMP_ENTITY: Entity = ['amp;', 0x26];
const APOS_ENTITY: Entity = ['apos;', 0x27];
const QUOT_ENTITY: Entity = ['quot;', 0x22];

/** The predefined entity whose name starts at `q` (after a `&`), or undefined. */
function predefinedAt(text: string, q: number): Entity | undefined {
  let entity: Entity;
  switch (text.charCodeAt(q)) {
    case 0x6c /* l */:
      entity = LT_ENTITY;
      break;
    case 0x67 /* g */:
      entity = GT_ENTITY;
      break;
    case 0x71 /* q */:
      entity = QUOT_ENTITY;
      break;
    case 0x61 /* a */:
      entity = text.charCodeAt(q + 1) === 0x6d /* m */ ? AMP_ENTITY : APOS_ENTITY;
      break;
    default:
      return undefined;
  }
  return text.startsWith(entity[0], q) ? entity : undefined;
}

/** XML 1.0's Char production (§2.2): what a character reference may stand for. */
function isXmlChar(cp: number): boolean {
  return (
    cp === 0x9 ||
    cp === 0xa ||
    cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

/** The value of a hex or decimal digit `c` (a char code) in `radix`, or -1. */
function digit(c: number, radix: 10 | 16): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (radix === 16 && c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (radix === 16 && c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/**
 * Reads character data or an attribute value, from `from` to `to`, in one forward pass. Refuses every `&` that does
 * not start a reference a conforming parser accepts without a DTD (XML 1.0 §4.1, §4.6): one of the five predefined
 * entities, or `&#…;` / `&#x…;` whose value is a Char. Undeclared entities (`&foo;`), references out of Unicode
 * (`&#x110000;`, `&#99999999999;`) or to a non-Char (`&#xFFFF;`, `&#0;`) make the document not well-formed. With
 * `keep`, returns the text with every reference expanded and line ends read as `\n` (§2.11; a `&#13;` stays a CR),
 * built from slices of the text between references and the characters they stand for; without, only checks.
 *
 * Each reference is read once, where the text is taken (the scan checked them and the tree expanded them again until
 * 2026-11-26): the digits once, the value no longer growing past U+10FFFF, and one forward search for `&` (and one
 * for CR) serves every call, since the scan calls this with ever later ranges (a search per range would read to the
 * end of the text each time: quadratic).
 */
function textReader(text: string): (from: number, to: number, keep: boolean) => string {
  const nextAmp = forwardSearch(text, '&');
  const nextCr = forwardSearch(text, '\r');
  /** The text from `from` to `to`, which holds no reference, its line ends read as `\n`. */
  const literal = (from: number, to: number): string => {
    const s = text.slice(from, to);
    const cr = nextCr(from);
    return cr >= 0 && cr < to ? newlines(s) : s;
  };
  return (from, to, keep) => {
    let amp = nextAmp(from);
    if (amp < 0 || amp >= to) return keep ? literal(from, to) : '';
    // The expanded text: `out`, then the `used` code units in UNITS. Each reference's character, and each short run of
    // text between references, goes to UNITS, which becomes a string when full or before a long run is added as a
    // slice: a string per reference (the concatenation used before) spent most of 4 MiB of references' time in the
    // collector. A flush never splits a surrogate pair (it happens before a unit or a run that would not fit).
    let out = '';
    let used = 0;
    let done = from;
    do {
      let q = amp + 1;
      let code: number;
      if (text.charCodeAt(q) === HASH) {
        q++;
        let radix: 10 | 16 = 10;
        if (text.charCodeAt(q) === 0x78 /* x */) {
          radix = 16;
          q++;
        }
        const start = q;
        code = 0;
        for (let d = digit(text.charCodeAt(q), radix); q < to && d >= 0; d = digit(text.charCodeAt(++q), radix)) {
          if (code <= 0x10ffff) code = code * radix + d;
        }
        if (q === start || q >= to || text.charCodeAt(q) !== SEMICOLON || !isXmlChar(code)) malformed();
      } else {
        const entity = predefinedAt(text, q);
        if (entity === undefined || q + entity[0].length > to) malformed();
        q += entity[0].length - 1;
        code = entity[1];
      }
      if (keep) {
        const run = amp - done;
        if (run > 0) {
          const cr = nextCr(done);
          if (run > SHORT_RUN || (cr >= 0 && cr < amp)) {
            if (used > 0) out += UTF16.decode(UNITS.subarray(0, used));
            used = 0;
            out += literal(done, amp);
          } else {
            if (used + run > UNITS.length) {
              out += UTF16.decode(UNITS.subarray(0, used));
              used = 0;
            }
            for (let k = done; k < amp; k++) UNITS[used++] = text.charCodeAt(k);
          }
        }
        if (used + 2 > UNITS.length) {
          out += UTF16.decode(UNITS.subarray(0, used));
          used = 0;
        }
        if (code < 0x10000) UNITS[used++] = code;
        else {
          UNITS[used++] = 0xd800 + ((code - 0x10000) >> 10);
          UNITS[used++] = 0xdc00 + ((code - 0x10000) & 0x3ff);
        }
      }
      done = q + 1;
      // References side by side need no search (the forward search, asked later, searches on from where it is asked).
      amp = text.charCodeAt(done) === AMP ? done : nextAmp(done);
    } while (amp >= 0 && amp < to);
    if (!keep) return '';
    if (used > 0) out += UTF16.decode(UNITS.subarray(0, used));
    return done < to ? out + literal(done, to) : out;
  };
}

/**
 * textReader's buffer of expanded text, shared (decoding is synchronous, and a reader empties it before it returns).
 * Text between two references up to SHORT_RUN characters long is copied into it; a longer run is added as a slice.
 */
const UNITS = new Uint16Array(8192);
const SHORT_RUN = 64;
// `ignoreBOM`: a U+FEFF the text holds is text, not a byte order mark to drop.
const UTF16 = new TextDecoder('utf-16le', { ignoreBOM: true });

/**
 * Whether `c` is white space to `String.prototype.trim` (ECMAScript's WhiteSpace and LineTerminator), which trimming
 * text has always meant here (fast-xml-parser trimmed with it).
 */
function isTrimmed(c: number): boolean {
  if (c < 0x80) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * The position of the next `needle` at or after `from`, or -1, for callers that ask with ever later positions: the
 * text is searched again only when the last answer lies before `from`, so the searches together read it once.
 */
function forwardSearch(text: string, needle: string): (from: number) => number {
  let found = -2;
  return (from) => {
    if (found !== -1 && found < from) found = text.indexOf(needle, from);
    return found;
  };
}

/** `path` + `key` as a JSON body's field would read (`metadata.constructor`), the key made safe to show. */
function childPath(path: string, key: string): string {
  const segment = fieldSegment(key);
  return path ? `${path}.${segment}` : segment;
}

/** Refuses a prototype-polluting key as a JSON body's refusal does: `forbidden_key`, naming where it is. */
function checkKey(key: string, path: string): void {
  if (FORBIDDEN_KEYS.has(key)) {
    throw new XmlCodecError('forbidden_key', `the key ${JSON.stringify(key)} is not allowed`, childPath(path, key));
  }
}

/** `node` as plain data; `path` is where it is, for errors (array items get their index, as in JSON). */
function fromNode(node: unknown, path: string): unknown {
  if (Array.isArray(node)) return node.map((n, i) => fromNode(n, childPath(path, String(i))));
  if (node === null || node === undefined) return '';
  // Text and `key` values arrive with their references expanded (by the scan, where it took them).
  if (typeof node !== 'object') return String(node);
  const obj = node as Record<string, unknown>;
  if (obj['@_nil'] === 'true') return null;
  const out: Record<string, unknown> = Object.create(null);
  let hasChild = false;
  for (const [mark, v] of Object.entries(obj)) {
    if (!mark.startsWith(NAME_MARK)) continue; // attributes (`@_…`) and text (`#text`)
    const k = mark.slice(NAME_MARK.length);
    hasChild = true;
    checkKey(k, path);
    if (k === 'item') {
      for (const item of Array.isArray(v) ? v : [v]) {
        const raw = typeof item === 'object' && item !== null ? (item as Record<string, unknown>)['@_key'] : undefined;
        const key = typeof raw === 'string' ? raw : undefined;
        if (key === undefined) {
          out.item = fromNode(v, childPath(path, k));
          break;
        }
        checkKey(key, path);
        setField(out, key, fromNode(item, childPath(path, key)));
      }
      continue;
    }
    setField(out, k, fromNode(v, childPath(path, k)));
  }
  if (!hasChild) return obj['#text'] === undefined ? '' : String(obj['#text']);
  return { ...out };
}
