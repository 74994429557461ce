import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { otherTransferCoding } from './body-guard.js';

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
 * default is every 30 s, which would let a 1 s timeout run for 30 s): a quarter of the shorter one, 0.1–1 s. Node's
 * own Host check is off (`requireHostHeader: false`): its 400 has no body, so {@link guardServer} makes that check
 * itself and answers in JSON.
 */
export function serverOptions(timeouts: ServerTimeouts = {}): Required<ServerTimeouts> & {
  connectionsCheckingInterval: number;
  requireHostHeader: false;
} {
  const t = resolved(timeouts);
  const shortest = Math.min(...[t.requestTimeout, t.headersTimeout].filter((n) => n > 0), 4_000);
  return {
    ...t,
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(shortest / 4))),
    requireHostHeader: false,
  };
}

/**
 * The JSON body of an answer made before any route sees the request: each server renders it in its own error shape.
 * `field` names the part of the request at fault, when there is one (`Host`, `method`).
 */
export type ClientErrorBody = (
  status: number,
  code: string,
  message: string,
  field?: string,
) => Record<string, unknown>;

const CLIENT_ERRORS: Record<string, readonly [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'headers_too_large', 'the request headers are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'the request did not arrive in time'],
  HPE_HEADERS_TIMEOUT: [408, 'request_timeout', 'the request headers did not arrive in time'],
};

/** Whether a `clientError` is one about HTTP (the parser's `HPE_…`, the request timeout) that an answer can follow. */
function answerable(err: { code?: unknown }): boolean {
  const code = String(err.code);
  return code.startsWith('HPE_') || code === 'ERR_HTTP_REQUEST_TIMEOUT';
}

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
  501: 'Not Implemented',
};

/** {@link writeRaw}, then closes; a socket that can no longer be written is only closed. */
function answerAndClose(socket: Duplex, status: number, body: Record<string, unknown>): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  writeRaw(socket, status, REASONS[status] ?? 'Bad Request', body);
  socket.once('finish', () => socket.destroy());
}

/** How many `Host` field lines a request carries (Node keeps only the first in `req.headers`). */
function hostLines(raw: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') n++;
  }
  return n;
}

/**
 * What is wrong with a request's `Host`, by RFC 9112 §3.2 ("A server MUST respond with a 400 … to any HTTP/1.1
 * request message that lacks a Host header field and to any request message that contains more than one Host header
 * field line or a Host header field with an invalid field value"), as a stable code and a message; undefined when
 * nothing is. An empty `Host` is invalid for an `http(s)` target, except beside an absolute-form target, whose
 * authority replaces it (§3.2.2). An HTTP/1.0 (or 0.9) request may leave it out (docs/decisions/sandbox.md#host-header).
 */
export function hostProblem(req: IncomingMessage): readonly [string, string] | undefined {
  const lines = hostLines(req.rawHeaders);
  if (lines > 1) return ['host_repeated', 'the request carries more than one Host header'];
  if (req.httpVersionMajor < 1 || (req.httpVersionMajor === 1 && req.httpVersionMinor === 0)) return undefined;
  if (lines === 0) return ['host_missing', `an HTTP/${req.httpVersion} request must carry a Host header`];
  if ((req.url ?? '').startsWith('/') && (req.headers.host ?? '').trim() === '') {
    return ['host_missing', `an HTTP/${req.httpVersion} request must name a host in its Host header`];
  }
  return undefined;
}

