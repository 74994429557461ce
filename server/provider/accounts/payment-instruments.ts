import type { CallOptions, WriteOptions } from '../http/call.js';
import type { ProviderResult } from '../http/result.js';
import { ACCOUNTS_OR_KEY, type AccountsCore, accountPathId } from './core.js';
import type {
  CreatePaymentInstrumentRequest,
  PaymentInstrument,
  PaymentInstrumentList,
  PaymentInstrumentWriteResult,
  UpdatePaymentInstrumentRequest,
} from './types.js';

/** Payout destinations of a sub-entity (`ppi_…`). OAuth scope `accounts` or the secret key. */
export interface PaymentInstruments {
  /** `GET …/payment-instruments/{id}`. */
  retrieve(entityId: string, id: string, options?: CallOptions): Promise<ProviderResult<PaymentInstrument>>;
  /**
   * `PATCH …/payment-instruments/{id}` with `label` and/or `default`. `default: true` on an instrument that is
   * not verified throws PreconditionRequiredError (428; DESIGN.md "instrument update 428").
   */
  update(
    entityId: string,
    id: string,
    body: UpdatePaymentInstrumentRequest,
    options?: WriteOptions,
  ): Promise<ProviderResult<PaymentInstrumentWriteResult>>;
  /** Sandbox extension: `GET …/payment-instruments`, every instrument of the entity. */
  list(entityId: string, options?: CallOptions): Promise<ProviderResult<PaymentInstrumentList>>;
  /** Sandbox extension: `POST …/payment-instruments`, a bank account or a card (from a `card_tok_` or `src_`). */
  create(
    entityId: string,
    body: CreatePaymentInstrumentRequest,
    options?: WriteOptions,
  ): Promise<ProviderResult<PaymentInstrumentWriteResult>>;
}

export function paymentInstruments(core: AccountsCore): PaymentInstruments {
  const base = (name: string, entityId: string) =>
    `/accounts/entities/${accountPathId(name, 'entityId', 'ent_', entityId)}/payment-instruments`;
  return {
    async retrieve(entityId, id, options) {
      const name = 'paymentInstruments.retrieve';
      return core.call({
        name,
        method: 'GET',
        path: `${base(name, entityId)}/${accountPathId(name, 'id', 'ppi_', id)}`,
        auth: ACCOUNTS_OR_KEY,
        ...(options ? { options } : {}),
      });
    },
    async update(entityId, id, body, options) {
      const name = 'paymentInstruments.update';
      return core.call({
        name,
        method: 'PATCH',
        path: `${base(name, entityId)}/${accountPathId(name, 'id', 'ppi_', id)}`,
        auth: ACCOUNTS_OR_KEY,
        body,
        ...(options ? { options } : {}),
      });
    },
    async list(entityId, options) {
      const name = 'paymentInstruments.list';
      return core.call({
        name,
        method: 'GET',
        path: base(name, entityId),
        auth: ACCOUNTS_OR_KEY,
        ...(options ? { options } : {}),
      });
    },
    async create(entityId, body, options) {
      const name = 'paymentInstruments.create';
      return core.call({
        name,
        method: 'POST',
        path: base(name, entityId),
        auth: ACCOUNTS_OR_KEY,
        body,
        ...(options ? { options } : {}),
      });
    },
  };
}
