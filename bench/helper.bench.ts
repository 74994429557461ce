import { Agent, request } from 'undici';
import { RedisServer } from '../test/node/helper/redis-server.js';
import {
  autocannon,
  type Child,
  cardTokens,
  child,
  cpuSeconds,
  HELPER,
  median,
  percentile,
  REFERENCE,
  SANDBOX,
  STACK_REFERENCE,
  stop,
  verdict,
} from './support.js';

/**
 * `POST /charges` through the helper against a minimal Express proxy (the reference), the helper with a
 * RedisStore against the helper with its MemoryStore, and straight to the sandbox as an informative row, all in
 * the same run. The sandbox, each helper, the reference and redis-server run in processes of their own, the load
 * in this one. Card tokens are single use, so each request takes a fresh one made beforehand.
 *
 * - Latency: one request at a time, timed here to the microsecond (autocannon's histogram counts whole
 *   milliseconds, too coarse for a 0.15 ms target); blocks rotate the order so drift hits every target alike, each
 *   block right after as many unmeasured requests to its target.
 * - Throughput: autocannon with several connections, rounds rotating the order, each round of a target right
 *   after an unmeasured warm-up of that target; medians over rounds.
 *
 * The warm-ups: a process that sat idle for a few seconds (while the others were measured, or card tokens were
 * made) runs slower for the next half second or so on this machine, longer code more so (measured: 250 charges one
 * at a time after 6 s idle cost the helper 1.5–2.5 times the CPU of 250 without the pause). Taking turns request by
 * request instead keeps every process a few milliseconds from idle, and made every target slower still.
 * - Reference: ten lines of Express whose one route forwards the charge to the sandbox with undici and answers
 *   three fields, no checks, no logging: the floor of any helper that is an Express router calling the provider
 *   over HTTP, measured the same way.
 * - Stack references (bench/support.ts STACK_REFERENCE): the reference plus what every helper needs, once with its
 *   store in memory and once in the same redis-server as the RedisStore (claim before the provider, answer and
 *   release after), so each helper is also compared with a floor that does comparable work.
 *
 * Targets (issue #15): helper throughput ≥ 80% of the reference and added p50 ≤ 0.15 ms over it; helper with
 * RedisStore ≥ 80% of the helper with MemoryStore. Proposed in the issue's note: each helper ≥ 80% of the stack
 * reference with the same kind of store.
 */

const CONNECTIONS = 8;
const ROUNDS = 9;
/** Charges per throughput round, each way. */
const PER_ROUND = 2000;
/** Unmeasured charges sent to a target right before each of its throughput rounds (see the warm-ups above). */
const ROUND_WARM_UP = 1000;
/** Sequential charges per latency block, each way, each block after as many unmeasured ones; blocks. */
const LATENCY_BLOCK = 250;
const LATENCY_BLOCKS = 15;
const WARM_UP = 3000;

/** One way of making a charge: where to POST, and the body and headers for a card token. */
interface Target {
  readonly name: string;
  readonly url: string;
  /** The process that answers: its CPU time per charge is read from /proc around each throughput round. */
  readonly pid: number;
  body(cardToken: string): string;
  headers(n: number): Record<string, string>;
}

interface Latency {
  readonly p50: number;
  readonly p99: number;
}

/** `items` rotated left by `by`. */
const rotate = <T>(items: readonly T[], by: number): T[] => items.map((_, i) => items[(i + by) % items.length]!);

