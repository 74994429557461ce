import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkTesseraStore, MemoryStore, StoreCheckError, type TesseraStore } from '../../../server/helper/index.js';
import { requiredMethods } from './support.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A store of the merchant's own kind: the seven required methods over a MemoryStore, some replaced. */
function ownStore(replace: (memory: MemoryStore) => Partial<TesseraStore> = () => ({})): TesseraStore {
  const memory = new MemoryStore();
  return requiredMethods(memory, replace(memory));
}

// TTLs of 100 ms: the checks read a value right after writing it with that TTL, and at 20 ms a loaded CI machine
// (two test files at once) once took longer than the TTL between the two, failing a check the store had not broken.
async function failedCheck(store: TesseraStore): Promise<StoreCheckError> {
  const err = await checkTesseraStore(store, { shortMs: 100 }).then(
    () => assert.fail('the broken store passed'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof StoreCheckError, String(err));
  return err;
}

describe('checkTesseraStore: the checks a merchant runs on a store of its own', () => {
  it('passes the built-in MemoryStore in real time, and a correct store without the optional methods', async () => {
    await checkTesseraStore(new MemoryStore(), { shortMs: 100 });
    await checkTesseraStore(ownStore(), { shortMs: 100 });
  });

  it('writes only under tessera-check: keys, a fresh space per check', async () => {
    const keys = new Set<string>();
    const seen = <T>(key: string, result: T): T => {
      keys.add(key);
      return result;
    };
    await checkTesseraStore(
      ownStore((memory) => ({
        set: (k, v, t) => seen(k, memory.set(k, v, t)),
        hit: (k, w) => seen(k, memory.hit(k, w)),
        claim: (k, v, t) => seen(k, memory.claim(k, v, t)),
      })),
      { shortMs: 100 },
    );
    assert.ok(keys.size >= 8, `${keys.size} keys written`);
    for (const key of keys) assert.match(key, /^tessera-check:[0-9a-f]{12}:/);
    assert.ok(new Set([...keys].map((k) => k.split(':')[1])).size >= 5, 'a key space per check');
  });

  it('names the check a claim that is not atomic fails: two callers both win', async () => {
    const err = await failedCheck(
      ownStore((memory) => ({
        // Read, then write: what a store built on GET and SET (without NX) does.
        claim: async (k, v, t) => {
          const taken = (await memory.get(k)) !== undefined;
          await tick();
          if (taken) return false;
          await memory.set(k, v, t);
          return true;
        },
      })),
    );
    assert.equal(err.check, 'lets exactly one of 50 concurrent claims win, and keeps the winner’s value');
    assert.match(err.message, /winners of one claim/);
  });

  it('names the check a release that ignores the owner fails', async () => {
    const err = await failedCheck(
      ownStore((memory) => ({
        // Deletes whatever holds the key: a plain DEL.
        release: async (k) => {
          const held = await memory.get(k);
          return held === undefined ? false : memory.release(k, held);
        },
      })),
    );
    assert.equal(err.check, 'releases a claim only for its owner, and a claim ends with its TTL');
  });

  it('names the check a store that keeps values past their TTL fails', async () => {
    const err = await failedCheck(ownStore((memory) => ({ set: (k, v) => memory.set(k, v, 3_600_000) })));
    assert.equal(err.check, 'keeps a value for its TTL, replaces it on set, and forgets it after');
    assert.match(err.message, /outlived its TTL/);
  });

  it('names the check a counter fails whose answer is read apart from its increment', async () => {
    const err = await failedCheck(
      ownStore((memory) => ({
        // Right one at a time; under concurrency every caller reads the same count before adding.
        hit: async (k, w) => {
          const before = await memory.count(k);
          await tick();
          const after = await memory.hit(k, w);
          return { count: before.count + 1, resetAtMs: after.resetAtMs };
        },
      })),
    );
    assert.equal(err.check, 'answers each of 100 concurrent hits a different count, 1 to 100');
  });

  it('fails a store that forgets every TTL under a second, even when its calls are slow enough to take one', async () => {
    // TTLs kept in whole seconds, rounded down, behind a remote store's 60 ms a call: each short TTL or window is gone
    // when read back at once, and set and get took longer than it, as a machine that stalled would. A lapse after such
    // a stall was taken for one, so this store passed every check (it has none of the optional methods).
    const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
    const seconds = (ms: number) => Math.floor(ms / 1000) * 1000;
    const err = await failedCheck(
      ownStore((memory) => {
        const slow = async <T>(call: () => Promise<T>) => {
          await sleep(60);
          return call();
        };
        return {
          get: (k) => slow(() => memory.get(k)),
          set: (k, v, t) => slow(() => (seconds(t) > 0 ? memory.set(k, v, seconds(t)) : memory.set(k, v, 1))),
          hit: (k, w) => slow(() => memory.hit(k, Math.max(1, seconds(w)))),
          count: (k) => slow(() => memory.count(k)),
          unhit: (k) => slow(() => memory.unhit(k)),
          claim: (k, v, t) => slow(() => memory.claim(k, v, Math.max(1, seconds(t)))),
          release: (k, v) => slow(() => memory.release(k, v)),
        };
      }),
    );
    assert.equal(err.check, 'keeps a value for its TTL, replaces it on set, and forgets it after');
    assert.match(err.message, /in 5 tries: it had lapsed each time/);
  });

  it('passes a correct store whose short TTL and window lapse before they are read, as the machine stalled after the write', async () => {
    const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
    let stalls = 4;
    await checkTesseraStore(
      ownStore((memory) => ({
        // The machine stalls right after the write, past its 100 ms: a correct store has let it lapse by the read.
        set: async (k, v, t) => {
          await memory.set(k, v, t);
          if (t === 100 && stalls > 2 && stalls-- > 0) await sleep(120);
        },
        hit: async (k, w) => {
          const hit = await memory.hit(k, w);
          if (w === 100 && stalls > 0 && stalls-- > 0) await sleep(120);
          return hit;
        },
      })),
      { shortMs: 100 },
    );
    assert.equal(stalls, 0, 'every stall was met');
  });

  it('checks the optional methods where a store has them: a setAndRelease that frees any claim fails', async () => {
    const err = await failedCheck(
      ownStore((memory) => ({
        setAndRelease: async (k, v, t, claimKey) => {
          await memory.set(k, v, t);
          const held = await memory.get(claimKey);
          if (held !== undefined) await memory.release(claimKey, held);
        },
      })),
    );
    assert.equal(err.check, 'setAndRelease saves the value with its TTL and gives the claim back, only to its owner');
    assert.match(err.message, /a claim of another owner stays/);
  });

  it('checks extend where a store has it: one that extends whoever holds the claim fails', async () => {
    const err = await failedCheck(
      ownStore((memory) => ({
        // PEXPIRE without comparing the owner: what a store built on EXPIRE alone does.
        extend: async (k, _v, t) => {
          const held = await memory.get(k);
          if (held === undefined) return false;
          await memory.set(k, held, t);
          return true;
        },
      })),
    );
    assert.equal(err.check, 'extend gives a claim a new TTL, only for its owner and only while it lives');
    assert.match(err.message, /another owner cannot extend it/);
  });

  it('checks reserve and unreserve where a store has them: a give-back that frees any reservation fails', async () => {
    const err = await failedCheck(
      ownStore((memory) => ({
        // The reservations as a counter: a give-back takes back whichever reservation, made or not.
        reserve: (k, _id, t) => memory.hit(k, t),
        unreserve: (k) => memory.unhit(k),
      })),
    );
    assert.equal(
      err.check,
      'holds reservations by id: each counts once and lapses on its own, and only its own id gives it back',
    );
    assert.match(err.message, /the same id again counts once/);
  });

  it('refuses what is not a store, and a bad shortMs, with a TypeError', async () => {
    await assert.rejects(checkTesseraStore({} as TesseraStore), {
      name: 'TypeError',
      message:
        /checkTesseraStore: the store must implement TesseraStore \(get, set, hit, count, unhit, claim, release\)/,
    });
    await assert.rejects(checkTesseraStore(new MemoryStore(), { shortMs: 0 }), {
      name: 'TypeError',
      message: /`shortMs` must be an integer from 1 to 60000; got 0/,
    });
  });
});
