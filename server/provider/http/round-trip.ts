import type { Dispatcher } from 'undici';
import { type AnswerBudget, MAX_RESPONSE_BYTES } from './answer-budget.js';
import type { AttemptAbort } from './attempt-abort.js';
import type { ResponseHeaders } from './response.js';

/** A body over the limit: the core turns it into an InvalidResponseError with the answer's status and headers. */
export class ResponseTooLarge extends Error {
  constructor(
    readonly status: number,
    readonly headers: ResponseHeaders,
  ) {
    super(`the response body is larger than ${MAX_RESPONSE_BYTES} bytes`);
  }
}

/**
 * An answer not read because, with it, the client's answers would hold more than its budget: the core turns it into a
 * ResponseBudgetError with the answer's status and headers.
 */
export class ResponseOverBudget extends Error {
  constructor(
    readonly status: number,
    readonly headers: ResponseHeaders,
    readonly limit: number,
  ) {
    super(`the answers this client holds at once would pass its responseBudgetBytes (${limit} bytes)`);
  }
}

/** Where one attempt goes and what it carries (the origin and path are split once per call, not per attempt). */
export interface Outgoing {
  readonly origin: string;
  readonly path: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
}

/** A complete answer: status, headers (lower-case names) and the body as UTF-8 text. */
export interface Answer {
  readonly status: number;
  readonly headers: ResponseHeaders;
  readonly text: string;
}

const BOM = 0xfeff;

/**
 * One HTTP exchange through `dispatcher`, resolved once the whole body is in. Rejects with `stop.reason` when the
 * attempt is stopped (its timeout, the caller's signal), whether waiting for the headers or for the body; with
 * undici's error when the connection fails or a body ends early; with {@link ResponseTooLarge} for a body over
 * {@link MAX_RESPONSE_BYTES}, announced by `Content-Length` (refused before reading) or counted as it streams; with
 * {@link ResponseOverBudget} for an answer that would take the bytes `budget` holds, all the client's answers being
 * read together, past its limit. An announced length is counted when the headers arrive, a chunked body as it
 * streams; whatever ends the exchange gives its bytes back. So neither one broken or hostile endpoint nor many
 * slow answers at once can fill the process's memory (docs/decisions/provider.md#answer-budget). No redirect is
 * followed: a 3xx is an answer like any other. No `Content-Encoding` is decoded (none is asked for): a compressed answer
 * is bytes that are not JSON or XML, never a decompression bomb (docs/decisions/provider.md#answer-encoding).
 *
 * A dispatch handler, not undici's `request`: `request` wraps each answer in a Node stream (a `Readable` with its
 * buffers, events and ticks) that this core only ever read whole (docs/decisions/provider.md#transport).
 */
export function roundTrip(
  dispatcher: Dispatcher,
  out: Outgoing,
  stop: AttemptAbort,
  budget: AnswerBudget,
): Promise<Answer> {
  // Stopped before it began (the caller's signal was already aborted): nothing is sent.
  if (stop.aborted) return Promise.reject(stop.reason);
  return new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let status = 0;
    let headers: ResponseHeaders = {};
    let chunks: Buffer[] = [];
    let size = 0;
    /** The bytes of this answer counted in `budget.held`: its announced length, or what has streamed in. */
    let taken = 0;
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      chunks = [];
      budget.held -= taken;
      taken = 0;
      stop.clear();
      reject(error);
    };
    /** Ends the exchange on our side: undici closes the connection (a body left unread cannot be reused). */
    const cancel = (error: Error) => {
      fail(error);
      controller?.abort(error);
    };
    stop.onAbort(() => cancel(stop.reason as Error));
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        // Started again after a pipelined request ahead of it failed: nothing of an answer is kept.
        chunks = [];
        size = 0;
        budget.held -= taken;
        taken = 0;
        // Stopped while it waited for a connection: it is not sent.
        if (settled) c.abort(new Error('the attempt was stopped before it was sent'));
      },
      onResponseStart(_c, statusCode, responseHeaders) {
        // Settled already (timed out, aborted): a dispatcher that still calls on after `abort()` (an interceptor of
        // the caller's) takes nothing of the budget. 1xx: informational, the answer follows.
        if (settled || statusCode < 200) return;
        status = statusCode;
        headers = responseHeaders as ResponseHeaders;
        const length = headers['content-length'];
        if (typeof length !== 'string') return;
        const announced = Number(length);
        if (announced > MAX_RESPONSE_BYTES) cancel(new ResponseTooLarge(status, headers));
        else if (announced > taken) {
          if (budget.held - taken + announced > budget.limit)
            cancel(new ResponseOverBudget(status, headers, budget.limit));
          else {
            budget.held += announced - taken;
            taken = announced;
          }
        }
      },
      onResponseData(_c, chunk) {
        if (settled) return;
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) {
          cancel(new ResponseTooLarge(status, headers));
          return;
        }
        // Within an announced length nothing more is counted: the common path is one comparison.
        if (size > taken) {
          if (budget.held - taken + size > budget.limit) {
            cancel(new ResponseOverBudget(status, headers, budget.limit));
            return;
          }
          budget.held += size - taken;
          taken = size;
        }
        chunks.push(chunk);
      },
      onResponseEnd() {
        if (settled) return;
        settled = true;
        stop.clear();
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
        chunks = [];
        let text = body.toString('utf8');
        // Given back once the text is made: the core decodes it before any other answer's bytes can arrive.
        budget.held -= taken;
        taken = 0;
        // As the body mixin's text() reads it (WHATWG "UTF-8 decode"): a byte-order mark is not part of the text.
        if (text.charCodeAt(0) === BOM) text = text.slice(1);
        resolve({ status, headers, text });
      },
      onResponseError(_c, error) {
        fail(error);
      },
    };
    try {
      dispatcher.dispatch(
        { origin: out.origin, path: out.path, method: out.method, headers: out.headers, body: out.body ?? null },
        handler,
      );
    } catch (error) {
      fail(error);
    }
  });
}
