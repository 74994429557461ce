import { z } from 'zod';
import type { LegacyStore } from './store.js';

/**
 * The `legacy` part of a fixtures file (`--fixtures FILE`): customers that exist from the start, so a charge may
 * name them by `customerId` or must match their email (legacy-card-api.md, "email or customerId").
 *
 * @example
 * { "legacy": { "customers": [{ "id": "cust_demo0001", "email": "ada@example.com", "name": "Ada Lovelace" }] } }
 */
export const legacyFixturesSchema = z
  .object({
    customers: z
      .array(
        z.object({
          id: z.string().regex(/^cust_[A-Za-z0-9]{1,64}$/, { error: 'must be cust_ followed by letters or digits' }),
          email: z.email({ error: 'must be an email address' }),
          name: z.string().max(100).nullish(),
        }),
      )
      .max(10_000)
      .default([]),
  })
  .strict();

/**
 * Loads `fixtures.legacy` into the (cleared) store. Throws an Error naming the fixture path at fault, so a bad
 * fixtures file stops the sandbox at start.
 */
export function loadLegacyFixtures(fixtures: Readonly<Record<string, unknown>>, store: LegacyStore): void {
  if (fixtures.legacy === undefined) return;
  const result = legacyFixturesSchema.safeParse(fixtures.legacy);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const at = ['legacy', ...issue.path.map(String)].join('.');
    throw new Error(`tessera-pay sandbox: invalid fixtures at ${at}: ${issue.message}`);
  }
  for (const c of result.data.customers) {
    const key = c.email.toLowerCase();
    if (store.customers.has(c.id) || store.customersByEmail.has(key)) {
      throw new Error(`tessera-pay sandbox: invalid fixtures at legacy.customers: ${c.id} or ${c.email} appears twice`);
    }
    store.customers.set(c.id, { id: c.id, email: c.email, name: c.name ?? null });
    store.customersByEmail.set(key, c.id);
    store.pinnedCustomers.add(c.id);
  }
}
