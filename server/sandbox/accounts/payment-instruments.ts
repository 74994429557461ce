import {
  createPaymentInstrumentRequestSchema,
  updatePaymentInstrumentRequestSchema,
} from '../../provider/schemas/accounts/index.js';
import { parseBody } from '../core/body.js';
import { SandboxError } from '../core/errors.js';
import type { Request, Response, Router } from '../core/http.js';
import { respond } from '../core/respond.js';
import { requireAuth } from '../oauth/auth.js';
import { storedCard } from './cards.js';
import { type AccountsDeps, AUTH, entityOf, href, pathId, requireBody } from './http.js';
import { consumeCardToken } from './instruments.js';
import {
  ACCOUNT_LIMITS,
  type EntityRecord,
  type PaymentInstrumentRecord,
  refuseBeyond,
  refuseStoredBeyond,
} from './store.js';
import { invalid, parse422 } from './validate.js';

const base = (entityId: string) => `/accounts/entities/${entityId}/payment-instruments`;

/** A payment instrument on read: every spec field, plus `default` (docs/decisions/sandbox.md#instrument-default). */
export function paymentInstrumentView(p: PaymentInstrumentRecord, req: Request) {
  return {
    id: p.id,
    label: p.label,
    type: p.type,
    currency: p.currency,
    country: p.country,
    ...(p.document ? { document: p.document } : {}),
    status: p.status,
    instrument_id: p.instrument_id,
    default: p.isDefault,
    _links: { self: href(req, `${base(p.entityId)}/${p.id}`) },
  };
}

function instrumentOf(deps: AccountsDeps, req: Request, entity: EntityRecord): PaymentInstrumentRecord {
  const id = pathId(req, 'id', 'ppi_', 'payment_instrument_id');
  const p = deps.store.paymentInstruments.get(id);
  if (!p || p.entityId !== entity.id) {
    throw new SandboxError(404, 'payment_instrument_not_found', `no payment instrument ${id} on ${entity.id}`, {
      field: 'payment_instrument_id',
    });
  }
  return p;
}

/**
 * Payout destinations of a sub-entity: GET and PATCH one (spec), plus the extensions POST (create) and
 * GET (list). Scope `accounts` or the secret key.
 */
export function paymentInstrumentRoutes(router: Router, deps: AccountsDeps): void {
  const { ctx, store } = deps;
  const auth = requireAuth(ctx, AUTH.accountsOrKey);
  const json = parseBody(['json']);
  const path = '/accounts/entities/:entityId/payment-instruments';

  router.get(path, auth, (req: Request, res: Response) => {
    const entity = entityOf(deps, req);
    respond(res, 200, { data: store.instrumentsOf(entity.id).map((p) => paymentInstrumentView(p, req)) });
  });

  router.post(path, auth, ...deps.postBody, (req: Request, res: Response) => {
    const entity = entityOf(deps, req);
    const body = parse422(createPaymentInstrumentRequestSchema, req.body);
    refuseBeyond(
      store.instrumentsOf(entity.id).length,
      ACCOUNT_LIMITS.perEntity,
      'payment_instrument_limit_reached',
      `payment instruments of ${entity.id}`,
    );
    // A bank account or a card token makes a stored instrument too; an existing stored card does not.
    if (body.type === 'bank_account' || body.token) refuseStoredBeyond(store, ctx.storeLimits);
    let instrumentId: string;
    if (body.type === 'bank_account') {
      instrumentId = ctx.newId('src_');
      store.stored.set(instrumentId, {
        id: instrumentId,
        kind: 'bank_account',
        accountNumber: body.account_number,
        bankCode: body.bank_code,
      });
    } else if (body.token) {
      const card = consumeCardToken(ctx, body.token, 'token');
      const record = storedCard(ctx.newId('src_'), card.number, card.expiryMonth, card.expiryYear);
      store.stored.set(record.id, record);
      instrumentId = record.id;
    } else {
      const stored = store.stored.get(body.instrument_id!);
      if (stored?.kind !== 'card') {
        throw invalid('instrument_id', 'instrument_id_not_found', `no stored card ${body.instrument_id}`);
      }
      instrumentId = stored.id;
    }
    const record: PaymentInstrumentRecord = {
      id: ctx.newId('ppi_'),
      entityId: entity.id,
      label: body.label,
      type: body.type,
      currency: body.currency,
      country: body.country,
      ...(body.type === 'bank_account' ? { document: body.document } : {}),
      status: body.status ?? 'unverified',
      instrument_id: instrumentId,
      isDefault: false,
    };
    store.paymentInstruments.set(record.id, record);
    respond(res, 201, { id: record.id, _links: { self: href(req, `${base(entity.id)}/${record.id}`) } });
  });

  router.get(`${path}/:id`, auth, (req: Request, res: Response) => {
    const entity = entityOf(deps, req);
    respond(res, 200, paymentInstrumentView(instrumentOf(deps, req, entity), req));
  });

  router.patch(`${path}/:id`, auth, json, (req: Request, res: Response) => {
    const entity = entityOf(deps, req);
    const p = instrumentOf(deps, req, entity);
    requireBody(res);
    const body = parse422(updatePaymentInstrumentRequestSchema, req.body);
    // DESIGN.md: instrument update 428 — only a verified instrument can become the payout destination.
    if (body.default === true && p.status !== 'verified') {
      throw new SandboxError(
        428,
        'instrument_not_verified',
        `${p.id} is ${p.status}; only a verified instrument can be the default`,
        {
          field: 'default',
        },
      );
    }
    if (body.label !== undefined) p.label = body.label;
    if (body.default === true) store.makeDefault(p);
    else if (body.default === false) p.isDefault = false;
    respond(res, 200, { id: p.id, _links: { self: href(req, `${base(entity.id)}/${p.id}`) } });
  });
}
