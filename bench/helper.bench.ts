import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';

/** The slice of autocannon's API this bench uses (the package ships no types). */
interface AutocannonRequest {
  body?: string;
  headers?: Record<string, string>;
}
interface AutocannonResult {
  non2xx: number;
  errors: number;
  requests: { total: number };
  latency: { p50: number; p99: number };
}
type Autocannon = (options: {
  url: string;
  method: string;
  connections: number;
  amount: number;
  headers: Record<string, string>;
  requests: {
    setupRequest(req: AutocannonRequest): AutocannonRequest;
    onResponse?(status: number, body: string): void;
  }[];
}) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/**
 * `POST /charges` through the helper against `POST …/charges/token` straight to the sandbox, in the same run.
 * The sandbox and the helper each run in their own process (as they would in production: the provider is
 * elsewhere), autocannon in this one. Card tokens are single use, so each request takes a fresh one made
 * beforehand. Rounds alternate direct/helper so drift hits both alike; figures are medians over rounds. Latency
 * is taken with one connection, throughput with several. Targets: added p99 latency under 2 ms, helper
 * throughput at least 70% of direct.
 */

const ROUNDS = 4;
const PER_ROUND = 300;
const CONNECTIONS = 8;
/** Requests sent so far, across rounds: a unique idempotency key for each direct charge. */
let sent = 0;

interface Child {
  readonly process: ChildProcess;
  readonly info: Record<string, unknown>;
}

/** Starts `code` in a child Node process (tsx) and waits for the one JSON line it prints. */
async function child(code: string, env: Record<string, string> = {}): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: proc.stdout! });
  const [line] = (await Promise.race([
    once(lines, 'line'),
    once(proc, 'exit').then(([status]) => {
      throw new Error(`bench child exited with ${status}`);
    }),
  ])) as [string];
  return { process: proc, info: JSON.parse(line) };
}

const SANDBOX = `
import { startSandbox } from './server/sandbox/index.js';
const sb = await startSandbox({ port: 0 });
console.log(JSON.stringify({ url: sb.url, ...sb.credentials }));
`;

const HELPER = `
import express from 'express';
import pino from 'pino';
import { tesseraHelper } from './server/helper/index.js';
const app = express();
app.use('/payments', tesseraHelper({
  publicKey: process.env.PK, secretKey: process.env.SK, legacyBaseUrl: process.env.SANDBOX,
  resolveCharge: () => ({ amount: 1999, currency: 'EUR' }),
  rateLimits: { chargesPerIp: false, chargesPerSession: false, declinesPerIp: false, declinesPerSession: false },
  logger: pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false })),
}));
const server = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + server.address().port + '/payments' })));
`;

async function tokens(sandbox: string, publicKey: string, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await fetch(`${sandbox}/api2/v2/tokens/card`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: publicKey },
      body: JSON.stringify({ number: '4242424242424242', expiryMonth: 12, expiryYear: 2030, cvv: '123' }),
    });
    out.push(((await r.json()) as { id: string }).id);
  }
  return out;
}

interface Round {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
}

