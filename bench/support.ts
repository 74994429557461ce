import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';

/**
 * What the benches share: child processes (the sandbox, the helper with either store, the reference proxy), card
 * tokens made beforehand, autocannon's typings, and small statistics. Not a bench itself (no `.bench.ts`).
 * Every server runs the built package (`dist/`, `npm run bench` builds it first), as a merchant's server runs it.
 */

/** The slice of autocannon's API the benches use (the package ships no types). */
export interface CannonRequest {
  method?: string;
  path?: string;
  body?: string;
  headers?: Record<string, string>;
  setupRequest?(req: CannonRequest): CannonRequest;
  onResponse?(status: number, body: string): void;
}
export interface CannonResult {
  non2xx: number;
  errors: number;
  timeouts: number;
  requests: { total: number; average: number };
  latency: { p50: number; p99: number };
}
export type Autocannon = (options: {
  url: string;
  connections: number;
  duration?: number;
  amount?: number;
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  requests?: CannonRequest[];
}) => Promise<CannonResult>;
export const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface Child {
  readonly process: ChildProcess;
  readonly info: Record<string, string>;
}

const running = new Set<ChildProcess>();
// A bench that throws must not leave its servers running.
process.on('exit', () => {
  for (const proc of running) proc.kill('SIGKILL');
});

