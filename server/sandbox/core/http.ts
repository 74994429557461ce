import { SandboxError } from './errors.js';
import { type NextFunction, NO_PARAMS, type Request, type RequestHandler, type Response } from './exchange.js';

export {
  type BodyFormat,
  decorate,
  Locals,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type ResponseFormat,
} from './exchange.js';

/**
 * The sandbox's HTTP layer: a small ordered router over `node:http` (the request and response types are in
 * ./exchange.ts). Express was the sandbox's framework until its own cost per request (measured in
 * docs/benchmarks.md) was more than the sandbox's throughput target allowed; the routes kept Express's shape
 * (`(req, res, next)`, `router.post(path, ...handlers)`, `res.locals`), so they did not change with it.
 * See docs/decisions/sandbox.md#sandbox-http.
 */

/** Runs one handler: a throw or a rejected promise goes to `next` as an error. */
function invoke(handler: RequestHandler, req: Request, res: Response, next: NextFunction): void {
  try {
    const result = handler(req, res, next) as { then?: unknown } | undefined;
    if (result && typeof result.then === 'function') {
      (result as Promise<unknown>).then(undefined, (e: unknown) => next(e ?? new Error('handler rejected')));
    }
  } catch (e) {
    next(e);
  }
}

/** Runs `handlers` in order, each calling `next()` to go on; `done` gets the first error, or nothing at the end. */
export function chain(handlers: readonly RequestHandler[], req: Request, res: Response, done: NextFunction): void {
  let i = 0;
  const next: NextFunction = (err) => {
    if (err !== undefined) return done(err);
    const handler = handlers[i++];
    if (handler === undefined) return done();
    invoke(handler, req, res, next);
  };
  next();
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface RouteLayer {
  readonly method: Method;
  /** The path as registered. */
  readonly path: string;
  readonly pattern: RegExp;
  readonly keys: readonly string[];
  /** Each path segment: its literal text in lower case, or null for a `:name` parameter. */
  readonly segments: readonly (string | null)[];
  /** Patterns of routes (any method) that are literal where this one has a parameter: a path they match is theirs. */
  readonly shadows: RegExp[];
  readonly handlers: readonly RequestHandler[];
}
type Layer = RouteLayer | { readonly method?: undefined; readonly handlers: readonly RequestHandler[] };

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `/charges/:id` → a case-insensitive pattern with one group per parameter and an optional trailing slash. */
function compile(path: string): { pattern: RegExp; keys: string[]; segments: (string | null)[] } {
  const keys: string[] = [];
  const parts = path.split('/');
  const source = parts
    .map((part) => {
      if (!part.startsWith(':')) return escapeRegExp(part);
      keys.push(part.slice(1));
      return '([^/]+)';
    })
    .join('/');
  const segments = parts.map((part) => (part.startsWith(':') ? null : part.toLowerCase()));
  return { pattern: new RegExp(`^${source}/?$`, 'i'), keys, segments };
}

/**
 * Whether route `a` outranks route `b` on the paths both match: the same segments, except that `a` is literal in at
 * least one place where `b` has a parameter, and never the other way round (`/charges/token` outranks
 * `/charges/:id`).
 */
function outranks(a: RouteLayer, b: RouteLayer): boolean {
  if (a.segments.length !== b.segments.length) return false;
  let literalOverParam = false;
  for (let i = 0; i < a.segments.length; i++) {
    const x = a.segments[i];
    const y = b.segments[i];
    if (x === null) {
      if (y !== null) return false;
    } else if (y === null) literalOverParam = true;
    else if (x !== y) return false;
  }
  return literalOverParam;
}

/** Whether `path` is taken by a route that outranks `layer` (see {@link outranks}). */
function shadowed(layer: RouteLayer, path: string): boolean {
  for (const pattern of layer.shadows) if (pattern.test(path)) return true;
  return false;
}

/**
 * A test for the paths an area claims, by the router's own rules (any ASCII case, as the `i` flag folds it; a path
 * also with a trailing slash), so that a path the router would route always reaches the area that routes it: each of
 * `prefixes` claims itself and everything under it, each of `exact` only itself.
 *
 * @example
 * claims: claimPaths(['/api2/v2', '/_sandbox/3ds'], ['/_sandbox/test-cards'])
 */
export function claimPaths(prefixes: readonly string[], exact: readonly string[] = []): (path: string) => boolean {
  const parts: string[] = [];
  if (prefixes.length > 0) parts.push(`(?:${prefixes.map(escapeRegExp).join('|')})(?:/|$)`);
  if (exact.length > 0) parts.push(`(?:${exact.map(escapeRegExp).join('|')})/?$`);
  if (parts.length === 0) return () => false;
  // Anchored alternations of literals: linear in the path.
  const pattern = new RegExp(`^(?:${parts.join('|')})`, 'i');
  return (path) => pattern.test(path);
}

/** `/_sandbox` and everything under it, in any case: the sandbox-only paths. */
export const isSandboxPath = claimPaths(['/_sandbox']);

function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new SandboxError(400, 'path_malformed', 'the path holds malformed percent-encoding', { field: 'path' });
  }
}

