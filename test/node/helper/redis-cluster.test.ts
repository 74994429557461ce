import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Cluster } from 'ioredis';
import { RedisStore, StoreUnavailableError } from '../../../server/helper/index.js';
import { checkClusterNode, checkEviction } from '../../../server/helper/store-eviction.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import {
  type Fleet,
  type Instance,
  oneChallengeForConcurrentRequests,
  oneChargeForConcurrentRequests,
  startInstance,
  stopInstance,
  threeDsReturnOnAnother,
} from './instance-process.js';
import { RedisCluster, RedisServer } from './redis-server.js';
import { storeContract } from './store-contract.js';
import { captureLogger } from './support.js';

// A Redis Cluster spreads keys over its masters by hash slot, and refuses a script whose keys are in two slots
// (CROSSSLOT): the RedisStore runs its paired steps as two commands there (docs/decisions/helper.md#helper-store-redis).

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let cluster: RedisCluster | undefined;
const clients: Cluster[] = [];
/** A Cluster client the test closes at the end (the store does not close a client it is given). */
function clusterClient(): Cluster {
  const client = new Cluster((cluster as RedisCluster).startupNodes);
  client.on('error', () => {});
  clients.push(client);
  return client;
}

before(async () => {
  cluster = await RedisCluster.start();
});
after(async () => {
  for (const client of clients) client.disconnect();
  await cluster?.stop();
});

storeContract('RedisStore on a Redis Cluster of three real redis-server masters', {
  // Three redis-server processes share the two cores with the tests: a little more room than one server needs.
  shortMs: 150,
  // A fresh key prefix per test: one cluster, separate key spaces.
  make: async () => ({
    store: new RedisStore({ client: clusterClient(), keyPrefix: `t${randomBytes(4).toString('hex')}:` }),
    advance: (ms) => sleep(ms),
  }),
});

