import type { CallOptions } from '../http/call.js';
import type { ProviderResult } from '../http/result.js';
import { ACCOUNTS_OR_KEY, type AccountsCore, accountPathId } from './core.js';
import type { MembersList, ReinviteRequest, ReinviteResult } from './types.js';

/** Hosted-onboarding members of a sub-entity (beta; needs the feature on the account, else PermissionError). */
export interface Members {
  /** `GET /accounts/entities/{entityId}/members` → `{ data: [{ user_id }] }`. */
  list(entityId: string, options?: CallOptions): Promise<ProviderResult<MembersList>>;
  /**
   * `PUT /accounts/entities/{entityId}/members/{userId}`: resends the invitation to the user originally
   * registered (no other user can be invited: NotFoundError).
   */
  reinvite(
    entityId: string,
    userId: string,
    body?: ReinviteRequest,
    options?: CallOptions,
  ): Promise<ProviderResult<ReinviteResult>>;
}

export function members(core: AccountsCore): Members {
  return {
    async list(entityId, options) {
      const name = 'members.list';
      return core.call({
        name,
        method: 'GET',
        path: `/accounts/entities/${accountPathId(name, 'entityId', 'ent_', entityId)}/members`,
        auth: ACCOUNTS_OR_KEY,
        ...(options ? { options } : {}),
      });
    },
    async reinvite(entityId, userId, body = {}, options) {
      const name = 'members.reinvite';
      return core.call({
        name,
        method: 'PUT',
        path: `/accounts/entities/${accountPathId(name, 'entityId', 'ent_', entityId)}/members/${accountPathId(name, 'userId', 'usr_', userId)}`,
        auth: ACCOUNTS_OR_KEY,
        body,
        ...(options ? { options } : {}),
      });
    },
  };
}