/** Starts `code` in a child Node process and waits for the one JSON line it prints. */
export async function child(code: string, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<Child> {
  const proc = spawn(process.execPath, [...nodeArgs, '--input-type=module', '-e', code], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  running.add(proc);
  proc.once('exit', () => running.delete(proc));
  const lines = createInterface({ input: proc.stdout! });
  const [line] = (await Promise.race([
    once(lines, 'line'),
    once(proc, 'exit').then(([status]) => {
      throw new Error(`bench child exited with ${status}`);
    }),
  ])) as [string];
  return { process: proc, info: JSON.parse(line) };
}

/** Stops a child and waits for it to exit. */
export async function stop(c: Child | undefined): Promise<void> {
  if (!c || c.process.exitCode !== null || c.process.signalCode !== null) return;
  const exited = once(c.process, 'exit');
  c.process.kill('SIGTERM');
  await exited;
}

/**
 * The sandbox in a process of its own. `SANDBOX_LIMITS` (JSON) raises its store caps for long runs: the soak keeps
 * every charge it made, to check them at the end. `KEEP_ALIVE_MS` (here and in the servers below) sets how long an
 * idle keep-alive connection is kept (Node's default: 5 s).
 */
export const SANDBOX = `
import { startSandbox } from './dist/server/sandbox/index.js';
const limits = process.env.SANDBOX_LIMITS ? JSON.parse(process.env.SANDBOX_LIMITS) : undefined;
const keepAliveTimeout = Number(process.env.KEEP_ALIVE_MS) || undefined;
const sb = await startSandbox({ port: 0, ...(limits ? { limits } : {}), ...(keepAliveTimeout ? { timeouts: { keepAliveTimeout } } : {}) });
console.log(JSON.stringify({ url: sb.url, publicKey: sb.credentials.publicKey, secretKey: sb.credentials.secretKey }));
`;

/**
 * The helper (the built package) in an Express app, pino logging one line per request to /dev/null, rate limits
 * and the startup key check off. Environment: \`REDIS_URL\` for a RedisStore (else a MemoryStore, \`STORE_MAX\`
 * entries at most), \`COUNT_OPEN=1\` to count the requests open at once, \`ORDER_METADATA=1\` to put the order
 * reference into the charge's metadata (the soak finds each charge's order by it). \`GET /bench/stats\` (outside
 * the helper's mount) answers memory (after a full GC when run with --expose-gc) and the most requests open at once
 * since the previous call.
 */
export const HELPER = `
import express from 'express';
import pino from 'pino';
import { MemoryStore, RedisStore, tesseraHelper } from './dist/server/helper/index.js';
const store = process.env.REDIS_URL
  ? new RedisStore({ url: process.env.REDIS_URL })
  : new MemoryStore(process.env.STORE_MAX ? { maxEntries: Number(process.env.STORE_MAX) } : {});
const metadata = process.env.ORDER_METADATA === '1';
const app = express();
let open = 0;
let maxOpen = 0;
if (process.env.COUNT_OPEN === '1') {
  app.use('/payments', (req, res, next) => {
    open++;
    if (open > maxOpen) maxOpen = open;
    res.once('close', () => open--);
    next();
  });
}
app.use('/payments', tesseraHelper({
  publicKey: process.env.PK, secretKey: process.env.SK, legacyBaseUrl: process.env.SANDBOX,
  resolveCharge: (_req, body) => metadata
    ? { amount: 1999, currency: 'EUR', metadata: { order: body.orderReference } }
    : { amount: 1999, currency: 'EUR' },
  rateLimits: { requestsPerIp: false, chargesPerIp: false, chargesPerSession: false, declinesPerIp: false, declinesPerSession: false },
  startupKeyCheck: false,
  store,
  logger: pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false })),
}));
app.get('/bench/stats', (_req, res) => {
  globalThis.gc?.();
  const m = process.memoryUsage();
  res.json({ rss: m.rss, heapUsed: m.heapUsed, maxRss: process.resourceUsage().maxRSS * 1024, maxOpen });
  maxOpen = open;
});
const server = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + server.address().port + '/payments', stats: 'http://127.0.0.1:' + server.address().port + '/bench/stats' })));
if (Number(process.env.KEEP_ALIVE_MS)) server.keepAliveTimeout = Number(process.env.KEEP_ALIVE_MS);
`;

/**
 * The reference: ten lines of Express whose one route forwards the charge to the sandbox with undici and answers
 * three fields, no checks, no logging: the floor of any helper that is an Express router calling the provider.
 */
export const REFERENCE = `
import express from 'express';
import { request } from 'undici';
const app = express();
app.post('/payments/charges', express.json(), async (req, res) => {
  const answer = await request(process.env.SANDBOX + '/api2/v2/charges/token', {
    method: 'POST',
    headers: { authorization: process.env.SK, 'content-type': 'application/json', 'idempotency-key': 'ref-' + req.body.cardToken },
    body: JSON.stringify({ cardToken: req.body.cardToken, value: 1999, currency: 'EUR', email: req.body.email }),
  });
  const charge = await answer.body.json();
  res.status(201).json({ id: charge.id, status: charge.status, responseCode: charge.responseCode });
});
app.get('/bench/stats', (_req, res) => {
  globalThis.gc?.();
  const m = process.memoryUsage();
  res.json({ rss: m.rss, heapUsed: m.heapUsed, maxRss: process.resourceUsage().maxRSS * 1024, maxOpen: 0 });
});
const server = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + server.address().port + '/payments', stats: 'http://127.0.0.1:' + server.address().port + '/bench/stats' })));
if (Number(process.env.KEEP_ALIVE_MS)) server.keepAliveTimeout = Number(process.env.KEEP_ALIVE_MS);
`;

/**
 * The second reference: the bare proxy plus the stack any careful helper carries and ours must (DESIGN.md): helmet's
 * headers, a JSON body parser, a zod check of the body, a request id, a hash of the token as the idempotency key, one
 * store write of the answer and one pino line per request. It measures what the required features cost on their
 * own, so the helper's own overhead can be told from theirs.
 */
export const STACK_REFERENCE = `
import { createHash, randomUUID } from 'node:crypto';
import express from 'express';
import helmet from 'helmet';
import { Redis } from 'ioredis';
import pino from 'pino';
import { request } from 'undici';
import { z } from 'zod';
const log = pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false }));
const schema = z.strictObject({ cardToken: z.string().regex(/^card_tok_[A-Za-z0-9_-]{1,100}$/), orderReference: z.string().max(100), email: z.string().email() });
// With REDIS_URL, the store is Redis: the token is claimed (SET NX PX) before the provider is called and the answer
// stored with the claim given back (SET PX and DEL in one pipeline) after, two round trips, as any helper that lets
// several instances share one store needs at the least.
const redis = process.env.REDIS_URL ? new Redis(process.env.REDIS_URL, { enableAutoPipelining: true, maxRetriesPerRequest: 0 }) : undefined;
const store = new Map();
const app = express();
app.use(helmet());
app.post('/payments/charges', express.json(), async (req, res) => {
  const id = 'hreq_' + randomUUID();
  const body = schema.parse(req.body);
  const key = createHash('sha256').update(body.cardToken).digest('hex');
  if (redis && (await redis.set('claim:' + key, id, 'PX', 30000, 'NX')) !== 'OK') return res.status(409).json({ code: 'in_flight' });
  const answer = await request(process.env.SANDBOX + '/api2/v2/charges/token', {
    method: 'POST',
    headers: { authorization: process.env.SK, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ cardToken: body.cardToken, value: 1999, currency: 'EUR', email: body.email, trackId: body.orderReference }),
  });
  const charge = await answer.body.json();
  const out = { id: charge.id, status: charge.status, responseCode: charge.responseCode };
  if (redis) await redis.pipeline().set('answer:' + key, JSON.stringify(out), 'PX', 86400000).del('claim:' + key).exec();
  else store.set(key, JSON.stringify(out));
  res.setHeader('x-request-id', id);
  res.status(201).json(out);
  log.info({ event: 'tessera.request', id, status: 201, chargeId: charge.id }, 'request');
});
const server = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + server.address().port + '/payments' })));
`;

export const CARD = JSON.stringify({
  number: '4242424242424242',
  expiryMonth: 12,
  expiryYear: new Date().getUTCFullYear() + 4,
  cvv: '123',
});

/** `n` fresh card tokens from the sandbox at `url`, made with autocannon (fast enough not to dominate a run). */
export async function cardTokens(url: string, publicKey: string, n: number): Promise<string[]> {
  const out: string[] = [];
  await autocannon({
    url: `${url}/api2/v2/tokens/card`,
    connections: 4,
    amount: n,
    requests: [
      {
        method: 'POST',
        body: CARD,
        headers: { authorization: publicKey, 'content-type': 'application/json' },
        onResponse: (status, body) => {
          if (status === 200) out.push((JSON.parse(body) as { id: string }).id);
        },
      },
    ],
  });
  if (out.length !== n) throw new Error(`made ${out.length} card tokens of ${n}`);
  return out;
}

/** A sandbox control (`/_sandbox/…`): GET, or a JSON body (`{}` when none); fails loudly on anything but 2xx. */
export async function control(url: string, path: string, body: unknown, method = 'POST'): Promise<unknown> {
  const answer = await fetch(
    `${url}${path}`,
    method === 'GET'
      ? {}
      : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) },
  );
  const text = await answer.text();
  if (!answer.ok) throw new Error(`${method} ${path}: ${answer.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

export interface HelperStats {
  readonly rss: number;
  readonly heapUsed: number;
  readonly maxRss: number;
  readonly maxOpen: number;
}

export async function helperStats(helper: Child): Promise<HelperStats> {
  return (await (await fetch(helper.info.stats!)).json()) as HelperStats;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The p-th percentile (nearest rank) of ascending `sorted`. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** CPU seconds (user + system) process `pid` has used, from /proc (Linux): NaN where there is none. */
export function cpuSeconds(pid: number): number {
  try {
    // Fields after the command name's closing parenthesis; utime and stime are the 14th and 15th of the line.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * How many times the kernel's listen queues overflowed so far, all sockets together (Linux /proc; NaN elsewhere):
 * a connection that meets a full queue waits for the client's SYN retransmit, one second or more.
 */
export function listenOverflows(): number {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('TcpExt:'));
    const names = lines[0]!.split(' ');
    return Number(lines[1]!.split(' ')[names.indexOf('ListenOverflows')]);
  } catch {
    return Number.NaN;
  }
}

export const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

export const verdict = (pass: boolean) => (pass ? 'met' : '**missed**');
