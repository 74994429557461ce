import { Agent, request } from 'undici';
import { CARD, type Child, child, control, HELPER, helperStats, SANDBOX, stop, verdict } from './support.js';

/**
 * A soak through one helper instance (issue #15): shoppers arrive at a steady rate, each makes a card token with
 * the public key (as the widget does) and posts it to the helper's `POST /charges`; while the sandbox injects
 * faults on its charge endpoint (503s, connection resets, answers lost after the charge was made). Each shopper
 * retries the same request after a 5xx or a dropped connection, as the page does, until it gets a final answer.
 *
 * Checks: zero double charges (every charge the sandbox answered, read from its request log, belongs to one card
 * token, and each token has at most one), zero lost results (every token ends with a known outcome, and the charge
 * the shopper was told of exists in the sandbox with that token's order), and the helper's memory flat (RSS every
 * 30 s after a full GC; the slope over the second half of the run).
 *
 * Length: 10 minutes by default; `npm run bench -- soak --minutes=1` (or TESSERA_BENCH_SOAK_MINUTES) shortens it.
 */

const MINUTES = Number(process.env.TESSERA_BENCH_SOAK_MINUTES ?? 10);
const RATE = Number(process.env.TESSERA_BENCH_SOAK_RATE ?? 50);
const SAMPLE_EVERY_MS = 30_000;
/** One single fault added every this many ms, the kinds taken in turn. */
const FAULT_EVERY_MS = 1000;
const FAULTS = [
  { status: 503 },
  { reset: true },
  { reset: true, phase: 'after' },
  { status: 503, phase: 'after' },
] as const;
const FAULT_NAMES = [
  '503 before the charge',
  'connection reset before the charge',
  'connection reset after the charge (answer lost)',
  '503 after the charge (answer lost)',
];
/**
 * Every this many single faults, a burst of one kind that lasts longer than the helper's client retries (an attempt
 * and two retries, about 1.5 s): shoppers then get the helper's 502/503/504 and retry themselves. The bursts
 * alternate between an outage (503 before the charge) and lost answers (reset after the charge).
 */
const BURST_EVERY = 15;
const BURST_COUNT = 150;
const BURSTS = [{ status: 503 }, { reset: true, phase: 'after' }] as const;

/** A shopper gives up after this many attempts (a page would say "try again later"): counted as a lost result. */
const MAX_ATTEMPTS = 30;
/** RSS slope over the second half of the run, the flatness target. */
const SLOPE_TARGET_MB_PER_MIN = 1;
/** The helper keeps each result 24 h for replays, at most this many store entries (the plateau comes early). */
const STORE_MAX = 10_000;

interface Shopper {
  readonly order: string;
  token?: string;
  status?: number;
  chargeId?: string;
  attempts: number;
  /** 5xx answers and dropped connections this shopper retried after. */
  retried: number;
  error?: string;
}

