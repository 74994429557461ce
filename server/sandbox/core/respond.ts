import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { encodeXml } from '../../provider/codec/xml.js';
import { SandboxError } from './errors.js';
import type { FaultRule } from './faults.js';

/** Wire formats an area answers in. */
export type ResponseFormat = 'json' | 'xml';

/** Called after a route's answer is decided (idempotency records it, for instance). */
export type RespondHook = (status: number, body: unknown, headers: Record<string, string>) => void;

/**
 * Chooses the response format from `Accept` among `formats` (the first is the
 * default for `*\/*` or no Accept). An Accept that allows none of them gets 406.
 */
export function negotiate(formats: readonly ResponseFormat[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    res.locals.responseFormat = formats[0];
    const accept = req.headers.accept;
    if (!accept) return next();
    const types = formats.map((f) => `application/${f}`);
    let chosen = req.accepts(types);
    if (!chosen && accept.includes(';')) {
      // Media-type parameters other than q (Account Services' `schema_version=3.0`) must not defeat the format
      // match: Express's negotiator only matches a range with parameters to a type with the same parameters.
      req.headers.accept = accept.replace(/;\s*(?!q=)[^;,]*/gi, '');
      chosen = req.accepts(types);
      req.headers.accept = accept;
    }
    if (!chosen) {
      return next(
        new SandboxError(
          406,
          'not_acceptable',
          `Accept must allow ${formats.map((f) => `application/${f}`).join(' or ')}`,
          {
            field: 'Accept',
          },
        ),
      );
    }
    res.locals.responseFormat = chosen === 'application/xml' ? 'xml' : 'json';
    next();
  };
}

/**
 * Sends `body` with `status` in the negotiated format. Every route answers
 * through here, so that faults in the "after" phase, the request log and
 * idempotency see every answer. `undefined` body sends no content.
 */
export function respond(res: Response, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  res.locals.responseBody = body;
  for (const hook of (res.locals.respondHooks as RespondHook[] | undefined) ?? []) hook(status, body, headers);
  const fault = res.locals.fault as FaultRule | undefined;
  if (fault && fault.phase === 'after' && !res.locals.faultApplied) {
    res.locals.faultApplied = true;
    if (applyFault(res, fault)) return;
  }
  writeBody(res, status, body, headers);
}

/** Writes without hooks or faults (used by fault rendering itself). */
export function writeBody(res: Response, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.status(status).set(headers);
  if (body === undefined || status === 204) {
    res.end();
    return;
  }
  if (res.locals.responseFormat === 'xml') {
    res.type('application/xml; charset=utf-8').send(encodeXml(body as Record<string, unknown>));
  } else {
    res.type('application/json; charset=utf-8').send(JSON.stringify(body));
  }
}

/** Adds a hook that runs when the route answers. */
export function onRespond(res: Response, hook: RespondHook): void {
  const hooks = (res.locals.respondHooks as RespondHook[] | undefined) ?? [];
  hooks.push(hook);
  res.locals.respondHooks = hooks;
}

/**
 * Applies a fault's failure (reset, stalled body, or an error status) to the
 * response. Returns false when the rule only delays (the real answer goes out).
 */
export function applyFault(res: Response, fault: FaultRule): boolean {
  if (fault.reset) {
    res.locals.faultKind = 'reset';
    res.socket?.destroy();
    return true;
  }
  if (fault.stallBody) {
    res.locals.faultKind = 'stall';
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': '4096' });
    res.write('{"');
    return true;
  }
  if (fault.status !== undefined) {
    res.locals.faultKind = `status ${fault.status}`;
    const render = res.locals.renderError as (err: SandboxError, res: Response) => void;
    render(
      new SandboxError(fault.status, 'injected_fault', `fault injected by the sandbox (HTTP ${fault.status})`, {
        headers: fault.retryAfter === undefined ? undefined : { 'Retry-After': String(fault.retryAfter) },
      }),
      res,
    );
    return true;
  }
  return false;
}