export async function run(): Promise<string> {
  const children: Child[] = [];
  let redis: RedisServer | undefined;
  // One keep-alive connection per target for the sequential latency runs.
  const agent = new Agent({ connections: 1 });
  try {
    const sandbox = await child(SANDBOX);
    children.push(sandbox);
    const { url: sbUrl, publicKey, secretKey } = sandbox.info as Record<string, string>;
    const env = { PK: publicKey!, SK: secretKey!, SANDBOX: sbUrl! };
    redis = await RedisServer.start();
    const memoryHelper = await child(HELPER, env);
    const redisHelper = await child(HELPER, { ...env, REDIS_URL: redis.url });
    const reference = await child(REFERENCE, env);
    const stackReference = await child(STACK_REFERENCE, env);
    const stackRedisReference = await child(STACK_REFERENCE, { ...env, REDIS_URL: redis.url });
    children.push(memoryHelper, redisHelper, reference, stackReference, stackRedisReference);
    const email = 'bench@shop.example';
    let sent = 0;
    const direct: Target = {
      name: 'direct to sandbox (informative)',
      url: `${sbUrl}/api2/v2/charges/token`,
      pid: sandbox.process.pid!,
      body: (cardToken) => JSON.stringify({ cardToken, value: 1999, currency: 'EUR', email }),
      headers: (n) => ({ authorization: secretKey!, 'idempotency-key': `bench-${n}` }),
    };
    const throughHelper = (name: string, helper: Child): Target => ({
      name,
      url: `${helper.info.url}/charges`,
      pid: helper.process.pid!,
      body: (cardToken) => JSON.stringify({ cardToken, orderReference: 'order-1', email }),
      headers: () => ({}),
    });
    const helperMemory = throughHelper('helper, MemoryStore', memoryHelper);
    const helperRedis = throughHelper('helper, RedisStore', redisHelper);
    const ref: Target = {
      name: 'reference: minimal Express proxy',
      url: `${reference.info.url}/charges`,
      pid: reference.process.pid!,
      body: (cardToken) => JSON.stringify({ cardToken, email }),
      headers: () => ({}),
    };
    const throughStack = (name: string, server: Child): Target => ({
      name,
      url: `${server.info.url}/charges`,
      pid: server.process.pid!,
      body: (cardToken) => JSON.stringify({ cardToken, orderReference: `order-${++sent}`, email }),
      headers: () => ({}),
    });
    const stack = throughStack(
      'reference with the required stack (helmet, JSON, zod, request id, store write, pino)',
      stackReference,
    );
    const stackRedis = throughStack(
      'reference with the required stack, store in Redis (claim before the provider, answer and release after)',
      stackRedisReference,
    );
    const targets = [ref, stack, helperMemory, stackRedis, helperRedis, direct];
    const tokens = (n: number) => cardTokens(sbUrl!, publicKey!, n);

    /** CPU µs per charge of each target's own process, from the throughput rounds. */
    const cpu = new Map<Target, number[]>(targets.map((t) => [t, []]));
    /** Every token charged once through `target` over CONNECTIONS connections; requests per second to the last answer. */
    async function load(target: Target, cardTokenIds: string[], measured = true): Promise<number> {
      const cpuBefore = cpuSeconds(target.pid);
      let next = 0;
      let failure: string | undefined;
      let lastAnswer = 0;
      const started = performance.now();
      const result = await autocannon({
        url: target.url,
        method: 'POST',
        connections: CONNECTIONS,
        amount: cardTokenIds.length,
        headers: { 'content-type': 'application/json' },
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              body: target.body(cardTokenIds[next++]!),
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
      if (measured) cpu.get(target)!.push(((cpuSeconds(target.pid) - cpuBefore) / result.requests.total) * 1e6);
      return result.requests.total / ((lastAnswer - started) / 1000);
    }

    /** Milliseconds of one charge through `target`. */
    async function timed(target: Target, cardToken: string): Promise<number> {
      const started = performance.now();
      const answer = await request(target.url, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', ...target.headers(++sent) },
        body: target.body(cardToken),
      });
      await answer.body.text();
      const ms = performance.now() - started;
      if (answer.statusCode >= 300) throw new Error(`${target.url}: ${answer.statusCode}`);
      return ms;
    }

    // Warm-up: JIT, keep-alive pools, the sandbox's first charges, Redis's scripts.
    for (const target of targets) await load(target, await tokens(WARM_UP));
    for (const target of targets) cpu.get(target)!.length = 0;

    const latencies = new Map<Target, number[]>(targets.map((t) => [t, []]));
    for (let b = 0; b < LATENCY_BLOCKS; b++) {
      const blockTokens = await tokens(2 * LATENCY_BLOCK * targets.length);
      for (const target of rotate(targets, b)) {
        for (let i = 0; i < LATENCY_BLOCK; i++) await timed(target, blockTokens.pop()!);
        for (let i = 0; i < LATENCY_BLOCK; i++) latencies.get(target)!.push(await timed(target, blockTokens.pop()!));
      }
    }
    const latency = (target: Target): Latency => {
      const sorted = [...latencies.get(target)!].sort((x, y) => x - y);
      return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
    };

    const rounds = new Map<Target, number[]>(targets.map((t) => [t, []]));
    // Ratios per round (both sides measured minutes apart at most), then their median: a burst of load from
    // another process on this shared machine spoils one round, not the figure.
    const helperVsRef: number[] = [];
    const redisVsMemory: number[] = [];
    const helperVsStack: number[] = [];
    const stackVsRef: number[] = [];
    const stackRedisVsMemory: number[] = [];
    const redisVsStackRedis: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const rps = new Map<Target, number>();
      for (const target of rotate(targets, r)) {
        const roundTokens = await tokens(ROUND_WARM_UP + PER_ROUND);
        await load(target, roundTokens.slice(0, ROUND_WARM_UP), false);
        rps.set(target, await load(target, roundTokens.slice(ROUND_WARM_UP)));
      }
      for (const [target, value] of rps) rounds.get(target)!.push(value);
      helperVsRef.push(rps.get(helperMemory)! / rps.get(ref)!);
      helperVsStack.push(rps.get(helperMemory)! / rps.get(stack)!);
      stackVsRef.push(rps.get(stack)! / rps.get(ref)!);
      redisVsMemory.push(rps.get(helperRedis)! / rps.get(helperMemory)!);
      stackRedisVsMemory.push(rps.get(stackRedis)! / rps.get(stack)!);
      redisVsStackRedis.push(rps.get(helperRedis)! / rps.get(stackRedis)!);
    }
    const rps = (target: Target) => median(rounds.get(target)!);
    const throughputRatio = median(helperVsRef);
    const redisRatio = median(redisVsMemory);
    const stackRatio = median(helperVsStack);
    const stackOfRef = median(stackVsRef);
    const stackRedisRatio = median(stackRedisVsMemory);
    const redisStackRatio = median(redisVsStackRedis);

    const l = new Map(targets.map((t) => [t, latency(t)]));
    const addedP50 = l.get(helperMemory)!.p50 - l.get(ref)!.p50;
    const addedP50Redis = l.get(helperRedis)!.p50 - l.get(helperMemory)!.p50;
    const latencyRow = (t: Target) => {
      const x = l.get(t)!;
      return `| ${t.name} | ${x.p50.toFixed(3)} | ${x.p99.toFixed(2)} | ${(x.p50 - l.get(ref)!.p50 >= 0 ? '+' : '') + (x.p50 - l.get(ref)!.p50).toFixed(3)} |`;
    };
    const cpuUs = (t: Target) => median(cpu.get(t)!);
    const rpsRow = (t: Target) =>
      `| ${t.name} | ${rps(t).toFixed(0)} | ${((rps(t) / rps(ref)) * 100).toFixed(0)}% | ${rounds
        .get(t)!
        .map((v) => v.toFixed(0))
        .join(', ')} | ${cpuUs(t).toFixed(0)} |`;
    const addedCpu = cpuUs(helperMemory) - cpuUs(ref);
    /** The share of a core the target's process used while it was measured: charges/s × CPU seconds per charge. */
    const core = (t: Target) => ((rps(t) * cpuUs(t)) / 1e6).toFixed(2);
    /** The CPU per charge at which a process bound to one core reaches 80% of the reference's throughput. */
    const budget = cpuUs(ref) / 0.8;
    const samples = LATENCY_BLOCKS * LATENCY_BLOCK;
    return `## Helper: POST /charges

\`bench/helper.bench.ts\`: \`POST /charges\` on the helper (the built package in an Express app, pino logging one
line per request to /dev/null, rate limits off) with its default MemoryStore and with a RedisStore (a real
\`redis-server\` on loopback), against the **reference**: ten lines of Express whose one route forwards the charge to
the sandbox with undici and answers three fields (no validation, no card-data guard, no idempotency store, no
logging), the floor of any helper that is an Express router calling the provider over HTTP. \`POST
/api2/v2/charges/token\` straight to the sandbox is shown for information only. Each charge uses a fresh card token
made beforehand; the sandbox, each server and redis-server run in processes of their own, the load in this one.
${WARM_UP} warm-up charges each way first.

Latency: ${samples} charges each way, one at a time on one keep-alive connection, timed to the microsecond, in
blocks of ${LATENCY_BLOCK} whose order rotates, each block right after ${LATENCY_BLOCK} unmeasured charges to the same target.

| one at a time | p50 ms | p99 ms | p50 over the reference, ms |
|---|---|---|---|
${targets.map(latencyRow).join('\n')}

Throughput: autocannon, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${PER_ROUND} charges each way in rotating order, each
round of a target right after ${ROUND_WARM_UP} unmeasured charges to it; medians (the ratios in the targets are medians
of the per-round ratios). The warm-ups before each block and round are there because a process that sat idle for a
few seconds (while the others were measured) runs slower for the next half second or so on this machine, longer
code more so: 250 charges one at a time after 6 s idle cost the helper 1.5–2.5 times the CPU of 250 without the
pause. Taking turns request by request instead, so that no process idles more than a few milliseconds, made every
target slower still (the reference's p50 went from 0.8 to 1.5 ms).

| ${CONNECTIONS} connections | charges/s | of the reference | rounds | CPU µs per charge, answering process |
|---|---|---|---|---|
${targets.map(rpsRow).join('\n')}

| figure | value | target | |
|---|---|---|---|
| helper (MemoryStore) throughput / reference | ${(throughputRatio * 100).toFixed(0)}% | ≥ 80% | ${verdict(throughputRatio >= 0.8)} |
| helper (MemoryStore) added p50 over the reference | ${addedP50.toFixed(3)} ms | ≤ 0.15 ms | ${verdict(addedP50 <= 0.15)} |
| helper RedisStore / MemoryStore throughput | ${(redisRatio * 100).toFixed(0)}% | ≥ 80% | ${verdict(redisRatio >= 0.8)} |
| helper (MemoryStore) throughput / reference with the required stack | ${(stackRatio * 100).toFixed(0)}% | ≥ 80% (measure proposed in issue #15's note) | ${verdict(stackRatio >= 0.8)} |
| helper (RedisStore) throughput / reference with the required stack, store in Redis | ${(redisStackRatio * 100).toFixed(0)}% | ≥ 80% (measure proposed in issue #15's note) | ${verdict(redisStackRatio >= 0.8)} |
| reference with the required stack: store in Redis / in memory (informative) | ${(stackRedisRatio * 100).toFixed(0)}% | | |

The second reference is the first plus only what every charge needs whoever writes the helper (helmet's headers, a
JSON body parser, a zod check of the body, a request id, a token hash as the idempotency key, one store write, one
pino line). It reaches ${(stackOfRef * 100).toFixed(0)}% of the bare proxy's throughput (median of the per-round ratios) and spends ${cpuUs(stack).toFixed(0)} µs of CPU per charge against the
bare proxy's ${cpuUs(ref).toFixed(0)} µs. The helper spends
${(cpuUs(helperMemory) - cpuUs(stack)).toFixed(0)} µs per charge beyond that reference, in its own work (the card-data checks of the URL and
body, the claim of the token in the store and its release, the outcome bookkeeping, the log redactor, the provider
client's timeouts, retries and typed errors), spread over many functions (a CPU profile shows no single hot spot).
How far the stack reference falls behind the bare proxy changes from run to run on this shared machine (73–95% in
the runs of 2026-11-23), so the ratio against the ten-line proxy measures the machine as much as the helper; the
ratio against the stack reference, measured in the same run, moves less.

What bounds the throughput: in every round the answering process is the bottleneck. Its charges/s times its CPU per
charge comes to ${core(ref)} of a core for the reference, ${core(stack)} for the stack reference and ${core(helperMemory)} for the helper
(one JavaScript thread; the other core runs the sandbox and the load). Throughput is then about the inverse of CPU
per charge, and 80% of the reference's throughput means at most ${budget.toFixed(0)} µs of CPU per charge in this run.
${
  budget <= cpuUs(stack)
    ? `The stack reference alone spends ${cpuUs(stack).toFixed(0)} µs, more than that before any of the helper's own work.`
    : `The stack reference alone spends ${cpuUs(stack).toFixed(0)} µs of it, which leaves ${(budget - cpuUs(stack)).toFixed(0)} µs for the helper's own work; it spends ${(cpuUs(helperMemory) - cpuUs(stack)).toFixed(0)} µs.`
}

CPU per charge is the answering process's user + system time (from /proc) over a round divided by its charges
(median over rounds). It moves less than charges/s and latency when other processes load the machine, but it
moves too: compare it within one run. The
helper spends ${addedCpu.toFixed(0)} µs more CPU per charge than the reference (${cpuUs(helperMemory).toFixed(0)} against
${cpuUs(ref).toFixed(0)} µs). Less than that shows in its latency: part of the work comes after the answer has left (the
request's log line), and one request alone does not compete with others for the cores.

The RedisStore adds ${addedP50Redis.toFixed(3)} ms at p50 over the MemoryStore (a charge makes two store calls, each a round trip
to redis-server, which shares the cores: claim the token and read its stored answer in one script, then store the
answer and give the claim back in another).

The third reference is the second with its store in the same redis-server, through ioredis (auto-pipelining on, as
in the RedisStore): it claims the token with \`SET NX PX\` before it calls the provider and stores the answer with
\`SET PX\` and gives the claim back with \`DEL\` in one pipeline after, the two round trips any helper needs at the
least once several instances share one store (without the claim, two instances would both call the provider for
one token). It reaches ${(stackRedisRatio * 100).toFixed(0)}% of the same reference with its store in memory, and spends
${cpuUs(stackRedis).toFixed(0)} µs of CPU per charge against ${cpuUs(stack).toFixed(0)} µs: what moving the store out of the process costs
on this machine, where redis-server takes its CPU from the two cores the helper, the sandbox and the load already
share. The target "RedisStore ≥ 80% of MemoryStore" holds the helper to less than that cost whenever the floor
itself loses more than a fifth (${stackRedisRatio < 0.8 ? 'it does in this run' : 'it does not in this run'}), so the
measure proposed instead compares like with like: the helper with its RedisStore against this reference, both
with Redis, in the same rounds (${(redisStackRatio * 100).toFixed(0)}%).

The former target "helper ≥ 70% of
direct to the sandbox" is retired (issue #15): it measured the topology, not the helper. Every hop through an
Express process costs more than the sandbox's whole charge here, so even the reference reaches only
${((rps(ref) / rps(direct)) * 100).toFixed(0)}% of direct.
`;
  } finally {
    await agent.close();
    for (const c of children.reverse()) await stop(c);
    await redis?.stop();
  }
}
