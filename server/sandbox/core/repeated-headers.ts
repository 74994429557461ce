import type { IncomingMessage } from 'node:http';
import { SandboxError } from './errors.js';

/**
 * Headers that hold one value, by their lower-case names, and as errors name them. Node keeps the first line of a
 * repeated `Content-Type` or `Authorization` and joins two `Idempotency-Key` lines into one key (`a, b`) that neither
 * line named, where a proxy in front may have read the last one. So a request that repeats one of them is refused,
 * as a repeated `Host` is (docs/decisions/sandbox.md#repeated-headers).
 */
const SINGLE_VALUED: ReadonlyMap<string, string> = new Map([
  ['content-type', 'Content-Type'],
  ['authorization', 'Authorization'],
  ['idempotency-key', 'Idempotency-Key'],
]);

/** A 400 `header_repeated` naming the first of {@link SINGLE_VALUED} that `req` sends twice, else undefined. */
export function repeatedHeader(req: IncomingMessage): SandboxError | undefined {
  const lines = req.rawHeaders;
  let seen: Set<string> | undefined;
  // rawHeaders alternates names and values, as sent: one pass, no object of every header per request.
  for (let i = 0; i < lines.length; i += 2) {
    const shown = SINGLE_VALUED.get(lines[i]!.toLowerCase());
    if (shown === undefined) continue;
    if (seen?.has(shown)) return new SandboxError(400, 'header_repeated', `send ${shown} once`, { field: shown });
    seen ??= new Set();
    seen.add(shown);
  }
  return undefined;
}
