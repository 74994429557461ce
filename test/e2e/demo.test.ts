import { after, before, describe } from 'node:test';
import { type Env, startEnv } from './lib/env.js';
import { shopTests } from './lib/shop-tests.js';

// One demo and one Chromium for the whole run; every test opens its own browser context (a new shopper).
describe('the demo, end to end in Chromium', { timeout: 150_000 }, () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(async () => {
    await env?.close();
  });

  describe('shop', () => shopTests(() => env));
});
