import { reinviteRequestSchema } from '../../provider/schemas/accounts/index.js';
import { parseBody } from '../core/body.js';
import { SandboxError } from '../core/errors.js';
import type { Request, Response, Router } from '../core/http.js';
import { respond } from '../core/respond.js';
import { requireAuth } from '../oauth/auth.js';
import { type AccountsDeps, AUTH, entityOf, pathId, requireBody } from './http.js';
import { parse422 } from './validate.js';

/**
 * Hosted-onboarding members (beta): list, and resend the invitation to the one user registered with the
 * entity. Scope `accounts` or the secret key; 403 when hosted onboarding is off for the account (DESIGN.md).
 */
export function memberRoutes(router: Router, deps: AccountsDeps): void {
  const { ctx, store } = deps;
  const auth = requireAuth(ctx, AUTH.accountsOrKey);
  const enabled = (_req: Request, _res: Response, next: (e?: unknown) => void) => {
    if (store.hostedOnboarding) return next();
    next(new SandboxError(403, 'hosted_onboarding_disabled', 'hosted onboarding is not enabled for this account'));
  };
  const path = '/accounts/entities/:entityId/members';

  router.get(path, auth, enabled, (req: Request, res: Response) => {
    const entity = entityOf(deps, req);
    respond(res, 200, { data: store.membersOf(entity.id).map((m) => ({ user_id: m.userId })) });
  });

  router.put(`${path}/:userId`, auth, enabled, parseBody(['json']), (req: Request, res: Response) => {
    const entity = entityOf(deps, req);
    const userId = pathId(req, 'userId', 'usr_', 'user_id');
    const member = store.members.get(userId);
    // Spec: the invitation can only be resent to the user originally registered to the sub-entity.
    if (!member || member.entityId !== entity.id) {
      throw new SandboxError(404, 'member_not_found', `${userId} is not the member of ${entity.id}`, {
        field: 'user_id',
      });
    }
    requireBody(res);
    parse422(reinviteRequestSchema, req.body);
    member.invitationsSent++;
    member.lastInvitedAt = ctx.clock.now().toISOString();
    respond(res, 200, { id: member.userId });
  });
}
