import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { type Autocannon, autocannon, type CannonRequest, cpuSeconds } from './support.js';

/**
 * Legacy API throughput and latency of the sandbox on loopback, with autocannon: card-token creation, then charges
 * (each charge uses up one of the tokens the card-token run made: tokens are single use), against a bare
 * `node:http` server that reads the body and answers a fixed JSON charge of the same size, in the same run. Each
 * server runs in its own process, autocannon in this one, so the load generator does not eat the server's CPU.
 * A third server, Express 5 with one route answering the same JSON, shows why the sandbox left Express
 * (docs/decisions/sandbox.md#sandbox-http).
 * Target: sandbox charge throughput at least 40% of the baseline.
 */

const CONNECTIONS = 10;
const DURATION_S = 5;
const TARGET = 0.4;
/** The router comparison (issue #14): alternating rounds, each a card-token run of this length and its charges. */
const ROUTER_ROUNDS = 4;
const ROUTER_DURATION_S = 3;
/** Makes the sandbox in that process route with the `router` npm package (bench/router-package/). */
const ROUTER_PACKAGE = ['--import', './bench/router-package/register.mjs'];

interface Figures {
  readonly name: string;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly requests: number;
  readonly failed: number;
}

async function cannon(name: string, options: Parameters<Autocannon>[0]): Promise<Figures> {
  // The run lasts until its last answer: autocannon resolves on a whole-second tick after a run that stops at
  // `amount` requests, and its own average is over whole-second samples, so neither measures such a run.
  let last = 0;
  const requests = options.requests?.map((r) => ({
    ...r,
    onResponse(status: number, body: string) {
      last = performance.now();
      r.onResponse?.(status, body);
    },
  }));
  const started = performance.now();
  const result = await autocannon({ ...options, requests });
  const seconds = ((last || performance.now()) - started) / 1000;
  return {
    name,
    rps: result.requests.total / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

// Each server prints its URL (and, for the sandbox, its keys) as one JSON line, then runs until killed.
const SERVERS = {
  sandbox: `
    const { startSandbox } = await import('./dist/server/sandbox/index.js');
    // Caps far above what a run makes: a card token dropped before its charge run would fail that charge.
    const sb = await startSandbox({ port: 0, limits: { maxCardTokens: 400_000, maxCharges: 400_000 } });
    console.log(JSON.stringify({ url: sb.url, publicKey: sb.credentials.publicKey, secretKey: sb.credentials.secretKey }));`,
  bare: `
    const { createServer } = await import('node:http');
    const body = process.env.BENCH_BODY;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
    });
    server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + server.address().port })));`,
  express: `
    const { default: express } = await import('express');
    const body = process.env.BENCH_BODY;
    const app = express();
    app.post('/v2/charges/token', (req, res) => {
      req.resume();
      req.on('end', () => res.type('application/json').send(body));
    });
    const server = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + server.address().port })));`,
} as const;

interface Started {
  readonly child: ChildProcess;
  readonly info: { url: string; publicKey?: string; secretKey?: string };
}

async function serve(
  kind: keyof typeof SERVERS,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<Started> {
  // The built package (npm run bench builds it first): what `npx tessera-pay sandbox` runs, not tsx's transpiled source.
  const child = spawn(process.execPath, [...nodeArgs, '--input-type=module', '-e', SERVERS[kind]], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await once(lines, 'line')) as [string];
  return { child, info: JSON.parse(line) };
}

async function stop(server: Started): Promise<void> {
  const exited = once(server.child, 'exit');
  server.child.kill('SIGTERM');
  await exited;
}

const routerPackageVersion = (createRequire(import.meta.url)('router/package.json') as { version: string }).version;

export async function run(): Promise<string> {
  const sandbox = await serve('sandbox');
  const servers: Started[] = [sandbox];
  try {
    const { url, publicKey, secretKey } = sandbox.info as Required<Started['info']>;
    const year = new Date().getUTCFullYear() + 2;
    const cardBody = JSON.stringify({ number: '4242424242424242', expiryMonth: 12, expiryYear: year, cvv: '123' });
    const chargeFor = (token: string) =>
      JSON.stringify({ cardToken: token, value: 1999, currency: 'EUR', email: 'bench@example.com' });
    const cardHeaders = { authorization: publicKey, 'content-type': 'application/json' };
    const chargeHeaders = { authorization: secretKey, 'content-type': 'application/json' };

    // A real charge answer is the baselines' fixed body, so every server moves the same bytes.
    const seed = (await (
      await fetch(`${url}/api2/v2/tokens/card`, { method: 'POST', headers: cardHeaders, body: cardBody })
    ).json()) as {
      id: string;
    };
    const sample = await (
      await fetch(`${url}/api2/v2/charges/token`, { method: 'POST', headers: chargeHeaders, body: chargeFor(seed.id) })
    ).text();
    const bare = await serve('bare', { BENCH_BODY: sample });
    const framework = await serve('express', { BENCH_BODY: sample });
    servers.push(bare, framework);

    // The baselines get the same client work as the charge run: a fresh body built per request (setupRequest).
    let n = 0;
    const fixed = (server: Started) => ({
      url: server.info.url,
      connections: CONNECTIONS,
      requests: [
        {
          method: 'POST',
          path: '/v2/charges/token',
          headers: { 'content-type': 'application/json' },
          setupRequest: (req: CannonRequest) => ({ ...req, body: chargeFor(`card_tok_baseline${n++}`) }),
        },
      ],
    });
    // Warm every server (JIT) before measuring.
    await cannon('warm-up', { ...fixed(bare), duration: 1 });
    await cannon('warm-up', { ...fixed(framework), duration: 1 });
    const warmTokens: string[] = [];
    await cannon('warm-up', {
      url,
      connections: CONNECTIONS,
      duration: 1,
      requests: [
        {
          method: 'POST',
          path: '/api2/v2/tokens/card',
          headers: cardHeaders,
          body: cardBody,
          onResponse: (status, body) => {
            if (status === 200) warmTokens.push((JSON.parse(body) as { id: string }).id);
          },
        },
      ],
    });
    let w = 0;
    await cannon('warm-up', {
      url,
      connections: CONNECTIONS,
      amount: warmTokens.length,
      requests: [
        {
          method: 'POST',
          path: '/api2/v2/charges/token',
          headers: chargeHeaders,
          setupRequest: (req) => ({ ...req, body: chargeFor(warmTokens[w++ % warmTokens.length]!) }),
        },
      ],
    });

    const base = await cannon('Baseline: bare node:http, fixed JSON charge', { ...fixed(bare), duration: DURATION_S });
    const ceiling = await cannon('Reference: Express 5, one route, same fixed JSON', {
      ...fixed(framework),
      duration: DURATION_S,
    });
    const tokens: string[] = [];
    const cardTokens = await cannon('Sandbox: POST /api2/v2/tokens/card', {
      url,
      connections: CONNECTIONS,
      duration: DURATION_S,
      requests: [
        {
          method: 'POST',
          path: '/api2/v2/tokens/card',
          headers: cardHeaders,
          body: cardBody,
          onResponse: (status, body) => {
            if (status === 200) tokens.push((JSON.parse(body) as { id: string }).id);
          },
        },
      ],
    });
    // One charge per token made above: exactly as many requests as tokens.
    let next = 0;
    const charges = await cannon('Sandbox: POST /api2/v2/charges/token', {
      url,
      connections: CONNECTIONS,
      amount: tokens.length,
      requests: [
        {
          method: 'POST',
          path: '/api2/v2/charges/token',
          headers: chargeHeaders,
          setupRequest: (req) => ({ ...req, body: chargeFor(tokens[next++ % tokens.length]!) }),
        },
      ],
    });

    // Issue #14: the same sandbox, the same routes and handlers, routed by the `router` npm package (the router
    // Express 5 uses) instead of core/http.ts's Router, in alternating rounds against the sandbox above.
    const packaged = await serve('sandbox', {}, ROUTER_PACKAGE);
    servers.push(packaged);
    /**
     * Card tokens for ROUTER_DURATION_S seconds, then one charge per token made: requests per second of each, and
     * the sandbox process's CPU time per request (less disturbed than req/s by other load on a shared machine).
     */
    async function tokensThenCharges(server: Started): Promise<[number, number, number, number]> {
      const made: string[] = [];
      const pid = server.child.pid!;
      const cpu0 = cpuSeconds(pid);
      const t = await cannon('tokens', {
        url: server.info.url,
        connections: CONNECTIONS,
        duration: ROUTER_DURATION_S,
        requests: [
          {
            method: 'POST',
            path: '/api2/v2/tokens/card',
            headers: { authorization: server.info.publicKey!, 'content-type': 'application/json' },
            body: cardBody,
            onResponse: (status, body) => {
              if (status === 200) made.push((JSON.parse(body) as { id: string }).id);
            },
          },
        ],
      });
      const cpu1 = cpuSeconds(pid);
      let i = 0;
      const c = await cannon('charges', {
        url: server.info.url,
        connections: CONNECTIONS,
        amount: made.length,
        requests: [
          {
            method: 'POST',
            path: '/api2/v2/charges/token',
            headers: { authorization: server.info.secretKey!, 'content-type': 'application/json' },
            setupRequest: (req) => ({ ...req, body: chargeFor(made[i++]!) }),
          },
        ],
      });
      const cpu2 = cpuSeconds(pid);
      if (t.failed + c.failed > 0) throw new Error(`router comparison: ${t.failed + c.failed} failed requests`);
      return [t.rps, c.rps, ((cpu1 - cpu0) / t.requests) * 1e6, ((cpu2 - cpu1) / c.requests) * 1e6];
    }
    await tokensThenCharges(packaged); // warm-up (JIT)
    const routerRounds: { own: number[]; pkg: number[] }[] = [];
    for (let r = 0; r < ROUTER_ROUNDS; r++) {
      if (r % 2 === 0) {
        const own = await tokensThenCharges(sandbox);
        routerRounds.push({ own, pkg: await tokensThenCharges(packaged) });
      } else {
        const pkg = await tokensThenCharges(packaged);
        routerRounds.push({ own: await tokensThenCharges(sandbox), pkg });
      }
    }
    const mid = (values: number[]) => {
      const sorted = [...values].sort((x, y) => x - y);
      const m = sorted.length >> 1;
      return sorted.length % 2 ? sorted[m]! : (sorted[m - 1]! + sorted[m]!) / 2;
    };
    const routerRow = (name: string, k: 0 | 1) => {
      const at = (x: number[], i: number) => x[i]!;
      const own = mid(routerRounds.map((x) => at(x.own, k)));
      const pkg = mid(routerRounds.map((x) => at(x.pkg, k)));
      const ratio = mid(routerRounds.map((x) => at(x.pkg, k) / at(x.own, k)));
      const ownCpu = mid(routerRounds.map((x) => at(x.own, k + 2)));
      const pkgCpu = mid(routerRounds.map((x) => at(x.pkg, k + 2)));
      const cpuRatio = mid(routerRounds.map((x) => at(x.pkg, k + 2) / at(x.own, k + 2)));
      return {
        line: `| ${name} | ${own.toFixed(0)} | ${pkg.toFixed(0)} | **${(ratio * 100).toFixed(0)}%** | ${ownCpu.toFixed(0)} | ${pkgCpu.toFixed(0)} | ${cpuRatio.toFixed(2)}x |`,
        ratio,
        cpuRatio,
        extraUs: pkgCpu - ownCpu,
      };
    };
    const routerTokens = routerRow('`POST /api2/v2/tokens/card`', 0);
    const routerCharges = routerRow('`POST /api2/v2/charges/token`', 1);

    const rows = [base, ceiling, cardTokens, charges]
      .map(
        (f) =>
          `| ${f.name} | ${f.requests} | ${f.rps.toFixed(0)} | ${f.p50} ms | ${f.p99} ms | ${(f.rps / base.rps).toFixed(2)}x | ${f.failed} |`,
      )
      .join('\n');
    const ratio = charges.rps / base.rps;
    return `## Sandbox: legacy card tokens and charges

autocannon on loopback, ${CONNECTIONS} connections, ${DURATION_S} s per run; each server in its own process. The charge run
makes one charge per card token the card-token run created (tokens are single use). Baseline: a bare \`node:http\`
server that reads the request body and answers a fixed JSON charge of the same size. Every run but the card-token
one builds a fresh request body per request, so the client does the same work against each server.

| run | requests | req/s | p50 | p99 | throughput vs baseline | errors / non-2xx |
| --- | --- | --- | --- | --- | --- | --- |
${rows}

Target: sandbox charge throughput at least ${TARGET * 100}% of the baseline: **${(ratio * 100).toFixed(0)}%**, ${ratio >= TARGET ? 'met' : 'missed'}.
The sandbox runs on \`node:http\` with a router of its own (docs/decisions/sandbox.md#sandbox-http): Express 5 alone, answering
the fixed JSON and doing nothing else, reaches ${((ceiling.rps / base.rps) * 100).toFixed(0)}% of the baseline here, below the target before any work.
The sandbox is the built package (\`dist/\`), as \`npx tessera-pay sandbox\` runs it.

### Sandbox router: its own against the \`router\` package (issue #14)

The same built sandbox, the same routes and handlers, routed by the \`router\` npm package (the router Express 5
uses, ${routerPackageVersion}) instead of its own \`Router\` (server/sandbox/core/http.ts): a module hook
(bench/router-package/) gives the sandbox's \`core/http.js\` a \`Router\` over the package, with matching set like the
sandbox's (case-insensitive, optional trailing slash). ${ROUTER_ROUNDS} alternating rounds, each ${ROUTER_DURATION_S} s of card tokens then one
charge per token, ${CONNECTIONS} connections; medians (the ratio is the median of the per-round ratios).

| route | req/s, own router | req/s, \`router\` package | package / own | sandbox CPU µs per request, own | same, package | package / own |
| --- | --- | --- | --- | --- | --- | --- |
${routerTokens.line}
${routerCharges.line}

On the charge path the package gives ${(routerCharges.ratio * 100).toFixed(0)}% of the own router's throughput and costs
${routerCharges.cpuRatio.toFixed(2)}x its CPU per request (${routerCharges.extraUs >= 0 ? '+' : ''}${routerCharges.extraUs.toFixed(0)} µs); on card tokens ${(routerTokens.ratio * 100).toFixed(0)}% and ${routerTokens.cpuRatio.toFixed(2)}x. The CPU columns read
the sandbox process's user + system time from /proc, so they are less swayed than req/s by other load on the machine.
What the figures mean for keeping the own router: docs/decisions/sandbox.md#sandbox-http.
`;
  } finally {
    for (const server of servers) await stop(server);
  }
}
