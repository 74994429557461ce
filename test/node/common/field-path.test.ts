import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldKeys, fieldPath, fieldSegment } from '../../../server/common/field-path.js';

describe('fieldKeys', () => {
  it('reads back the escapes fieldSegment writes: the keys as sent, a cut key still cut', () => {
    for (const key of [
      'plain',
      '4242\\u00204242',
      '4242\\x204242',
      'a\u202eb\u0000c"d\\e',
      'tag\u{E0034}\u{E0032}',
      'lone\ud800x',
      '\\u005C',
      '\u2028\ufeff',
    ]) {
      assert.equal(fieldKeys(fieldSegment(key)), key, JSON.stringify(key));
    }
    const joined = ['4242\\u00204242', '4242\\u00204242'].map(fieldSegment).join('.');
    assert.equal(joined, '4242\\u005Cu00204242.4242\\u005Cu00204242');
    assert.equal(fieldKeys(joined), '4242\\u00204242.4242\\u00204242');
    assert.equal(fieldKeys(fieldSegment('k'.repeat(40))), `${'k'.repeat(32)}…`);
  });

  it('leaves text that is no escape it writes as it is', () => {
    for (const text of ['\\u', '\\u12', '\\u{}', '\\u{110000}', '\\u{1234567}', 'a\\ub', '\\uZZZZ', '\\u{12']) {
      assert.equal(fieldKeys(text), text, text);
    }
  });
});

describe('fieldPath', () => {
  it('joins a key, written by fieldSegment, under a path: the field every body error names', () => {
    assert.equal(fieldPath('', 'cvv'), 'cvv');
    assert.equal(fieldPath('billingDetails', 'cardCode'), 'billingDetails.cardCode');
    assert.equal(fieldPath('a', 'x\u202ey'), 'a.x\\u202Ey');
    assert.equal(fieldPath('a', ''), 'a.""');
  });
});