/** The parameters of `layer` for `path`, or undefined when it does not match. */
function matchRoute(layer: RouteLayer, path: string): Record<string, string> | undefined {
  const m = layer.pattern.exec(path);
  if (!m) return undefined;
  if (layer.keys.length === 0) return NO_PARAMS;
  const params: Record<string, string> = {};
  for (let k = 0; k < layer.keys.length; k++) params[layer.keys[k]!] = decodeParam(m[k + 1]!);
  return params;
}

/**
 * Middleware and routes, run in the order they were added: a middleware (`use`) runs for every request that
 * reaches it; a route runs when its method (GET also for HEAD) and path match, and sets `req.params`; a path that a
route with a literal segment takes is never a parameter of another route (`/charges/token` is not `/charges/:id`,
whatever the method). The first
 * handler that answers ends the walk; `next(err)` ends it with an error. {@link Router.handle} calls `done()` when
 * nothing answered, so the caller decides between 404 and 405 ({@link Router.allowedMethods}).
 */
export class Router {
  readonly #layers: Layer[] = [];

  use(...handlers: RequestHandler[]): this {
    this.#layers.push({ handlers });
    return this;
  }

  get(path: string, ...handlers: RequestHandler[]): this {
    return this.#route('GET', path, handlers);
  }

  post(path: string, ...handlers: RequestHandler[]): this {
    return this.#route('POST', path, handlers);
  }

  put(path: string, ...handlers: RequestHandler[]): this {
    return this.#route('PUT', path, handlers);
  }

  patch(path: string, ...handlers: RequestHandler[]): this {
    return this.#route('PATCH', path, handlers);
  }

  delete(path: string, ...handlers: RequestHandler[]): this {
    return this.#route('DELETE', path, handlers);
  }

  #route(method: Method, path: string, handlers: RequestHandler[]): this {
    const layer: RouteLayer = { method, path, ...compile(path), shadows: [], handlers };
    // A literal segment wins over a parameter whatever the method and the order the routes were added in, so
    // `GET /charges/token` is 405 (POST only), not a read of the charge "token" (docs/decisions/sandbox.md#wrong-method).
    for (const other of this.#layers) {
      if (other.method === undefined) continue;
      if (outranks(layer, other)) other.shadows.push(layer.pattern);
      else if (outranks(other, layer)) layer.shadows.push(other.pattern);
    }
    this.#layers.push(layer);
    return this;
  }

  handle(req: Request, res: Response, done: NextFunction): void {
    const layers = this.#layers;
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    let i = 0;
    const next: NextFunction = (err) => {
      if (err !== undefined) return done(err);
      while (i < layers.length) {
        const layer = layers[i++]!;
        if (layer.method !== undefined) {
          if (layer.method !== method) continue;
          if (layer.shadows.length > 0 && shadowed(layer, req.path)) continue;
          let params: Record<string, string> | undefined;
          try {
            params = matchRoute(layer, req.path);
          } catch (e) {
            return done(e);
          }
          if (params === undefined) continue;
          req.params = params;
          req.route = layer.path;
        }
        return chain(layer.handlers, req, res, next);
      }
      done();
    };
    next();
  }

  /** The methods this router's routes answer on `path` (HEAD with GET), sorted; empty when none match. */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const layer of this.#layers) {
      if (layer.method === undefined || !layer.pattern.test(path) || shadowed(layer, path)) continue;
      methods.add(layer.method);
      if (layer.method === 'GET') methods.add('HEAD');
    }
    return [...methods].sort();
  }
}
