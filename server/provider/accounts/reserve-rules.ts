import { InvalidResponseError, PreconditionFailedError } from '../errors.js';
import type { CallOptions, WriteOptions } from '../http/call.js';
import type { ProviderResult } from '../http/result.js';
import { ACCOUNTS_OR_KEY, type AccountsCore, accountPathId } from './core.js';
import type { ReserveRule, ReserveRuleList, ReserveRuleRequest, ReserveRuleWriteResult } from './types.js';

/** Options of {@link ReserveRules.update}. */
export interface UpdateReserveRuleOptions extends CallOptions {
  /** The `etag` of the version being replaced, from `retrieve` (sent as `If-Match`). Required. */
  readonly ifMatch: string;
}

/** Reserve rules of a sub-entity (`rsv_…`). OAuth scope `accounts` or the secret key. */
export interface ReserveRules {
  /** `GET …/reserve-rules/{id}`; the result's `etag` identifies this version. */
  retrieve(entityId: string, id: string, options?: CallOptions): Promise<ProviderResult<ReserveRule>>;
  /**
   * `PUT …/reserve-rules/{id}` with `If-Match: <ifMatch>`. Only a rule that has never been active can change
   * (else ValidationError). A stale ETag throws PreconditionFailedError (412). Safe to retry: the If-Match makes
   * a repeated PUT fail rather than apply twice; a 412 that follows such a retry has `outcomeKnown: false`.
   */
  update(
    entityId: string,
    id: string,
    body: ReserveRuleRequest,
    options: UpdateReserveRuleOptions,
  ): Promise<ProviderResult<ReserveRuleWriteResult>>;
  /**
   * Reads the rule, applies `change` to it and writes the result with the ETag it read; when someone else
   * changed the rule in between (412), reads and applies `change` once more, then gives up with the error. A 412
   * whose `outcomeKnown` is false (an earlier attempt of the same PUT failed after it was sent, so the rule may be
   * the change itself) is thrown as it is: read the rule to see whether the change is there.
   *
   * @example
   * await accounts.reserveRules.modify('ent_…', 'rsv_…', (rule) => ({
   *   ...rule, rolling: { ...rule.rolling, percentage: 7.5 },
   * }));
   */
  modify(
    entityId: string,
    id: string,
    change: (current: ReserveRule) => ReserveRuleRequest | Promise<ReserveRuleRequest>,
    options?: CallOptions,
  ): Promise<ProviderResult<ReserveRuleWriteResult>>;
  /** Sandbox extension: `GET …/reserve-rules`, every rule of the entity. */
  list(entityId: string, options?: CallOptions): Promise<ProviderResult<ReserveRuleList>>;
  /** Sandbox extension: `POST …/reserve-rules` creates a rule. */
  create(
    entityId: string,
    body: ReserveRuleRequest,
    options?: WriteOptions,
  ): Promise<ProviderResult<ReserveRuleWriteResult>>;
}

/**
 * What can be sent as `If-Match` (RFC 9110 §5.5 field value: visible characters, spaces and tabs, obs-text), with
 * something visible in it. A control character (NUL, DEL, U+2028) or a character above U+00FF is refused by the HTTP
 * stack only when the request is dispatched, which read as a network failure with the outcome unknown, retried.
 */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]+$/;
const sendableIfMatch = (v: unknown): v is string => typeof v === 'string' && FIELD_VALUE.test(v) && v.trim() !== '';

/** The writable part of a rule read back: everything but `id` and `_links`. */
function writable(rule: ReserveRuleRequest & { id?: unknown; _links?: unknown }): ReserveRuleRequest {
  const { id: _id, _links, ...rest } = rule;
  return rest;
}

export function reserveRules(core: AccountsCore): ReserveRules {
  const path = (name: string, entityId: string, id?: string) =>
    `/accounts/entities/${accountPathId(name, 'entityId', 'ent_', entityId)}/reserve-rules${id === undefined ? '' : `/${accountPathId(name, 'id', 'rsv_', id)}`}`;

  const api: ReserveRules = {
    async retrieve(entityId, id, options) {
      const name = 'reserveRules.retrieve';
      return core.call({
        name,
        method: 'GET',
        path: path(name, entityId, id),
        auth: ACCOUNTS_OR_KEY,
        ...(options ? { options } : {}),
      });
    },
    async update(entityId, id, body, options) {
      const name = 'reserveRules.update';
      const ifMatch = (options as UpdateReserveRuleOptions | undefined)?.ifMatch;
      if (!sendableIfMatch(ifMatch)) {
        throw new TypeError(
          `${name}: \`options.ifMatch\` must be the rule's ETag from reserveRules.retrieve (result.etag); got ${JSON.stringify(ifMatch)}. To read and write in one step use reserveRules.modify`,
        );
      }
      return core.call({
        name,
        method: 'PUT',
        path: path(name, entityId, id),
        auth: ACCOUNTS_OR_KEY,
        body: writable(body),
        ifMatch,
        options,
      });
    },
    async modify(entityId, id, change, options) {
      if (typeof change !== 'function') {
        throw new TypeError(`reserveRules.modify: \`change\` must be a function (current rule) => new rule`);
      }
      for (let attempt = 0; ; attempt++) {
        const current = await api.retrieve(entityId, id, options);
        if (current.etag === undefined) {
          throw new InvalidResponseError(
            'reserveRules.modify: the rule was read without an ETag, so it cannot be updated safely',
            {
              status: current.status,
              requestId: current.requestId,
              outcomeKnown: true,
              operation: 'GET reserve rule',
            },
          );
        }
        const next = await change(structuredClone(current.data));
        try {
          return await api.update(entityId, id, next, { ...options, ifMatch: current.etag });
        } catch (error) {
          // A 412 with the outcome unknown came after an attempt of this very PUT that may have applied (a 502 or
          // a lost answer, then the retry's If-Match no longer matched): applying `change` again could apply it twice.
          if (attempt === 0 && error instanceof PreconditionFailedError && error.outcomeKnown) continue;
          throw error;
        }
      }
    },
    async list(entityId, options) {
      const name = 'reserveRules.list';
      return core.call({
        name,
        method: 'GET',
        path: path(name, entityId),
        auth: ACCOUNTS_OR_KEY,
        ...(options ? { options } : {}),
      });
    },
    async create(entityId, body, options) {
      const name = 'reserveRules.create';
      return core.call({
        name,
        method: 'POST',
        path: path(name, entityId),
        auth: ACCOUNTS_OR_KEY,
        body: writable(body),
        ...(options ? { options } : {}),
      });
    },
  };
  return api;
}
