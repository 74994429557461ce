import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import { FORBIDDEN_KEYS } from '../../common/body-guard.js';
import { fieldSegment } from '../../common/field-path.js';

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
/** The same class, not global: a test of a whole document (one character class, linear). */
const NOT_XML_CHAR_ONE = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

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
        out[k] = toNodes(v);
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
 * Every element name is read with this prefix (`$` cannot start an XML name), and `fromNode` takes it off. The
 * parser itself refuses `__proto__`, `constructor` and `prototype` with an error that names no place, and renames
 * `toString`, `hasOwnProperty` and the like (`<toString>` became the key `__toString`); prefixed, every name reaches
 * `fromNode` as it was written, which refuses the three by their path and keeps the others.
 */
const NAME_MARK = '$';

const parserOptions = (trimValues: boolean) =>
  new XMLParser({
    // Idempotent: the parser applies it twice to some tags (a self-closing one with attributes).
    transformTagName: (name) => (name.startsWith(NAME_MARK) ? name : NAME_MARK + name),
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    textNodeName: '#text',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues,
    processEntities: false,
    htmlEntities: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    isArray: () => false,
    // A second fence behind preScan's depth limit.
    maxNestedTags: XML_MAX_DEPTH + 1,
  });
/** Trims each text value: a reader of answers, lenient about a pretty-printer's whitespace. */
const parser = parserOptions(true);
/** Keeps text exactly as written (XML 1.0 §2.10: all characters are passed to the application). */
const exactParser = parserOptions(false);

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

const PREDEFINED: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&', '&quot;': '"', '&apos;': "'" };

/**
 * Expands the predefined entities and character references of text the parser left as written. Outside CDATA
 * `preScan` has refused every other `&`; what CDATA holds (which the parser merges into the text) is left as it is
 * unless it reads as a reference to a Char. Each alternative is one literal followed by one run of a single class
 * and a `;`, so the pattern is linear.
 */
function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(lt|gt|amp|quot|apos);|&#([0-9]+);|&#x([0-9a-fA-F]+);/g, (m, _n, dec, hex) => {
    if (dec || hex) {
      const digits: string = dec ?? hex;
      const cp = digits.length > 12 ? Number.POSITIVE_INFINITY : Number.parseInt(digits, dec ? 10 : 16);
      return isXmlChar(cp) ? String.fromCodePoint(cp) : m;
    }
    return PREDEFINED[m] ?? m;
  });
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
  preScan(text);
  let doc: Record<string, unknown>;
  try {
    // The parser is lenient; the validator catches unclosed and mismatched tags.
    if (XMLValidator.validate(text) !== true) throw new Error('malformed');
    doc = (options.trim === false ? exactParser : parser).parse(text, true) as Record<string, unknown>;
  } catch {
    throw new XmlCodecError('xml_malformed', 'the body is not well-formed XML');
  }
  // Text around the root (white space, as the validator allows nothing else there) is not data.
  const keys = Object.keys(doc).filter((k) => k !== '#text');
  if (keys.length !== 1 || keys[0] !== NAME_MARK + XML_ROOT) {
    throw new XmlCodecError('xml_root', `the XML root element must be <${XML_ROOT}>`);
  }
  const root = fromNode(doc[NAME_MARK + XML_ROOT], '');
  if (root === null || (typeof root === 'string' && XML_SPACE_ONLY.test(root))) return {};
  if (typeof root !== 'object' || Array.isArray(root)) {
    throw new XmlCodecError('xml_root', `<${XML_ROOT}> must contain one element per field`);
  }
  return root as Record<string, unknown>;
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

/**
 * Structural limits (depth, element and attribute count) and the grossest malformations, checked in one forward pass before
 * the text reaches the parser. Linear in the input by construction: every step moves forward, and the only
 * searches (`indexOf` for a comment's, CDATA section's, processing instruction's or quoted value's end) start
 * where the scan is and never look at a character twice. A regular expression did this before and backtracked
 * cubically on `<a<a<a…` (6 KB held the process for 15 s); see docs/decisions/sandbox.md#xml-mapping.
 */
