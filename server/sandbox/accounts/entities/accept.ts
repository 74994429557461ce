import { SCHEMA_VERSIONS, type SchemaVersion } from '../../../provider/schemas/accounts/index.js';
import { isJsonRange, parseAccept } from '../../core/accept.js';
import { SandboxError } from '../../core/errors.js';
import type { Request } from '../../core/http.js';

const SUPPORTED: ReadonlySet<string> = new Set(SCHEMA_VERSIONS);

/**
 * The `schema_version` parameter of a JSON media range in Accept (spec: POST /accounts/entities —
 * "a JSON media type with parameter schema_version (latest 3.0)"). Accept is a list: the first acceptable JSON
 * range (`application/json`, a `+json` type or a wildcard, weight above 0, higher weights first) whose
 * `schema_version` is supported wins, so `schema_version=9.9, …schema_version=3.0` is 3.0. Only when none is:
 * a JSON range with another version → 400 `schema_version_unsupported`, none with the parameter → 400
 * `schema_version_required` (docs/decisions/sandbox.md#accept-ranges).
 */
export function schemaVersion(req: Request): SchemaVersion {
  const ranges = parseAccept(req.headers.accept ?? '')
    .filter((r) => r.q > 0 && isJsonRange(r))
    // Stable: ranges of equal weight keep the order the client wrote them in.
    .sort((a, b) => b.q - a.q);
  let unsupported: string | undefined;
  for (const range of ranges) {
    const value = range.params.schema_version;
    if (value === undefined) continue;
    if (SUPPORTED.has(value)) return value as SchemaVersion;
    unsupported ??= value;
  }
  if (unsupported !== undefined) {
    throw new SandboxError(
      400,
      'schema_version_unsupported',
      `schema_version ${JSON.stringify(unsupported.slice(0, 20))} is not supported; use 3.0 or 2.0`,
      { field: 'Accept' },
    );
  }
  throw new SandboxError(400, 'schema_version_required', 'send Accept: application/json;schema_version=3.0 (or 2.0)', {
    field: 'Accept',
  });
}
