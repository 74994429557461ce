// Account Services API schemas: ids.

/** The prefixes of the ids this API shows (account-services-api.md), and of the card tokens it takes. */
export type AccountIdPrefix = 'ent_' | 'usr_' | 'ppi_' | 'rsv_' | 'src_' | 'file_' | 'card_tok_';

/**
 * The most characters an id may have after its prefix. The spec shows only the prefixes; 64 is what the sandbox and
 * these schemas always took, over twice the 26 the sandbox issues and room for a UUID (docs/decisions/provider.md#account-ids).
 */
export const ACCOUNT_ID_MAX = 64;

const PATTERNS = new Map<string, RegExp>();

/**
 * An id of this API: `prefix` and 1 to {@link ACCOUNT_ID_MAX} letters, digits, `_` or `-` (so no id can carry a
 * `/`, a `.` or a `%` into a path). The one rule the sandbox, the accounts client and the helper check.
 */
export function accountIdPattern(prefix: AccountIdPrefix): RegExp {
  let pattern = PATTERNS.get(prefix);
  if (!pattern) {
    pattern = new RegExp(`^${prefix}[A-Za-z0-9_-]{1,${ACCOUNT_ID_MAX}}$`);
    PATTERNS.set(prefix, pattern);
  }
  return pattern;
}

/** Whether `value` is an id with `prefix` ({@link accountIdPattern}). */
export function isAccountId(prefix: AccountIdPrefix, value: unknown): value is string {
  return typeof value === 'string' && accountIdPattern(prefix).test(value);
}
