import type { WriteOptions } from '../http/call.js';
import type { ProviderResult } from '../http/result.js';
import { type AccountsCore, UPDATER } from './core.js';
import type { AccountUpdaterRequest, AccountUpdaterResult } from './types.js';

/** Real-time account updater (account-services-api.md, `POST /account-updater/cards`). */
export interface AccountUpdater {
  /**
   * Asks the card network for a card's current credentials. `source_options` holds exactly one of `card`
   * (number, expiry) or `instrument` (`src_…`). OAuth scope `vault:real-time-account-updater`.
   *
   * @example
   * const { data } = await accounts.accountUpdater.retrieveCard({ source_options: { instrument: { id: 'src_…' } } });
   * if (data.account_update_status === 'CARD_UPDATED') store(data.card);
   */
  retrieveCard(body: AccountUpdaterRequest, options?: WriteOptions): Promise<ProviderResult<AccountUpdaterResult>>;
}

export function accountUpdater(core: AccountsCore): AccountUpdater {
  return {
    async retrieveCard(body, options) {
      return core.call({
        name: 'accountUpdater.retrieveCard',
        method: 'POST',
        path: '/account-updater/cards',
        auth: UPDATER,
        body,
        ...(options ? { options } : {}),
      });
    },
  };
}
