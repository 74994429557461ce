import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { escapeHtml } from '../../common/html.js';
import type { SandboxContext } from '../core/context.js';
import { SandboxError } from '../core/errors.js';
import type { Request, Response } from '../core/http.js';
import { parseWith } from '../core/validate.js';
import { authorise, decide, failedChallenge, settle } from './charge-rules.js';
import type { ChargeRecord, LegacyStore } from './store.js';

/**
 * The sandbox's 3-D Secure challenge (docs/decisions/sandbox.md#legacy-3ds), modelled on the old provider: a 3-D Secure
 * charge answers `{id: "pay_tok_…", redirectUrl}`; the shopper's browser opens the page, passes or fails, and is
 * sent to the charge's successUrl or failUrl with `?cko-payment-token=pay_tok_…`; the merchant then reads the
 * final charge with `GET /charges/pay_tok_…`. The page is plain HTML with a form and no script, under a CSP that
 * allows nothing else.
 */

const outcomeSchema = z.object({ outcome: z.enum(['pass', 'fail'], { error: 'must be "pass" or "fail"' }) });

/**
 * What a CSP source may be made of: a URL's host may hold `;`, `,` or `'` (the WHATWG parser, and so the charge
 * schema, takes them), which in the header would start a directive (`https://x;sandbox`) or a policy of its own.
 * One class per part, parted by characters the classes cannot hold: linear (docs/decisions/sandbox.md#legacy-3ds).
 */
const CSP_ORIGIN = /^https?:\/\/(?:[A-Za-z0-9._-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?$/;

/** The URL's origin as a CSP source, or undefined (no such host resolves; form-action then keeps the page's own). */
export function cspOriginOf(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const { origin } = new URL(url);
    return CSP_ORIGIN.test(origin) ? origin : undefined;
  } catch {
    return undefined;
  }
}

/** The page's icon (a card), inline so the page loads nothing else. */
const ICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Crect x='2' y='7' width='28' height='19' rx='3' fill='%23555'/%3E%3C/svg%3E";

function sendPage(res: Response, status: number, title: string, content: string, charge: ChargeRecord): void {
  const nonce = randomBytes(16).toString('base64');
  // form-action also governs where the form's redirect may lead, so it names the merchant's URLs.
  const targets = [cspOriginOf(charge.request.successUrl), cspOriginOf(charge.request.failUrl)]
    .filter(Boolean)
    .join(' ');
  res.locals.responseBody = { page: title };
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    // img-src data: is for the page's own icon only: without one, the browser asks for /favicon.ico (Firefox) and the
    // CSP refuses it with a console error on every challenge.
    'Content-Security-Policy': `default-src 'none'; img-src data:; style-src 'nonce-${nonce}'; form-action 'self' ${targets}; base-uri 'none'; frame-ancestors *`,
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="${ICON}">
<style nonce="${nonce}">body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
button{font:inherit;padding:.5rem 1.25rem;margin-right:.5rem}dt{font-weight:600}</style></head>
<body><main><h1>${escapeHtml(title)}</h1>${content}</main></body></html>`);
}

/** The charge behind a challenge reference, its state brought up to the sandbox clock (challenges time out). */
function findChallenge(ctx: SandboxContext, store: LegacyStore, reference: string): ChargeRecord {
  const charge = reference.startsWith('pay_tok_') ? store.findCharge(reference) : undefined;
  if (!charge) throw new SandboxError(404, 'challenge_not_found', 'no 3-D Secure challenge with this reference');
  return settle(charge, ctx.clock.nowMs());
}

/**
 * Where a settled challenge sends the shopper: successUrl (approved or flagged) or failUrl (declined), with
 * `cko-payment-token` added to its query; undefined when the charge has no such URL.
 */
function returnTarget(charge: ChargeRecord): URL | undefined {
  const target = charge.status !== 'Declined' ? charge.request.successUrl : charge.request.failUrl;
  if (!target) return undefined;
  const url = new URL(target);
  url.searchParams.set('cko-payment-token', charge.reference!);
  return url;
}

/**
 * A challenge that already ended (passed, failed or timed out) answers 409 with its outcome, and a link to the
 * merchant's URL for that outcome: a double-clicked Pass (the browser shows the second answer), the Back button or a
 * challenge left open past its 15 minutes would otherwise leave the shopper on this page, and the merchant would never
 * see the return (docs/decisions/sandbox.md#legacy-3ds).
 */
function sendClosed(res: Response, charge: ChargeRecord): void {
  const target = returnTarget(charge);
  const back = target ? `<p><a href="${escapeHtml(target.href)}">Return to the shop</a></p>` : '';
  sendPage(
    res,
    409,
    'Challenge closed',
    `<p>This payment is ${escapeHtml(charge.status)}: ${escapeHtml(charge.responseAdvancedInfo)}.</p>${back}`,
    charge,
  );
}

function money(charge: ChargeRecord): string {
  return `${charge.request.value} ${charge.request.currency} (minor units)`;
}

/** `GET {challenge}/{pay_tok_…}`: the challenge page with Pass and Fail buttons. */
export function showChallenge(ctx: SandboxContext, store: LegacyStore) {
  return (req: Request, res: Response) => {
    const charge = findChallenge(ctx, store, String(req.params.reference));
    if (charge.status !== 'Pending') return sendClosed(res, charge);
    sendPage(
      res,
      200,
      'Sandbox 3-D Secure challenge',
      `<p>This page stands in for the card issuer. Choose how the cardholder's authentication ends.</p>
<dl><dt>Amount</dt><dd>${escapeHtml(money(charge))}</dd><dt>Card</dt><dd>•••• ${escapeHtml(charge.card.last4)}</dd></dl>
<form method="post"><button type="submit" name="outcome" value="pass">Pass</button>
<button type="submit" name="outcome" value="fail">Fail</button></form>`,
      charge,
    );
  };
}

/**
 * `POST {challenge}/{pay_tok_…}` (form `outcome=pass|fail`): settles the charge, then redirects (303) to successUrl
 * (approved or flagged) or failUrl (declined) with `cko-payment-token`; without that URL it shows the result.
 */
export function completeChallenge(ctx: SandboxContext, store: LegacyStore) {
  return (req: Request, res: Response) => {
    const charge = findChallenge(ctx, store, String(req.params.reference));
    const { outcome } = parseWith(outcomeSchema, req.body);
    if (charge.status !== 'Pending') return sendClosed(res, charge);
    const result = outcome === 'pass' ? decide(charge.card, 'passed') : failedChallenge();
    Object.assign(charge, result);
    if (result.status === 'Authorised') authorise(charge, ctx.clock.nowMs());
    const succeeded = result.status !== 'Declined';
    const url = returnTarget(charge);
    if (url) {
      res.locals.responseBody = { redirect: url.origin };
      res.writeHead(303, { Location: url.href, 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`See Other: ${url.href}`);
      return;
    }
    sendPage(
      res,
      200,
      succeeded ? 'Authentication passed' : 'Authentication failed',
      `<p>The payment is ${escapeHtml(charge.status)} (${escapeHtml(charge.responseCode)}). Payment token: <code>${escapeHtml(
        charge.reference!,
      )}</code>.</p>`,
      charge,
    );
  };
}