function preScan(text: string): void {
  const n = text.length;
  if (NOT_XML_CHAR_ONE.test(text)) malformed();
  const checkReferences = referenceChecker(text);
  let depth = 0;
  let elements = 0;
  let attributes = 0;
  let i = text.indexOf('<');
  // Character data runs from the end of one piece of markup to the next `<`: its references are checked there.
  checkReferences(0, i < 0 ? n : i);
  while (i >= 0) {
    const next = text.charCodeAt(i + 1);
    if (next === BANG) {
      // A comment or a CDATA section (a DOCTYPE was refused before); anything else after `<!` is not XML.
      let end: number;
      if (text.startsWith('!--', i + 1)) end = text.indexOf('-->', i + 4) + 3;
      else if (text.startsWith('![CDATA[', i + 1)) end = text.indexOf(']]>', i + 9) + 3;
      else malformed();
      if (end < 3) malformed();
      i = text.indexOf('<', end);
      checkReferences(end, i < 0 ? n : i);
      continue;
    }
    if (next === QUESTION) {
      const end = text.indexOf('?>', i + 2);
      if (end < 0) malformed();
      i = text.indexOf('<', end + 2);
      checkReferences(end + 2, i < 0 ? n : i);
      continue;
    }
    const closing = next === SLASH;
    // To the tag's `>`, over quoted attribute values (which may hold `>` and `/`); `<` cannot appear in a tag.
    let j = closing ? i + 2 : i + 1;
    let gt = -1;
    while (j < n) {
      const c = text.charCodeAt(j);
      if (c === GT) {
        gt = j;
        break;
      }
      if (c === LT) malformed();
      if (c === DQUOTE || c === SQUOTE) {
        // Every attribute has a quoted value (one without is refused by the validator after this scan).
        if (++attributes > XML_MAX_ATTRIBUTES) {
          throw new XmlCodecError('xml_too_many_attributes', `more than ${XML_MAX_ATTRIBUTES} XML attributes`);
        }
        const close = text.indexOf(c === DQUOTE ? '"' : "'", j + 1);
        if (close < 0) malformed();
        checkReferences(j + 1, close);
        j = close + 1;
      } else j++;
    }
    if (gt < 0 || gt === (closing ? i + 2 : i + 1)) malformed();
    if (closing) {
      if (--depth < 0) malformed();
    } else {
      if (++elements > XML_MAX_ELEMENTS) {
        throw new XmlCodecError('xml_too_many_elements', `more than ${XML_MAX_ELEMENTS} XML elements`);
      }
      if (text.charCodeAt(gt - 1) !== SLASH && ++depth > XML_MAX_DEPTH) {
        throw new XmlCodecError('xml_too_deep', `XML nesting deeper than ${XML_MAX_DEPTH}`);
      }
    }
    i = text.indexOf('<', gt + 1);
    checkReferences(gt + 1, i < 0 ? n : i);
  }
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
const SEMICOLON = 0x3b;
const PREDEFINED_NAMES = ['lt;', 'gt;', 'amp;', 'quot;', 'apos;'];

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
 * Refuses, between `from` and `to` (character data or an attribute value), every `&` that does not start a
 * reference a conforming parser accepts without a DTD (XML 1.0 §4.1, §4.6): one of the five predefined entities,
 * or `&#…;` / `&#x…;` whose value is a Char. Undeclared entities (`&foo;`), references out of Unicode
 * (`&#x110000;`, `&#99999999999;`) or to a non-Char (`&#xFFFF;`, `&#0;`) make the document not well-formed. Each
 * character is looked at a bounded number of times: the digits of a reference are read once, and the value stops
 * growing past U+10FFFF.
 */
function referenceChecker(text: string): (from: number, to: number) => void {
  // The next `&` at or after where the last search started: the scan calls this with ever later ranges, so one
  // forward search serves them all (a search per range would read to the end of the text each time: quadratic).
  let amp = -2;
  const nextAmp = (from: number) => {
    if (amp !== -1 && amp < from) amp = text.indexOf('&', from);
    return amp;
  };
  return (from, to) => {
    let p = nextAmp(from);
    while (p >= 0 && p < to) {
      let q = p + 1;
      if (text.charCodeAt(q) === HASH) {
        q++;
        let radix: 10 | 16 = 10;
        if (text.charCodeAt(q) === 0x78 /* x */) {
          radix = 16;
          q++;
        }
        const start = q;
        let value = 0;
        for (let d = digit(text.charCodeAt(q), radix); q < to && d >= 0; d = digit(text.charCodeAt(++q), radix)) {
          if (value <= 0x10ffff) value = value * radix + d;
        }
        if (q === start || q >= to || text.charCodeAt(q) !== SEMICOLON || !isXmlChar(value)) malformed();
      } else {
        const name = PREDEFINED_NAMES.find((e) => text.startsWith(e, q));
        if (name === undefined || q + name.length > to) malformed();
        q += name.length - 1;
      }
      p = nextAmp(q + 1);
    }
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
  if (typeof node !== 'object') return decodeEntities(String(node));
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
        // Attribute values keep their entities (`key="a&amp;b"`) until here, like text does.
        const key = typeof raw === 'string' ? decodeEntities(raw) : undefined;
        if (key === undefined) {
          out.item = fromNode(v, childPath(path, k));
          break;
        }
        checkKey(key, path);
        out[key] = fromNode(item, childPath(path, key));
      }
      continue;
    }
    out[k] = fromNode(v, childPath(path, k));
  }
  if (!hasChild)
    return typeof obj['#text'] === 'string'
      ? decodeEntities(obj['#text'])
      : obj['#text'] === undefined
        ? ''
        : String(obj['#text']);
  return { ...out };
}
