import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback relay in front of a server. */
export interface Relay {
  /** Base URL to use instead of the target's: `http://127.0.0.1:<relay port>`. */
  readonly url: string;
  close(): Promise<void>;
}

/** An answer the relay sends in place of the target's. */
export interface RelayAnswer {
  readonly status: number;
  readonly contentType?: string;
  /** Further headers of the answer. */
  readonly headers?: Record<string, string>;
  readonly body: string;
}

/** What a relay tells of the traffic it passes, and where it steps in. */
export interface RelayHooks {
  /** Each request, by its URL through the relay, before it is passed on. */
  readonly sent?: (url: string, method: string, body: Buffer) => void;
  /** The status of each answer passed back (502 when the target could not be reached). */
  readonly answered?: (url: string, status: number) => void;
  /**
   * Once the target has answered (so it has acted on the request), an answer to send in its place, or undefined to
   * pass the target's on: a gateway that breaks answers, for tests of what a client does with them.
   */
  readonly replace?: (method: string, path: string) => RelayAnswer | undefined;
}

/**
 * Starts a loopback HTTP relay that passes every request to `target` byte for byte (method, path, headers, body)
 * and streams the answer back. The e2e WebKit driver records through it what reached the demo server (classic
 * WebDriver has no network events); helper tests break chosen answers with it. The `Host` header is passed on
 * unchanged, so the target builds its absolute URLs (the 3-D Secure return, the challenge page) for the relay and
 * whoever follows them stays behind it.
 */
export async function startRelay(target: string, hooks: RelayHooks = {}): Promise<Relay> {
  const upstream = new URL(target);
  let base = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = `${base}${req.url}`;
      const method = req.method ?? 'GET';
      hooks.sent?.(url, method, body);
      const forward = request(
        { host: upstream.hostname, port: upstream.port, method, path: req.url, headers: req.headers },
        (answer) => {
          const replaced = hooks.replace?.(method, req.url ?? '/');
          if (replaced) {
            answer.resume();
            hooks.answered?.(url, replaced.status);
            const headers = {
              ...replaced.headers,
              ...(replaced.contentType === undefined ? {} : { 'content-type': replaced.contentType }),
            };
            res.writeHead(replaced.status, headers).end(replaced.body);
            return;
          }
          hooks.answered?.(url, answer.statusCode ?? 0);
          res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
          answer.pipe(res);
        },
      );
      forward.on('error', (error) => {
        hooks.answered?.(url, 502);
        res.writeHead(502, { 'content-type': 'text/plain' }).end(`relay: ${error.message}`);
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
