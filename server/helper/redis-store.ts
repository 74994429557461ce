import { createHash } from 'node:crypto';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { z } from 'zod';
import { checkOptions, integerOption, patternOption } from '../common/options.js';
import { HelperHttpError } from './errors.js';
import type { TesseraStore } from './store.js';

/**
 * The store could not be used (Redis unreachable, too slow, or failing). The helper answers it as 503
 * `TESSERA_STORE_UNAVAILABLE` with `outcomeKnown: true`: every charge claims its card token in the store before it
 * calls the provider, so a request that met this error did not charge (docs/decisions/helper.md#helper-store-redis).
 */
export class StoreUnavailableError extends HelperHttpError {
  constructor(message: string, cause?: unknown) {
    super(503, 'TESSERA_STORE_UNAVAILABLE', message, {
      outcomeKnown: true,
      headers: { 'Retry-After': '1' },
      cause,
    });
  }
}

/**
 * What {@link RedisStore} uses of its client, and so all that `client` must be: the commands it sends, the events it
 * listens to, and the fields it reads. Every ioredis `Redis` (Sentinel included) and `Cluster` has them, of ioredis 6
 * (Tessera's own) and of ioredis 5, so a project's own client type-checks as it is, whichever of the two it uses
 * (docs/decisions/helper.md#helper-store-redis). At run time the store also checks `isCluster`, `status`, `options`
 * and these methods before it accepts a client.
 */
