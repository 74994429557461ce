import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { idempotencyKeyFor, resultKey, threeDsKey, tokenDigest } from '../../../server/helper/charges/records.js';

describe('charge records', () => {
  // Pinned values: during a rolling deploy, instances of two versions share one store, and a shopper's retry can
  // span the deploy. A key that changed between versions would miss the stored answer, and a changed idempotency
  // key would reach the provider as a new charge of a used token (refused, so the shopper sees an error instead of
  // the first result). Changing a derivation is a breaking change: these values may only change with a major version.
  it('derives the same store and idempotency keys for a token in every version', () => {
    const token = 'card_tok_4f2a9c1e7b3d5f6a8c0e2b4d6f8a1c3e';
    // The order became part of the idempotency key on 2026-11-26 (docs/decisions/helper.md#helper-charges).
    assert.equal(idempotencyKeyFor(token, 'order-42'), 'tessera-charge-jr6wZR1DeVWjul4Fx9M76XYbFiu36KIjtb5vh8rRytQ');
    assert.equal(resultKey(token), 'charge:a9e790da9317d4052090f432de8297ca951dfa78a224f8fe1708677da8323f4f');
    assert.equal(
      threeDsKey('pay_tok_0123456789abcdef'),
      '3ds:b44791aa9fe9a7148603759a2e56d894b8a633a26ac07974f1fdfb122d215cfd',
    );
    // Under a mount path with parameters (docs/decisions/helper.md#helper-mount-params): plain strings as on the
    // 2026-11-26 binding, a wildcard's segments and a value past the record's bounds as on its amendment.
    assert.equal(
      idempotencyKeyFor(token, 'order-42', undefined, { shop: 'alpha' }),
      'tessera-charge-br4p1M7mPZ5Cdy4mZs0Od5u3mEoTq3DJ4HiFfPcTBkU',
    );
    assert.equal(
      idempotencyKeyFor(token, 'order-42', undefined, { tenant: ['alpha', 'eu'] }),
      'tessera-charge-b0qrhtdj111j1SvOF4ZkyhHYeXBkJ9_PL3mooc6YsWE',
    );
    assert.equal(
      idempotencyKeyFor(token, 'order-42', undefined, { shop: 'a'.repeat(300) }),
      'tessera-charge-5HuaGdrP8-yi-J8acJimxm50HFgD-MIs75XoVlLW0-g',
    );
    // Given the digest (hashed once per request) or not, the keys are the same.
    const digest = tokenDigest(token);
    assert.equal(idempotencyKeyFor(token, 'order-42', digest), idempotencyKeyFor(token, 'order-42'));
    assert.equal(resultKey(token, digest), resultKey(token));
  });

  it('binds the idempotency key to the order: the same token for another order is another request to the provider', () => {
    const token = 'card_tok_4f2a9c1e7b3d5f6a8c0e2b4d6f8a1c3e';
    assert.notEqual(idempotencyKeyFor(token, 'order-42'), idempotencyKeyFor(token, 'order-43'));
    assert.notEqual(idempotencyKeyFor(token, 'order-42'), idempotencyKeyFor('card_tok_other', 'order-42'));
  });

  it("binds it to the mount path's parameters too, and keeps the pinned key of a helper mounted without them", () => {
    const token = 'card_tok_4f2a9c1e7b3d5f6a8c0e2b4d6f8a1c3e';
    const digest = tokenDigest(token);
    const alpha = idempotencyKeyFor(token, 'order-42', digest, { shop: 'alpha' });
    assert.equal(idempotencyKeyFor(token, 'order-42', digest, {}), idempotencyKeyFor(token, 'order-42'));
    assert.notEqual(alpha, idempotencyKeyFor(token, 'order-42'));
    assert.notEqual(alpha, idempotencyKeyFor(token, 'order-42', digest, { shop: 'beta' }));
    assert.notEqual(alpha, idempotencyKeyFor(token, 'order-42', digest, { store: 'alpha' }));
    assert.equal(alpha, idempotencyKeyFor(token, 'order-42', digest, { shop: 'alpha' }));
    // Every parameter, not only those a record keeps: names over 256 characters, a wildcard's segments.
    const long = (s: string) => idempotencyKeyFor(token, 'order-42', digest, { shop: s.repeat(300) });
    assert.notEqual(long('a'), long('b'));
    assert.notEqual(long('a'), idempotencyKeyFor(token, 'order-42'));
    const wild = (...tenant: string[]) => idempotencyKeyFor(token, 'order-42', digest, { tenant });
    assert.notEqual(wild('alpha', 'eu'), wild('beta', 'eu'));
    assert.notEqual(wild('alpha', 'eu'), wild('alpha/eu'));
    assert.notEqual(wild('alpha'), idempotencyKeyFor(token, 'order-42', digest, { tenant: 'alpha' }));
  });

  it('keeps the card token itself out of every key', () => {
    const token = 'card_tok_4f2a9c1e7b3d5f6a8c0e2b4d6f8a1c3e';
    for (const key of [idempotencyKeyFor(token, 'order-42'), resultKey(token)]) {
      assert.ok(!key.includes('4f2a9c1e7b3d5f6a8c0e2b4d6f8a1c3e'), key);
    }
  });
});
