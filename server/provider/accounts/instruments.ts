import type { CallOptions, WriteOptions } from '../http/call.js';
import type { ProviderResult } from '../http/result.js';
import { type AccountsCore, type AuthRule, accountPathId } from './core.js';
import type { CreateInstrumentRequest, StoredInstrument } from './types.js';

/** Stored cards (`src_…`) the account updater and card payouts refer to: a sandbox extension. */
export interface Instruments {
  /** `POST /instruments` with `{ type: 'token', token: 'card_tok_…' }`: stores the card (uses up the token). */
  create(body: CreateInstrumentRequest, options?: WriteOptions): Promise<ProviderResult<StoredInstrument>>;
  /** `GET /instruments/{id}`. */
  retrieve(id: string, options?: CallOptions): Promise<ProviderResult<StoredInstrument>>;
}

/** docs/decisions/sandbox.md#stored-instruments: scope `vault:instruments`, or the secret key. */
const VAULT: AuthRule = { scope: 'vault:instruments', secretKey: true };

export function instruments(core: AccountsCore): Instruments {
  return {
    async create(body, options) {
      return core.call({
        name: 'instruments.create',
        method: 'POST',
        path: '/instruments',
        auth: VAULT,
        body,
        ...(options ? { options } : {}),
      });
    },
    async retrieve(id, options) {
      const name = 'instruments.retrieve';
      return core.call({
        name,
        method: 'GET',
        path: `/instruments/${accountPathId(name, 'id', 'src_', id)}`,
        auth: VAULT,
        ...(options ? { options } : {}),
      });
    },
  };
}
