import Negotiator from 'negotiator';
import { encodeXml } from '../../provider/codec/xml.js';
import { parseAccept } from './accept.js';
import { SandboxError } from './errors.js';
import type { Request, RespondHook, Response, ResponseFormat } from './exchange.js';
import type { FaultRule } from './faults.js';

export type { RespondHook, ResponseFormat } from './exchange.js';

const MEDIA_TYPES: Readonly<Record<ResponseFormat, string>> = { json: 'application/json', xml: 'application/xml' };
const CONTENT_TYPES: Readonly<Record<ResponseFormat, string>> = {
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
};

/**
 * `Accept` reduced to what format negotiation needs: each range's type and weight. A structured-syntax suffix type
 * stands for its syntax (`application/vnd.provider+json` is a JSON media type, RFC 6838 §4.2.8, as Account Services'
 * "a JSON media type with parameter schema_version" reads), `text/xml` for `application/xml` (a request body may be
 * `text/xml` too; the answer is still `application/xml`: docs/decisions/sandbox.md#text-xml), and media-type
 * parameters (`schema_version=3.0`) are dropped: the negotiator would only match a range with parameters to a type
 * with the same ones. Routes that read a parameter read it from the header themselves (accounts/entities/accept.ts).
 */
function formatRanges(accept: string): string {
  const out: string[] = [];
  for (const range of parseAccept(accept)) {
    const type = range.subtype.endsWith('+json')
      ? 'application/json'
      : range.subtype.endsWith('+xml') || (range.type === 'text' && range.subtype === 'xml')
        ? 'application/xml'
        : `${range.type}/${range.subtype}`;
    out.push(`${type};q=${range.q}`);
  }
  return out.join(', ');
}

/**
 * Chooses the response format from `Accept` among `formats` (the first is the default for `*\/*` or no Accept)
 * into `res.locals.responseFormat`. Returns a 406 error when Accept allows none of them, a 400 when it is too long
 * to read (docs/decisions/sandbox.md#accept-ranges).
 */
export function negotiate(formats: readonly ResponseFormat[], req: Request, res: Response): SandboxError | undefined {
  res.locals.responseFormat = formats[0] ?? 'json';
  const accept = req.headers.accept;
  if (!accept || accept === '*/*' || accept === MEDIA_TYPES[formats[0]!]) return undefined;
  const types = formats.map((f) => MEDIA_TYPES[f]);
  let ranges: string;
  try {
    ranges = formatRanges(accept);
  } catch (e) {
    if (e instanceof SandboxError) return e;
    throw e;
  }
  const chosen = new Negotiator({ headers: { accept: ranges } }).mediaType(types);
  if (!chosen) {
    return new SandboxError(406, 'not_acceptable', `Accept must allow ${types.join(' or ')}`, { field: 'Accept' });
  }
  res.locals.responseFormat = chosen === MEDIA_TYPES.xml ? 'xml' : 'json';
  return undefined;
}

/**
 * Sends `body` with `status` in the negotiated format. Every route answers
 * through here, so that faults in the "after" phase, the request log and
 * idempotency see every answer. `undefined` body sends no content.
 */
export function respond(res: Response, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  res.locals.responseBody = body;
  const hooks = res.locals.respondHooks;
  if (hooks) for (const hook of hooks) hook(status, body, headers);
  const fault = res.locals.fault;
  if (fault && fault.phase === 'after' && !res.locals.faultApplied) {
    res.locals.faultApplied = true;
    if (applyFault(res, fault)) return;
  }
  writeBody(res, status, body, headers);
}

/** Writes without hooks or faults (used by fault rendering itself). */
export function writeBody(res: Response, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.statusCode = status;
  for (const name in headers) res.setHeader(name, headers[name]!);
  if (body === undefined || status === 204) {
    res.end();
    return;
  }
  const format: ResponseFormat = res.locals.responseFormat === 'xml' ? 'xml' : 'json';
  res.setHeader('Content-Type', CONTENT_TYPES[format]);
  if (format === 'xml') {
    res.end(encodeXml(body as Record<string, unknown>));
    return;
  }
  const text = JSON.stringify(body);
  // The request log keeps the text as sent and masks it when read (request-log.ts).
  res.locals.responseText = text;
  res.end(text);
}

/** Adds a hook that runs when the route answers. */
export function onRespond(res: Response, hook: RespondHook): void {
  const hooks = res.locals.respondHooks;
  if (hooks) hooks.push(hook);
  else res.locals.respondHooks = [hook];
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
    const render = res.locals.renderError!;
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
