/**
 * What every successful call returns (docs/decisions/provider.md#client-results): the decoded body as `data`, plus the
 * response metadata the spec promises. Fields the response did not carry are `undefined`, never missing.
 *
 * @example
 * const { data: rule, etag, requestId } = await accounts.reserveRules.retrieve('ent_…', 'rsv_…');
 */
export interface ProviderResult<T> {
  /** The decoded body, typed by the operation's schema. */
  readonly data: T;
  /** HTTP status (200, 201, …). */
  readonly status: number;
  /** `Svc-Request-Id`: quote it to the provider's support. */
  readonly requestId: string | undefined;
  /** `Svc-Version`: the API version that answered. */
  readonly version: string | undefined;
  /** `ETag` (reserve rules): pass it back as `ifMatch`. */
  readonly etag: string | undefined;
  /** The idempotency key sent (charges always send one), so a later retry can reuse it. */
  readonly idempotencyKey: string | undefined;
}