describe('RedisStore on a Redis Cluster', () => {
  /** Every key on every master, each master's list apart. */
  async function keysByMaster(client: Cluster, pattern: string): Promise<string[][]> {
    return Promise.all(client.nodes('master').map((node) => node.keys(pattern)));
  }

  it('spreads its keys over every master, and claims then reads keys that live on different masters', async () => {
    const client = clusterClient();
    const store = new RedisStore({ client, keyPrefix: 'spread:' });
    for (let i = 0; i < 30; i++) await store.set(`k${i}`, String(i), 60_000);
    const perMaster = await keysByMaster(client, 'spread:*');
    assert.equal(perMaster.length, 3);
    for (const keys of perMaster)
      assert.ok(keys.length > 0, `each master holds some keys: ${perMaster.map((k) => k.length)}`);
    assert.equal(await store.get('k7'), '7');
    // `charge:…` and `charge:…:claim` hash to different slots (here, different masters): a two-key script would be
    // refused with CROSSSLOT.
    const key = 'charge:abc';
    const slotOwners = await Promise.all(
      [key, `${key}:claim`].map(async (k) => {
        await store.set(`owner-probe:${k}`, '1', 60_000);
        const held = await keysByMaster(client, `spread:owner-probe:${k}`);
        return held.findIndex((keys) => keys.length > 0);
      }),
    );
    assert.notEqual(slotOwners[0], slotOwners[1], 'the pair lives on two masters');
    await store.set(key, 'stored', 60_000);
    assert.deepEqual(await store.claimAndGet(`${key}:claim`, 'me', 60_000, key), { claimed: true, value: 'stored' });
    assert.deepEqual(await store.claimAndGet(`${key}:claim`, 'other', 60_000, key), {
      claimed: false,
      value: 'stored',
    });
    await store.setAndRelease(key, 'answer', 60_000, `${key}:claim`, 'me');
    assert.equal(await store.get(key), 'answer');
    assert.equal(await store.claim(`${key}:claim`, 'other', 60_000), true, 'the claim was given back');
  });

  it('warns at startup when any master may evict the helper keys', async () => {
    const client = clusterClient();
    const store = new RedisStore({ client });
    await store.get('x');
    const quiet = captureLogger();
    assert.deepEqual(await checkEviction(store, quiet.logger), { maxmemory: 0, policy: 'noeviction' });
    assert.equal(quiet.log.lines.length, 0);
    const second = client.nodes('master')[1]!;
    try {
      await second.config('SET', 'maxmemory', '100mb');
      await second.config('SET', 'maxmemory-policy', 'volatile-lru');
      assert.deepEqual(await checkEviction(store, quiet.logger), { maxmemory: 104_857_600, policy: 'volatile-lru' });
      const warnings = quiet.log.lines.filter((l) => l.event === 'tessera.store.eviction');
      assert.equal(warnings.length, 1);
      assert.equal(warnings[0]!.policy, 'volatile-lru');
    } finally {
      await second.config('SET', 'maxmemory', '0');
      await second.config('SET', 'maxmemory-policy', 'noeviction');
    }
  });

  it('logs one error at startup when a plain client talks to one node of the cluster', async () => {
    const quiet = captureLogger();
    const clustered = new RedisStore({ client: clusterClient() });
    await clustered.get('x');
    assert.equal(await checkClusterNode(clustered, quiet.logger), undefined, 'a Cluster client is what it should be');
    const plain = new RedisStore({ url: `redis://127.0.0.1:${cluster!.nodes[0]!.port}` });
    try {
      await plain.get('x').catch(() => undefined);
      assert.equal(await checkClusterNode(plain, quiet.logger), true);
      const errors = quiet.log.lines.filter((l) => l.event === 'tessera.store.cluster_node');
      assert.equal(errors.length, 1);
      assert.equal(errors[0]!.level, 50);
      assert.match(String(errors[0]!.msg), /new RedisStore\(\{ client: new Cluster/);
    } finally {
      await plain.close();
    }
  });

  it('refuses a client that is not an ioredis Redis or Cluster, naming both', () => {
    assert.throws(
      () => new RedisStore({ client: {} as never }),
      /must be an ioredis client \(`new Redis\(…\)` or `new Cluster\(…\)`\)/,
    );
  });

  it('names a cluster that is not ok as what its 503s wait for, not a connection refused at maxclients', async () => {
    // A cluster node that serves no slot: ioredis reads the slots, is `connect`, finds `cluster_state:fail` in its
    // ready check and closes without an error, again and again. The store kept that close as "closed before it was
    // ready (as Redis at maxclients closes new connections)", which sent an operator after the wrong fault.
    const dir = mkdtempSync(join(tmpdir(), 'tessera-redis-noslots-'));
    const node = await RedisServer.start([
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      join(dir, 'nodes.conf'),
      '--dir',
      dir,
    ]);
    const client = new Cluster([{ host: '127.0.0.1', port: node.port }]);
    client.on('error', () => {});
    try {
      const store = new RedisStore({ client, timeoutMs: 1000 });
      await assert.rejects(store.get('k'), (err: unknown) => {
        assert.ok(err instanceof StoreUnavailableError, String(err));
        const cause = String((err.cause as Error | undefined)?.message);
        assert.match(cause, /cluster_state not ok/);
        assert.doesNotMatch(cause, /maxclients/);
        return true;
      });
      await store.close();
    } finally {
      client.disconnect();
      await node.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails closed fast while the master of a key is down, and works again by itself when it returns', async () => {
    const client = clusterClient();
    const store = new RedisStore({ client, keyPrefix: 'down:', timeoutMs: 300 });
    for (let i = 0; i < 12; i++) await store.set(`k${i}`, String(i), 60_000);
    const victim = cluster!.nodes[0]!;
    const victimClient = client.nodes('master').find((node) => node.options.port === victim.port)!;
    const onVictim = (await victimClient.keys('down:*')).map((k) => Number(k.slice('down:k'.length)));
    assert.ok(onVictim.length > 0, 'some keys live on the master that goes down');
    await victim.kill();
    try {
      for (const call of [
        () => store.get(`k${onVictim[0]}`),
        () => store.claim(`k${onVictim[0]}`, 'me', 1000),
        () => store.hit(`k${onVictim[0]}`, 1000),
      ]) {
        const started = Date.now();
        await assert.rejects(call(), (err: unknown) => {
          assert.ok(err instanceof StoreUnavailableError, String(err));
          assert.equal(err.status, 503);
          return true;
        });
        assert.ok(Date.now() - started < 1500, `failed in ${Date.now() - started} ms`);
      }
    } finally {
      await victim.restart();
    }
    let back = false;
    for (let i = 0; i < 200 && !back; i++) {
      back = await store.set(`k${onVictim[0]}`, 'again', 60_000).then(
        () => true,
        () => false,
      );
      if (!back) await sleep(50);
    }
    assert.equal(back, true, 'the same store works again without being recreated');
    assert.equal(await store.get(`k${onVictim[0]}`), 'again');
  });
});

describe('several helper processes sharing one Redis Cluster and one sandbox', () => {
  let sb: RunningSandbox;
  let admin: Cluster;
  let instances: Instance[];
  let fleet: Fleet;

  before(async () => {
    sb = await startSandbox();
    admin = clusterClient();
    const clusterPorts = cluster!.nodes.map((n) => n.port);
    instances = await Promise.all([0, 1, 2].map(() => startInstance(sb, { clusterPorts })));
    fleet = {
      sb,
      instances,
      delivered: () => admin.lrange('test:oncharge', 0, -1),
      challenged: () => admin.lrange('test:onchallenge', 0, -1),
      // A cluster's keys are spread over its masters: each one is asked.
      claims: async () => (await Promise.all(admin.nodes('master').map((node) => node.keys('tessera:*claim')))).flat(),
    };
  });
  beforeEach(async () => {
    sb.context.reset();
    await Promise.all(admin.nodes('master').map((node) => node.flushall()));
  });
  after(async () => {
    for (const instance of instances) await stopInstance(instance);
    await sb.close();
  });

  it('makes one provider charge for 50 concurrent requests for one token spread over three instances', () =>
    oneChargeForConcurrentRequests(fleet));

  it('finishes a 3-D Secure charge started on one instance through the return on another', () =>
    threeDsReturnOnAnother(fleet));

  it('calls onChallenge once for a 3-D Secure charge sent at once to three instances with one token, and onCharge once for its return on another', () =>
    oneChallengeForConcurrentRequests(fleet));
});
