import { type ChildProcess, spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

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

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A real `redis-server` child process on loopback with persistence off. */
export class RedisServer {
  readonly port: number;
  #child: ChildProcess | undefined;

  private constructor(port: number) {
    this.port = port;
  }

  /** Starts Debian's `redis-server` (or `$REDIS_SERVER`) on a free port and waits until it answers PING. */
  static async start(): Promise<RedisServer> {
    const server = new RedisServer(await freePort());
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
    const args = ['--save', '', '--appendonly', 'no', '--port', String(this.port), '--bind', '127.0.0.1'];
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
