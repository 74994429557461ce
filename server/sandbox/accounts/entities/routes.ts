import { parseBody } from '../../core/body.js';
import { SandboxError } from '../../core/errors.js';
import type { NextFunction, Request, Response, Router } from '../../core/http.js';
import { respond } from '../../core/respond.js';
import { requireAuth } from '../../oauth/auth.js';
import { type AccountsDeps, AUTH, entityOf, href } from '../http.js';
import { accountCaps, type EntityRecord, refuseBeyond } from '../store.js';
import { schemaVersion } from './accept.js';
import { createdView, entityView } from './render.js';
import { validateOnboarding } from './variants.js';

/** The status a new entity starts in (docs/decisions/sandbox.md#onboarding-states). */
export function initialStatus(level: EntityRecord['level']): EntityRecord['status'] {
  if (level === 'invitation') return 'draft';
  return level === 'lite' ? 'requirements_due' : 'pending';
}

/**
 * `POST /accounts/entities` and `GET /accounts/entities/{id}` (scope `accounts` only; Accept with
 * schema_version 3.0 or 2.0). An invitation also registers the entity's one member (`usr_`).
 */
export function entityRoutes(router: Router, deps: AccountsDeps): void {
  const { ctx, store } = deps;
  const auth = requireAuth(ctx, AUTH.entities);
  // Accept is checked before an Idempotency-Key is looked up, and its schema_version is part of the request the key
  // stands for: a retry without it is 400 like any request without it, and one asking for the other version is
  // refused (422 idempotency_key_reused), not answered with the first version's form.
  const versionChecked = (req: Request, _res: Response, next: NextFunction) => {
    schemaVersion(req);
    next();
  };
  const body = deps.idempotency.wrap(parseBody(['json']), (req) => schemaVersion(req));

  router.post('/accounts/entities', auth, versionChecked, ...body, (req: Request, res: Response) => {
    const version = schemaVersion(req);
    const valid = validateOnboarding(req.body, version, ctx.clock.now());
    if (valid.level === 'invitation' && !store.hostedOnboarding) {
      throw new SandboxError(403, 'hosted_onboarding_disabled', 'hosted onboarding is not enabled for this account');
    }
    const existing = store.references.get(valid.reference);
    if (existing) {
      throw new SandboxError(409, 'reference_already_exists', `reference ${valid.reference} is taken by ${existing}`, {
        field: 'reference',
        extra: { _links: { self: href(req, `/accounts/entities/${existing}`) } },
      });
    }
    refuseBeyond(store.entities.size, accountCaps(ctx.storeLimits).entities, 'entity_limit_reached', 'entities');
    const entity: EntityRecord = {
      id: ctx.newId('ent_'),
      reference: valid.reference,
      form: valid.form,
      level: valid.level,
      region: valid.region,
      createdWith: version,
      status: initialStatus(valid.level),
      data: valid.data,
    };
    store.addEntity(entity);
    if (valid.level === 'invitation') {
      const userId = ctx.newId('usr_');
      store.members.set(userId, {
        userId,
        entityId: entity.id,
        email: valid.data.contact_details!.invitee!.email,
        invitationsSent: 1,
        lastInvitedAt: ctx.clock.now().toISOString(),
      });
    }
    respond(res, 201, createdView(entity, version, req));
  });

  router.get('/accounts/entities/:entityId', auth, (req: Request, res: Response) => {
    const version = schemaVersion(req);
    respond(res, 200, entityView(entityOf(deps, req), version, req));
  });
}
