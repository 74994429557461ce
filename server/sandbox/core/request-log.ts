import { maskUrlPans } from '../../common/url-pans.js';
import { maskCardTokenRequest, maskPan, maskValue } from './mask.js';

/** One request as the sandbox remembers it: masked, never with a CVV or a key. */
export interface LoggedRequest {
  readonly requestId: string;
  readonly at: string;
  readonly method: string;
  readonly path: string;
  /** Which kind of credential was presented: never the credential itself. */
  readonly auth: 'none' | 'public_key' | 'secret_key' | 'bearer' | 'unknown';
  status: number;
  durationMs: number;
  requestBody?: unknown;
  responseBody?: unknown;
  fault?: string;
}

/**
 * What the log holds of an exchange. The request body is masked when it is added (a card-token request carries a
 * CVV, which is never kept). The answer is kept as the JSON text the sandbox sent, and parsed and masked only when
 * the log is read: the sandbox never answers with a CVV, and a card number a caller echoed into a field is masked
 * before anyone sees it. Keeping the text, not the object, also freezes the answer as it was sent.
 */
export interface LogRecord {
  readonly entry: Omit<LoggedRequest, 'at'>;
  /** When the request came, on the sandbox clock (formatted when read). */
  readonly atMs: number;
  readonly responseText: string | undefined;
}

/** A bounded ring of recent requests for `GET /_sandbox/requests`. */
export class RequestLog {
  readonly #max: number;
  #records: LogRecord[] = [];
  #start = 0;

  constructor(max = 200) {
    this.#max = max;
  }

  add(entry: Omit<LoggedRequest, 'at'>, atMs: number, responseText?: string): void {
    const record: LogRecord = { entry, atMs, responseText };
    if (this.#records.length < this.#max) {
      this.#records.push(record);
    } else {
      // A ring: overwrite the oldest instead of shifting the array on every request.
      this.#records[this.#start] = record;
      this.#start = (this.#start + 1) % this.#max;
    }
  }

  /** Newest first, masked. */
  list(limit = this.#max): LoggedRequest[] {
    const ordered = [...this.#records.slice(this.#start), ...this.#records.slice(0, this.#start)];
    return ordered.slice(-limit).reverse().map(view);
  }

  clear(): void {
    this.#records = [];
    this.#start = 0;
  }
}

function view({ entry, atMs, responseText }: LogRecord): LoggedRequest {
  const out: LoggedRequest = {
    requestId: entry.requestId,
    at: new Date(atMs).toISOString(),
    method: entry.method,
    path: entry.path,
    auth: entry.auth,
    status: entry.status,
    durationMs: entry.durationMs,
  };
  if (entry.requestBody !== undefined) out.requestBody = entry.requestBody;
  if (responseText !== undefined) out.responseBody = maskValue(parseOrText(responseText));
  else if (entry.responseBody !== undefined) out.responseBody = entry.responseBody;
  if (entry.fault !== undefined) out.fault = entry.fault;
  return out;
}

function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Masks a body for the log (see mask.ts). A card-token request (`path` ends in `/tokens/card`) also loses every
 * 3–4 digit value under a field it does not define.
 */
export function forLog(body: unknown, path = ''): unknown {
  if (body === undefined) return undefined;
  return /\/tokens\/card(?:[?#]|$)/.test(path) ? maskCardTokenRequest(body) : maskValue(body);
}

/**
 * Masks a path (a card number pasted into a URL must not survive either), read as a route reads it: a number
 * written with `%20` between its groups is one too.
 */
export function pathForLog(path: string): string {
  return maskUrlPans(path, maskPan);
}