/** Sends every body once over `connections` connections. */
async function load(
  url: string,
  headers: Record<string, string>,
  bodies: string[],
  connections: number,
): Promise<Round> {
  let next = 0;
  let failure: string | undefined;
  let lastAnswer = 0;
  const started = performance.now();
  const result = await autocannon({
    url,
    method: 'POST',
    connections,
    amount: bodies.length,
    headers: { 'content-type': 'application/json', ...headers },
    requests: [
      {
        onResponse: (status, body) => {
          lastAnswer = performance.now();
          if (status >= 300 && !failure) failure = `${status} ${body.slice(0, 300)}`;
        },
        setupRequest: (req) => {
          const body = bodies[next++ % bodies.length]!;
          return { ...req, body, headers: { ...req.headers, 'idempotency-key': `bench-${++sent}` } };
        },
      },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors; first: ${failure}`);
  }
  // Throughput from the first request to the last answer: autocannon ends a fixed-amount run on a one-second
  // tick, so its own duration and average count whole seconds.
  return {
    rps: result.requests.total / ((lastAnswer - started) / 1000),
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const summary = (rounds: Round[]): Round => ({
  rps: median(rounds.map((x) => x.rps)),
  p50: median(rounds.map((x) => x.p50)),
  p99: median(rounds.map((x) => x.p99)),
});

export async function run(): Promise<string> {
  const sandbox = await child(SANDBOX);
  const { url: sbUrl, publicKey, secretKey } = sandbox.info as Record<string, string>;
  const helper = await child(HELPER, { PK: publicKey!, SK: secretKey!, SANDBOX: sbUrl! });
  const helperUrl = `${helper.info.url as string}/charges`;
  const directUrl = `${sbUrl}/api2/v2/charges/token`;
  const email = 'bench@shop.example';
  const auth = { authorization: secretKey! };
  const directBodies = async (n: number) =>
    (await tokens(sbUrl!, publicKey!, n)).map((cardToken) =>
      JSON.stringify({ cardToken, value: 1999, currency: 'EUR', email }),
    );
  const helperBodies = async (n: number) =>
    (await tokens(sbUrl!, publicKey!, n)).map((cardToken) =>
      JSON.stringify({ cardToken, orderReference: 'order-1', email }),
    );

  /** Alternating rounds so drift hits both sides alike. */
  async function compare(connections: number) {
    const direct: Round[] = [];
    const through: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const d = await directBodies(PER_ROUND);
      const h = await helperBodies(PER_ROUND);
      if (r % 2 === 0) {
        direct.push(await load(directUrl, auth, d, connections));
        through.push(await load(helperUrl, {}, h, connections));
      } else {
        through.push(await load(helperUrl, {}, h, connections));
        direct.push(await load(directUrl, auth, d, connections));
      }
    }
    return { d: summary(direct), h: summary(through) };
  }

  try {
    // Warm-up: JIT, keep-alive pools, the sandbox's first charges.
    await load(directUrl, auth, await directBodies(200), CONNECTIONS);
    await load(helperUrl, {}, await helperBodies(200), CONNECTIONS);
    const latency = await compare(1);
    const throughput = await compare(CONNECTIONS);
    const ratio = throughput.h.rps / throughput.d.rps;
    const added = latency.h.p99 - latency.d.p99;
    const ok = (pass: boolean) => (pass ? 'met' : '**missed**');
    const row = (name: string, x: Round) =>
      `| ${name} | ${x.rps.toFixed(0)} | ${x.p50.toFixed(1)} | ${x.p99.toFixed(1)} |`;
    return `## Helper: POST /charges

\`bench/helper.bench.ts\`: \`POST /charges\` on the helper against \`POST /api2/v2/charges/token\` straight to the
sandbox with the secret key, each charge with a fresh card token made beforehand. The sandbox and the helper run in
processes of their own (the helper with pino logging one line per request to /dev/null and no rate limits; it
validates, calls \`resolveCharge\`, charges through the legacy client and stores the answer), autocannon in a third.
${ROUNDS} alternating rounds of ${PER_ROUND} charges each way and each phase; medians over rounds. Latency is measured
with one connection (the helper's own cost, not queueing), throughput with ${CONNECTIONS}.

| one connection | requests/s | p50 ms | p99 ms |
|---|---|---|---|
${row('direct to sandbox', latency.d)}
${row('through the helper', latency.h)}

| ${CONNECTIONS} connections | requests/s | p50 ms | p99 ms |
|---|---|---|---|
${row('direct to sandbox', throughput.d)}
${row('through the helper', throughput.h)}

| figure | value | target | |
|---|---|---|---|
| added p99 latency (one connection) | ${added.toFixed(1)} ms | < 2 ms | ${ok(added < 2)} |
| helper throughput / direct (${CONNECTIONS} connections) | ${(ratio * 100).toFixed(0)}% | ≥ 70% | ${ok(ratio >= 0.7)} |
`;
  } finally {
    helper.process.kill();
    sandbox.process.kill();
  }
}
