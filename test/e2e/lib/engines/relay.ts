import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EngineTraffic } from './driver.js';

/** A recording relay in front of the demo server. */
export interface Relay {
  /** Base URL a browser uses instead of the demo's: `http://127.0.0.1:<relay port>`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts a loopback HTTP relay that passes every request to `target` byte for byte (method, path, headers, body)
 * and streams the answer back, recording each request body in `traffic.sent` and each status in
 * `traffic.answers`. It is for a driver that cannot observe the browser's traffic (classic WebDriver has no
 * network events): what the relay records is exactly what reached the demo server. The `Host` header is passed
 * on unchanged, so the demo builds its absolute URLs (the 3-D Secure return) for the relay and the shopper stays
 * behind it.
 */
export async function startRelay(target: string, traffic: EngineTraffic): Promise<Relay> {
  const upstream = new URL(target);
  let base = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = `${base}${req.url}`;
      traffic.sent.push({ url, method: req.method ?? 'GET', body: body.toString('utf8') });
      const forward = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          traffic.answers.push({ url, status: answer.statusCode ?? 0 });
          res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
          answer.pipe(res);
        },
      );
      forward.on('error', (error) => {
        traffic.answers.push({ url, status: 502 });
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
