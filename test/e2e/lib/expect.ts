import assert from 'node:assert/strict';
import type { SandboxReader } from './env.js';

/** What the demo's result page shows of a charge. */
export interface ShownResult {
  readonly chargeId: string;
  readonly status: string;
  readonly card: string;
}

/** A declined card, then a good one, for one order: the result shows the approval, the sandbox holds both charges. */
export async function expectDeclinedThenApproved(sandbox: SandboxReader, shown: ShownResult, order: string) {
  assert.equal(shown.status, 'Authorised');
  const charges = await sandbox.chargesFor(order);
  assert.deepEqual(charges.map((c) => c.status).sort(), ['Authorised', 'Declined']);
  assert.equal(charges.find((c) => c.status === 'Declined')!.responseCode, '20051');
}

/**
 * The approved purchase of a mug and a tile set, checked in every engine: the result page shows the charge and the
 * card, and the sandbox holds exactly that charge, priced by the server, for that order.
 */
export async function expectApprovedMugAndTiles(sandbox: SandboxReader, shown: ShownResult, order: string) {
  assert.match(shown.chargeId, /^charge_/);
  assert.equal(shown.status, 'Authorised');
  assert.match(shown.card, /Visa •••• 4242, expires 12\/2034/);
  const charge = await sandbox.charge(shown.chargeId);
  assert.equal(charge.status, 'Authorised');
  assert.equal(charge.value, 1200 + 2450, 'the server priced the order');
  assert.equal(charge.currency, 'EUR');
  assert.equal(charge.trackId, order);
  assert.equal((await sandbox.chargesFor(order)).length, 1);
}
