import { z } from 'zod';
import { ACCOUNT_SCOPES } from '../../provider/schemas/accounts/index.js';

/** Fixture part `accounts.oauth`: the scopes the sandbox's one client may have (default: all known). */
export const oauthFixtureSchema = z.object({ scopes: z.array(z.enum(ACCOUNT_SCOPES)).min(1) }).strict();

/** The scopes the client may be granted, from fixtures `accounts.oauth.scopes` or every known scope. */
export function clientScopes(fixtures: Readonly<Record<string, unknown>>): readonly string[] {
  const part = (fixtures.accounts as { oauth?: unknown } | undefined)?.oauth;
  const parsed = oauthFixtureSchema.safeParse(part);
  return parsed.success ? parsed.data.scopes : ACCOUNT_SCOPES;
}
