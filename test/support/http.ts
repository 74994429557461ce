import { request } from 'node:http';

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

/**
 * One request over node:http, which lets a test set `Host` and send any bytes (fetch sends the URL's host and
 * refuses some headers); the parsed answer as {@link call} gives it, a repeated header (`Set-Cookie`) kept. Fails when
 * no answer came within `timeoutMs` (default 10 s).
 */
export function callNode(
  url: string,
  init: {
    method?: string;
    /** The request target as sent (`/a/../b`, `*`), instead of the URL's path, which `new URL` normalises. */
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    timeoutMs?: number;
  } = {},
): Promise<Answer> {
  const method = init.method ?? 'GET';
  const options = { method, headers: init.headers, timeout: init.timeoutMs ?? 10_000 };
  return new Promise((resolve, reject) => {
    const req = request(url, init.path === undefined ? options : { ...options, path: init.path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) {
          for (const one of [v ?? []].flat()) headers.append(k, one);
        }
        resolve({ status: res.statusCode ?? 0, headers, text, json });
      });
    });
    req.once('timeout', () => req.destroy(new Error(`${method} ${url.slice(0, 120)}: no answer in time`)));
    req.once('error', reject);
    req.end(init.body);
  });
}
