import type { CallOptions, WriteOptions } from '../http/call.js';
import type { ProviderResult } from '../http/result.js';
import { ACCOUNTS_ONLY, type AccountsCore, accountPathId } from './core.js';
import type { Entity, EntityCreated, OnboardEntityRequest, SchemaVersion } from './types.js';

/** Options of the entity operations: the payload version for this call. */
export interface EntityCallOptions<W extends SchemaVersion> extends CallOptions {
  /** `schema_version` of the `Accept` header; the client's `schemaVersion` when absent. */
  readonly schemaVersion?: W;
}

/** Sub-entities (account-services-api.md, `/accounts/entities`). OAuth scope `accounts` only. */
export interface Entities<V extends SchemaVersion> {
  /**
   * Onboards a sub-entity (or sends a hosted-onboarding invitation). The body variant follows the schema
   * version: 3.0 by default, 2.0 with `{ schemaVersion: '2.0' }`. A taken reference throws ConflictError
   * whose `links` point at the existing entity.
   */
  create<W extends SchemaVersion = V>(
    body: OnboardEntityRequest<W>,
    options?: EntityCallOptions<W> & WriteOptions,
  ): Promise<ProviderResult<EntityCreated<W>>>;
  /** Reads a sub-entity in the requested version's form. */
  retrieve<W extends SchemaVersion = V>(id: string, options?: EntityCallOptions<W>): Promise<ProviderResult<Entity<W>>>;
}

/** `application/json;schema_version=3.0`: the entity endpoints' required Accept (spec: POST /accounts/entities). */
export function entityAccept(version: SchemaVersion): string {
  return `application/json;schema_version=${version}`;
}

function versionOf(name: string, fallback: SchemaVersion, options: { schemaVersion?: unknown } | undefined) {
  const v = options?.schemaVersion ?? fallback;
  if (v !== '3.0' && v !== '2.0') {
    throw new TypeError(`${name}: \`schemaVersion\` must be "3.0" or "2.0"; got ${JSON.stringify(v)}`);
  }
  return v;
}

export function entities<V extends SchemaVersion>(core: AccountsCore, defaultVersion: V): Entities<V> {
  return {
    async create(body, options) {
      const name = 'entities.create';
      return core.call({
        name,
        method: 'POST',
        path: '/accounts/entities',
        auth: ACCOUNTS_ONLY,
        body,
        accept: entityAccept(versionOf(name, defaultVersion, options)),
        ...(options ? { options } : {}),
      });
    },
    async retrieve(id, options) {
      const name = 'entities.retrieve';
      return core.call({
        name,
        method: 'GET',
        path: `/accounts/entities/${accountPathId(name, 'id', 'ent_', id)}`,
        auth: ACCOUNTS_ONLY,
        accept: entityAccept(versionOf(name, defaultVersion, options)),
        ...(options ? { options } : {}),
      });
    },
  };
}
