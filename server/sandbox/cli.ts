import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { packageRoot } from '../common/package-root.js';
import type { SandboxMode } from './config.js';
import type { StoreLimits } from './core/context.js';
import { controlHostProblem, MAX_CONTROL_HOSTS } from './core/control-hosts.js';
import { legacyPaths } from './legacy/paths.js';
import { MAX_STORE_LIMIT, type RunningSandbox, startSandbox } from './start.js';

const HELP = `Usage: tessera-pay sandbox [options]

Runs the local provider: the legacy card API and every other API of the provider on one port.

Options:
  --port N              port to listen on (default $TESSERA_SANDBOX_PORT, else 4010; 0 picks a free one)
  --host H              address to bind (default 127.0.0.1; a non-loopback address needs --tls-cert/--tls-key)
  --mode M              sandbox (default: /api2/v2 paths, sandbox controls) or production (live paths, liveMode true)
  --tls-cert FILE       serve HTTPS with this PEM certificate (needs --tls-key)
  --tls-key FILE        the certificate's PEM private key
  --fixtures FILE|NAME  JSON file of start-up state, relative to the current folder (see docs/sandbox.md),
                        or "demo": the demo platform shipped with the package (write ./demo for a file so named)
  --max-card-tokens N   keep at most N card tokens, dropping the oldest (default 20000; a load test that makes
                        more tokens before it charges them needs more); likewise --max-payment-tokens N,
                        --max-customers N and --max-charges N (each 1 to ${MAX_STORE_LIMIT})
  --max-entities N      keep at most N Account Services entities (default 20000); beyond it onboarding is refused
                        (422 entity_limit_reached) until a reset; likewise --max-stored-instruments N for stored
                        src_ instruments (422 instrument_limit_reached; each 1 to ${MAX_STORE_LIMIT})
  --control-host NAME   also answer the controls (/_sandbox/…) at this host name, e.g. sandbox.internal in a
                        container network (repeatable; default $TESSERA_SANDBOX_CONTROL_HOSTS, comma-separated);
                        they always answer at an IP address, localhost and *.localhost, and at no other name
  -h, --help            show this help

Credentials come from TESSERA_SANDBOX_PUBLIC_KEY, TESSERA_SANDBOX_SECRET_KEY, TESSERA_SANDBOX_CLIENT_ID and
TESSERA_SANDBOX_CLIENT_SECRET, else the documented defaults.`;

const MODES: readonly SandboxMode[] = ['sandbox', 'production'];

/** A bad command line: printed with the help, exit code 2. */
class UsageError extends Error {}

interface Parsed {
  readonly port: number;
  readonly host: string;
  readonly mode: SandboxMode;
  readonly tls?: { cert: Buffer; key: Buffer };
  readonly fixtures?: string;
  readonly limits?: StoreLimits;
  readonly controlHosts?: readonly string[];
}

/**
 * The `--max-…` flags and the `limits` option each sets (docs/decisions/sandbox.md#sandbox-memory; the Account
 * Services caps: docs/decisions/sandbox.md#accounts-memory).
 */
const LIMIT_FLAGS = {
  'max-card-tokens': 'maxCardTokens',
  'max-payment-tokens': 'maxPaymentTokens',
  'max-customers': 'maxCustomers',
  'max-charges': 'maxCharges',
  'max-entities': 'maxEntities',
  'max-stored-instruments': 'maxStoredInstruments',
} as const satisfies Record<string, keyof StoreLimits>;

/** The same flags as `parseArgs` options, each taking a value. */
const LIMIT_OPTIONS = Object.fromEntries(
  Object.keys(LIMIT_FLAGS).map((flag) => [flag, { type: 'string' as const }]),
) as Record<keyof typeof LIMIT_FLAGS, { type: 'string' }>;

/** The caps given on the command line, each a whole number from 1 to {@link MAX_STORE_LIMIT}. */
function parseLimits(values: Record<string, string | boolean | undefined>): StoreLimits | undefined {
  const limits: Record<string, number> = {};
  for (const [flag, option] of Object.entries(LIMIT_FLAGS)) {
    const raw = values[flag] as string | undefined;
    if (raw === undefined) continue;
    // At most nine digits: a fixed-length check, then the range.
    if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_STORE_LIMIT) {
      throw new UsageError(`--${flag} must be an integer from 1 to ${MAX_STORE_LIMIT}, got ${JSON.stringify(raw)}`);
    }
    limits[option] = Number(raw);
  }
  return Object.keys(limits).length > 0 ? limits : undefined;
}

/**
 * `--control-host` (repeatable), else `TESSERA_SANDBOX_CONTROL_HOSTS` (comma-separated): host names the controls
 * answer at besides IP addresses and localhost (docs/decisions/sandbox.md#sandbox-controls).
 */
function parseControlHosts(flags: readonly string[] | undefined, env: NodeJS.ProcessEnv): string[] | undefined {
  const fromEnv = flags === undefined || flags.length === 0;
  const source = fromEnv ? 'TESSERA_SANDBOX_CONTROL_HOSTS' : '--control-host';
  const names = fromEnv ? (env.TESSERA_SANDBOX_CONTROL_HOSTS ?? '').split(',').map((n) => n.trim()) : [...flags];
  const given = fromEnv ? names.filter((n) => n !== '') : names;
  if (given.length > MAX_CONTROL_HOSTS) {
    throw new UsageError(`${source} names ${given.length} hosts; at most ${MAX_CONTROL_HOSTS} may be given`);
  }
  for (const name of given) {
    const problem = controlHostProblem(name);
    if (problem !== undefined) throw new UsageError(`${source} ${JSON.stringify(name.slice(0, 300))} ${problem}`);
  }
  return given.length > 0 ? given : undefined;
}

