import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Agent } from 'undici';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';

/** Starts a real sandbox on an ephemeral loopback port. */
export function sandbox(): Promise<RunningSandbox> {
  return startSandbox({ port: 0 });
}

/** Adds a fault over HTTP (`POST /_sandbox/faults`). */
export async function fault(
  sb: RunningSandbox,
  rule: {
    path: string;
    method?: string;
    status?: number;
    retryAfter?: number;
    delayMs?: number;
    reset?: true;
    stallBody?: true;
    count?: number;
    phase?: 'before' | 'after';
  },
): Promise<void> {
  const r = await call(`${sb.url}/_sandbox/faults`, { body: rule });
  if (r.status !== 201) throw new Error(`fault not accepted: ${r.status} ${r.text}`);
}

export interface LoggedRequest {
  method: string;
  path: string;
  status: number;
  auth: string;
  fault?: string;
  requestId: string;
}

/** The sandbox's request log, oldest first, optionally only paths starting with `prefix`. */
export async function requests(sb: RunningSandbox, prefix = ''): Promise<LoggedRequest[]> {
  const r = await call(`${sb.url}/_sandbox/requests?limit=200`);
  return (r.json.data as LoggedRequest[]).filter((e) => e.path.startsWith(prefix)).reverse();
}

/** Resets the sandbox (state, faults, log, clock). */
export async function reset(sb: RunningSandbox): Promise<void> {
  await call(`${sb.url}/_sandbox/reset`, { method: 'POST' });
}

/** Advances the sandbox clock over HTTP. */
export async function advance(sb: RunningSandbox, seconds: number): Promise<void> {
  await call(`${sb.url}/_sandbox/clock/advance`, { body: { seconds } });
}

/** A pino-compatible logger that keeps every line as the JSON text pino would write. */
export function captureLogger() {
  const lines: string[] = [];
  const at = (level: string) => (obj: object, msg?: string) => {
    lines.push(JSON.stringify({ level, ...obj, msg }));
  };
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

/** A fixed-jitter, fast retry policy for tests (no real waiting beyond a few ms). */
export const FAST_RETRY = { retryBaseMs: 1, retryMaxMs: 4 } as const;

/** An undici dispatcher (the clients' `dispatcher` option) that records every request it sends. */
export function recordingDispatcher() {
  const sent: { method: string; path: string; headers: Record<string, string> }[] = [];
  const agent = new Agent();
  const dispatcher = agent.compose((dispatch) => (opts, handler) => {
    const headers: Record<string, string> = {};
    const raw = opts.headers as unknown;
    if (Array.isArray(raw)) {
      for (let i = 0; i + 1 < raw.length; i += 2) headers[String(raw[i]).toLowerCase()] = String(raw[i + 1]);
    } else if (raw && typeof raw === 'object') {
      for (const [k, v] of Object.entries(raw as Record<string, unknown>)) headers[k.toLowerCase()] = String(v);
    }
    sent.push({ method: opts.method, path: opts.path, headers });
    return dispatch(opts, handler);
  });
  return { dispatcher, sent, close: () => agent.close() };
}

/**
 * A bare HTTP server on an ephemeral loopback port, standing in for a broken or hostile provider; `sockets` are its
 * connections, `close` ends them and the server.
 */
export async function bareServer(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createHttpServer(handler);
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sockets,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
