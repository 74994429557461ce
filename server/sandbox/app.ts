import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { accountsArea } from './accounts/area.js';
import { VirtualClock } from './clock.js';
import { checkCredentials, credentialsFromEnv, type SandboxCredentials, type SandboxMode } from './config.js';
import { mountArea, renderDefaultError, type SandboxArea } from './core/area.js';
import { newId, type SandboxContext } from './core/context.js';
import { controlsArea } from './core/controls.js';
import { SandboxError } from './core/errors.js';
import { FaultTable } from './core/faults.js';
import { forLog, type LoggedRequest, pathForLog, RequestLog } from './core/request-log.js';
import { legacyArea } from './legacy/index.js';
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
}

export interface SandboxApp {
  readonly app: Express;
  readonly context: SandboxContext;
}

function authKind(header: string | undefined, creds: SandboxCredentials): LoggedRequest['auth'] {
  if (!header) return 'none';
  const raw = header.replace(/^Bearer\s+/i, '');
  if (raw === creds.publicKey) return 'public_key';
  if (raw === creds.secretKey) return 'secret_key';
  if (/^Bearer\s+/i.test(header)) return 'bearer';
  return 'unknown';
}

/** Builds the sandbox's Express app and its shared context, without listening. */
export function createSandboxApp(options: SandboxAppOptions = {}): SandboxApp {
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

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  // Request id on every response (DESIGN.md: Svc-Request-Id on success and error alike).
  app.use((req: Request, res: Response, next: NextFunction) => {
    const requestId = newId('req_');
    res.locals.requestId = requestId;
    res.setHeader('Svc-Request-Id', requestId);
    const started = process.hrtime.bigint();
    if (!req.path.startsWith('/_sandbox')) {
      const entry: LoggedRequest = {
        requestId,
        at: clock.now().toISOString(),
        method: req.method,
        path: pathForLog(req.originalUrl),
        auth: authKind(req.headers.authorization, context.credentials),
        status: 0,
        durationMs: 0,
      };
      res.once('close', () => {
        entry.status = res.headersSent ? res.statusCode : 0;
        entry.durationMs = Number(process.hrtime.bigint() - started) / 1e6;
        entry.requestBody = forLog(req.body);
        entry.responseBody = forLog(res.locals.responseBody);
        if (res.locals.faultKind) entry.fault = res.locals.faultKind;
        log.add(entry);
      });
    }
    next();
  });

  for (const factory of AREAS) app.use(mountArea(factory(context), context));

  app.use((req: Request, res: Response) => {
    renderDefaultError(new SandboxError(404, 'not_found', `no route for ${req.method} ${req.path}`), req, res);
  });
  return { app, context };
}
