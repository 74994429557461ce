import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';

/**
 * `POST /charges` through the helper against `POST …/charges/token` straight to the sandbox, in the same run.
 * The sandbox and the helper each run in their own process (as they would in production: the provider is
 * elsewhere), the load in this one. Card tokens are single use, so each request takes a fresh one made beforehand.
 *
 * - Latency: one request at a time, timed here to the microsecond (autocannon's histogram counts whole
 *   milliseconds, too coarse for a 2 ms target); blocks alternate direct/helper so drift hits both alike.
 * - Throughput: autocannon with several connections, rounds alternating, medians over rounds.
 * - Reference: a ten-line Express app whose one route forwards the charge to the sandbox with undici and answers
 *   three fields, no checks, no logging: the floor of any helper that is an Express router calling the provider
 *   over HTTP, measured the same way.
 *
 * Targets: added p99 latency under 2 ms, helper throughput at least 70% of direct.
 */

/** The slice of autocannon's API this bench uses (the package ships no types). */
interface AutocannonRequest {
  method?: string;
  path?: string;
  body?: string;
  headers?: Record<string, string>;
}
interface AutocannonResult {
  non2xx: number;
  errors: number;
  requests: { total: number };
}
type Autocannon = (options: {
  url: string;
  method?: string;
  connections: number;
  amount: number;
  headers?: Record<string, string>;
  requests: {
    method?: string;
    body?: string;
    headers?: Record<string, string>;
    setupRequest?(req: AutocannonRequest): AutocannonRequest;
    onResponse?(status: number, body: string): void;
  }[];
}) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const CONNECTIONS = 8;
const ROUNDS = 3;
/** Charges per throughput round, each way. */
const PER_ROUND = 3000;
/** Sequential charges per latency block, each way; blocks per round. */
const LATENCY_BLOCK = 250;
const LATENCY_BLOCKS = 4;
const WARM_UP = 3000;

interface Child {
  readonly process: ChildProcess;
  readonly info: Record<string, string>;
}

/** Starts `code` in a child Node process and waits for the one JSON line it prints. */
async function child(code: string, env: Record<string, string> = {}): Promise<Child> {
  // The built package (npm run bench builds it first), as a merchant's server runs it.
  const proc = spawn(process.execPath, ['--input-type=module', '-e', code], {
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
import { startSandbox } from './dist/server/sandbox/index.js';
const sb = await startSandbox({ port: 0 });
console.log(JSON.stringify({ url: sb.url, ...sb.credentials }));
`;

const HELPER = `
import express from 'express';
import pino from 'pino';
import { tesseraHelper } from './dist/server/helper/index.js';
const app = express();
app.use('/payments', tesseraHelper({
  publicKey: process.env.PK, secretKey: process.env.SK, legacyBaseUrl: process.env.SANDBOX,
  resolveCharge: () => ({ amount: 1999, currency: 'EUR' }),
  rateLimits: { chargesPerIp: false, chargesPerSession: false, declinesPerIp: false, declinesPerSession: false },
  logger: pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false })),
}));
const server = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + server.address().port + '/payments' })));
`;

const REFERENCE = `
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
const server = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + server.address().port + '/payments' })));
`;

const CARD = JSON.stringify({ number: '4242424242424242', expiryMonth: 12, expiryYear: 2030, cvv: '123' });

/** One way of making a charge: where to POST, and the body and headers for a card token. */
interface Target {
  readonly name: string;
  readonly url: string;
  body(cardToken: string): string;
  headers(n: number): Record<string, string>;
}

interface Throughput {
  readonly rps: number;
}
interface Latency {
  readonly p50: number;
  readonly p99: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function run(): Promise<string> {
  const sandbox = await child(SANDBOX);
  const { url: sbUrl, publicKey, secretKey } = sandbox.info as Record<string, string>;
  const env = { PK: publicKey!, SK: secretKey!, SANDBOX: sbUrl! };
  const helper = await child(HELPER, env);
  const reference = await child(REFERENCE, env);
  const email = 'bench@shop.example';
  let sent = 0;
  const direct: Target = {
    name: 'direct to sandbox',
    url: `${sbUrl}/api2/v2/charges/token`,
    body: (cardToken) => JSON.stringify({ cardToken, value: 1999, currency: 'EUR', email }),
    headers: (n) => ({ authorization: secretKey!, 'idempotency-key': `bench-${n}` }),
  };
  const throughHelper: Target = {
    name: 'through the helper',
    url: `${helper.info.url}/charges`,
    body: (cardToken) => JSON.stringify({ cardToken, orderReference: 'order-1', email }),
    headers: () => ({}),
  };
  const throughReference: Target = {
    name: 'reference: minimal Express proxy',
    url: `${reference.info.url}/charges`,
    body: (cardToken) => JSON.stringify({ cardToken, email }),
    headers: () => ({}),
  };

  /** `n` fresh card tokens, made with autocannon (fast enough not to dominate the run). */
  async function tokens(n: number): Promise<string[]> {
    const out: string[] = [];
    await autocannon({
      url: `${sbUrl}/api2/v2/tokens/card`,
      connections: 4,
      amount: n,
      requests: [
        {
          method: 'POST',
          body: CARD,
          headers: { authorization: publicKey!, 'content-type': 'application/json' },
          onResponse: (status, body) => {
            if (status === 200) out.push((JSON.parse(body) as { id: string }).id);
          },
        },
      ],
    });
    if (out.length !== n) throw new Error(`made ${out.length} card tokens of ${n}`);
    return out;
  }

  /** Every token charged once through `target` over CONNECTIONS connections; requests per second to the last answer. */
  async function load(target: Target, cardTokens: string[]): Promise<Throughput> {
    let next = 0;
    let failure: string | undefined;
    let lastAnswer = 0;
    const started = performance.now();
    const result = await autocannon({
      url: target.url,
      method: 'POST',
      connections: CONNECTIONS,
      amount: cardTokens.length,
      headers: { 'content-type': 'application/json' },
      requests: [
        {
          setupRequest: (req) => ({
            ...req,
            body: target.body(cardTokens[next++]!),
            headers: { ...req.headers, ...target.headers(++sent) },
          }),
          onResponse: (status, body) => {
            lastAnswer = performance.now();
            if (status >= 300 && !failure) failure = `${status} ${body.slice(0, 300)}`;
          },
        },
      ],
    });
    if (result.non2xx > 0 || result.errors > 0) {
      throw new Error(`${target.url}: ${result.non2xx} non-2xx answers, ${result.errors} errors; first: ${failure}`);
    }
    return { rps: result.requests.total / ((lastAnswer - started) / 1000) };
  }

  // One keep-alive connection per target for the sequential latency runs.
  const agent = new Agent({ connections: 1 });
  /** Milliseconds of each charge through `target`, one at a time. */
  async function timed(target: Target, cardTokens: string[]): Promise<number[]> {
    const times: number[] = [];
    for (const cardToken of cardTokens) {
      const started = performance.now();
      const answer = await request(target.url, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', ...target.headers(++sent) },
        body: target.body(cardToken),
      });
      await answer.body.text();
      times.push(performance.now() - started);
      if (answer.statusCode >= 300) throw new Error(`${target.url}: ${answer.statusCode}`);
    }
    return times;
  }

  try {
    // Warm-up: JIT, keep-alive pools, the sandbox's first charges.
    for (const target of [direct, throughHelper, throughReference]) await load(target, await tokens(WARM_UP));

    const latencies = new Map<Target, number[]>([
      [direct, []],
      [throughHelper, []],
      [throughReference, []],
    ]);
    for (let b = 0; b < ROUNDS * LATENCY_BLOCKS; b++) {
      const order = [direct, throughHelper, throughReference];
      if (b % 2 === 1) order.reverse();
      for (const target of order) latencies.get(target)!.push(...(await timed(target, await tokens(LATENCY_BLOCK))));
    }
    const latency = (target: Target): Latency => {
      const sorted = [...latencies.get(target)!].sort((x, y) => x - y);
      return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
    };

    const rounds = new Map<Target, number[]>([
      [direct, []],
      [throughHelper, []],
      [throughReference, []],
    ]);
    for (let r = 0; r < ROUNDS; r++) {
      const order = [direct, throughHelper, throughReference];
      if (r % 2 === 1) order.reverse();
      for (const target of order) rounds.get(target)!.push((await load(target, await tokens(PER_ROUND))).rps);
    }
    const rps = (target: Target) => median(rounds.get(target)!);

    const d = latency(direct);
    const h = latency(throughHelper);
    const ref = latency(throughReference);
    const addedP99 = h.p99 - d.p99;
    const ratio = rps(throughHelper) / rps(direct);
    const floor = rps(throughReference) / rps(direct);
    const ok = (pass: boolean) => (pass ? 'met' : '**missed**');
    const latencyRow = (target: Target, x: Latency) => `| ${target.name} | ${x.p50.toFixed(2)} | ${x.p99.toFixed(2)} |`;
    const rpsRow = (target: Target) =>
      `| ${target.name} | ${rps(target).toFixed(0)} | ${((rps(target) / rps(direct)) * 100).toFixed(0)}% |`;
    const samples = ROUNDS * LATENCY_BLOCKS * LATENCY_BLOCK;
    return `## Helper: POST /charges

