import { createHash } from 'node:crypto';
import type { SandboxContext } from './context.js';
import { SandboxError } from './errors.js';
import type { NextFunction, Request, RequestHandler, Response } from './http.js';
import { onRespond, respond } from './respond.js';

/**
 * `Idempotency-Key` for POSTs, with the semantics of the IETF httpapi draft as DESIGN.md decides:
 * the same key with the same body replays the first answer (status, body and headers, plus
 * `Idempotent-Replayed: true`); the same key with another body is 422; the same key while the first request is
 * still running is 409. Keys are kept 24 hours of sandbox clock, scoped per caller + method + route (the route's
 * path with its decoded parameters, so any spelling the router takes for one path is one scope). The caller is
 * `res.locals.principal` as the area's auth set it (a key kind, or the OAuth client id, so a client that retries
 * with a refreshed access token is still the same caller), else a digest of the Authorization header.
 *
 * Only answers a route gives through `respond` are recorded, and not 5xx ones. A request that fails validation, is
 * refused before it takes effect, or whose connection drops before an answer releases its key, so a corrected
 * request may reuse it (docs/decisions/sandbox.md#idempotency).
 *
 * @example
 * const idem = createIdempotency(ctx);
 * router.post('/charges', requireSecretKey, ...idem.wrap(parseBody(['json', 'xml'])), createCharge);
 */
export interface Idempotency {
  /**
   * Surrounds a body parser: reserves the key before the body is read (so a twin request arriving meanwhile
   * gets 409), then, once it is parsed, replays a finished answer or refuses another body. `variant` names what
   * else of the request decides its answer (the entity endpoints' `schema_version`): the same key with the same body
   * but another variant is refused like another body, never answered with the first variant's answer.
   */
  wrap(parse: RequestHandler, variant?: (req: Request) => string): RequestHandler[];
  /** Keys currently held (in flight or finished, not yet expired). */
  size(): number;
}

export interface IdempotencyOptions {
  /** Request header carrying the key (default `Idempotency-Key`). */
  readonly header?: string;
  /** How long a key is kept, in seconds of sandbox clock (default 24 hours). */
  readonly ttlSeconds?: number;
  /** Most keys held at once; the oldest go first beyond it (default 100,000). */
  readonly maxKeys?: number;
}

interface Recorded {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;
}

interface Entry {
  readonly createdMs: number;
  fingerprint?: string;
  /** Undefined while the first request is in flight. */
  response?: Recorded;
}

interface Held {
  readonly scope: string;
  readonly entry: Entry;
  /** True when this request made the entry (it runs); false when it found a finished one (it replays). */
  readonly own: boolean;
}

const KEY = /^[\x20-\x7e]{1,255}$/;

/** A request header by its lower-case name; one sent twice reads as Node joins it (`a, b`). */
function headerValue(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` are the same body. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function createIdempotency(ctx: SandboxContext, options: IdempotencyOptions = {}): Idempotency {
  const header = options.header ?? 'Idempotency-Key';
  const headerName = header.toLowerCase();
  const ttlMs = (options.ttlSeconds ?? 24 * 3600) * 1000;
  const maxKeys = options.maxKeys ?? 100_000;
  if (!(ttlMs > 0) || !Number.isFinite(ttlMs)) {
    throw new TypeError(`createIdempotency: ttlSeconds must be a positive number, got ${options.ttlSeconds}`);
  }
  if (!Number.isInteger(maxKeys) || maxKeys < 1) {
    throw new TypeError(`createIdempotency: maxKeys must be a positive integer, got ${options.maxKeys}`);
  }
  // Insertion order = age order, which makes evicting the oldest cheap.
  const entries = new Map<string, Entry>();
  ctx.onReset(() => entries.clear());

  const live = (scope: string): Entry | undefined => {
    const entry = entries.get(scope);
    if (entry && entry.createdMs + ttlMs <= ctx.clock.nowMs()) {
      entries.delete(scope);
      return undefined;
    }
    return entry;
  };

  const evict = () => {
    const now = ctx.clock.nowMs();
    for (const [scope, entry] of entries) {
      if (entries.size < maxKeys && entry.createdMs + ttlMs > now) break;
      entries.delete(scope);
    }
  };

  const reserve: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    const key = headerValue(req, headerName);
    if (key === undefined) return next();
    if (!KEY.test(key)) {
      throw new SandboxError(400, 'idempotency_key_invalid', `${header} must be 1 to 255 printable ASCII characters`, {
        field: header,
      });
    }
    const caller = res.locals.principal ?? sha256(req.headers.authorization ?? '');
    // By route and decoded parameters, not by spelling: the router takes `/charges/token/` and `/Charges/Token`
    // for `/charges/token`, so a retry spelled either way must find the first request's record.
    const target = req.route === undefined ? req.path : `${req.route} ${JSON.stringify(req.params)}`;
    const scope = `${caller} ${req.method} ${target} ${key}`;
    const found = live(scope);
    if (found && !found.response) {
      throw new SandboxError(409, 'idempotency_key_in_use', `a request with this ${header} is still in flight`, {
        field: header,
        headers: { 'Retry-After': '1' },
      });
    }
    if (found) {
      res.locals.idempotency = { scope, entry: found, own: false } satisfies Held;
      return next();
    }
    const entry: Entry = { createdMs: ctx.clock.nowMs() };
    if (entries.size >= maxKeys) evict();
    entries.set(scope, entry);
    res.locals.idempotency = { scope, entry, own: true } satisfies Held;
    onRespond(res, (status, body, headers) => {
      if (status >= 500) entries.delete(scope);
      else entry.response = { status, body, headers: { ...headers } };
    });
    // No recorded answer by the time the exchange ends (an error, a refused body, a dropped connection): release.
    res.once('close', () => {
      if (!entry.response && entries.get(scope) === entry) entries.delete(scope);
    });
    next();
  };

  const checkOf =
    (variant?: (req: Request) => string): RequestHandler =>
    (req: Request, res: Response, next: NextFunction) => {
      const held = res.locals.idempotency as Held | undefined;
      if (!held) return next();
      const fingerprint = sha256(variant ? `${variant(req)}\n${canonical(req.body)}` : canonical(req.body));
      if (held.own) {
        held.entry.fingerprint = fingerprint;
        return next();
      }
      if (held.entry.fingerprint !== fingerprint) {
        throw new SandboxError(
          422,
          'idempotency_key_reused',
          `this ${header} was used with a different request${variant ? '' : ' body'}; use a new key for a new request`,
          { field: header },
        );
      }
      const first = held.entry.response!;
      respond(res, first.status, first.body, { ...first.headers, 'Idempotent-Replayed': 'true' });
    };

  return {
    wrap: (parse, variant) => [reserve, parse, checkOf(variant)],
    size: () => entries.size,
  };
}
