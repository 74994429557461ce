import { chargeRequestSchema, type ParsedChargeRequest, type Product } from '../../provider/schemas/legacy.js';
import type { SandboxContext } from '../core/context.js';
import { SandboxError } from '../core/errors.js';
import type { Request, Response } from '../core/http.js';
import { respond } from '../core/respond.js';
import { consumeCardToken, fullAddress, peekCardToken } from './card-tokens.js';
import { authorise, decide, pendingChallenge, settle } from './charge-rules.js';
import { chargeView } from './charge-view.js';
import { parseLegacy } from './parse.js';
import type { LegacyPaths } from './paths.js';
import type { ChargeRecord, CustomerRecord, LegacyStore } from './store.js';

const HOST = /^[A-Za-z0-9.\-:[\]]{1,255}$/;

/** A charge without products shares this empty list (it is never changed). */
const NO_PRODUCTS: Product[] = Object.freeze([]) as unknown as Product[];

/** Absolute URL of the challenge page, on the host the caller used to reach the sandbox. */
function challengeUrl(req: Request, paths: LegacyPaths, reference: string): string {
  const host = req.headers.host;
  const origin = host && HOST.test(host) ? host : `${req.socket.localAddress}:${req.socket.localPort}`;
  return `${req.protocol}://${origin}${paths.challenge}/${reference}`;
}

/**
 * The customer of a charge (legacy-card-api.md, "email or customerId"): by id (which must exist, and whose email
 * must match a given email), else by email, created on first use with customerName. An existing customer's name
 * is never changed.
 */
function findCustomer(ctx: SandboxContext, store: LegacyStore, body: ParsedChargeRequest): () => CustomerRecord {
  if (body.customerId) {
    const customer = store.customers.get(body.customerId);
    if (!customer) {
      throw new SandboxError(422, 'customer_unknown', 'customerId: no such customer', { field: 'customerId' });
    }
    if (body.email && body.email.toLowerCase() !== customer.email.toLowerCase()) {
      throw new SandboxError(422, 'customer_email_mismatch', "email: does not match the customer's email", {
        field: 'email',
      });
    }
    return () => customer;
  }
  const email = body.email!;
  const known = store.customersByEmail.get(email.toLowerCase());
  if (known) return () => store.customers.get(known)!;
  return () => {
    const customer: CustomerRecord = { id: ctx.newId('cust_'), email, name: body.customerName ?? null };
    store.addCustomer(customer);
    return customer;
  };
}

/**
 * `POST {base}/charges/token` (secret key): checks every rule of the charge-request table, then uses up the card
 * token and answers the charge, or, for 3-D Secure (chargeMode 2), a payment token with the challenge's
 * `redirectUrl` (docs/decisions/sandbox.md#legacy-3ds). Nothing changes when a check refuses the request.
 */
export function createCharge(ctx: SandboxContext, store: LegacyStore, paths: LegacyPaths) {
  const liveMode = ctx.mode === 'production';
  return (req: Request, res: Response) => {
    const body = parseLegacy(chargeRequestSchema, req, res);
    if (body.riskCheck === false) {
      throw new SandboxError(
        403,
        'risk_check_bypass_not_enabled',
        'riskCheck: bypassing the risk checks is not enabled for this account',
        { field: 'riskCheck' },
      );
    }
    const token = peekCardToken(ctx, store, body.cardToken);
    const customer = findCustomer(ctx, store, body);
    if (body.trackId !== undefined && body.trackId !== null) {
      const holder = store.charges.get(store.trackIds.get(body.trackId) ?? '');
      if (holder && settle(holder, ctx.clock.nowMs()).status !== 'Declined') {
        throw new SandboxError(422, 'track_id_duplicate', 'trackId: another charge of this merchant uses it', {
          field: 'trackId',
        });
      }
    }

    // Every check passed: from here on the request takes effect.
    consumeCardToken(ctx, store, body.cardToken);
    const nowMs = ctx.clock.nowMs();
    const threeDs = body.chargeMode === 2;
    const cust = customer();
    const result = threeDs ? pendingChallenge() : decide(token.card, 'none');
    // Built as one literal (no spreads): this is the sandbox's hot path.
    const charge: ChargeRecord = {
      id: ctx.newId('charge_'),
      reference: threeDs ? ctx.newId('pay_tok_') : undefined,
      createdMs: nowMs,
      authorisedMs: undefined,
      // The request as validated; its cardToken is never shown again.
      request: body,
      autoCapture: body.autoCapture ?? 'y',
      autoCapTime: body.autoCapTime ?? 0,
      chargeMode: body.chargeMode ?? 1,
      transactionIndicator: body.transactionIndicator ?? 1,
      email: cust.email,
      customerId: cust.id,
      cardId: token.cardId,
      card: token.card,
      // "when omitted the billing address is taken as the shipping address"
      billingDetails: fullAddress(body.billingDetails) ?? token.billingDetails ?? fullAddress(body.shippingDetails),
      cvvPresented: token.cvvPresented,
      products: body.products ?? NO_PRODUCTS,
      status: result.status,
      responseCode: result.responseCode,
      responseMessage: result.responseMessage,
      responseAdvancedInfo: result.responseAdvancedInfo,
      authCode: result.authCode,
    };
    store.addCharge(charge, body.trackId ?? undefined);
    if (charge.reference) {
      respond(res, 200, { id: charge.reference, liveMode, redirectUrl: challengeUrl(req, paths, charge.reference) });
      return;
    }
    if (charge.status === 'Authorised') authorise(charge, nowMs);
    respond(res, 200, chargeView(charge, liveMode));
  };
}

/** `GET {base}/charges/{id}` (secret key, sandbox extension): the charge's current state, by id or `pay_tok_…`. */
export function readCharge(ctx: SandboxContext, store: LegacyStore) {
  const liveMode = ctx.mode === 'production';
  return (req: Request, res: Response) => {
    const id = String(req.params.id);
    const charge = store.findCharge(id);
    if (!charge) throw new SandboxError(404, 'charge_not_found', 'id: no such charge', { field: 'id' });
    respond(res, 200, chargeView(settle(charge, ctx.clock.nowMs()), liveMode));
  };
}