/** The response a connection is writing or will write next (Node's own field: the queue's head). */
function pendingResponse(socket: Duplex): ServerResponse | undefined {
  return (socket as { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
}

/** Runs `then` once every response queued on `socket` has finished (Node assigns the next one on each `finish`). */
function afterPending(socket: Duplex, then: () => void): void {
  const pending = pendingResponse(socket);
  if (pending === undefined) {
    then();
    return;
  }
  const onFinish = () => {
    pending.off('close', onClose);
    afterPending(socket, then);
  };
  const onClose = () => {
    pending.off('finish', onFinish);
    socket.destroy();
  };
  pending.once('finish', onFinish);
  pending.once('close', onClose);
}

/**
 * RFC 9112 §3.2.2: a request in absolute-form (`GET http://a.example/p HTTP/1.1`) names its authority in the target,
 * and the server "MUST ignore the received Host header field … and instead use the host information of the
 * request-target". So `req.headers.host` becomes the target's, and each server's rules on Host (the demo's loopback
 * names, the sandbox's host prefix) judge the authority the request names. A target that is not an `http:` or
 * `https:` URL with a host, or that carries user info (RFC 9110 §4.2.4), is refused: returns a stable code and a
 * message, or undefined. Origin-form (`/p`) and `*` are left as they are.
 */
export function targetProblem(req: IncomingMessage): readonly [string, string] | undefined {
  const url = req.url ?? '';
  if (url.startsWith('/') || url === '*') return undefined;
  let target: URL | undefined;
  try {
    target = new URL(url);
  } catch {
    target = undefined;
  }
  if (
    target === undefined ||
    (target.protocol !== 'http:' && target.protocol !== 'https:') ||
    target.host === '' ||
    target.username !== '' ||
    target.password !== ''
  ) {
    return ['target_invalid', 'the request target must be a path such as "/charges", or an http(s) URL with a host'];
  }
  req.headers.host = target.host;
  return undefined;
}

/**
 * RFC 9112 §6.1: "A server that receives a request message with a transfer coding it does not understand SHOULD
 * respond with 501". Node decodes `chunked` only and hands on a `gzip, chunked` body as if it were plain, so any
 * other coding is refused here, as a `Content-Encoding` is by the sandbox (docs/decisions/sandbox.md#host-header).
 * Node itself refuses a `Transfer-Encoding` whose last coding is not `chunked`.
 */
export function codingProblem(req: IncomingMessage): readonly [string, string] | undefined {
  return otherTransferCoding(req.headers['transfer-encoding'])
    ? ['transfer_encoding_unsupported', 'the only Transfer-Encoding this server reads is chunked']
    : undefined;
}

/** The first of {@link hostProblem}, {@link codingProblem}, {@link targetProblem}: status, code, message, field. */
function requestProblem(req: IncomingMessage): readonly [number, string, string, string] | undefined {
  const host = hostProblem(req);
  if (host) return [400, host[0], host[1], 'Host'];
  const coding = codingProblem(req);
  if (coding) return [501, coding[0], coding[1], 'Transfer-Encoding'];
  const target = targetProblem(req);
  if (target) return [400, target[0], target[1], 'target'];
  return undefined;
}

/**
 * Applies `timeouts` (over the defaults) to `server` (create it with {@link serverOptions} so they are checked
 * often enough) and answers, with a JSON body from `body` and then closing: Node's own 400/408/431 (`clientError`)
 * and 417 (`checkExpectation`: an `Expect` other than `100-continue`); a missing or repeated `Host`
 * ({@link hostProblem}: 400); a `Transfer-Encoding` other than `chunked` ({@link codingProblem}: 501); a request
 * target that is neither a path nor an http(s) URL ({@link targetProblem}: 400, which also gives an absolute-form
 * request its target's authority as `Host`); and `CONNECT` (501: none of these servers is a proxy, and Node would
 * close the connection without a word). Call it after the request listener is added, and before the first request
 * can arrive (before `listen`, or in the same turn of the event loop as `listen`, which binds later): it puts these
 * checks in front of that listener.
 */
export function guardServer(server: Server, body: ClientErrorBody, timeouts: ServerTimeouts = {}): void {
  const t = resolved(timeouts);
  server.requestTimeout = t.requestTimeout;
  server.headersTimeout = t.headersTimeout;
  server.keepAliveTimeout = t.keepAliveTimeout;
  const refused = new WeakSet<Duplex>();
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // The parser stays broken and reports again on more data: one answer per connection.
    if (refused.has(socket)) return;
    refused.add(socket);
    // Only the parser's errors and the request timeout have someone speaking HTTP to answer: a reset has no one,
    // and an HTTPS server's TLS errors (a handshake that timed out or failed, raised through `clientError` too) come
    // before any HTTP, where an answer would wait for a handshake that never ends and hold the connection for good.
    if (!answerable(err) || !socket.writable) {
      socket.destroy();
      return;
    }
    const answer = () => {
      const [status, code, message] = clientErrorAnswer(err);
      answerAndClose(socket, status, body(status, code, message));
    };
    const pending = pendingResponse(socket);
    if (pending?.req.complete) {
      // The error is in a later pipelined request: the earlier ones, received whole, are answered first and the
      // refusal goes after them, not in place of the first one's answer (which would say a request that ran could
      // not be parsed).
      socket.pause();
      afterPending(socket, answer);
    } else if (pending?.headersSent) {
      // The request at fault is being answered already: there is no place left for another answer.
      socket.destroy();
    } else {
      answer();
    }
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
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const problem = requestProblem(req);
    if (problem === undefined) {
      for (const listener of listeners) listener.call(server, req, res);
      return;
    }
    const [status, code, message, field] = problem;
    const text = JSON.stringify(body(status, code, message, field));
    res.shouldKeepAlive = false;
    res.writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(text),
      Connection: 'close',
    });
    res.end(text);
  });
  // Node answers CONNECT only through this event and, with no listener, closes the connection without an answer.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    // Node took its own error listener off this socket: a reset must not become an uncaught error.
    socket.on('error', () => socket.destroy());
    const message = `${req.method} is not supported: this server is not a proxy`;
    // A CONNECT pipelined after requests still being answered is refused after their answers, as a malformed one is.
    afterPending(socket, () => answerAndClose(socket, 501, body(501, 'method_not_implemented', message, 'method')));
  });
}
