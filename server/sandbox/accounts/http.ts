import { type AccountIdPrefix, type AccountScope, isAccountId } from '../../provider/schemas/accounts/index.js';
import type { SandboxContext } from '../core/context.js';
import { SandboxError } from '../core/errors.js';
import type { Request, RequestHandler, Response } from '../core/http.js';
import type { Idempotency } from '../core/idempotency.js';
import type { AuthRule } from '../oauth/auth.js';
import type { AccountsStore, EntityRecord } from './store.js';

/** What every Account Services route module gets. */
export interface AccountsDeps {
  readonly ctx: SandboxContext;
  readonly store: AccountsStore;
  /**
   * JSON body parsing for POSTs, wrapped in the core's `Idempotency-Key` handling (DESIGN.md: idempotency):
   * the same key and body replay the first answer, another body is 422, a twin in flight 409.
   */
  readonly postBody: readonly RequestHandler[];
  /** The area's one `Idempotency-Key` record, for a route whose answer depends on more than its body. */
  readonly idempotency: Idempotency;
}

const rule = (scopes: AccountScope[], secretKey: boolean): AuthRule => ({ scopes, secretKey });

/** Auth per endpoint, as the spec's Endpoints section says (and docs/decisions/sandbox.md#stored-instruments). */
export const AUTH = {
  /** Entities: OAuth scope `accounts` only. */
  entities: rule(['accounts'], false),
  /** Members, payment instruments, reserve rules (and the onboarding simulator): scope `accounts` or the secret key. */
  accountsOrKey: rule(['accounts'], true),
  /** Account updater: scope `vault:real-time-account-updater`. */
  updater: rule(['vault:real-time-account-updater'], false),
  /** Stored instruments (extension): scope `vault:instruments` or the secret key. */
  instruments: rule(['vault:instruments'], true),
} as const;

/** An absolute link to `path` on the host the caller used (relative when the request had no Host). */
export function href(req: Request, path: string): { href: string } {
  const host = req.headers.host;
  return { href: host ? `${req.protocol}://${host}${path}` : path };
}

/**
 * A path id with its prefix (the one id rule of the schemas, the client and the helper), or 400 `<name>_invalid`
 * (docs/decisions/sandbox.md#accounts-errors).
 */
export function pathId(req: Request, param: string, prefix: AccountIdPrefix, name: string): string {
  const value = req.params[param];
  if (!isAccountId(prefix, value)) {
    throw new SandboxError(400, `${name}_invalid`, `${name} must be an id starting with ${prefix}`, { field: name });
  }
  return value;
}

/** The entity of `:entityId`, or 404 `entity_not_found`. */
export function entityOf(deps: AccountsDeps, req: Request): EntityRecord {
  const id = pathId(req, 'entityId', 'ent_', 'entity_id');
  const entity = deps.store.entities.get(id);
  if (!entity) throw new SandboxError(404, 'entity_not_found', `no entity ${id}`, { field: 'entity_id' });
  return entity;
}

/** 422 `body_required` when a route that needs a body got none. */
export function requireBody(res: Response): void {
  if (!res.locals.rawBodyBytes) {
    throw new SandboxError(422, 'body_required', 'this request needs a JSON body', { field: 'body' });
  }
}
