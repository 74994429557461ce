import { SCHEMA_VERSIONS, type SchemaVersion } from '../../../provider/schemas/accounts/index.js';
import { SandboxError } from '../../core/errors.js';
import type { Request } from '../../core/http.js';

const JSON_RANGES = new Set(['application/json', 'application/*', '*/*']);

/**
 * The `schema_version` parameter of a JSON media range in Accept (spec: POST /accounts/entities —
 * "a JSON media type with parameter schema_version (latest 3.0)"). Missing → 400
 * `schema_version_required`; another value → 400 `schema_version_unsupported`.
 */
export function schemaVersion(req: Request): SchemaVersion {
  const accept = req.headers.accept ?? '';
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((s) => s.trim());
    if (!JSON_RANGES.has((type ?? '').toLowerCase())) continue;
    for (const param of params) {
      const eq = param.indexOf('=');
      if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'schema_version') continue;
      const value = param
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
      if ((SCHEMA_VERSIONS as readonly string[]).includes(value)) return value as SchemaVersion;
      throw new SandboxError(
        400,
        'schema_version_unsupported',
        `schema_version ${JSON.stringify(value.slice(0, 20))} is not supported; use 3.0 or 2.0`,
        {
          field: 'Accept',
        },
      );
    }
  }
  throw new SandboxError(400, 'schema_version_required', 'send Accept: application/json;schema_version=3.0 (or 2.0)', {
    field: 'Accept',
  });
}
