import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import express from 'express';

// The helper suite runs once per Express major (npm run test:node:express4); this proves the switch took effect,
// for the tests and the helper alike (one resolve hook for every `import 'express'`), so a broken switch cannot
// pass silently.
describe('the Express the helper suite runs on', () => {
  const wanted = process.env.TESSERA_TEST_EXPRESS === '4' ? 4 : 5;

  it(`is Express ${wanted}`, () => {
    const resolved = import.meta.resolve('express');
    assert.equal(/\/node_modules\/express4\//.test(resolved), wanted === 4, resolved);
    // express.query (the query-string middleware) exists in 4 and was removed in 5.
    assert.equal(typeof (express as unknown as { query?: unknown }).query === 'function', wanted === 4);
  });
});
