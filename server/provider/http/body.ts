import type { Readable } from 'node:stream';

/**
 * Reads a response body as text, refusing one larger than {@link MAX_RESPONSE_BYTES} so a broken or hostile
 * endpoint cannot fill the process's memory (docs/decisions/provider.md#client-validation). A body with a
 * `Content-Length` (every provider answer seen so far) is refused up front when announced too large, else read in
 * one go (the length frames the body: undici never reads past it); a chunked body is counted as it streams.
 */

/** Largest response body the clients read: 8 MiB, far above any provider object. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** Thrown when a body is over the limit; the core turns it into an InvalidResponseError. */
export class ResponseTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the response body is larger than ${limit} bytes`);
  }
}

/** An undici `request` body: a Node stream with the body mixin's `text()`. */
export type ResponseBody = Readable & { text(): Promise<string> };

/**
 * The body as UTF-8 text. `contentLength` is the response's `Content-Length` header, if any. An aborted request
 * (the attempt's timeout, the caller's signal) destroys the stream, which rejects with the abort reason.
 */
export function readBody(
  body: ResponseBody,
  contentLength: string | undefined,
  limit = MAX_RESPONSE_BYTES,
): Promise<string> {
  if (contentLength !== undefined) {
    if (Number(contentLength) > limit) {
      body.destroy();
      return Promise.reject(new ResponseTooLarge(limit));
    }
    return body.text();
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        fail(new ResponseTooLarge(limit));
        body.destroy();
        return;
      }
      chunks.push(chunk);
    });
    body.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, size).toString('utf8'));
    });
    body.on('error', fail);
    body.on('close', () => fail(new Error('the response body ended early')));
  });
}
