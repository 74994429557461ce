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
  readonly pattern: RegExp;
  readonly keys: readonly string[];
  readonly handlers: readonly RequestHandler[];
}
type Layer = RouteLayer | { readonly method?: undefined; readonly handlers: readonly RequestHandler[] };

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `/charges/:id` → a case-insensitive pattern with one group per parameter and an optional trailing slash. */
function compile(path: string): { pattern: RegExp; keys: string[] } {
  const keys: string[] = [];
  const source = path
    .split('/')
    .map((part) => {
      if (!part.startsWith(':')) return escapeRegExp(part);
      keys.push(part.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}/?$`, 'i'), keys };
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
 * reaches it; a route runs when its method (GET also for HEAD) and path match, and sets `req.params`. The first
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
    this.#layers.push({ method, ...compile(path), handlers });
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
          let params: Record<string, string> | undefined;
          try {
            params = matchRoute(layer, req.path);
          } catch (e) {
            return done(e);
          }
          if (params === undefined) continue;
          req.params = params;
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
      if (layer.method === undefined || !layer.pattern.test(path)) continue;
      methods.add(layer.method);
      if (layer.method === 'GET') methods.add('HEAD');
    }
    return [...methods].sort();
  }
}
