import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerSecrets, holdsSecret } from '../../../server/helper/respond.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

describe('answerSecrets (docs/decisions/helper.md#helper-secret-guard)', () => {
  it('finds a secret as the helper would write it: whole, JSON-escaped or URL-encoded', () => {
    const secret = 'cs_"quoted"/plus+space \\back';
    const scope = { secrets: answerSecrets([secret]), log: silent };
    const written: [string, string][] = [
      ['as it is', `x${secret}y`],
      ['in a JSON answer', JSON.stringify({ label: `echo ${secret}` })],
      ['in a query value', `/order/done?${new URLSearchParams({ chargeId: secret })}`],
      ['percent-encoded', `https://acs.bank.example/3ds?k=${encodeURIComponent(secret)}`],
    ];
    for (const [what, text] of written) assert.equal(holdsSecret(scope, text), true, what);
    assert.equal(holdsSecret(scope, JSON.stringify({ label: 'cs_"quoted"/plus+space' })), false, 'a part of it');
  });

  it('keeps one form of a secret that no writer changes (one includes per secret)', () => {
    assert.deepEqual(answerSecrets(['sk_sbox_tessera0demo0secret0key0000001', 'tessera-client-secret']), [
      'sk_sbox_tessera0demo0secret0key0000001',
      'tessera-client-secret',
    ]);
  });
});
