import { SandboxError } from './errors.js';

/**
 * `Accept` as a list of media ranges (RFC 9110 §12.5.1), read in one forward pass without regular expressions, so
 * its cost is linear in the header and bounded by {@link MAX_ACCEPT_LENGTH}. Both the core's format negotiation and
 * the Account Services' `schema_version` read it (docs/decisions/sandbox.md#accept-ranges).
 */

/** One media range: type and subtype in lower case, its parameters before `q`, and its weight. */
export interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  /** Media-type parameters by lower-case name, quoted values unquoted; `q` is not one of them. */
  readonly params: Readonly<Record<string, string>>;
  /** The weight, 0 to 1; 0 means "not acceptable". */
  readonly q: number;
}

/** Longest `Accept` read; a longer one is 400 `accept_too_long` (field `Accept`). */
export const MAX_ACCEPT_LENGTH = 4096;

const SPACE = 0x20;
const TAB = 0x09;
const COMMA = 0x2c;
const SEMICOLON = 0x3b;
const SLASH = 0x2f;
const EQUALS = 0x3d;
const DQUOTE = 0x22;
const BACKSLASH = 0x5c;

/** RFC 9110 §5.6.2 tchar. */
function isTchar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x21 ||
    (c >= 0x23 && c <= 0x27) ||
    c === 0x2a ||
    c === 0x2b ||
    c === 0x2d ||
    c === 0x2e ||
    (c >= 0x5e && c <= 0x60) ||
    c === 0x7c ||
    c === 0x7e
  );
}

/**
 * A weight: RFC 9110 §12.4.2's qvalue (`0`, `0.5`, `1.000`), read a little more leniently (a fourth decimal, as the
 * negotiator the sandbox used before read it): a digit, optionally a point and digits, 0 to 1; anything else is no
 * weight and its range is left out.
 */
function qvalue(text: string): number | undefined {
  if (text.length === 0 || text.length > 8) return undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const ok = i === 1 ? c === 0x2e : c >= 0x30 && c <= 0x39;
    if (!ok) return undefined;
  }
  const q = Number(text);
  return q <= 1 ? q : undefined;
}

/**
 * Parses `Accept` into its media ranges, in header order. A range that does not parse (no `/`, a bad character, a
 * `q` that is not a qvalue) is left out, as a range a server cannot understand matches nothing; the rest are kept.
 * Throws a 400 `accept_too_long` beyond {@link MAX_ACCEPT_LENGTH} characters.
 *
 * @example
 * parseAccept('application/json;schema_version=9.9, application/json;schema_version="3.0";q=0.5')
 * // [{type: 'application', subtype: 'json', params: {schema_version: '9.9'}, q: 1},
 * //  {type: 'application', subtype: 'json', params: {schema_version: '3.0'}, q: 0.5}]
 */
export function parseAccept(header: string): MediaRange[] {
  if (header.length > MAX_ACCEPT_LENGTH) {
    throw new SandboxError(400, 'accept_too_long', `Accept must be at most ${MAX_ACCEPT_LENGTH} characters`, {
      field: 'Accept',
    });
  }
  const n = header.length;
  const ranges: MediaRange[] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < n && (header.charCodeAt(i) === SPACE || header.charCodeAt(i) === TAB)) i++;
  };
  const token = () => {
    const start = i;
    while (i < n && isTchar(header.charCodeAt(i))) i++;
    return header.slice(start, i);
  };
  /** Moves past the rest of a range that does not parse, to its comma (quoted strings and all). */
  const skipRange = () => {
    while (i < n && header.charCodeAt(i) !== COMMA) {
      if (header.charCodeAt(i) === DQUOTE) {
        i++;
        while (i < n && header.charCodeAt(i) !== DQUOTE) i += header.charCodeAt(i) === BACKSLASH ? 2 : 1;
      }
      i++;
    }
  };

  while (i < n) {
    skipSpace();
    if (header.charCodeAt(i) === COMMA) {
      i++;
      continue;
    }
    if (i >= n) break;
    const type = token().toLowerCase();
    if (type === '' || header.charCodeAt(i) !== SLASH) {
      skipRange();
      continue;
    }
    i++;
    const subtype = token().toLowerCase();
    if (subtype === '') {
      skipRange();
      continue;
    }
    const params: Record<string, string> = Object.create(null);
    let q = 1;
    let ok = true;
    skipSpace();
    while (ok && i < n && header.charCodeAt(i) === SEMICOLON) {
      i++;
      skipSpace();
      if (i >= n || header.charCodeAt(i) === COMMA || header.charCodeAt(i) === SEMICOLON) continue; // empty
      const name = token().toLowerCase();
      // White space around `=` is not in the grammar, but it is unambiguous: read past it (as the sandbox did).
      skipSpace();
      if (name === '' || header.charCodeAt(i) !== EQUALS) {
        ok = false;
        break;
      }
      i++;
      skipSpace();
      let value: string;
      if (header.charCodeAt(i) === DQUOTE) {
        i++;
        let text = '';
        let closed = false;
        while (i < n) {
          const c = header.charCodeAt(i);
          if (c === DQUOTE) {
            closed = true;
            i++;
            break;
          }
          if (c === BACKSLASH && i + 1 < n) i++;
          text += header[i];
          i++;
        }
        if (!closed) {
          ok = false;
          break;
        }
        value = text;
      } else value = token();
      // RFC 9110 §12.5.1: "process any parameter named q as weight, regardless of parameter ordering".
      if (name === 'q') {
        const weight = qvalue(value);
        if (weight === undefined) ok = false;
        else q = weight;
      } else params[name] = value;
      skipSpace();
    }
    if (ok && (i >= n || header.charCodeAt(i) === COMMA)) ranges.push({ type, subtype, params, q });
    else skipRange();
  }
  return ranges;
}

/** Whether `range` admits a JSON answer: `*\/*`, `application/*`, `application/json`, or a `+json` type. */
export function isJsonRange(range: MediaRange): boolean {
  if (range.type === '*') return range.subtype === '*';
  if (range.subtype.endsWith('+json')) return true;
  return range.type === 'application' && (range.subtype === 'json' || range.subtype === '*');
}
