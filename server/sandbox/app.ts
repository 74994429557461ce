import type { RequestListener } from 'node:http';
import { checkOptions } from '../common/options.js';
import { accountsArea } from './accounts/area.js';
import { VirtualClock } from './clock.js';
import { checkCredentials, credentialsFromEnv, type SandboxCredentials, type SandboxMode } from './config.js';
import { mountArea, renderDefaultError, type SandboxArea, toSandboxError } from './core/area.js';
import type { StoreLimits } from './core/context.js';
import { newId, type SandboxContext } from './core/context.js';
import { controlHostRule, controlHostsOption } from './core/control-hosts.js';
import { controlsArea } from './core/controls.js';
import { SandboxError } from './core/errors.js';
import { FaultTable } from './core/faults.js';
import { claimPaths, decorate, isSandboxPath, type Request, type Response } from './core/http.js';
import { forLog, type LoggedRequest, pathForLog, RequestLog } from './core/request-log.js';
import { legacyArea } from './legacy/index.js';
import { legacyPaths } from './legacy/paths.js';
import { oauthArea } from './oauth/area.js';

/**
 * The areas the sandbox serves, in claim order. Each is a factory of the
 * shared context; add an API by adding its factory here.
 */
// legacyArea comes before controlsArea: it claims /_sandbox/test-cards and /_sandbox/3ds/… itself.
const AREAS: readonly ((ctx: SandboxContext) => SandboxArea)[] = [oauthArea, accountsArea, legacyArea, controlsArea];

export interface SandboxAppOptions {
  readonly mode?: SandboxMode;
  readonly credentials?: Partial<SandboxCredentials>;
  readonly fixtures?: Record<string, unknown>;
  readonly clock?: VirtualClock;
  /** Caps on stored tokens, customers and charges (docs/decisions/sandbox.md#sandbox-memory). */
  readonly limits?: StoreLimits;
  /**
   * Host names besides IP addresses, `localhost` and `*.localhost` by which the sandbox controls (`/_sandbox/…`)
   * answer, for a sandbox reached by a name of yours (`sandbox.internal` in a container network). Any other `Host`
   * is 421 `control_host_refused` there: a page of another site could otherwise point its own name at the sandbox
   * and drive them (DNS rebinding; docs/decisions/sandbox.md#sandbox-controls).
   */
  readonly controlHosts?: readonly string[];
}

export interface SandboxApp {
  /** The request listener: give it to `http.createServer` / `https.createServer`. */
  readonly app: RequestListener;
  readonly context: SandboxContext;
}

function authKind(header: string | undefined, creds: SandboxCredentials): LoggedRequest['auth'] {
  if (!header) return 'none';
  if (header === creds.secretKey) return 'secret_key';
  if (header === creds.publicKey) return 'public_key';
  const raw = header.replace(/^Bearer\s+/i, '');
  if (raw === creds.publicKey) return 'public_key';
  if (raw === creds.secretKey) return 'secret_key';
  if (/^Bearer\s+/i.test(header)) return 'bearer';
  return 'unknown';
}

/** Builds the sandbox's request listener and its shared context, without listening. */
export function createSandboxApp(options: SandboxAppOptions = {}): SandboxApp {
  const { controlHosts } = checkOptions(
    'createSandboxApp',
    { controlHosts: options.controlHosts },
    { controlHosts: controlHostsOption.optional() },
  );
  const resets: (() => void)[] = [];
  const clock = options.clock ?? new VirtualClock();
  const faults = new FaultTable();
  // Options win over the environment; an option given as undefined falls back like an absent one.
  const given = Object.fromEntries(
    Object.entries(options.credentials ?? {}).filter(([, v]) => v !== undefined),
  ) as Partial<SandboxCredentials>;
  const log = new RequestLog();
  const context: SandboxContext = {
    mode: options.mode ?? 'sandbox',
    clock,
    credentials: checkCredentials({ ...credentialsFromEnv(), ...given }, given),
    faults,
    log,
    fixtures: options.fixtures ?? {},
    storeLimits: options.limits ?? {},
    services: {},
    newId,
    onReset: (fn) => resets.push(fn),
    reset: () => {
      faults.clear();
      log.clear();
      clock.reset();
      for (const fn of resets) fn();
    },
  };

  const areas = AREAS.map((factory) => {
    const area = factory(context);
    return { claims: area.claims, handle: mountArea(area, context), renderError: area.renderError };
  });
  // Every control answers only a Host no other site can point here (DNS rebinding), but the 3-D Secure challenge:
  // the shopper's browser is sent there by the name the caller reached the legacy API by, and it acts on an
  // unguessable reference only (docs/decisions/sandbox.md#sandbox-controls).
  const refuseHost = controlHostRule(controlHosts);
  const isChallenge = claimPaths([legacyPaths(context.mode).challenge]);
  const hostRuled = (path: string) => isSandboxPath(path) && !isChallenge(path);

  const app: RequestListener = (incoming, outgoing) => {
    const [req, res] = decorate(incoming, outgoing);
    // Request id on every response (DESIGN.md: Svc-Request-Id on success and error alike).
    const requestId = newId('req_');
    res.locals.requestId = requestId;
    res.setHeader('Svc-Request-Id', requestId);
    try {
      if (!isSandboxPath(req.path)) logExchange(req, res, requestId);
      for (const area of areas) {
        if (!area.claims(req.path)) continue;
        // In the claiming area's error shape; in production mode no area claims `/_sandbox/…` (404).
        const refused = hostRuled(req.path) ? refuseHost(req.headers.host) : undefined;
        return refused ? area.renderError(refused, req, res) : area.handle(req, res);
      }
      // The path as the log keeps it (a card number masked), since the log keeps this answer too.
      const path = pathForLog(req.path);
      renderDefaultError(new SandboxError(404, 'not_found', `no route for ${req.method} ${path}`), req, res);
    } catch (err) {
      // Nothing the pipeline throws outside a route may take the process down: answer it (toSandboxError logs it).
      renderDefaultError(toSandboxError(err), req, res);
    }
  };

  /** Adds the exchange to the request log once it ends (masked: see request-log.ts). */
  function logExchange(req: Request, res: Response, requestId: string): void {
    const started = performance.now();
    const atMs = clock.nowMs();
    const entry: Omit<LoggedRequest, 'at'> = {
      requestId,
      method: req.method,
      path: pathForLog(req.originalUrl),
      auth: authKind(req.headers.authorization, context.credentials),
      status: 0,
      durationMs: 0,
    };
    res.once('close', () => {
      entry.status = res.headersSent ? res.statusCode : 0;
      entry.durationMs = performance.now() - started;
      entry.requestBody = forLog(req.body, req.path);
      const text = res.locals.responseText;
      if (text === undefined) entry.responseBody = forLog(res.locals.responseBody);
      if (res.locals.faultKind) entry.fault = res.locals.faultKind;
      log.add(entry, atMs, text);
    });
  }

  return { app, context };
}
