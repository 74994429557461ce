/** A tiny fetch wrapper for tests: real HTTP, parsed answer, no retries, no magic. */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON (untyped on purpose: tests assert its shape). */
  // biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary response shapes
  readonly json: any;
}

export async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown; raw?: string | Buffer } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | Uint8Array<ArrayBuffer> | undefined =
    init.raw === undefined ? undefined : typeof init.raw === 'string' ? init.raw : new Uint8Array(init.raw);
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(url, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}
