import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../server/common/package-root.js';

/** The platform fixture file the sandbox loads (sub-entities A and B; owned with the Account Services sandbox). */
export function platformFixturesPath(): string {
  return join(packageRoot(), 'demo', 'fixtures', 'platform.json');
}

/**
 * The demo's sandbox fixtures: the shared platform file plus a second verified GBP payout account for
 * sub-entity A, so the dashboard has somewhere to move A's default to (defaults are per currency). The shared
 * file keeps exactly one verified and one unverified instrument per entity, which its own tests check. Loaded
 * again on every sandbox reset.
 */
export function demoFixtures(): Record<string, unknown> {
  const fixtures = JSON.parse(readFileSync(platformFixturesPath(), 'utf8')) as {
    accounts: { entities: { id: string; payment_instruments?: unknown[] }[] };
  };
  const a = fixtures.accounts.entities.find((e) => e.id === 'ent_demo_a');
  a?.payment_instruments?.push({
    id: 'ppi_demo_a_bank_second',
    label: 'Second business account',
    type: 'bank_account',
    currency: 'GBP',
    country: 'GB',
    status: 'verified',
    account_number: 'GB29NWBK60161331926819',
    bank_code: 'NWBK',
    document: { type: 'bank_statement', file_id: 'file_demo_a_statement3' },
  });
  return fixtures;
}

/**
 * The platform's own record of the payout instruments it added for each sub-entity, as a platform keeps them in its
 * database: the helper's `paymentInstrumentIds` lists them, since the provider's API reads an instrument by id and
 * lists none (docs/decisions/helper.md#helper-instrument-list). Here the records are the fixtures the sandbox loaded.
 */
export function payoutInstrumentIds(fixtures: Record<string, unknown>): (entityId: string) => string[] {
  const { entities } = (
    fixtures as { accounts: { entities: { id: string; payment_instruments?: { id: string }[] }[] } }
  ).accounts;
  const byEntity = new Map(entities.map((e) => [e.id, (e.payment_instruments ?? []).map((p) => p.id)]));
  return (entityId) => byEntity.get(entityId) ?? [];
}
