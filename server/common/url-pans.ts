import { containsPan, maskPans } from './pan.js';

// Card numbers in URLs, read as a route reads them. Shared by the helper's URL guard, the sandbox's request log
// and the demo's request lines (docs/decisions/helper.md#helper-pan-guard).

/** Runs of well-formed `%XX` escapes: decoded together, so a UTF-8 sequence decodes whole. Linear. */
const ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g;

/**
 * The URL as a route would read it: `+` is a space in a query, and every well-formed `%XX` sequence is decoded
 * even when another one is broken (a broken one must not hide a card number elsewhere in the URL).
 */
export function readableUrl(url: string): string {
  return url.replace(/\+/g, ' ').replace(ESCAPES, (seq) => {
    try {
      return decodeURIComponent(seq);
    } catch {
      return seq;
    }
  });
}

/**
 * `url` as it may be kept in a log: as it is when it holds no card number, else read as a route would read it with
 * every card number masked (`/charges/4242%204242%204242%204242` is a card number a raw-text scan cannot see, the
 * `%20`s putting digits between its groups).
 */
export function maskUrlPans(url: string, mask?: (digits: string) => string): string {
  const readable = readableUrl(url);
  return containsPan(readable) ? maskPans(readable, mask) : url;
}
