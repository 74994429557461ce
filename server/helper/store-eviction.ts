import type { HelperLogger } from './log.js';
import { isClusterClient, RedisStore } from './redis-store.js';
import type { TesseraStore } from './store.js';

/** What Redis says of its memory limit and of what it drops to stay under it (`INFO memory`). */
export interface EvictionSettings {
  /** `maxmemory` in bytes; 0 is no limit. */
  readonly maxmemory: number;
  /** `maxmemory-policy`, e.g. `noeviction`, `allkeys-lru`, `volatile-lru`. */
  readonly policy: string;
}

/** The two fields of an `INFO memory` answer, or undefined when either is missing. */
function parseInfo(info: string): EvictionSettings | undefined {
  const fields = new Map<string, string>();
  for (const line of info.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  const maxmemory = Number(fields.get('maxmemory'));
  const policy = fields.get('maxmemory_policy');
  return Number.isFinite(maxmemory) && policy ? { maxmemory, policy } : undefined;
}

const mayEvict = (s: EvictionSettings) => s.maxmemory > 0 && s.policy !== 'noeviction';

/**
 * Checks once whether the Redis behind a {@link RedisStore} may evict the helper's keys, and logs one warning
 * (`tessera.store.eviction`) when it may: every key the helper writes has a TTL, so under a memory limit any policy
 * but `noeviction` can drop them (`volatile-lru`, the default of several managed services, included). An evicted
 * claim or delivery record can let `onCharge` run twice, and evicted counters weaken the card-testing limits
 * (docs/decisions/helper.md#helper-store-redis). On a Redis Cluster every master is asked. Answers the settings it
 * read (a cluster's first master that may evict, else its last), or undefined for another store, or when Redis could
 * not tell (`INFO` refused, or Redis not reachable yet: then it checks when the client is ready).
 */
export async function checkEviction(store: TesseraStore, log: HelperLogger): Promise<EvictionSettings | undefined> {
  if (!(store instanceof RedisStore)) return undefined;
  const { client } = store;
  if (client.status !== 'ready') {
    // Checked once the client connects; a store used only after startup is checked then.
    client.once('ready', () => void checkEviction(store, log));
    return undefined;
  }
  let settings: EvictionSettings | undefined;
  try {
    // A Redis Cluster's masters each hold a share of the keys: the first one that may evict is the one to warn of.
    const servers = isClusterClient(client) ? client.nodes('master') : [client];
    for (const server of servers) {
      settings = parseInfo(await server.info('memory'));
      if (!settings || mayEvict(settings)) break;
    }
  } catch {
    return undefined;
  }
  if (settings && mayEvict(settings)) {
    log.warn(
      { event: 'tessera.store.eviction', maxmemory: settings.maxmemory, policy: settings.policy },
      `Redis may evict the helper's keys (maxmemory ${settings.maxmemory} bytes, maxmemory-policy ${settings.policy}): ` +
        'an evicted claim or delivery record can let onCharge run twice, and evicted counters weaken the ' +
        'card-testing limits. Set maxmemory-policy to noeviction (a full Redis then fails closed with 503) or give ' +
        'the helper a Redis of its own.',
    );
  }
  return settings;
}

/**
 * Checks once whether a {@link RedisStore} built on a plain client (`url`, or a `Redis`) talks to a node of a Redis
 * Cluster, and logs one error (`tessera.store.cluster_node`) when it does: such a node answers `MOVED` for every key
 * of the slots it does not own, so about two charges in three would fail with 503 and nothing else would say why.
 * The fix is `new RedisStore({ client: new Cluster([...]) })` (docs/decisions/helper.md#helper-store-redis). Answers
 * whether the server is a cluster node, or undefined when it could not tell (another store, a `Cluster` client, `INFO`
 * refused, not connected yet: then it checks once the client is ready).
 */
export async function checkClusterNode(store: TesseraStore, log: HelperLogger): Promise<boolean | undefined> {
  if (!(store instanceof RedisStore)) return undefined;
  const { client } = store;
  if (isClusterClient(client)) return undefined;
  if (client.status !== 'ready') {
    client.once('ready', () => void checkClusterNode(store, log));
    return undefined;
  }
  let info: string;
  try {
    info = await client.info('cluster');
  } catch {
    return undefined;
  }
  const node = info.includes('cluster_enabled:1');
  if (node) {
    log.error(
      { event: 'tessera.store.cluster_node' },
      'The RedisStore talks to one node of a Redis Cluster through a plain client: every key in a slot that node does ' +
        "not own is refused (MOVED), and those charges fail with 503. Give the store a cluster client: new RedisStore({ client: new Cluster([{ host, port }]) }) from 'ioredis'.",
    );
  }
  return node;
}