export interface RedisStoreClient {
  /** `true` for a `Cluster`: its keys spread over the masters by hash slot. */
  readonly isCluster: boolean;
  /** `ready` once commands can be sent; `wait` for a client made with `lazyConnect` that has not connected yet. */
  readonly status: string;
  /** A `Redis`'s own `commandTimeout`, or a `Cluster`'s in its `redisOptions`. */
  readonly options: {
    readonly commandTimeout?: number | undefined;
    readonly redisOptions?: { readonly commandTimeout?: number | undefined } | undefined;
  };
  get(key: string): Promise<string | null>;
  set(key: string, value: string, millisecondsToken: 'PX', milliseconds: number): Promise<unknown>;
  set(key: string, value: string, millisecondsToken: 'PX', milliseconds: number, nx: 'NX'): Promise<'OK' | null>;
  eval(script: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>;
  evalsha(sha1: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>;
  zrem(key: string, ...members: string[]): Promise<number>;
  info(section: string): Promise<string>;
  connect(): Promise<void>;
  disconnect(): void;
  // biome-ignore lint/suspicious/noExplicitAny: an EventEmitter's listener, as ioredis types it.
  on(event: string, listener: (...args: any[]) => void): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  once(event: string, listener: (...args: any[]) => void): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  off(event: string, listener: (...args: any[]) => void): unknown;
  /** A `Cluster`'s nodes: the eviction check asks each master for `INFO memory`. */
  nodes?(role: 'master'): readonly { info(section: string): Promise<string> }[];
}

/**
 * The options of {@link RedisStore}; `C` is the type of `client` (by default Tessera's ioredis 6 `Redis | Cluster`),
 * so that `store.client` keeps the type of the client passed.
 */
export interface RedisStoreOptions<C extends RedisStoreClient = Redis | Cluster> {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://` for TLS): the store opens and owns its own client. */
  readonly url?: string;
  /**
   * An existing ioredis client to use instead of `url` (the store does not close it): a `Redis` (one server, or
   * Sentinel) or a `Cluster` (Redis Cluster), of ioredis 6 or 5 ({@link RedisStoreClient}).
   */
  readonly client?: C;
  /** Prefix of every key the store writes (default `tessera:`), so one Redis can serve other uses too. */
  readonly keyPrefix?: string;
  /** Longest wait for one store call before it fails with {@link StoreUnavailableError} (default 500 ms). */
  readonly timeoutMs?: number;
}

/** What the store calls on its client (and a `Cluster`'s `nodes`, for the eviction check): {@link RedisStoreClient}. */
const CLIENT_METHODS = [
  'get',
  'set',
  'eval',
  'evalsha',
  'zrem',
  'info',
  'connect',
  'disconnect',
  'on',
  'once',
  'off',
] as const;

/**
 * An ioredis client, known by what every ioredis client has (`isCluster`, `status`, `options` and the commands the
 * store sends) rather than by `instanceof` alone: a project whose own ioredis is another version (5, say) or another
 * copy than Tessera's hands over a client of classes Tessera never loaded
 * (docs/decisions/helper.md#helper-store-redis).
 */
function isIoredisClient(value: unknown): value is RedisStoreClient {
  if (value instanceof Redis || value instanceof Cluster) return true;
  if (typeof value !== 'object' || value === null) return false;
  const c = value as Record<string, unknown>;
  return (
    typeof c.isCluster === 'boolean' &&
    typeof c.status === 'string' &&
    typeof c.options === 'object' &&
    c.options !== null &&
    CLIENT_METHODS.every((m) => typeof c[m] === 'function') &&
    (c.isCluster === false || typeof c.nodes === 'function')
  );
}

/** Whether an ioredis client is a `Cluster`, from any copy of ioredis (see {@link isIoredisClient}). */
export function isClusterClient(
  client: RedisStoreClient,
): client is RedisStoreClient & Required<Pick<RedisStoreClient, 'nodes'>> {
  return client instanceof Cluster || client.isCluster === true;
}

/** The options of {@link RedisStore}, each with its check (server/common/options.ts). */
const REDIS_STORE_OPTIONS = {
  url: patternOption(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL').optional(),
  client: z
    .custom<RedisStoreClient>(isIoredisClient, {
      error: 'must be an ioredis client (`new Redis(…)` or `new Cluster(…)`)',
    })
    .optional(),
  keyPrefix: z.string({ error: 'must be a string' }).max(100).optional(),
  timeoutMs: integerOption(1, 60_000).optional(),
};

// Counter windows: INCR, and PEXPIRE when the key has no TTL (INCR just made it: the first hit, or a counter that
// somehow lost its TTL); answers the count and the window's remaining milliseconds. Not on a count of 1 alone: a
// counter given back to 0 (`unhit`) keeps its key and TTL, and its next hit counts in the same window, as in
// MemoryStore (it started a new window there, docs/decisions/helper.md#helper-rate-limits).
const HIT = `local c = redis.call('INCR', KEYS[1])
local t = redis.call('PTTL', KEYS[1])
if t < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); t = tonumber(ARGV[1]) end
return {c, t}`;
const COUNT = `local v = redis.call('GET', KEYS[1])
if not v then return {0, 0} end
local t = redis.call('PTTL', KEYS[1])
if t < 0 then return {0, 0} end
return {tonumber(v) or 0, t}`;
// DECR keeps the TTL; an ended window has no key left, so nothing is given back into a new one.
const UNHIT = `local v = tonumber(redis.call('GET', KEYS[1]))
if v and v > 0 then redis.call('DECR', KEYS[1]) end
return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;
// SET NX PX of the claim, then GET of the answer: one round trip for what every charge asks first.
const CLAIM_AND_GET = `local claimed = redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX')
local value = redis.call('GET', KEYS[2])
if claimed then return {1, value} end
return {0, value}`;
// SET PX of the answer, then the claim's release (DEL only for its owner): one round trip for what ends every charge.
const SET_AND_RELEASE = `redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if redis.call('GET', KEYS[2]) == ARGV[3] then redis.call('DEL', KEYS[2]) end
return 0`;

// A reservation: a member of a sorted set scored by when it lapses (Redis's own clock, in ms). The lapsed ones are
// dropped, this one added (or given its new lapse time), the set kept as long as its last member; answers how many
// are live and how long until the first lapses. Only `ZREM` of its own id gives a reservation back.
const RESERVE = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {redis.call('ZCARD', KEYS[1]), tonumber(first[2]) - now}`;

// PEXPIRE of a claim only for its owner: an owner keeping its claim while it works.
const EXTEND = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

type Script = 'hit' | 'count' | 'unhit' | 'release' | 'claimAndGet' | 'setAndRelease' | 'extend' | 'reserve';
const SCRIPTS: Record<Script, string> = {
  hit: HIT,
  count: COUNT,
  unhit: UNHIT,
  release: RELEASE,
  claimAndGet: CLAIM_AND_GET,
  setAndRelease: SET_AND_RELEASE,
  extend: EXTEND,
  reserve: RESERVE,
};
/**
 * The scripts whose call the helper gives back when it fails (a card token's claim, a decline reservation). Sent late,
 * after their give-back, they would take what nothing gives back: see {@link RedisStore} `#scriptKeys`.
 */
const GIVEN_BACK: ReadonlySet<Script> = new Set(['claimAndGet', 'reserve']);
const SHAS = Object.fromEntries(
  Object.entries(SCRIPTS).map(([name, source]) => [name, createHash('sha1').update(source).digest('hex')]),
) as Record<Script, string>;

/** The code a Redis error reply starts with (`WRONGPASS`, `NOAUTH`, `LOADING`): anchored, one bounded run. */
const REPLY_CODE = /^[A-Z][A-Z_]{1,31}(?![\w-])/;

/** One store call: `late` once it has timed out and been answered {@link StoreUnavailableError}. */
interface StoreCall {
  readonly late: boolean;
}

/** A call bounded by the client's own `commandTimeout`, which rejects the command itself: never late while it runs. */
const BOUNDED: StoreCall = { late: false };

/**
 * How long the store's own client waits for any answer on a connection with commands outstanding before it takes the
 * connection for dead and opens a new one (ioredis's `socketTimeout`): twice `timeoutMs`, at least 2 s, so that a Redis
 * that is only slow for a moment is not reconnected to (docs/decisions/helper.md#helper-store-redis-silent).
 */
const silentConnectionMs = (timeoutMs: number): number => Math.max(2 * timeoutMs, 2000);

function ttl(ms: number): number {
  return Math.max(1, Math.ceil(ms));
}

/**
 * A {@link TesseraStore} in Redis, shared by every helper instance that uses the same Redis and key prefix.
 * Each method is one atomic Redis command or Lua script (on a Redis Cluster, the two paired steps are two, in order);
 * times are Redis's own (`PEXPIRE`/`PTTL`), so instances need no synchronised clocks. Every call is bounded by `timeoutMs` and fails closed with {@link StoreUnavailableError};
 * the client reconnects by itself, so the store works again as soon as Redis is back
 * (docs/decisions/helper.md#helper-store-redis).
 */
export class RedisStore<C extends RedisStoreClient = Redis | Cluster> implements TesseraStore {
  /** The client: the one passed as `client`, of its own type, or the one the store opened from `url`. */
  readonly client: C;
  readonly #owned: boolean;
  /**
   * Whether the client is a Redis Cluster. Its keys spread over the nodes by hash slot, and a script may only touch
   * keys of one slot, so there the paired steps (`claimAndGet`, `setAndRelease`) are two commands in order, the way
   * the helper runs them on any store without those methods (docs/decisions/helper.md#helper-store-redis).
   */
  readonly #cluster: boolean;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  /** Whether the client bounds every command by itself within `timeoutMs` (its `commandTimeout`). */
  readonly #bounded: boolean;
  #waiting: Promise<void> | undefined;
  /** The `ready` listener of {@link #waiting}: the calls waiting on it are bounded by their own timers. */
  #onReady: (() => void) | undefined;
  /** Why the client last failed to connect or get ready, until it is ready again (message and code only). */
  #lastError: Error | undefined;
  /** Whether the current connection attempt has said why it failed, or got ready (else its close says it). */
  #attemptExplained: boolean;

  constructor(options: RedisStoreOptions<C>) {
    const o = checkOptions('RedisStore', options, REDIS_STORE_OPTIONS, {
      secrets: ['url'],
      usage: "new RedisStore({ url: 'redis://127.0.0.1:6379' })",
      across(o, problem) {
        if ((o.url === undefined) === (o.client === undefined)) problem('pass exactly one of `url` or `client`');
      },
    });
    this.#prefix = o.keyPrefix ?? 'tessera:';
    this.#timeoutMs = o.timeoutMs ?? 500;
    if (o.client) {
      this.client = o.client as C;
      this.#owned = false;
    } else {
      const settings: RedisOptions = {
        // Fail fast while disconnected instead of queueing commands until Redis returns.
        enableOfflineQueue: false,
        // Commands issued in the same tick (concurrent charges) leave in one write: fewer system calls per charge.
        enableAutoPipelining: true,
        maxRetriesPerRequest: 0,
        commandTimeout: this.#timeoutMs,
        connectTimeout: Math.max(this.#timeoutMs, 1000),
        // A connection that has answered nothing for this long while commands wait on it is taken for dead and opened
        // again: one whose peer went away without a reset (a failover that moved Redis's address, a firewall that
        // forgot the connection) stayed `ready`, and every call timed out on it until the kernel gave up, many minutes
        // later. Twice `timeoutMs` at least, so that the give-back of a call that timed out is sent on the connection
        // of that call, after it (docs/decisions/helper.md#helper-store-redis-silent).
        socketTimeout: silentConnectionMs(this.#timeoutMs),
        // Keep trying to reconnect, at most every 500 ms, for as long as the process runs.
        retryStrategy: (times) => Math.min(times * 50, 500),
        // No CLIENT SETINFO on connect: ioredis ignores those commands' failures, and Redis's refusal of a new
        // connection (`ERR max number of clients reached`) is their reply, so it was lost. The ready check's INFO gets
        // it instead, as an `error` event. Two fewer commands per connection as well.
        disableClientInfo: true,
      };
      // `C` is its default here (no `client` to infer it from): a `Redis` is one.
      this.client = new Redis(o.url as string, settings) as RedisStoreClient as C;
      this.#owned = true;
    }
    // A client that cannot get ready (a wrong password, Redis at `maxclients`, refused connections) says why only in
    // its `error` events: the last one is kept as the cause of the 503s it leads to, so the log names it. Without a
    // listener ioredis would also print each reconnect failure of the store's own client.
    // Only a connection that is open and not yet ready is an attempt still to explain: a client passed in ready (or
    // not connected yet, whose next `connect` starts one) is not, and its later close must not be taken for one.
    this.#attemptExplained = this.client.status !== 'connect';
    this.client.on('error', this.#connectionError);
    this.client.on('ready', this.#connected);
    this.client.on('connect', this.#connecting);
    this.client.on('close', this.#closed);
    this.#cluster = isClusterClient(this.client);
    const { options: settings } = this.client;
    const own = this.#cluster ? settings.redisOptions?.commandTimeout : settings.commandTimeout;
    this.#bounded = own !== undefined && own > 0 && own <= this.#timeoutMs;
  }

  /**
   * Closes the client the store opened from `url`. A client passed in is left to its owner as the store found it:
   * open, and without the store's listeners, which would otherwise keep the closed store alive and swallow the
   * client's `error` events (a store made per test or per tenant on one client added two listeners each).
   */
  async close(): Promise<void> {
    if (this.#owned) {
      this.client.disconnect();
      return;
    }
    this.client.off('error', this.#connectionError);
    this.client.off('ready', this.#connected);
    this.client.off('connect', this.#connecting);
    this.client.off('close', this.#closed);
    if (this.#onReady) this.client.off('ready', this.#onReady);
    this.#waiting = this.#onReady = undefined;
  }

  readonly #connected = (): void => {
    this.#lastError = undefined;
    this.#attemptExplained = true;
  };

  readonly #connecting = (): void => {
    this.#attemptExplained = false;
  };

  /**
   * A connection closed before it was ready without an `error` event: what a client that sends CLIENT SETINFO on
   * connect (ioredis's default, so a client passed in) shows of Redis at `maxclients`, whose refusal is the reply to
   * a command whose failure ioredis ignores. Kept so the 503s still name the connection, not only a timeout.
   */
  readonly #closed = (): void => {
    if (this.#attemptExplained) return;
    this.#attemptExplained = true;
    // A Cluster is `connect` once it has read the slots, and closes without an error when its ready check fails
    // (`CLUSTER INFO` without `cluster_state:ok`: a slot no master serves), which has nothing to do with maxclients.
    this.#lastError = new Error(
      this.#cluster
        ? 'Redis Cluster: closed before it was ready (its ready check found cluster_state not ok: slots not served)'
        : 'Redis connection: closed before it was ready (as Redis at maxclients closes new connections)',
    );
  };

  /**
   * Keeps a client error as a new `Error` with only its message and code: ioredis puts the failed command on its
   * errors, and a refused `AUTH` or `HELLO` holds the password of the store's URL in its arguments.
   */
  readonly #connectionError = (err: unknown): void => {
    const message = err instanceof Error ? err.message : String(err);
    const kept = new Error(`Redis connection: ${message}`);
    const own = (err as { code?: unknown } | undefined)?.code;
    // A refused AUTH or HELLO is a Redis error reply with no `code` of its own: its first word is Redis's code.
    const reply = err instanceof Error && err.name === 'ReplyError' ? REPLY_CODE.exec(message)?.[0] : undefined;
    const code = typeof own === 'string' ? own : reply;
    if (code) Object.assign(kept, { code });
    this.#lastError = kept;
    this.#attemptExplained = true;
  };

  /** Any failure of a store call, as the one error the helper answers 503 for. */
  readonly #unavailable = (err: unknown): never => {
    if (err instanceof StoreUnavailableError) throw err;
    if (err instanceof Error && err.message === 'Command timed out') {
      throw new StoreUnavailableError(`the shared store did not answer within ${this.#timeoutMs} ms`, err);
    }
    throw new StoreUnavailableError('the shared store cannot be reached; nothing was done, try again', err);
  };

  #call<T>(run: (call: StoreCall) => Promise<T>): Promise<T> {
    // A ready client whose commands time out by themselves needs no timer of ours: one fewer per store call. Its
    // command that times out is rejected by the client, so nothing of the call is sent after that.
    if (this.#bounded && this.client.status === 'ready') return run(BOUNDED).catch(this.#unavailable);
    return this.#timed(run);
  }

  async #timed<T>(run: (call: StoreCall) => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const call = { late: false };
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        call.late = true;
        reject(new StoreUnavailableError(`the shared store did not answer within ${this.#timeoutMs} ms`));
      }, this.#timeoutMs);
    });
    try {
      // A new or reconnecting client refuses commands (no offline queue) until it is ready: wait for that, within the
      // same bound, so a store used right after construction or during a reconnect does not fail needlessly. When it
      // does not get ready in time, the answer says so, with the client's last error (a refused password, say) as the
      // cause that the log shows.
      if (this.client.status !== 'ready') {
        // A client given with `lazyConnect` connects on its first command, and the store sends none before `ready`:
        // it is connected here, as that command would have (its failure is the next `error` event's, kept above).
        if (this.client.status === 'wait') this.client.connect().catch(this.#connectionError);
        await Promise.race([
          this.#ready(),
          late.catch(() => {
            throw new StoreUnavailableError(
              `the shared store is not connected (waited ${this.#timeoutMs} ms); nothing was done, try again`,
              this.#lastError,
            );
          }),
        ]);
      }
      return await Promise.race([run(call), late]);
    } catch (err) {
      return this.#unavailable(err);
    } finally {
      clearTimeout(timer);
    }
  }

  /** One shared wait for the next `ready` (one listener however many calls wait; `close` takes it off). */
  #ready(): Promise<void> {
    this.#waiting ??= new Promise((resolve) => {
      this.#onReady = () => {
        this.#waiting = this.#onReady = undefined;
        resolve();
      };
      this.client.once('ready', this.#onReady);
    });
    return this.#waiting;
  }

  async #script(call: StoreCall, name: Script, key: string, ...args: (string | number)[]): Promise<unknown> {
    return this.#scriptKeys(call, name, [key], args);
  }

  /**
   * `EVALSHA` of a script, and `EVAL` of it when Redis answers that it does not have it (`NOSCRIPT`: restarted, failed
   * over, `SCRIPT FLUSH`). Not when the call timed out meanwhile and is one the helper gives back when it fails
   * ({@link GIVEN_BACK}): its give-back went to Redis at the timeout and ran on the way, before the `EVAL` was even
   * sent, so a reservation sent that way held a place for its whole window (a claim, its TTL). The `EVALSHA` ran
   * nothing, so nothing was taken, and nothing is sent. Other scripts still are: a late count counts what happened
   * (fail closed), a late give-back or stored answer is right when it lands.
   */
  async #scriptKeys(
    call: StoreCall,
    name: Script,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> {
    const prefixed = keys.map((k) => this.#prefix + k);
    try {
      return await this.client.evalsha(SHAS[name], keys.length, ...prefixed, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      if (call.late && GIVEN_BACK.has(name)) throw err;
      return this.client.eval(SCRIPTS[name], keys.length, ...prefixed, ...args);
    }
  }

  get(key: string): Promise<string | undefined> {
    return this.#call(async () => (await this.client.get(this.#prefix + key)) ?? undefined);
  }

  set(key: string, value: string, ttlMs: number): Promise<void> {
    return this.#call(async () => {
      await this.client.set(this.#prefix + key, value, 'PX', ttl(ttlMs));
    });
  }

  hit(key: string, windowMs: number): Promise<{ count: number; resetAtMs: number }> {
    return this.#call(async (call) => {
      const [count, left] = (await this.#script(call, 'hit', key, ttl(windowMs))) as [number, number];
      return { count, resetAtMs: Date.now() + left };
    });
  }

  count(key: string): Promise<{ count: number; resetAtMs: number }> {
    return this.#call(async (call) => {
      const [count, left] = (await this.#script(call, 'count', key)) as [number, number];
      return count === 0 && left === 0 ? { count: 0, resetAtMs: 0 } : { count, resetAtMs: Date.now() + left };
    });
  }

  unhit(key: string): Promise<void> {
    return this.#call(async (call) => {
      await this.#script(call, 'unhit', key);
    });
  }

  reserve(key: string, id: string, ttlMs: number): Promise<{ count: number; resetAtMs: number }> {
    return this.#call(async (call) => {
      const [count, left] = (await this.#script(call, 'reserve', key, id, ttl(ttlMs))) as [number, number];
      return { count, resetAtMs: Date.now() + left };
    });
  }

  unreserve(key: string, id: string): Promise<void> {
    return this.#call(async () => {
      await this.client.zrem(this.#prefix + key, id);
    });
  }

  claim(key: string, value: string, ttlMs: number): Promise<boolean> {
    return this.#call(() => this.#claim(key, value, ttlMs));
  }

  async #claim(key: string, value: string, ttlMs: number): Promise<boolean> {
    return (await this.client.set(this.#prefix + key, value, 'PX', ttl(ttlMs), 'NX')) === 'OK';
  }

  release(key: string, value: string): Promise<boolean> {
    return this.#call(async (call) => (await this.#script(call, 'release', key, value)) === 1);
  }

  claimAndGet(
    claimKey: string,
    value: string,
    ttlMs: number,
    key: string,
  ): Promise<{ claimed: boolean; value: string | undefined }> {
    if (this.#cluster) {
      return this.#call(async () => {
        const claimed = await this.#claim(claimKey, value, ttlMs);
        return { claimed, value: (await this.client.get(this.#prefix + key)) ?? undefined };
      });
    }
    return this.#call(async (call) => {
      const [claimed, stored] = (await this.#scriptKeys(call, 'claimAndGet', [claimKey, key], [value, ttl(ttlMs)])) as [
        number,
        string | null,
      ];
      return { claimed: claimed === 1, value: stored ?? undefined };
    });
  }

  setAndRelease(key: string, value: string, ttlMs: number, claimKey: string, claimValue: string): Promise<void> {
    if (this.#cluster) {
      return this.#call(async (call) => {
        await this.client.set(this.#prefix + key, value, 'PX', ttl(ttlMs));
        await this.#script(call, 'release', claimKey, claimValue);
      });
    }
    return this.#call(async (call) => {
      await this.#scriptKeys(call, 'setAndRelease', [key, claimKey], [value, ttl(ttlMs), claimValue]);
    });
  }

  extend(key: string, value: string, ttlMs: number): Promise<boolean> {
    return this.#call(async (call) => (await this.#script(call, 'extend', key, value, ttl(ttlMs))) === 1);
  }
}
