import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { isLoopbackHost } from '../../shared/url.js';
import { checkOptions, integerOption, oneOfOption } from '../common/options.js';
import { guardServer, type ServerTimeouts, serverOptions } from '../common/server-guard.js';
import { createSandboxApp } from './app.js';
import type { VirtualClock } from './clock.js';
import type { SandboxCredentials, SandboxMode } from './config.js';
import type { SandboxContext, StoreLimits } from './core/context.js';
import { controlHostsOption } from './core/control-hosts.js';

export interface SandboxOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  readonly port?: number;
  /** Address to bind; loopback (127.0.0.1) by default. A non-loopback address needs `tls`. */
  readonly host?: string;
  /** `sandbox` (default) or `production`: live paths, `liveMode: true`, no sandbox controls. */
  readonly mode?: SandboxMode;
  /** Serve HTTPS with this certificate and key (PEM text or buffers). */
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer };
  /** Credentials to accept; each defaults to its `TESSERA_SANDBOX_*` variable, then the documented default. */
  readonly credentials?: Partial<SandboxCredentials>;
  /** Fixtures: an object, or the path of a JSON file. */
  readonly fixtures?: Record<string, unknown> | string;
  /**
   * Connection timeouts in ms (defaults: `requestTimeout` 30 000, `headersTimeout` 10 000, `keepAliveTimeout`
   * 5 000); a request slower than these is answered 408 and its connection closed.
   */
  readonly timeouts?: ServerTimeouts;
  /** Caps on stored tokens, customers and charges (docs/decisions/sandbox.md#sandbox-memory). */
  readonly limits?: StoreLimits;
  /**
   * Host names besides IP addresses, `localhost` and `*.localhost` by which the sandbox controls (`/_sandbox/…`)
   * answer (`["sandbox.internal"]`); any other `Host` is 421 there (DNS rebinding; `tessera-pay sandbox --control-host`).
   */
  readonly controlHosts?: readonly string[];
}

const pem = z.union([z.string(), z.instanceof(Buffer)], { error: 'must be PEM text or a Buffer' });
/** The largest cap `limits` (and `tessera-pay sandbox --max-…`) takes on any store. */
export const MAX_STORE_LIMIT = 100_000_000;
const limit = integerOption(1, MAX_STORE_LIMIT).optional();

/** The options of {@link startSandbox}, each with its check (server/common/options.ts). */
const SANDBOX_OPTIONS = {
  port: integerOption(0, 65_535).optional(),
  host: z.string({ error: 'must be an address such as "127.0.0.1"' }).min(1).optional(),
  mode: oneOfOption(['sandbox', 'production']).optional(),
  tls: z.strictObject({ cert: pem, key: pem }).optional(),
  credentials: z
    .strictObject({
      publicKey: z.string().optional(),
      secretKey: z.string().optional(),
      clientId: z.string().optional(),
      clientSecret: z.string().optional(),
    })
    .optional(),
  fixtures: z
    .union([z.string(), z.record(z.string(), z.unknown())], {
      error: 'must be a fixtures object or the path of a JSON file',
    })
    .optional(),
  timeouts: z
    .strictObject({
      requestTimeout: integerOption(1, 3_600_000).optional(),
      headersTimeout: integerOption(1, 3_600_000).optional(),
      keepAliveTimeout: integerOption(1, 3_600_000).optional(),
    })
    .optional(),
  limits: z
    .strictObject({
      maxCardTokens: limit,
      maxPaymentTokens: limit,
      maxCustomers: limit,
      maxCharges: limit,
      maxEntities: limit,
      maxStoredInstruments: limit,
      spentTokenRetentionMs: integerOption(0, 30 * 86_400_000).optional(),
    })
    .optional(),
  controlHosts: controlHostsOption.optional(),
};

export interface RunningSandbox {
  /** Base URL, e.g. `http://127.0.0.1:4010` (no trailing slash). */
  readonly url: string;
  readonly mode: SandboxMode;
  /** The virtual clock: `clock.advance(seconds)` moves sandbox time in-process. */
  readonly clock: VirtualClock;
  /** The credentials this sandbox accepts. */
  readonly credentials: SandboxCredentials;
  /** The shared context (state reset, faults, request log) for in-process use. */
  readonly context: SandboxContext;
  /** Stops listening and drops every open connection. */
  close(): Promise<void>;
}

function loadFixtures(fixtures: SandboxOptions['fixtures']): Record<string, unknown> {
  if (fixtures === undefined) return {};
  if (typeof fixtures !== 'string') return fixtures;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(fixtures, 'utf8'));
  } catch (cause) {
    throw new Error(`tessera-pay sandbox: cannot read fixtures from ${fixtures}: ${(cause as Error).message}`, {
      cause,
    });
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`tessera-pay sandbox: fixtures file ${fixtures} must hold a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

/** Runs `build`; an error an area raises over bad fixtures also names the file they came from. */
function withFixturesFile<T>(fixtures: SandboxOptions['fixtures'], build: () => T): T {
  try {
    return build();
  } catch (e) {
    if (typeof fixtures !== 'string' || !(e instanceof Error) || e.message.includes(fixtures)) throw e;
    throw new Error(`${e.message} (fixtures file ${fixtures})`, { cause: e });
  }
}

/**
 * Starts a sandbox and resolves once it listens.
 *
 * @example
 * const sandbox = await startSandbox();            // ephemeral port on 127.0.0.1
 * await fetch(`${sandbox.url}/_sandbox/clock`);
 * sandbox.clock.advance(15 * 60);                  // expire card tokens
 * await sandbox.close();
 */
export async function startSandbox(given: SandboxOptions = {}): Promise<RunningSandbox> {
  // Credentials are checked (and never shown) by checkCredentials, which names the option or the variable.
  const options = checkOptions('startSandbox', given, SANDBOX_OPTIONS, {
    secrets: ['publicKey', 'secretKey', 'clientId', 'clientSecret', 'key'],
  }) as SandboxOptions;
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && !options.tls) {
    throw new Error(
      `tessera-pay sandbox: refusing to bind ${JSON.stringify(host)} without TLS; pass a certificate (--tls-cert/--tls-key) or bind a loopback address`,
    );
  }
  const { app, context } = withFixturesFile(options.fixtures, () =>
    createSandboxApp({
      mode: options.mode,
      credentials: options.credentials,
      fixtures: loadFixtures(options.fixtures),
      limits: options.limits,
      controlHosts: options.controlHosts,
    }),
  );
  const timeouts = serverOptions(options.timeouts);
  // A TLS handshake that never ends is held to the headers' timeout, not Node's 120 s (handshakeTimeout).
  const server: Server = options.tls
    ? createHttpsServer(
        { ...timeouts, handshakeTimeout: timeouts.headersTimeout, cert: options.tls.cert, key: options.tls.key },
        app,
      )
    : createHttpServer(timeouts, app);
  // Slow or endless requests must not hold a connection forever, and Node's own refusals (400/408/431/417), a
  // missing or repeated Host (400) and CONNECT (501) carry the sandbox's error body
  // (docs/decisions/sandbox.md#server-timeouts, #host-header).
  guardServer(
    server,
    (_status, errorCode, message, field) => ({
      errorCode,
      message,
      errors: field ? [{ field, code: errorCode, message }] : [],
    }),
    options.timeouts,
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `${options.tls ? 'https' : 'http'}://${shownHost}:${port}`,
    mode: context.mode,
    clock: context.clock,
    credentials: context.credentials,
    context,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
