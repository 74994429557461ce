import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** A free TCP port on loopback (asked of the kernel, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      text += String(chunk);
      if (text.includes('\r\n')) done(text.startsWith('+PONG'));
    });
  });
}

/**
 * A TCP relay on loopback to `port`, whose link can be cut: {@link cut} drops every connection through it and
 * refuses new ones until {@link mend}, while the server behind it runs on (a network fault between one client and
 * Redis: the client's commands never reach it, and other clients and the data are untouched). {@link silence} instead
 * leaves every connection open and carries nothing more on it, either way, while new connections are relayed: a
 * connection whose peer went away without a reset (a failover that moved Redis's address, a NAT or firewall that
 * forgot the connection), which the client's kernel does not notice for many minutes.
 */
export class TcpRelay {
  readonly port: number;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  /** The connections through the relay: a silenced one carries nothing more. */
  readonly #links = new Set<{ silent: boolean }>();
  #cut = false;

  private constructor(server: Server, port: number) {
    this.#server = server;
    this.port = port;
  }

  static async start(port: number): Promise<TcpRelay> {
    let relay: TcpRelay | undefined;
    const server = createServer((client) => relay!.#relay(client, port));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    relay = new TcpRelay(server, (server.address() as { port: number }).port);
    return relay;
  }

  #relay(client: Socket, port: number): void {
    if (this.#cut) {
      client.destroy();
      return;
    }
    const upstream = connect(port, '127.0.0.1');
    const link = { silent: false };
    const end = () => {
      this.#links.delete(link);
      for (const s of [client, upstream]) {
        s.destroy();
        this.#sockets.delete(s);
      }
    };
    for (const s of [client, upstream]) {
      this.#sockets.add(s);
      s.on('error', end);
      s.on('close', end);
    }
    this.#links.add(link);
    // Data is handed over by hand, not piped, so that a silenced link can swallow it.
    client.on('data', (chunk) => {
      if (!link.silent) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!link.silent) client.write(chunk);
    });
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Drops every connection and refuses new ones. */
  cut(): void {
    this.#cut = true;
    for (const s of this.#sockets) s.destroy();
  }

  /** Carries nothing more on the connections open now, and keeps them open; new connections are relayed as before. */
  silence(): void {
    for (const link of this.#links) link.silent = true;
  }

  /** Relays new connections again. */
  mend(): void {
    this.#cut = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A real `redis-server` child process on loopback with persistence off. */
export class RedisServer {
  readonly port: number;
  readonly #args: readonly string[];
  #child: ChildProcess | undefined;

  private constructor(port: number, args: readonly string[]) {
    this.port = port;
    this.#args = args;
  }

  /**
   * Starts Debian's `redis-server` (or `$REDIS_SERVER`) on a free port and waits until it answers PING. `args` are
   * added to its command line (a cluster node's settings, say).
   */
  static async start(args: readonly string[] = []): Promise<RedisServer> {
    const server = new RedisServer(await freePort(), args);
    await server.restart();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server again on the same port (after {@link kill} or {@link stop}). */
  async restart(): Promise<void> {
    if (this.#child) throw new Error('redis-server is already running');
    const bin = process.env.REDIS_SERVER ?? 'redis-server';
    const args = [
      '--save',
      '',
      '--appendonly',
      'no',
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      ...this.#args,
    ];
    const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    let exited = false;
    child.on('exit', () => {
      exited = true;
      running.delete(child);
    });
    running.add(child);
    this.#child = child;
    const deadline = Date.now() + 10_000;
    while (!(await ping(this.port))) {
      if (exited || Date.now() > deadline) {
        this.#child = undefined;
        child.kill('SIGKILL');
        throw new Error(`redis-server did not start on port ${this.port}: ${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async #end(signal: NodeJS.Signals): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#child = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await gone;
  }

  /** Kills the server at once (SIGKILL), as a crash would. */
  kill(): Promise<void> {
    return this.#end('SIGKILL');
  }

  /** Stops the server (SIGTERM) and waits for it to exit. */
  stop(): Promise<void> {
    return this.#end('SIGTERM');
  }
}

/**
 * A Redis Cluster of three real `redis-server` masters on loopback, no replicas, persistence off: the slots split in
 * three ranges, the nodes introduced with `CLUSTER MEET`, and ready once every node reports `cluster_state:ok` (what
 * `redis-cli --cluster create` does, without needing redis-cli).
 */
export class RedisCluster {
  readonly nodes: readonly RedisServer[];
  readonly #dir: string;

  private constructor(nodes: readonly RedisServer[], dir: string) {
    this.nodes = nodes;
    this.#dir = dir;
  }

  static async start(): Promise<RedisCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-redis-cluster-'));
    const nodes: RedisServer[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        nodes.push(
          await RedisServer.start([
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            join(dir, `nodes-${i}.conf`),
            '--cluster-node-timeout',
            '5000',
            '--dir',
            dir,
          ]),
        );
      }
      const admin = nodes.map((n) => new Redis(n.port, '127.0.0.1', { lazyConnect: false, maxRetriesPerRequest: 1 }));
      try {
        const SLOTS = 16384;
        await Promise.all(
          admin.map((c, i) =>
            c.call(
              'CLUSTER',
              'ADDSLOTSRANGE',
              String(Math.floor((SLOTS * i) / 3)),
              String(Math.floor((SLOTS * (i + 1)) / 3) - 1),
            ),
          ),
        );
        for (const node of nodes.slice(1)) await admin[0]!.call('CLUSTER', 'MEET', '127.0.0.1', String(node.port));
        const deadline = Date.now() + 20_000;
        for (;;) {
          const infos = await Promise.all(admin.map((c) => c.call('CLUSTER', 'INFO') as Promise<string>));
          if (infos.every((info) => info.includes('cluster_state:ok') && info.includes('cluster_known_nodes:3'))) break;
          if (Date.now() > deadline) throw new Error(`the Redis Cluster did not form: ${infos.join(' | ')}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        for (const c of admin) c.disconnect();
      }
    } catch (err) {
      for (const node of nodes) await node.stop();
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
    return new RedisCluster(nodes, dir);
  }

  /** The nodes as ioredis's `Cluster` takes them. */
  get startupNodes(): { host: string; port: number }[] {
    return this.nodes.map((n) => ({ host: '127.0.0.1', port: n.port }));
  }

  async stop(): Promise<void> {
    for (const node of this.nodes) await node.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
