import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { TLSSocket } from 'node:tls';
import type { SandboxError } from './errors.js';
import type { FaultRule } from './faults.js';

/**
 * A request and a response as the sandbox's routes see them (the router is in ./http.ts): a leaf module that the
 * router, the body parser and the responder all import, so none of them imports another for these types.
 */

/** How a request body was sent. */
export type BodyFormat = 'json' | 'xml' | 'form';

/** How an answer is written. */
export type ResponseFormat = 'json' | 'xml';

/** Run when a route answers through `respond` (core/respond.ts). */
export type RespondHook = (status: number, body: unknown, headers: Record<string, string>) => void;

/** A request, decorated once by {@link decorate}. */
export interface Request extends IncomingMessage {
  method: string;
  url: string;
  /** The URL's path as sent (not percent-decoded), without the query. */
  path: string;
  /** The request target as sent. */
  originalUrl: string;
  /** The query string, parsed (null prototype); repeated names give arrays. */
  query: Record<string, string | string[] | undefined>;
  /** The matched route's parameters, percent-decoded. */
  params: Record<string, string>;
  /**
   * The matched route's path as registered (`/api2/v2/charges/token`, `/accounts/entities/:entityId/members`),
   * whatever case or trailing slash the request used; undefined until a route matches.
   */
  route: string | undefined;
  /** The parsed request body (set by the body parser; undefined before it runs). */
  // biome-ignore lint/suspicious/noExplicitAny: bodies are validated by each route's schema before use.
  body: any;
  protocol: 'http' | 'https';
}

/**
 * Per-request state shared along the pipeline. A class with every field declared, so each request's state has
 * one shape (property reads stay monomorphic on the hot path) and each field has one type.
 */
export class Locals {
  /** `req_…`, also sent as `Svc-Request-Id`. */
  requestId = '';
  /** The negotiated answer format. */
  responseFormat: ResponseFormat = 'json';
  /** The request body's format, once parsed. */
  bodyFormat: BodyFormat | undefined = undefined;
  /** Size of the request body as received (0 when empty or not read). */
  rawBodyBytes = 0;
  /** Who the caller is, as the area's auth decided: a key kind or `client:<id>` (idempotency scopes by it). */
  principal: string | undefined = undefined;
  /** The fault rule this request took, and whether it has been applied. */
  fault: FaultRule | undefined = undefined;
  faultApplied = false;
  /** How an injected fault ended the exchange, for the request log. */
  faultKind: string | undefined = undefined;
  /** The idempotency record this request holds (core/idempotency.ts). */
  idempotency: unknown = undefined;
  /** Run when a route answers through `respond` (idempotency records the answer). */
  respondHooks: RespondHook[] | undefined = undefined;
  /** The answer as given to `respond`, and its JSON text as sent (for the request log). */
  responseBody: unknown = undefined;
  responseText: string | undefined = undefined;
  /** Renders an error in the shape of the area that claimed the request. */
  renderError: ((err: SandboxError, res: Response) => void) | undefined = undefined;
}

/** A response with per-request state shared along the pipeline. */
export interface Response extends ServerResponse {
  locals: Locals;
}

export type NextFunction = (err?: unknown) => void;
export type RequestHandler = (req: Request, res: Response, next: NextFunction) => unknown;

const NO_QUERY: Record<string, string | string[] | undefined> = Object.freeze(Object.create(null));
/** The params of a route without parameters (shared, frozen). */
export const NO_PARAMS: Record<string, string> = Object.freeze({});

/** The path of a request target: origin-form as is; absolute-form (`http://host/p`) by its path. */
function pathOf(target: string): string {
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  if (path.startsWith('/')) return path;
  try {
    return new URL(target).pathname;
  } catch {
    return path;
  }
}

/** Gives a plain `node:http` request and response the fields the routes use. */
export function decorate(incoming: IncomingMessage, outgoing: ServerResponse): [Request, Response] {
  const req = incoming as Request;
  const res = outgoing as Response;
  const target = req.url ?? '/';
  const q = target.indexOf('?');
  req.originalUrl = target;
  req.path = pathOf(target);
  req.query = q === -1 ? NO_QUERY : parseQuery(target.slice(q + 1));
  req.params = NO_PARAMS;
  req.route = undefined;
  req.body = undefined;
  req.protocol = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  res.locals = new Locals();
  return [req, res];
}
