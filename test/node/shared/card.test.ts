import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BRANDS, checkCvv, checkExpiry, checkNumber, detectBrand, luhnValid } from '../../../shared/card/index.js';

describe('luhnValid', () => {
  it('accepts numbers whose Luhn sum is a multiple of 10', () => {
    for (const n of ['4242424242424242', '378282246310005', '5555555555554444', '0', '18']) {
      assert.equal(luhnValid(n), true, n);
    }
  });
  it('rejects a single changed digit and non-digit input', () => {
    for (const n of ['4242424242424241', '378282246310006', '', '4242 4242', 'abc', '١٢']) {
      assert.equal(luhnValid(n), false, n);
    }
  });
});

describe('detectBrand', () => {
  const cases: [string, string | undefined][] = [
    ['4242424242424242', 'visa'],
    ['5555555555554444', 'mastercard'],
    ['2223003122003222', 'mastercard'],
    ['2720990000000007', 'mastercard'],
    ['378282246310005', 'amex'],
    ['341', 'amex'],
    ['6011111111111117', 'discover'],
    ['6445644564456445', 'discover'],
    ['6221260000000000', 'discover'],
    ['3056930009020004', 'diners'],
    ['36227206271667', 'diners'],
    ['3566002020360505', 'jcb'],
    ['6200000000000005', 'unionpay'],
    ['8100000000000000', 'unionpay'],
    ['6759649826438453', 'maestro'],
    ['5018000000000009', 'maestro'],
    ['4936980000000000', 'maestro'],
    ['2220', undefined],
    ['5', undefined],
    ['9', undefined],
    ['', undefined],
  ];
  for (const [number, brand] of cases) {
    it(`${number || '(empty)'} → ${brand ?? 'no brand'}`, () => {
      assert.equal(detectBrand(number)?.id, brand);
    });
  }
  it('ignores separators', () => {
    assert.equal(detectBrand('3782 822463 10005')?.id, 'amex');
  });
  it('has a CVV length and at least one length for every brand', () => {
    for (const b of BRANDS) {
      assert.ok(b.lengths.length > 0, b.id);
      assert.ok(b.cvvLength === 3 || b.cvvLength === 4, b.id);
    }
    assert.equal(BRANDS.find((b) => b.id === 'amex')?.cvvLength, 4);
  });
});

describe('checkNumber', () => {
  it('accepts a valid number with separators', () => {
    assert.deepEqual(
      { brand: checkNumber('4242-4242 4242 4242').brand?.id, problem: checkNumber('4242-4242 4242 4242').problem },
      { brand: 'visa', problem: undefined },
    );
  });
  it('names the problem', () => {
    assert.equal(checkNumber('').problem, 'required');
    assert.equal(checkNumber('4242x').problem, 'invalid_characters');
    assert.equal(checkNumber('9999999999999995').problem, 'unknown_brand');
    assert.equal(checkNumber('42424242424242').problem, 'length');
    assert.equal(checkNumber('4242424242424241').problem, 'luhn');
  });
});

describe('checkExpiry', () => {
  const now = new Date('2026-11-22T12:00:00Z');
  it('is valid through the end of the expiry month', () => {
    assert.equal(checkExpiry(11, 2026, now), undefined);
    assert.equal(checkExpiry(10, 2026, now), 'past');
  });
  it('rejects a bad month and a year absurdly far ahead', () => {
    assert.equal(checkExpiry(13, 2027, now), 'month');
    assert.equal(checkExpiry(0, 2027, now), 'month');
    assert.equal(checkExpiry(1, 2047, now), 'too_far');
    assert.equal(checkExpiry(12, 2046, now), undefined);
  });
});

describe('checkCvv', () => {
  it('uses the brand length', () => {
    const amex = detectBrand('37');
    const visa = detectBrand('4');
    assert.equal(checkCvv('1234', amex), true);
    assert.equal(checkCvv('123', amex), false);
    assert.equal(checkCvv('123', visa), true);
    assert.equal(checkCvv('12a', visa), false);
  });
});
