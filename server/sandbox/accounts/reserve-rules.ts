import { randomBytes } from 'node:crypto';
import { reserveRuleRequestSchema } from '../../provider/schemas/accounts/index.js';
import { parseBody } from '../core/body.js';
import { SandboxError } from '../core/errors.js';
import type { Request, Response, Router } from '../core/http.js';
import { respond } from '../core/respond.js';
import { requireAuth } from '../oauth/auth.js';
import { type AccountsDeps, AUTH, entityOf, href, pathId, requireBody } from './http.js';
import { ACCOUNT_LIMITS, type EntityRecord, type ReserveRuleRecord, refuseBeyond } from './store.js';
import { invalid, parse422 } from './validate.js';

/** A fresh strong ETag; every write gets a new one. */
export function newEtag(): string {
  return `"${randomBytes(12).toString('base64url')}"`;
}

/** RFC 9110 §13.1.1 If-Match: `*` or a list of entity tags compared strongly (a weak tag never matches). */
export function ifMatchHolds(header: string, etag: string): boolean {
  const value = header.trim();
  if (value === '*') return true;
  return value
    .split(',')
    .map((t) => t.trim())
    .some((t) => t === etag);
}

const base = (entityId: string) => `/accounts/entities/${entityId}/reserve-rules`;

function ruleView(r: ReserveRuleRecord, req: Request) {
  return { id: r.id, ...r.rule, _links: { self: href(req, `${base(r.entityId)}/${r.id}`) } };
}

/**
 * Reserve rules: GET with ETag, PUT with If-Match only while the rule has never been active (DESIGN.md:
 * valid_from ≤ now → 422), plus the extensions POST (create) and GET (list). Scope `accounts` or the secret key.
 */
export function reserveRuleRoutes(router: Router, deps: AccountsDeps): void {
  const { ctx, store } = deps;
  const auth = requireAuth(ctx, AUTH.accountsOrKey);
  const json = parseBody(['json']);
  const path = '/accounts/entities/:entityId/reserve-rules';

  const ruleOf = (req: Request, entity: EntityRecord): ReserveRuleRecord => {
    const id = pathId(req, 'id', 'rsv_', 'reserve_rule_id');
    const r = store.reserveRules.get(id);
    if (!r || r.entityId !== entity.id) {
      throw new SandboxError(404, 'reserve_rule_not_found', `no reserve rule ${id} on ${entity.id}`, {
        field: 'reserve_rule_id',
      });
    }
    return r;
  };

  router.get(path, auth, (req: Request, res: Response) => {
    const entity = entityOf(deps, req);
    const rules = store.reserveRulesOf(entity.id);
    respond(res, 200, { data: rules.map((r) => ruleView(r, req)) });
  });

  router.post(path, auth, ...deps.postBody, (req: Request, res: Response) => {
    const entity = entityOf(deps, req);
    const rule = parse422(reserveRuleRequestSchema, req.body);
    refuseBeyond(
      store.reserveRulesOf(entity.id).length,
      ACCOUNT_LIMITS.perEntity,
      'reserve_rule_limit_reached',
      `reserve rules of ${entity.id}`,
    );
    const record: ReserveRuleRecord = { id: ctx.newId('rsv_'), entityId: entity.id, rule, etag: newEtag() };
    store.reserveRules.set(record.id, record);
    respond(
      res,
      201,
      { id: record.id, _links: { self: href(req, `${base(entity.id)}/${record.id}`) } },
      {
        ETag: record.etag,
      },
    );
  });

  router.get(`${path}/:id`, auth, (req: Request, res: Response) => {
    const r = ruleOf(req, entityOf(deps, req));
    respond(res, 200, ruleView(r, req), { ETag: r.etag });
  });

  router.put(`${path}/:id`, auth, json, (req: Request, res: Response) => {
    const ifMatch = req.headers['if-match'];
    if (!ifMatch) {
      throw new SandboxError(428, 'if_match_required', 'send If-Match with the ETag of the rule you read', {
        field: 'If-Match',
      });
    }
    const entity = entityOf(deps, req);
    const r = ruleOf(req, entity);
    if (!ifMatchHolds(ifMatch, r.etag)) {
      throw new SandboxError(412, 'etag_mismatch', 'the rule changed since you read it; GET it again', {
        field: 'If-Match',
        headers: { ETag: r.etag },
      });
    }
    const now = ctx.clock.nowMs();
    // Spec: only a rule that has never been active can be updated (DESIGN.md: valid_from ≤ now → 422).
    if (Date.parse(r.rule.valid_from) <= now) {
      throw invalid(
        'valid_from',
        'reserve_rule_active',
        'the rule has been active since its valid_from; it cannot change',
      );
    }
    requireBody(res);
    const rule = parse422(reserveRuleRequestSchema, req.body);
    if (Date.parse(rule.valid_from) <= now) {
      throw invalid('valid_from', 'valid_from_not_in_future', 'an update must keep the rule in the future');
    }
    r.rule = rule;
    r.etag = newEtag();
    respond(res, 200, { id: r.id, _links: { self: href(req, `${base(entity.id)}/${r.id}`) } }, { ETag: r.etag });
  });
}
