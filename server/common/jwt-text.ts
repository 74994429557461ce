/**
 * Finding JWT-shaped text (`eyJ….….…`) in log lines, in time linear in the text.
 *
 * The redactors used the global pattern `\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+` (with `*`
 * last), which restarts at every
 * `eyJ` after a `-` and rescans the rest of the run each time: 64 KB of `eyJ-` took 7 s, and a request path is
 * attacker text. This scan matches the same tokens but never rescans: a failed attempt fails the same way for
 * every later `eyJ` in the same run of token characters, so it jumps past the run.
 */

/** `[A-Za-z0-9_-]`: the characters of a base64url JWT part. */
function tokenChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 95;
}

/** A word character of `\b`: `[A-Za-z0-9_]`. */
function wordChar(c: number): boolean {
  return c !== 45 && tokenChar(c);
}

function runEnd(text: string, i: number): number {
  while (i < text.length && tokenChar(text.charCodeAt(i))) i++;
  return i;
}

/** `text` with every JWT-shaped token replaced by `replacement`. */
export function replaceJwts(text: string, replacement: string): string {
  let out = '';
  let at = 0;
  let from = 0;
  for (;;) {
    const p = text.indexOf('eyJ', from);
    if (p < 0) break;
    if (p > 0 && wordChar(text.charCodeAt(p - 1))) {
      from = p + 1;
      continue;
    }
    const header = runEnd(text, p + 3);
    if (header - (p + 3) < 5 || text.charCodeAt(header) !== 46) {
      from = header;
      continue;
    }
    const payload = runEnd(text, header + 1);
    if (payload - (header + 1) < 5 || text.charCodeAt(payload) !== 46) {
      from = header;
      continue;
    }
    const end = runEnd(text, payload + 1);
    out += text.slice(at, p) + replacement;
    at = from = end;
  }
  return at === 0 ? text : out + text.slice(at);
}