interface Sample {
  readonly atMs: number;
  readonly rss: number;
  readonly heapUsed: number;
  readonly done: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const MiB = 2 ** 20;

/** Least-squares slope of y over x. */
function slope(points: readonly (readonly [number, number])[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

export async function run(): Promise<string> {
  const children: Child[] = [];
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  try {
    const total = Math.round(MINUTES * 60 * RATE);
    const sandbox = await child(SANDBOX, {
      SANDBOX_LIMITS: JSON.stringify({ maxCardTokens: total * 2 + 10_000, maxCharges: total * 2 + 10_000 }),
    });
    children.push(sandbox);
    const { url: sbUrl, publicKey, secretKey } = sandbox.info as Record<string, string>;
    const helper = await child(
      HELPER,
      { PK: publicKey!, SK: secretKey!, SANDBOX: sbUrl!, ORDER_METADATA: '1', STORE_MAX: String(STORE_MAX) },
      ['--expose-gc'],
    );
    children.push(helper);
    const chargeUrl = `${helper.info.url}/charges`;
    const runId = Date.now().toString(36);

    // What the sandbox answered for each charge request, from its request log (newest 200, polled twice a second).
    const seen = new Set<string>();
    /** Charge ids the sandbox answered, by the card token charged. */
    const chargesByToken = new Map<string, Set<string>>();
    let logGaps = 0;
    let faultAnswers = 0;
    async function pollLog(): Promise<void> {
      const { data } = (await (await fetch(`${sbUrl}/_sandbox/requests?limit=200`)).json()) as {
        data: {
          requestId: string;
          method: string;
          path: string;
          fault?: string;
          requestBody?: { cardToken?: string };
          responseBody?: { id?: string };
        }[];
      };
      // Newest first: when even the oldest entry is new, entries between the two polls may have been missed.
      const oldest = data[data.length - 1];
      if (data.length === 200 && oldest && !seen.has(oldest.requestId) && seen.size > 0) logGaps++;
      for (const entry of data) {
        if (seen.has(entry.requestId)) continue;
        seen.add(entry.requestId);
        if (entry.method !== 'POST' || !entry.path.endsWith('/charges/token')) continue;
        if (entry.fault) faultAnswers++;
        const token = entry.requestBody?.cardToken;
        const id = entry.responseBody?.id;
        if (!token || typeof id !== 'string' || !id.startsWith('charge_')) continue;
        const ids = chargesByToken.get(token) ?? new Set<string>();
        chargesByToken.set(token, ids.add(id));
      }
    }

    /** One shopper: a card token from the sandbox, then the charge through the helper, retried like the page does. */
    async function shop(s: Shopper): Promise<void> {
      for (;;) {
        try {
          const answer = await request(`${sbUrl}/api2/v2/tokens/card`, {
            method: 'POST',
            dispatcher: agent,
            headers: { authorization: publicKey!, 'content-type': 'application/json' },
            body: CARD,
          });
          const body = (await answer.body.json()) as { id?: string };
          if (answer.statusCode === 200 && body.id) {
            s.token = body.id;
            break;
          }
        } catch {}
        await sleep(500);
      }
      const payload = JSON.stringify({ cardToken: s.token, orderReference: s.order, email: 'soak@shop.example' });
      while (s.attempts < MAX_ATTEMPTS) {
        s.attempts++;
        let wait = 1000;
        try {
          const answer = await request(chargeUrl, {
            method: 'POST',
            dispatcher: agent,
            headers: { 'content-type': 'application/json' },
            body: payload,
          });
          const text = await answer.body.text();
          if (answer.statusCode < 500) {
            s.status = answer.statusCode;
            s.chargeId = (JSON.parse(text) as { id?: string }).id;
            if (answer.statusCode >= 400) s.error = text.slice(0, 300);
            return;
          }
          const after = Number(answer.headers['retry-after']);
          if (Number.isFinite(after) && after > 0) wait = Math.min(after, 5) * 1000;
        } catch {
          // A dropped connection: the outcome is unknown, so the page asks again with the same token.
        }
        s.retried++;
        await sleep(wait);
      }
      s.error = `no final answer after ${MAX_ATTEMPTS} attempts`;
    }

    await control(sbUrl!, '/_sandbox/faults', null, 'DELETE');
    await pollLog();
    const started = performance.now();
    const samples: Sample[] = [];
    const shoppers: Shopper[] = [];
    const running: Promise<void>[] = [];
    let faultsAdded = 0;
    let bursts = 0;
    let stopping = false;
    const sample = async () => {
      const stats = await helperStats(helper);
      samples.push({
        atMs: performance.now() - started,
        rss: stats.rss,
        heapUsed: stats.heapUsed,
        done: shoppers.filter((s) => s.status !== undefined || s.error).length,
      });
    };
    await sample();
    const poller = (async () => {
      while (!stopping) {
        await pollLog();
        await sleep(500);
      }
    })();
    const faulter = (async () => {
      for (let k = 0; !stopping; k++) {
        await sleep(FAULT_EVERY_MS);
        if (stopping) break;
        const rule = { method: 'POST', path: '/api2/v2/charges/token' };
        await control(sbUrl!, '/_sandbox/faults', { ...rule, ...FAULTS[k % FAULTS.length]! });
        faultsAdded++;
        if (k % BURST_EVERY === BURST_EVERY - 1) {
          const burst = BURSTS[Math.floor(k / BURST_EVERY) % BURSTS.length]!;
          await control(sbUrl!, '/_sandbox/faults', { ...rule, ...burst, count: BURST_COUNT });
          bursts++;
        }
      }
    })();
    const sampler = (async () => {
      for (let k = 1; k * SAMPLE_EVERY_MS <= MINUTES * 60_000; k++) {
        const wait = k * SAMPLE_EVERY_MS - (performance.now() - started);
        if (wait > 0) await sleep(wait);
        await sample();
      }
    })();
    // Open loop: shopper i arrives at i / RATE seconds, whatever the others are doing.
    for (let i = 0; i < total; i++) {
      const wait = (i * 1000) / RATE - (performance.now() - started);
      if (wait >= 1) await sleep(wait);
      const s: Shopper = { order: `soak-${runId}-${i}`, attempts: 0, retried: 0 };
      shoppers.push(s);
      running.push(shop(s));
    }
    await sampler;
    stopping = true;
    await faulter;
    // Faults still pending would catch nothing more (no new shoppers) but could hold up the last ones: clear them.
    const pendingFaults = ((await control(sbUrl!, '/_sandbox/faults', null, 'GET')) as { data: unknown[] }).data.length;
    await control(sbUrl!, '/_sandbox/faults', null, 'DELETE');
    await Promise.all(running);
    await poller;
    await pollLog();
    const drainedMs = performance.now() - started;
    await sample();

    // Every shopper's charge, read back from the sandbox's API: it exists and carries that shopper's order.
    const lost: string[] = [];
    const doubles: string[] = [];
    let approved = 0;
    let declined = 0;
    for (const s of shoppers) {
      if (s.status === 201 || s.status === 402) {
        if (s.status === 201) approved++;
        else declined++;
      } else {
        lost.push(`${s.order}: ${s.status ?? 'no answer'} ${s.error ?? ''}`);
        continue;
      }
      const answer = await request(`${sbUrl}/api2/v2/charges/${s.chargeId}`, {
        dispatcher: agent,
        headers: { authorization: secretKey! },
      });
      const charge = (await answer.body.json()) as { id?: string; metadata?: { order?: string } };
      if (answer.statusCode !== 200 || charge.metadata?.order !== s.order) {
        lost.push(`${s.order}: told ${s.chargeId}, the sandbox answers ${answer.statusCode} for it`);
      }
      const ids = chargesByToken.get(s.token!);
      if (ids && (ids.size > 1 || !ids.has(s.chargeId!))) {
        doubles.push(`${s.token}: ${[...ids].join(', ')} (shopper told ${s.chargeId})`);
      }
    }
    const tokens = new Set(shoppers.map((s) => s.token));
    for (const [token, ids] of chargesByToken) {
      if (!tokens.has(token)) doubles.push(`${token}: charged but no shopper holds it (${[...ids].join(', ')})`);
    }
    if (lost.length) console.error(`soak: lost results:\n  ${lost.slice(0, 20).join('\n  ')}`);
    if (doubles.length) console.error(`soak: double charges:\n  ${doubles.slice(0, 20).join('\n  ')}`);

    const retried = shoppers.reduce((n, s) => n + s.retried, 0);
    const retriedShoppers = shoppers.filter((s) => s.retried > 0).length;
    const maxAttempts = Math.max(...shoppers.map((s) => s.attempts));
    const series = samples.slice(0, -1);
    const half = series.filter((x) => x.atMs >= (MINUTES * 60_000) / 2);
    const rssSlope = slope(half.map((x) => [x.atMs / 60_000, x.rss / MiB]));
    const heapSlope = slope(half.map((x) => [x.atMs / 60_000, x.heapUsed / MiB]));
    const wholeSlope = slope(series.map((x) => [x.atMs / 60_000, x.rss / MiB]));
    const first = series[0]!;
    const last = series[series.length - 1]!;
    const max = series.reduce((m, x) => (x.rss > m.rss ? x : m), first);
    const rows = samples
      .map(
        (x, i) =>
          `| ${i === samples.length - 1 ? 'after the drain' : (x.atMs / 60_000).toFixed(1)} | ${(x.rss / MiB).toFixed(1)} | ${(x.heapUsed / MiB).toFixed(1)} | ${x.done.toLocaleString('en')} |`,
      )
      .join('\n');
    const flat = half.length >= 2 && rssSlope <= SLOPE_TARGET_MB_PER_MIN;
    return `## Soak: ${MINUTES} minute${MINUTES === 1 ? '' : 's'} at ${RATE} charges/s with faults

\`bench/soak.bench.ts\` (\`npm run bench -- soak --minutes=1\` for a short run): ${total.toLocaleString('en')} shoppers arrive at a
steady ${RATE}/s; each makes a card token with the public key (as the widget does) and posts it to one helper
instance (MemoryStore of at most ${STORE_MAX.toLocaleString('en')} entries, rate limits off, the client's defaults: 10 s per attempt, two
retries). Every ${FAULT_EVERY_MS / 1000} s the sandbox takes one more fault on its charge endpoint, the kinds in turn: ${FAULT_NAMES.join('; ')};
and every ${BURST_EVERY} s a burst of ${BURST_COUNT} (an outage: 503 before the charge, or lost answers: reset after it, in
turn), longer than the helper's own retries, so that shoppers see the helper's 5xx.
A shopper who gets a 5xx or a dropped connection sends the same request again (after \`Retry-After\`, else 1 s),
as the page does, up to ${MAX_ATTEMPTS} times.

| | |
|---|---|
| shoppers | ${total.toLocaleString('en')}: ${approved.toLocaleString('en')} approved, ${declined} declined |
| faults injected | ${faultsAdded} single faults and ${bursts} bursts of ${BURST_COUNT} (${pendingFaults} rules still pending at the end, cleared); ${faultAnswers.toLocaleString('en')} charge answers failed by a fault |
| shoppers who had to retry | ${retriedShoppers} (${retried} retries in all, at most ${maxAttempts} attempts for one) |
| last answer | ${(drainedMs / 1000).toFixed(0)} s after the first shopper |
| sandbox request-log polls that may have missed entries | ${logGaps} |

| check | value | target | |
|---|---|---|---|
| double charges (a token with two charges, or a charge no shopper holds, by the sandbox's log) | ${doubles.length} | 0 | ${verdict(doubles.length === 0 && logGaps === 0)} |
| lost results (no final answer, or a charge the sandbox does not have with that order) | ${lost.length} | 0 | ${verdict(lost.length === 0)} |
| helper RSS slope, second half of the run | ${rssSlope.toFixed(2)} MB/min | ≤ ${SLOPE_TARGET_MB_PER_MIN} MB/min | ${verdict(flat)} |

Helper memory every ${SAMPLE_EVERY_MS / 1000} s, after a full GC: RSS first ${(first.rss / MiB).toFixed(1)} MB, last ${(last.rss / MiB).toFixed(1)} MB, max ${(max.rss / MiB).toFixed(1)} MB
(at ${(max.atMs / 60_000).toFixed(1)} min); slope ${wholeSlope.toFixed(2)} MB/min over the whole run, ${rssSlope.toFixed(2)} MB/min over the second half (heap:
${heapSlope.toFixed(2)} MB/min). The store keeps each result 24 h for replays, so it fills during the first
${Math.ceil(STORE_MAX / RATE / 60)} minutes or so and then stays at ${STORE_MAX.toLocaleString('en')} entries: growth before that is the store doing its job, growth after it would be a leak.

| minute | RSS MB | heap MB | shoppers done |
|---|---|---|---|
${rows}
`;
  } finally {
    await agent.close();
    for (const c of children.reverse()) await stop(c);
  }
}