\`bench/helper.bench.ts\`: \`POST /charges\` on the helper against \`POST /api2/v2/charges/token\` straight to the
sandbox with the secret key, each charge with a fresh card token made beforehand. The sandbox and the helper (the
built package, in an Express app, pino logging one line per request to /dev/null, no rate limits) run in processes
of their own, the load in a third. ${WARM_UP} warm-up charges each way first.

Latency: ${samples} charges each way, one at a time on one keep-alive connection, timed to the microsecond, in
alternating blocks of ${LATENCY_BLOCK}. The reference is described below.

| one at a time | p50 ms | p99 ms |
|---|---|---|
${latencyRow(direct, d)}
${latencyRow(throughHelper, h)}
${latencyRow(throughReference, ref)}

Throughput: autocannon, ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${PER_ROUND} charges each way; medians.
The reference is ten lines of Express that forward the charge with undici and answer three fields (no validation,
no card-data guard, no idempotency store, no logging): what any helper that is an Express router calling the
provider over HTTP costs at least.

| ${CONNECTIONS} connections | charges/s | of direct |
|---|---|---|
${rpsRow(direct)}
${rpsRow(throughHelper)}
${rpsRow(throughReference)}

| figure | value | target | |
|---|---|---|---|
| added p99 latency (one at a time) | ${addedP99.toFixed(2)} ms | < 2 ms | ${ok(addedP99 < 2)} |
| helper throughput / direct (${CONNECTIONS} connections) | ${(ratio * 100).toFixed(0)}% | ≥ 70% | ${ok(ratio >= 0.7)} |

On this machine the helper, the sandbox and the load generator share two cores, so the ratio compares the helper's
cost per charge with the sandbox's, and each extra hop is a process that must be woken. The reference proxy
reaches ${(floor * 100).toFixed(0)}% of direct and adds ${(ref.p99 - d.p99).toFixed(2)} ms at p99 (${(ref.p50 - d.p50).toFixed(2)} ms at p50): what an Express router calling the
sandbox over HTTP costs here before doing anything a helper must do.
`;
  } finally {
    await agent.close();
    for (const c of [helper, reference, sandbox]) c.process.kill();
  }
}
