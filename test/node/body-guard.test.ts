import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findShapeProblem } from '../../server/common/body-guard.js';

describe('findShapeProblem', () => {
  it('passes a clean body', () => {
    assert.equal(findShapeProblem({ a: [{ b: 1 }, 'x'], c: null }, 32), undefined);
  });
  it('names the dotted path of a forbidden key at any depth, arrays included', () => {
    assert.deepEqual(findShapeProblem(JSON.parse('{"a":[{"b":{"__proto__":{}}}]}'), 32), {
      kind: 'forbidden_key',
      field: 'a.0.b.__proto__',
      key: '__proto__',
      message: 'the key "__proto__" is not allowed',
    });
    assert.deepEqual(findShapeProblem({ constructor: 1 }, 32), {
      kind: 'forbidden_key',
      field: 'constructor',
      key: 'constructor',
      message: 'the key "constructor" is not allowed',
    });
  });
  it('stops at the first level deeper than the limit', () => {
    assert.deepEqual(findShapeProblem({ a: { b: { c: 1 } } }, 2), {
      kind: 'too_deep',
      field: 'a.b.c',
      message: 'the body is nested deeper than 2 levels',
    });
    assert.equal(findShapeProblem({ a: { b: 1 } }, 2), undefined);
  });
});
