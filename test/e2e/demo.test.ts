import { after, before, describe } from 'node:test';
import { consoleTests } from './lib/console-tests.js';
import { dashboardTests } from './lib/dashboard-tests.js';
import { type Env, startEnv } from './lib/env.js';
import { invariantTests } from './lib/invariant-tests.js';
import { qualityTests } from './lib/quality-tests.js';
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
  describe('platform dashboard', () => dashboardTests(() => env));
  describe('sandbox console', () => consoleTests(() => env));
  describe('accessibility and small screens', () => qualityTests(() => env));
  describe('invariants on the traffic of the whole run', () => invariantTests(() => env));
});
