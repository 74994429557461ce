import { type EntityStatus, simulatorTransitionRequestSchema } from '../../provider/schemas/accounts/index.js';
import { parseBody } from '../core/body.js';
import { SandboxError } from '../core/errors.js';
import type { Request, Response, Router } from '../core/http.js';
import { respond } from '../core/respond.js';
import { requireAuth } from '../oauth/auth.js';
import { type AccountsDeps, AUTH, entityOf, requireBody } from './http.js';
import type { EntityRecord } from './store.js';
import { parse422 } from './validate.js';

/** Allowed onboarding moves (docs/decisions/sandbox.md#onboarding-states). `rejected` is final. */
export const TRANSITIONS: Readonly<Record<EntityStatus, readonly EntityStatus[]>> = {
  draft: ['requirements_due', 'pending'],
  requirements_due: ['pending', 'rejected'],
  pending: ['active', 'restricted', 'requirements_due', 'rejected'],
  active: ['restricted'],
  restricted: ['active', 'requirements_due', 'rejected'],
  rejected: [],
};

const state = (e: EntityRecord) => ({ id: e.id, status: e.status, allowed_transitions: TRANSITIONS[e.status] });

/**
 * Onboarding simulator (spec: "exist only in sandbox; in production they return 404"):
 * `GET /onboarding-simulator/entities/{id}` shows the state and the allowed moves,
 * `POST /onboarding-simulator/entities/{id} {status}` moves the entity (409 when that move is not allowed).
 * Scope `accounts` or the secret key. Registered only in sandbox mode.
 */
export function simulatorRoutes(router: Router, deps: AccountsDeps): void {
  const auth = requireAuth(deps.ctx, AUTH.accountsOrKey);
  const path = '/onboarding-simulator/entities/:entityId';
  router.get(path, auth, (req: Request, res: Response) => respond(res, 200, state(entityOf(deps, req))));
  router.post(path, auth, parseBody(['json']), (req: Request, res: Response) => {
    const entity = entityOf(deps, req);
    requireBody(res);
    const { status } = parse422(simulatorTransitionRequestSchema, req.body);
    if (!TRANSITIONS[entity.status].includes(status)) {
      throw new SandboxError(409, 'status_transition_not_allowed', `${entity.status} cannot move to ${status}`, {
        field: 'status',
        extra: { status: entity.status, allowed_transitions: TRANSITIONS[entity.status] },
      });
    }
    entity.status = status;
    respond(res, 200, state(entity));
  });
}
