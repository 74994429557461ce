import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HelperContext } from '../../../server/helper/context.js';
import { MemoryStore } from '../../../server/helper/index.js';
import { keepClaim } from '../../../server/helper/lease.js';
import { until } from '../../support/timing.js';
import { captureLogger, requiredMethods } from './support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A MemoryStore on a manual clock whose `extend` can be made to fail, and the context keepClaim reads. */
function setup() {
  let now = 1_000_000;
  const memory = new MemoryStore({ now: () => now });
  const extended: boolean[] = [];
  let failing = false;
  let attempts = 0;
  const store = requiredMethods(memory, {
    extend: async (k, v, t) => {
      attempts++;
      if (failing) throw Object.assign(new Error('store down'), { code: 'TESSERA_STORE_UNAVAILABLE' });
      const kept = await memory.extend(k, v, t);
      extended.push(kept);
      return kept;
    },
  });
  const { logger, log } = captureLogger();
  const ctx = { store, now: () => now, log: logger } as unknown as HelperContext;
  return {
    memory,
    ctx,
    log,
    extended,
    attempts: () => attempts,
    fail: (on: boolean) => {
      failing = on;
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('keepClaim: a claim kept alive while its owner works', () => {
  it('extends the claim each time a third of its TTL has passed, for as long as it runs, and lets it end after stop', async () => {
    const { memory, ctx, extended, advance } = setup();
    assert.equal(await memory.claim('job:claim', 'me', 30_000), true);
    const stop = keepClaim(ctx, 'job:claim', 'me', 30_000, 'test.claim', undefined);
    try {
      advance(9_000);
      await sleep(700);
      assert.deepEqual(extended, [], 'not before a third of the TTL');
      // 99 s, three times the TTL, in steps of 11 s: each step is extended before the next.
      for (let step = 1; step <= 9; step++) {
        advance(11_000 - (step === 1 ? 9_000 : 0));
        await until(() => extended.length === step, `extension ${step}`);
      }
      assert.equal(await memory.get('job:claim'), 'me', 'held past three TTLs');
      assert.ok(extended.every(Boolean));
    } finally {
      stop();
    }
    advance(11_000);
    await sleep(700);
    assert.equal(extended.length, 9, 'not extended after stop');
    advance(20_000);
    assert.equal(await memory.get('job:claim'), undefined, 'ends with its TTL once no longer kept');
  });

  it('logs a claim found lost as an error, once, and stops keeping it', async () => {
    const { memory, ctx, log, extended, advance } = setup();
    await memory.claim('job:claim', 'me', 30_000);
    const stop = keepClaim(ctx, 'job:claim', 'me', 30_000, 'test.claim', undefined);
    try {
      // Another owner holds it now (ours ended during a stall longer than the TTL).
      advance(31_000);
      assert.equal(await memory.claim('job:claim', 'other', 30_000), true);
      await until(() => extended.length === 1, 'an attempt');
      assert.deepEqual(extended, [false]);
      assert.equal(await memory.get('job:claim'), 'other', 'the other owner’s claim is left alone');
      advance(11_000);
      await sleep(700);
      assert.equal(extended.length, 1, 'no attempt after the loss');
      const errors = log.lines.filter((l) => l.event === 'test.claim', undefined);
      assert.equal(errors.length, 1);
      assert.equal(errors[0]!.level, 50);
      assert.equal(errors[0]!.key, 'job:claim');
      assert.match(String(errors[0]!.msg), /another instance may do the same work/);
    } finally {
      stop();
    }
  });

  it('tries again at the next look when the store fails, with a warning, and keeps the claim once it is back', async () => {
    const { memory, ctx, log, extended, attempts, fail, advance } = setup();
    await memory.claim('job:claim', 'me', 30_000);
    const stop = keepClaim(ctx, 'job:claim', 'me', 30_000, 'test.claim', undefined);
    try {
      fail(true);
      advance(11_000);
      await until(() => log.lines.some((l) => l.event === 'test.claim'), 'a warning');
      const warning = log.lines.find((l) => l.event === 'test.claim')!;
      assert.equal(warning.level, 40);
      assert.equal(warning.code, 'TESSERA_STORE_UNAVAILABLE');
      // Tried at every look, warned once.
      await sleep(1200);
      assert.ok(attempts() >= 3, `${attempts()} attempts`);
      assert.equal(log.lines.filter((l) => l.event === 'test.claim').length, 1);
      fail(false);
      await until(() => extended.length === 1, 'the next look extends it');
      advance(25_000);
      assert.equal(await memory.get('job:claim'), 'me', 'kept from the later extension');
    } finally {
      stop();
    }
  });

  it('keeps a claim whose TTL runs in real time when the helper’s clock stands still or steps back', async () => {
    // The store's TTLs run in real time, as Redis's do; the helper's `now` is a clock of its own (the sandbox's virtual
    // clock, as the demo passes with a RedisStore, or a system clock stepped back by NTP): it stands still here.
    const memory = new MemoryStore();
    const { logger, log } = captureLogger();
    const ctx = { store: memory, now: () => 1_000_000, log: logger } as unknown as HelperContext;
    assert.equal(await memory.claim('job:claim', 'me', 600), true);
    const stop = keepClaim(ctx, 'job:claim', 'me', 600, 'test.claim', undefined);
    try {
      await sleep(1500);
      assert.equal(await memory.get('job:claim'), 'me', 'held past two real TTLs while its owner works');
      assert.equal(log.lines.length, 0);
    } finally {
      await stop();
    }
  });

  it('stop resolves once an extension on its way has landed, so a claim given back after it stays given back', async () => {
    let now = 1_000_000;
    const memory = new MemoryStore({ now: () => now });
    let reading = false;
    let proceed!: () => void;
    const held = new Promise<void>((resolve) => {
      proceed = resolve;
    });
    // A store without `extend`: the claim is extended with get, then set; the get is held until the test says.
    const store = requiredMethods(memory, {
      get: async (k) => {
        const value = await memory.get(k);
        reading = true;
        await held;
        return value;
      },
    });
    const { logger, log } = captureLogger();
    const ctx = { store, now: () => now, log: logger } as unknown as HelperContext;
    await memory.claim('job:claim', 'me', 30_000);
    const stop = keepClaim(ctx, 'job:claim', 'me', 30_000, 'test.claim', undefined);
    now += 11_000;
    // The keeper's timer does not hold the process open: the test waits with timers of its own.
    await until(() => reading, 'an extension on its way');
    let stopped = false;
    const stopping = stop()!.then(() => {
      stopped = true;
    });
    await sleep(50);
    assert.equal(stopped, false, 'waits for the extension on its way');
    proceed();
    await stopping;
    assert.equal(await memory.release('job:claim', 'me'), true);
    await sleep(700);
    assert.equal(await memory.get('job:claim'), undefined, 'not taken again by a late extension');
    assert.equal(log.lines.length, 0);
  });
});
