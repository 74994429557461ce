import type { ClientRedactor } from '../log.js';
import type { HttpConfig } from './options.js';

// What one call through the HTTP core is: a leaf module that the core (transport.ts) and the building of its
// failures (failure.ts) share, so neither imports the other for these types.

/** How a request authenticates: the header value per attempt, and a renewal after a 401. */
export interface Credential {
  /** The `Authorization` value for the next attempt. */
  authorization(signal?: AbortSignal): string | Promise<string>;
  /**
   * Called once after a 401 with the value that was refused; true when a new one is worth a retry. `signal` (the
   * call's) ends the wait for a new one, rejecting with its reason.
   */
  renew?(refused: string, signal?: AbortSignal): boolean | Promise<boolean>;
}

/** One logical call (the core may send it several times). */
export interface Exchange {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly url: string;
  /** `METHOD /path` with tokens masked: for logs and error messages. */
  readonly operation: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** The body before encoding, logged (redacted) when `logBodies` is on. */
  readonly logBody?: unknown;
  readonly credential?: Credential;
  /** Sent in the configured idempotency header; makes a POST/PATCH safe to retry. */
  readonly idempotencyKey?: string;
  /** Decodes a response body (`contentType` may be null). Throws on a body it cannot read. */
  readonly decode: (text: string, contentType: string | null) => unknown;
  readonly signal?: AbortSignal;
  /**
   * The request changes nothing at the provider whatever its method (the OAuth token request): it is safe to retry,
   * and a failure leaves the outcome known, as for a GET.
   */
  readonly effectFree?: boolean;
}

/** Everything the core needs from the client: validated options and the client's redactor. */
export interface HttpContext {
  readonly config: HttpConfig;
  readonly redact: ClientRedactor;
  /** Randomness for jitter (replaceable in tests). */
  readonly random?: () => number;
}
