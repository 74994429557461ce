/**
 * Reads a response body as text, refusing one larger than {@link MAX_RESPONSE_BYTES} so a broken or hostile
 * endpoint cannot fill the process's memory (docs/DECISIONS.md#client-validation). A body with a
 * `Content-Length` (every provider answer seen so far) is read in one go after the length check; a chunked
 * body is counted as it streams.
 */

/** Largest response body the clients read: 8 MiB, far above any provider object. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** Thrown when a body is over the limit; the core turns it into an InvalidResponseError. */
export class ResponseTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the response body is larger than ${limit} bytes`);
  }
}

interface Readable {
  readonly headers: { get(name: string): string | null };
  readonly body: ReadableStream<Uint8Array> | null;
  text(): Promise<string>;
}

export async function readBody(res: Readable, limit = MAX_RESPONSE_BYTES): Promise<string> {
  const length = res.headers.get('content-length');
  if (length !== null) {
    if (Number(length) > limit) {
      await res.body?.cancel().catch(() => {});
      throw new ResponseTooLarge(limit);
    }
    return res.text();
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new ResponseTooLarge(limit);
    }
    text += decoder.decode(value, { stream: true });
  }
}
