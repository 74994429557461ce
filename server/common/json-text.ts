// JSON text read as text: the string literals of a body `JSON.parse` accepted, for the checks that must see what
// the parsed value no longer holds (the value of a key that comes again later in the same object).

/**
 * Calls `visit` with each string literal of JSON text `JSON.parse` accepted (keys and values), from its opening quote
 * to just past its closing one, and whether it holds an escape; stops at, and answers, the first `true`. Linear: each
 * character is read once.
 */
export function someJsonString(
  text: string,
  visit: (start: number, end: number, escaped: boolean) => boolean,
): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) !== 34 /* " */) continue;
    const start = i;
    let escaped = false;
    for (i++; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 92 /* \ */) {
        escaped = true;
        i++;
      } else if (c === 34) break;
    }
    if (visit(start, i + 1, escaped)) return true;
  }
  return false;
}

/** The string literal `text.slice(start, end)` (one {@link someJsonString} found), its escapes decoded. */
export function jsonStringAt(text: string, start: number, end: number, escaped: boolean): string {
  const literal = text.slice(start, end);
  return escaped ? (JSON.parse(literal) as string) : literal.slice(1, -1);
}
