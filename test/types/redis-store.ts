/**
 * Consumer type test of `RedisStore`'s `client` (compiled by `npm run check`, never run): a merchant's own ioredis
 * client, of ioredis 6 (Tessera's) or ioredis 5 (the devDependency alias `ioredis5`), a `Redis` or a `Cluster`, is
 * accepted as it is, without a cast; anything else is still refused (each `@ts-expect-error` fails the check when
 * the line below it compiles).
 */
import { Cluster, Redis } from 'ioredis';
import { Cluster as Cluster5, Redis as Redis5 } from 'ioredis5';
import { RedisStore, type RedisStoreClient, type TesseraStore } from '../../server/helper/index.js';

export async function ioredis6(): Promise<void> {
  const store: TesseraStore = new RedisStore({ client: new Redis('redis://127.0.0.1:6379') });
  const cluster = new RedisStore({ client: new Cluster([{ host: '127.0.0.1', port: 7000 }]) });
  // The store keeps the client's own type: its other commands stay at hand.
  const length: number = await cluster.client.rpush('list', 'a');
  // Opened from a URL, the client is Tessera's ioredis 6 one.
  const owned: Redis | Cluster = new RedisStore({ url: 'redis://127.0.0.1:6379' }).client;
  void [store, length, owned];
}

export async function ioredis5(): Promise<void> {
  const redis = new Redis5('redis://127.0.0.1:6379', { lazyConnect: true });
  const store: TesseraStore = new RedisStore({ client: redis, keyPrefix: 'shop:' });
  const sentinel = new RedisStore({
    client: new Redis5({ sentinels: [{ host: '127.0.0.1', port: 26379 }], name: 'm' }),
  });
  const cluster = new RedisStore({ client: new Cluster5([{ host: '127.0.0.1', port: 7000 }]) });
  const same: Cluster5 = cluster.client;
  // Named as a type, the store says which client it holds.
  const named: RedisStore<Redis5> = new RedisStore({ client: redis });
  // A store of any client: `RedisStore` alone is one of Tessera's ioredis 6.
  const anyClient: RedisStore<RedisStoreClient> = named;
  // @ts-expect-error `RedisStore` with no type argument holds an ioredis 6 client.
  const six: RedisStore = named;
  const asClient: RedisStoreClient = redis;
  void [store, sentinel, same, named, anyClient, six, asClient];
}

export function notAClient(): void {
  // @ts-expect-error a connection URL goes in `url`, not `client`.
  new RedisStore({ client: 'redis://127.0.0.1:6379' });
  // @ts-expect-error a Map has `get` and `set`, but is no Redis client.
  new RedisStore({ client: new Map<string, string>() });
  // @ts-expect-error an object with some of the commands only (no `eval`, `evalsha`, `zrem`, events, `status`…).
  new RedisStore({ client: { get: async (_key: string) => null, set: async () => 'OK', isCluster: false } });
  // @ts-expect-error a client's options are not the store's: `timeoutMs` is the store's own.
  new RedisStore({ client: new Redis5(), timeout: 500 });
}
