// JSON text read as text: the string literals and the structure of a body `JSON.parse` accepted, for the checks that
// must see what the parsed value no longer holds (a key that comes again later in the same object, and the value it
// overwrote).
import { fieldSegment } from './field-path.js';

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;

/**
 * Calls `visit` with each token of JSON text `JSON.parse` accepted that the checks below read, in order: a string
 * literal (keys and values; `code` is `"`), from its opening quote to just past its closing one, and whether it holds
 * an escape, or one of `{ } [ ] ,` outside a string (`code` is its character code, `end` is `start + 1`). Stops at,
 * and answers, the first `true`. Linear: each character is read once.
 */
export function someJsonToken(
  text: string,
  visit: (code: number, start: number, end: number, escaped: boolean) => boolean,
): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== QUOTE) {
      if (
        (code === OPEN_BRACE ||
          code === CLOSE_BRACE ||
          code === OPEN_BRACKET ||
          code === CLOSE_BRACKET ||
          code === COMMA) &&
        visit(code, i, i + 1, false)
      ) {
        return true;
      }
      continue;
    }
    const start = i;
    let escaped = false;
    for (i++; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === BACKSLASH) {
        escaped = true;
        i++;
      } else if (c === QUOTE) break;
    }
    if (visit(QUOTE, start, i + 1, escaped)) return true;
  }
  return false;
}

/**
 * Calls `visit` with each string literal of JSON text `JSON.parse` accepted (keys and values), from its opening quote
 * to just past its closing one, and whether it holds an escape; stops at, and answers, the first `true`. Linear: each
 * character is read once.
 */
export function someJsonString(
  text: string,
  visit: (start: number, end: number, escaped: boolean) => boolean,
): boolean {
  return someJsonToken(text, (code, start, end, escaped) => code === QUOTE && visit(start, end, escaped));
}

/** The string literal `text.slice(start, end)` (one {@link someJsonString} found), its escapes decoded. */
export function jsonStringAt(text: string, start: number, end: number, escaped: boolean): string {
  const literal = text.slice(start, end);
  return escaped ? (JSON.parse(literal) as string) : literal.slice(1, -1);
}

/**
 * The path of the first key that comes twice in one object of JSON text `JSON.parse` accepted, at any depth, in the
 * form other body errors name a field (keys through {@link fieldSegment}, array items by their index, joined by `.`:
 * `billingDetails.city`, `items.1.sku`), or undefined when every object's keys are distinct. Keys are compared
 * decoded (`"tok\u0065n"` is `"token"`), as `JSON.parse` reads them. Objects a later duplicate overwrote, which the
 * parsed value no longer holds, are read too (docs/decisions/helper.md#helper-duplicate-keys).
 *
 * One pass over the text whatever its nesting (the parsed value's depth is bounded, not the text's: a value a later
 * key overwrote may nest deeper): a stack with one frame per open object (the set of its keys so far) or array (its
 * item count), each key decoded once and looked up once in its object's set.
 */
export function findDuplicateKey(text: string): string | undefined {
  // One frame per open object or array: its keys so far (`null` for an array), and its current key or item index.
  const keys: (Set<string> | null)[] = [];
  const at: (string | number)[] = [];
  let expectKey = false;
  let found: string | undefined;
  someJsonToken(text, (code, start, end, escaped) => {
    const top = keys.length - 1;
    if (code === QUOTE) {
      if (!expectKey) return false;
      expectKey = false;
      const key = jsonStringAt(text, start, end, escaped);
      const seen = keys[top]!;
      at[top] = key;
      if (!seen.has(key)) {
        seen.add(key);
        return false;
      }
      found = pathOf(at);
      return true;
    }
    if (code === OPEN_BRACE) {
      keys.push(new Set());
      at.push('');
      expectKey = true;
    } else if (code === OPEN_BRACKET) {
      keys.push(null);
      at.push(0);
    } else if (code === COMMA) {
      if (keys[top] === null) at[top] = (at[top] as number) + 1;
      else expectKey = true;
    } else {
      keys.pop();
      at.pop();
      // `{}` opened and closed with no key.
      expectKey = false;
    }
    return false;
  });
  return found;
}

/**
 * Segments of a path {@link findDuplicateKey} names, at most: as deep as a body the helper accepts may nest (its
 * MAX_DEPTH, server/common/pan.ts, which imports this module). Text nested deeper (in a value a later key overwrote)
 * is named by its first segments, `…`, and the repeated key, so the field stays short whatever the text.
 */
const MAX_PATH_SEGMENTS = 32;

/** The dotted path of the frames' current keys and indexes, as {@link findDuplicateKey} names a field. */
function pathOf(at: readonly (string | number)[]): string {
  const named = (segment: string | number) => (typeof segment === 'number' ? String(segment) : fieldSegment(segment));
  if (at.length <= MAX_PATH_SEGMENTS) return at.map(named).join('.');
  return [...at.slice(0, MAX_PATH_SEGMENTS - 2).map(named), '…', named(at.at(-1)!)].join('.');
}
