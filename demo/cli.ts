import { parseArgs } from 'node:util';
import pino from 'pino';
import { startDemo } from './server.js';

const HELP = `Usage: tessera-pay demo [--port N] [--sandbox-port N] [--host H]

Runs the demo in one process: the sandbox with the demo platform fixtures, the helper mounted at /api, and the
demo site (shop, platform dashboard, sandbox console). Ctrl-C stops everything.

  --port N          demo site port (default: $PORT, else 3000)
  --sandbox-port N  sandbox port (default: $TESSERA_SANDBOX_PORT, else 4010)
  --host H          loopback address to bind (default 127.0.0.1)

TESSERA_REDIS_URL=redis://… keeps the helper's state in Redis (as several instances would); without it, in memory.
TESSERA_DEMO_ALLOWED_HOSTS=name,… lets the demo answer those host names too (a proxy's; loopback ones always).
TESSERA_DEMO_TRUST_PROXY=1 (how many proxies) or =loopback (their addresses; the demo listens on loopback only) trusts
  X-Forwarded-* from them, so a request that reached the proxy over HTTPS gets a Secure session cookie; never "true".
Logs are JSON lines (pino) at LOG_LEVEL, default warn; LOG_LEVEL=info shows every request.`;

function portOf(option: string, value: string | undefined, fallback: number): number | string {
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    return `tessera-pay demo: ${option} must be an integer from 0 to 65535, got ${JSON.stringify(value)}`;
  }
  return port;
}

/** `TESSERA_DEMO_TRUST_PROXY`: a number of proxies, or their addresses comma-separated (startDemo checks them). */
function trustProxyOf(value: string | undefined): { trustProxy?: number | string[] } {
  if (value === undefined || value.trim() === '') return {};
  if (/^\d+$/.test(value.trim())) return { trustProxy: Number(value.trim()) };
  return { trustProxy: value.split(',').map((a) => a.trim()) };
}

/** Test cards worth trying, picked from the sandbox's table. */
const TRY = [
  ['4242424242424242', 'approved'],
  ['4000000000000002', 'declined'],
  ['4000000000003220', '3-D Secure (orders from €50; pass or fail the challenge)'],
  ['4000000000004954', 'approved, flagged for review'],
] as const;

/** `tessera-pay demo`: starts the demo and runs until Ctrl-C (SIGINT) or SIGTERM. */
export async function runDemoCommand(args: string[]): Promise<number> {
  let values: { port?: string; 'sandbox-port'?: string; host?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        port: { type: 'string' },
        'sandbox-port': { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    console.error(`tessera-pay demo: ${(error as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const port = portOf('--port (or PORT)', values.port ?? process.env.PORT, 3000);
  const sandboxPort = portOf(
    '--sandbox-port (or TESSERA_SANDBOX_PORT)',
    values['sandbox-port'] ?? process.env.TESSERA_SANDBOX_PORT,
    4010,
  );
  for (const p of [port, sandboxPort]) {
    if (typeof p === 'string') {
      console.error(p);
      return 2;
    }
  }
  let demo: Awaited<ReturnType<typeof startDemo>>;
  try {
    demo = await startDemo({
      port: port as number,
      sandboxPort: sandboxPort as number,
      host: values.host,
      logger: pino({ name: 'tessera-demo', level: process.env.LOG_LEVEL || 'warn' }),
      ...(process.env.TESSERA_REDIS_URL ? { redisUrl: process.env.TESSERA_REDIS_URL } : {}),
      ...trustProxyOf(process.env.TESSERA_DEMO_TRUST_PROXY),
      ...(process.env.TESSERA_DEMO_ALLOWED_HOSTS
        ? {
            allowedHosts: process.env.TESSERA_DEMO_ALLOWED_HOSTS.split(',')
              .map((h) => h.trim())
              .filter(Boolean),
          }
        : {}),
    });
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    console.error(
      e.code === 'EADDRINUSE'
        ? `tessera-pay demo: a port is already in use (${e.message}); pick others with --port / --sandbox-port`
        : `tessera-pay demo: ${e.message}`,
    );
    return 1;
  }
  const cards = new Map((await demo.testCards()).map((c) => [c.number, c]));
  const lines = TRY.filter(([n]) => cards.size === 0 || cards.has(n)).map(
    ([n, what]) => `    ${n.replace(/(\d{4})(?=\d)/g, '$1 ')}  ${what}`,
  );
  console.log(`Tessera demo running (Ctrl-C to stop)

  Shop:                ${demo.url}/
  Platform dashboard:  ${demo.url}/platform
  Sandbox console:     ${demo.url}/sandbox
  Sandbox (provider):  ${demo.sandbox.url}
  Helper store:        ${process.env.TESSERA_REDIS_URL ? 'Redis (TESSERA_REDIS_URL)' : 'memory (set TESSERA_REDIS_URL=redis://… for Redis)'}

  Test cards (any future expiry such as 12/34, a CVV of 3 digits, 4 for American Express):
${lines.join('\n')}
  The full list is on the shop page and at ${demo.sandbox.url}/_sandbox/test-cards
`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await demo.close();
  console.log('Tessera demo stopped.');
  return 0;
}
