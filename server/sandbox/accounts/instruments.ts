import { createInstrumentRequestSchema } from '../../provider/schemas/accounts/index.js';
import type { SandboxContext, VaultCard } from '../core/context.js';
import { SandboxError } from '../core/errors.js';
import type { Request, Response, Router } from '../core/http.js';
import { respond } from '../core/respond.js';
import { requireAuth } from '../oauth/auth.js';
import { storedCard, storedCardView } from './cards.js';
import { type AccountsDeps, AUTH, href, pathId } from './http.js';
import { refuseStoredBeyond, type StoredRecord } from './store.js';
import { parse422 } from './validate.js';

/**
 * Uses up a `card_tok_` through the legacy area's card-token service. A token the service refuses
 * (unknown, used, expired) is a 422 naming `field`, in this API's error shape.
 */
export function consumeCardToken(ctx: SandboxContext, token: string, field: string): VaultCard {
  const service = ctx.services.cardTokens;
  if (!service) throw new SandboxError(503, 'card_tokens_unavailable', 'card tokens are not served by this sandbox');
  try {
    return service.consume(token, field);
  } catch (e) {
    if (e instanceof SandboxError && e.status < 500) {
      throw new SandboxError(422, `${field}_${e.code.replace(/^card_token_/, '')}`, e.message, { field });
    }
    throw e;
  }
}

/** A stored instrument as GET /instruments/{id} answers it. */
export function storedView(record: StoredRecord) {
  if (record.kind === 'card') return storedCardView(record);
  return {
    id: record.id,
    type: 'bank_account' as const,
    account_number_last4: record.accountNumber.slice(-4),
    ...(record.bankCode ? { bank_code: record.bankCode } : {}),
  };
}

/**
 * Sandbox extension (docs/decisions/sandbox.md#stored-instruments): `POST /instruments {type: "token", token}`
 * stores the card behind a single-use card token as a `src_` instrument (for the account updater and
 * card payout destinations); `GET /instruments/{id}` reads one back.
 */
export function instrumentRoutes(router: Router, deps: AccountsDeps): void {
  const { ctx, store } = deps;
  const auth = requireAuth(ctx, AUTH.instruments);
  router.post('/instruments', auth, ...deps.postBody, (req: Request, res: Response) => {
    const body = parse422(createInstrumentRequestSchema, req.body);
    refuseStoredBeyond(store, ctx.storeLimits);
    const card = consumeCardToken(ctx, body.token, 'token');
    const record = storedCard(ctx.newId('src_'), card.number, card.expiryMonth, card.expiryYear);
    store.stored.set(record.id, record);
    respond(res, 201, { ...storedCardView(record), _links: { self: href(req, `/instruments/${record.id}`) } });
  });
  router.get('/instruments/:id', auth, (req: Request, res: Response) => {
    const id = pathId(req, 'id', 'src_', 'instrument_id');
    const record = store.stored.get(id);
    if (!record) throw new SandboxError(404, 'instrument_not_found', `no instrument ${id}`, { field: 'instrument_id' });
    respond(res, 200, storedView(record));
  });
}