function readOption(option: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new UsageError(`${option}: cannot read ${JSON.stringify(file)} (${(e as NodeJS.ErrnoException).code})`);
  }
}

/** Fixture sets shipped in the package, by the name `--fixtures` takes. */
export const NAMED_FIXTURES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  demo: ['demo', 'fixtures', 'platform.json'],
});

/** `--fixtures` value → absolute path: a shipped set by name, else a file relative to `cwd`. */
export function fixturesPath(value: string, cwd: string = process.cwd()): string {
  const named = Object.hasOwn(NAMED_FIXTURES, value) ? NAMED_FIXTURES[value] : undefined;
  return named ? join(packageRoot(), ...named) : resolve(cwd, value);
}

/** Parses and checks the command line; throws UsageError naming the option at fault. */
export function parseSandboxArgs(args: string[], env: NodeJS.ProcessEnv = process.env): Parsed | 'help' {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        mode: { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        fixtures: { type: 'string' },
        ...LIMIT_OPTIONS,
        'control-host': { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) return 'help';
  const rawPort = (values.port as string | undefined) ?? env.TESSERA_SANDBOX_PORT ?? '4010';
  const source = values.port !== undefined ? '--port' : env.TESSERA_SANDBOX_PORT ? 'TESSERA_SANDBOX_PORT' : '--port';
  if (!/^\d{1,5}$/.test(rawPort) || Number(rawPort) > 65535) {
    throw new UsageError(`${source} must be an integer from 0 to 65535, got ${JSON.stringify(rawPort)}`);
  }
  const mode = (values.mode as string | undefined) ?? 'sandbox';
  if (!MODES.includes(mode as SandboxMode)) {
    throw new UsageError(`--mode must be "sandbox" or "production", got ${JSON.stringify(mode)}`);
  }
  const host = (values.host as string | undefined) ?? '127.0.0.1';
  if (host.trim() === '') throw new UsageError('--host must not be empty');
  const certFile = values['tls-cert'] as string | undefined;
  const keyFile = values['tls-key'] as string | undefined;
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new UsageError('--tls-cert and --tls-key go together: give both or neither');
  }
  const given = values.fixtures as string | undefined;
  if (given === '') throw new UsageError('--fixtures must name a file or "demo"');
  const fixtures = given === undefined ? undefined : fixturesPath(given);
  if (fixtures !== undefined) readOption('--fixtures', fixtures);
  const limits = parseLimits(values as Record<string, string | boolean | undefined>);
  const controlHosts = parseControlHosts(values['control-host'] as string[] | undefined, env);
  return {
    port: Number(rawPort),
    host,
    mode: mode as SandboxMode,
    ...(certFile && keyFile
      ? { tls: { cert: readOption('--tls-cert', certFile), key: readOption('--tls-key', keyFile) } }
      : {}),
    ...(fixtures !== undefined ? { fixtures } : {}),
    ...(limits ? { limits } : {}),
    ...(controlHosts ? { controlHosts } : {}),
  };
}

/** What the sandbox prints on start: URL, mode, keys (secrets only in sandbox mode) and where things are. */
export function banner(sb: RunningSandbox): string {
  const c = sb.credentials;
  const hidden = '(hidden in production mode)';
  const paths = legacyPaths(sb.mode);
  const lines = [
    `Tessera sandbox listening on ${sb.url} (mode: ${sb.mode})`,
    `  Public key:     ${c.publicKey}`,
    `  Secret key:     ${sb.mode === 'sandbox' ? c.secretKey : hidden}`,
    `  Client id:      ${c.clientId}`,
    `  Client secret:  ${sb.mode === 'sandbox' ? c.clientSecret : hidden}`,
    `  Legacy API:     ${sb.url}${paths.base} (tokens/card, tokens/payment, charges/token, charges/{id})`,
  ];
  if (paths.testCards) {
    lines.push(
      `  Test cards:     ${sb.url}${paths.testCards}`,
      `  Controls:       ${sb.url}/_sandbox/ (clock, faults, reset, requests)`,
    );
  }
  lines.push('Press Ctrl-C to stop.');
  return lines.join('\n');
}

/** `tessera-pay sandbox`: starts the sandbox and runs until Ctrl-C or SIGTERM, then closes cleanly. */
export async function runSandboxCommand(args: string[]): Promise<number> {
  let parsed: Parsed | 'help';
  try {
    parsed = parseSandboxArgs(args);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`tessera-pay sandbox: ${e.message}\n\n${HELP}`);
    return 2;
  }
  if (parsed === 'help') {
    console.log(HELP);
    return 0;
  }
  let sb: RunningSandbox;
  try {
    sb = await startSandbox(parsed);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE') {
      console.error(`tessera-pay sandbox: port ${parsed.port} is in use; pick another with --port`);
      return 1;
    }
    if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND' || err.code === 'EACCES') {
      console.error(`tessera-pay sandbox: cannot listen on ${parsed.host}:${parsed.port} (${err.code})`);
      return 2;
    }
    // Refusals of the options themselves (non-loopback without TLS, bad fixtures, a bad certificate).
    console.error(err.message.startsWith('tessera-pay sandbox:') ? err.message : `tessera-pay sandbox: ${err.message}`);
    return 2;
  }
  // Listen for signals before printing: whoever reads the banner may signal at once.
  const stopped = new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        console.error(`tessera-pay sandbox: ${signal} again, exiting at once`);
        process.exit(130);
      }
      stopping = true;
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  console.log(banner(sb));
  await stopped;
  await sb.close();
  console.log('Tessera sandbox stopped.');
  return 0;
}
