import { maskText, maskValue } from './mask.js';

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

/** A bounded ring of recent requests for `GET /_sandbox/requests`. */
export class RequestLog {
  readonly #max: number;
  #entries: LoggedRequest[] = [];

  constructor(max = 200) {
    this.#max = max;
  }

  add(entry: LoggedRequest): void {
    this.#entries.push(entry);
    if (this.#entries.length > this.#max) this.#entries.shift();
  }

  /** Newest first. */
  list(limit = this.#max): LoggedRequest[] {
    return this.#entries.slice(-limit).reverse();
  }

  clear(): void {
    this.#entries = [];
  }
}

/** Masks a body for the log (see mask.ts). */
export function forLog(body: unknown): unknown {
  return body === undefined ? undefined : maskValue(body);
}

/** Masks a path (a card number pasted into a URL must not survive either). */
export function pathForLog(path: string): string {
  return maskText(path);
}
