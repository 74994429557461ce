import { paymentTokenRequestSchema } from '../../provider/schemas/legacy.js';
import type { SandboxContext } from '../core/context.js';
import type { Request, Response } from '../core/http.js';
import { respond } from '../core/respond.js';
import { parseLegacy } from './parse.js';
import type { LegacyStore } from './store.js';

/** `POST {base}/tokens/payment` (secret key): `value, currency, chargeMode` → `{id: "pay_tok_…", liveMode}`. */
export function createPaymentToken(ctx: SandboxContext, store: LegacyStore) {
  return (req: Request, res: Response) => {
    const body = parseLegacy(paymentTokenRequestSchema, req, res);
    const id = ctx.newId('pay_tok_');
    store.addPaymentToken({
      id,
      value: body.value,
      currency: body.currency,
      chargeMode: body.chargeMode ?? 1,
      createdMs: ctx.clock.nowMs(),
    });
    respond(res, 200, { id, liveMode: ctx.mode === 'production' });
  };
}
