import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../server/helper/package-root.js';

/** The platform fixture file the sandbox loads (sub-entities A and B; owned with the Account Services sandbox). */
export function platformFixturesPath(): string {
  return join(packageRoot(), 'demo', 'fixtures', 'platform.json');
}

/**
 * The demo's sandbox fixtures: the shared platform file plus one payout account for sub-entity A, verified, so
 * the dashboard has somewhere to move A's default to (the shared file keeps exactly one verified and one
 * unverified instrument per entity, which its own tests check). Loaded again on every sandbox reset.
 */
export function demoFixtures(): Record<string, unknown> {
  const fixtures = JSON.parse(readFileSync(platformFixturesPath(), 'utf8')) as {
    accounts: { entities: { id: string; payment_instruments?: unknown[] }[] };
  };
  const a = fixtures.accounts.entities.find((e) => e.id === 'ent_demo_a');
  a?.payment_instruments?.push({
    id: 'ppi_demo_a_bank_euro',
    label: 'Euro account',
    type: 'bank_account',
    currency: 'EUR',
    country: 'IE',
    status: 'verified',
    account_number: 'IE29AIBK93115212345678',
    bank_code: 'AIBK',
    document: { type: 'bank_statement', file_id: 'file_demo_a_statement3' },
  });
  return fixtures;
}
