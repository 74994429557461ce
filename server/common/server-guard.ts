import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Connection limits for the servers Tessera starts (the sandbox and the demo), and JSON bodies for the answers
 * Node gives on its own before any route sees a request (docs/decisions/sandbox.md#server-timeouts).
 */

/** Node's connection timeouts, in milliseconds. */
export interface ServerTimeouts {
  /** Whole request (headers and body) must arrive within this; else 408 and the connection is closed. */
  readonly requestTimeout?: number;
  /** Request headers must arrive within this; else 408. */
  readonly headersTimeout?: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveTimeout?: number;
}

/** The defaults: 30 s for a request, 10 s for its headers, 5 s idle keep-alive. */
export const DEFAULT_SERVER_TIMEOUTS: Required<ServerTimeouts> = {
  requestTimeout: 30_000,
  headersTimeout: 10_000,
  keepAliveTimeout: 5_000,
};

function resolved(timeouts: ServerTimeouts): Required<ServerTimeouts> {
  const t = { ...DEFAULT_SERVER_TIMEOUTS, ...timeouts };
  // Node requires headersTimeout <= requestTimeout (when the latter is set).
  const headersTimeout = t.requestTimeout > 0 ? Math.min(t.headersTimeout, t.requestTimeout) : t.headersTimeout;
  return { ...t, headersTimeout };
}

/**
 * Options for `http.createServer`/`https.createServer`: the timeouts, and how often Node checks them (its own
 * default is every 30 s, which would let a 1 s timeout run for 30 s): a quarter of the shorter one, 0.1–1 s.
 */
export function serverOptions(timeouts: ServerTimeouts = {}): Required<ServerTimeouts> & {
  connectionsCheckingInterval: number;
} {
  const t = resolved(timeouts);
  const shortest = Math.min(...[t.requestTimeout, t.headersTimeout].filter((n) => n > 0), 4_000);
  return { ...t, connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(shortest / 4))) };
}

/** The JSON body of an answer Node makes itself: each server renders it in its own error shape. */
export type ClientErrorBody = (status: number, code: string, message: string) => Record<string, unknown>;

const CLIENT_ERRORS: Record<string, readonly [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'headers_too_large', 'the request headers are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'the request did not arrive in time'],
  HPE_HEADERS_TIMEOUT: [408, 'request_timeout', 'the request headers did not arrive in time'],
};

/** Status, stable code and message for a parser or timeout error Node reports as `clientError`. */
export function clientErrorAnswer(err: { code?: unknown }): readonly [number, string, string] {
  return CLIENT_ERRORS[String(err.code)] ?? [400, 'bad_request', 'the request could not be parsed as HTTP'];
}

/** Writes a whole JSON answer with `Connection: close` on a raw socket. */
function writeRaw(socket: Duplex, status: number, reason: string, body: Record<string, unknown>): void {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
};

/**
 * Applies `timeouts` (over the defaults) to `server` (create it with {@link serverOptions} so they are checked
 * often enough), answers Node's own 400/408/431 (`clientError`) and 417
 * (`checkExpectation`: an `Expect` other than `100-continue`) with a JSON body from `body`, then closes.
 */
export function guardServer(server: Server, body: ClientErrorBody, timeouts: ServerTimeouts = {}): void {
  const t = resolved(timeouts);
  server.requestTimeout = t.requestTimeout;
  server.headersTimeout = t.headersTimeout;
  server.keepAliveTimeout = t.keepAliveTimeout;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A reset or a socket already answered has no one to read an answer.
    const pending = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, code, message] = clientErrorAnswer(err);
    writeRaw(socket, status, REASONS[status] ?? 'Bad Request', body(status, code, message));
    socket.once('finish', () => socket.destroy());
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const text = JSON.stringify(
      body(417, 'expectation_failed', `the expectation ${JSON.stringify(String(req.headers.expect))} is not supported`),
    );
    res.shouldKeepAlive = false;
    res.writeHead(417, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(text),
      Connection: 'close',
    });
    res.end(text);
  });
}
