import type { NextFunction, Request, Response } from 'express';
import { maskUrlPans } from '../server/common/url-pans.js';
import { HelperHttpError } from '../server/helper/index.js';
import { html, layout } from './html.js';

/** A refusal of the demo's own routes: a status, a stable code and the field at fault. */
export class DemoError extends Error {
  override name = 'DemoError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    /** Headers the answer carries (a 405's `Allow`). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
  }
}

/** `DemoError(400, 'DEMO_INVALID', …)` naming `field`. */
export const invalid = (field: string, message: string) => new DemoError(400, 'DEMO_INVALID', message, field);

/**
 * The demo's error answer: JSON `{code, message, field}`, or a small page for a browser navigation (one that
 * asks for text/html), refusals made before the pages' headers included (with a policy that runs nothing). Express's
 * own errors (a malformed body: 400, too large: 413) keep their status, as does a helper error a page route met
 * (`helper.page()`: 503 `TESSERA_WIDGET_NOT_BUILT`); anything unexpected is a 500 without details (logged, its path
 * with any card number masked).
 */
export function errorHandler(log: { error(obj: object, msg?: string): void }) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = err as { status?: unknown; statusCode?: unknown; type?: unknown };
    let status = 500;
    let code = 'DEMO_INTERNAL';
    let message = 'Something went wrong in the demo server.';
    let field: string | undefined;
    if (err instanceof DemoError) {
      ({ status, code, message, field } = err);
      if (err.headers) res.set(err.headers);
    } else if (err instanceof HelperHttpError) {
      // From the helper's `page()` in a page route: a 503 naming the fix (`npm run build`) is no internal error.
      ({ status, code, message, field } = err);
      res.set(err.headers);
    } else if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
      status = e.status;
      // The router's own 400 for a path parameter that does not decode (`/checkout/%`) is about the path.
      const path = err instanceof URIError || /decode param/i.test((err as Error).message ?? '');
      code = status === 413 ? 'DEMO_TOO_LARGE' : 'DEMO_MALFORMED';
      message =
        status === 413
          ? 'The request body is too large.'
          : path
            ? 'The URL path is not valid percent-encoding.'
            : 'The request body could not be read.';
      field = path ? 'path' : 'body';
    } else {
      // The path as the request log writes it: a card number in it is masked in any spelling (`4242%204242…`).
      log.error({ event: 'demo.error', path: maskUrlPans(req.originalUrl.split('?')[0]!), err }, 'demo route failed');
    }
    res.status(status);
    const page = (req.get('accept') ?? '').includes('text/html') && req.accepts(['html', 'json']) === 'html';
    if (page) {
      // Refused before the pages' headers were set (the Host rules, /favicon.ico, /static/): the page has no script
      // and needs none, so it gets a policy that runs nothing (docs/decisions/demo.md#demo-wrong-method).
      if (!res.locals.cspNonce) {
        res.set({
          'Content-Security-Policy':
            "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
          'X-Content-Type-Options': 'nosniff',
        });
      }
      res.type('html').send(
        layout({
          title: status === 404 ? 'Not found' : 'Sorry',
          nonce: String(res.locals.cspNonce ?? ''),
          current: 'shop',
          body: html`<h1>${status === 404 ? 'Not found' : 'That did not work'}</h1><p>${message}</p><p><a href="/">Back to the shop</a></p>`,
        }),
      );
      return;
    }
    res.json({ code, message, ...(field ? { field } : {}) });
  };
}
