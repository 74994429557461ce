import { after, before, describe } from 'node:test';
import pino from 'pino';
import { type RunningDemo, startDemo } from '../../demo/server.js';
import { selectedEngines } from '../../scripts/engines.js';
import { ENGINES } from './lib/engines/all.js';
import type { Engine } from './lib/engines/driver.js';
import { SandboxReader } from './lib/env.js';
import { type PurchaseEnv, purchaseTests } from './lib/purchase-tests.js';

// One demo for the file; each engine is launched for its own describe block, and every test is a new shopper.
// $TESSERA_BROWSERS narrows the engines, as for the browser suite (scripts/engines.js); an engine that is selected
// but cannot be launched fails its tests.
describe('the demo purchase in every browser engine', { timeout: 240_000 }, () => {
  let demo: RunningDemo;
  let env: PurchaseEnv;
  before(async () => {
    const logs: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) });
    demo = await startDemo({ port: 0, sandboxPort: 0, logger });
    const c = demo.sandbox.credentials;
    env = {
      sandbox: new SandboxReader(demo.sandbox.url, c.secretKey, c.clientId, c.clientSecret),
      sandboxUrl: demo.sandbox.url,
      logs,
    };
  });
  after(async () => {
    await demo?.close();
  });

  for (const name of selectedEngines()) {
    const { title, launch } = ENGINES[name]!;
    describe(title, () => {
      let engine: Engine;
      before(async () => {
        engine = await launch({ demoUrl: demo.url });
      });
      after(async () => {
        await engine?.close();
      });
      purchaseTests(
        () => engine,
        () => env,
      );
    });
  }
});
