import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after, before, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { type Answer, call } from '../../support/http.js';
import { RedisServer } from './redis-server.js';
import { answerChallenge, cardToken, fault, sandboxCharges } from './support.js';

const INSTANCE = fileURLToPath(new URL('./instance.ts', import.meta.url));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Instance {
  readonly url: string;
  readonly child: ChildProcess;
}

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Starts one helper process (test/node/helper/instance.ts) and waits for the URL it prints. */
async function startInstance(sb: RunningSandbox, redisUrl: string): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', 'tsx', INSTANCE], {
    env: {
      ...process.env,
      TESSERA_SANDBOX_URL: sb.url,
      TESSERA_PUBLIC_KEY: sb.credentials.publicKey,
      TESSERA_SECRET_KEY: sb.credentials.secretKey,
      TESSERA_REDIS_URL: redisUrl,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`helper instance exited (${code}) before listening`)));
  });
  return { url: (JSON.parse(line) as { url: string }).url, child };
}

async function stopInstance(instance: Instance): Promise<void> {
  const { child } = instance;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await gone;
}

/** The ids of the charges the provider made (charge requests it answered with a charge). */
async function madeCharges(sb: RunningSandbox): Promise<string[]> {
  const ids = (await sandboxCharges(sb))
    .filter((e) => Number(e.status) < 300)
    .map((e) => (e.responseBody as { id?: string } | undefined)?.id)
    .filter((id): id is string => typeof id === 'string');
  return [...new Set(ids)];
}

describe('several helper processes sharing one Redis and one sandbox', () => {
  let sb: RunningSandbox;
  let redis: RedisServer;
  let admin: Redis;
  let instances: Instance[];

  const pay = (i: number, body: Record<string, unknown>): Promise<Answer> =>
    call(`${instances[i % instances.length]!.url}/charges`, { body: { email: 'a@shop.example', ...body } });
  /** `<pid> <charge id>` for every onCharge call, on any instance (test/node/helper/instance.ts). */
  const delivered = (): Promise<string[]> => admin.lrange('test:oncharge', 0, -1);
  /** The claims left in the store once the answers are in (releases after a replay are not awaited). */
  async function claimsLeft(): Promise<string[]> {
    let keys: string[] = [];
    for (let i = 0; i < 40; i++) {
      keys = await admin.keys('tessera:*claim');
      if (keys.length === 0) break;
      await sleep(50);
    }
    return keys;
  }

  before(async () => {
    sb = await startSandbox();
    redis = await RedisServer.start();
    admin = new Redis(redis.url, { lazyConnect: true });
    admin.on('error', () => {});
    instances = await Promise.all([0, 1, 2].map(() => startInstance(sb, redis.url)));
  });
  beforeEach(async () => {
    sb.context.reset();
    await admin.flushall().catch(() => undefined);
  });
  after(async () => {
    admin.disconnect();
    for (const instance of instances) await stopInstance(instance);
    await redis.stop();
    await sb.close();
  });

  it('makes one provider charge for 50 concurrent requests for one token spread over three instances', async () => {
    const token = await cardToken(sb);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => pay(i, { cardToken: token, orderReference: 'order-1' })),
    );
    const successes = answers.filter((a) => a.status === 201);
    assert.equal(successes.length, 50, JSON.stringify(answers.filter((a) => a.status !== 201).map((a) => a.json)));
    assert.equal(new Set(successes.map((a) => a.json.id)).size, 1, 'every success answers the same charge');
    assert.equal((await sandboxCharges(sb)).length, 1, 'exactly one provider call');
    const calls = await delivered();
    assert.equal(calls.length, 1, `one onCharge across the three instances: ${calls.join(', ')}`);
    assert.equal(calls[0]!.split(' ')[1], successes[0]!.json.id);
    assert.deepEqual(await claimsLeft(), [], 'every claim on the token and on its delivery given back');
  });

  it('finishes a 3-D Secure charge started on one instance through the return on another', async () => {
    const token = await cardToken(sb, '4000000000003220');
    const body = { cardToken: token, orderReference: 'order-3ds', successUrl: '/order/done', failUrl: '/order/failed' };
    const started = await pay(0, body);
    assert.equal(started.status, 202, started.text);
    const query = new URL(await answerChallenge(sb, started.json.redirectUrl)).search;
    // The load balancer sends the shopper's return to another instance.
    const back = await fetch(`${instances[1]!.url}/charges/3ds-return${query}`, { redirect: 'manual' });
    assert.equal(back.status, 303);
    const chargeId = new URL(back.headers.get('location')!, instances[1]!.url).searchParams.get('chargeId');
    assert.match(chargeId ?? '', /^charge_/);
    const final = await pay(2, body);
    assert.equal(final.status, 201, final.text);
    assert.equal(final.json.id, chargeId);
    assert.equal((await sandboxCharges(sb)).length, 1, 'one provider charge request');
    assert.deepEqual(await delivered(), [`${instances[1]!.child.pid} ${chargeId}`], 'onCharge once, from the return');
  });

  it('counts declines across instances: the per-IP decline limit is reached by declines spread over three', async () => {
    for (let i = 0; i < 3; i++) {
      const declined = await pay(i, { cardToken: await cardToken(sb, '4000000000000002'), orderReference: 'order-1' });
      assert.equal(declined.json.approved, false, declined.text);
    }
    for (let i = 0; i < 3; i++) {
      const blocked = await pay(i, { cardToken: await cardToken(sb), orderReference: 'order-1' });
      assert.equal(blocked.status, 429, blocked.text);
      assert.equal(blocked.json.code, 'TESSERA_TOO_MANY_DECLINES');
    }
    assert.equal((await sandboxCharges(sb)).length, 3, 'the blocked charges never reached the provider');
  });

  it('answers the outcome on another instance after one is killed in the middle of a charge, never charging twice', async () => {
    const token = await cardToken(sb);
    await fault(sb, { method: 'POST', path: '/api2/v2/charges/token', delayMs: 1500, count: 1 });
    const victim = instances[0]!;
    const lost = pay(0, { cardToken: token, orderReference: 'order-1' }).catch((err: unknown) => err);
    await sleep(500);
    await stopInstance(victim);
    await lost;
    let answer: Answer | undefined;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      answer = await pay(1, { cardToken: token, orderReference: 'order-1' });
      if (answer.status !== 503) break;
      await sleep(250);
    }
    assert.equal(answer?.status, 201, answer?.text);
    const made = await madeCharges(sb);
    assert.deepEqual(made, [answer!.json.id], 'one charge, the one the retry answers');
    const again = await pay(2, { cardToken: token, orderReference: 'order-1' });
    assert.equal(again.json.id, answer!.json.id);
    assert.deepEqual(await delivered(), [`${instances[1]!.child.pid} ${answer!.json.id}`], 'onCharge once');
    instances[0] = await startInstance(sb, redis.url);
  });

  it('answers 503 TESSERA_STORE_UNAVAILABLE fast while Redis is down, and charges again once it returns', async () => {
    const token = await cardToken(sb);
    await redis.kill();
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const r = await pay(i, { cardToken: token, orderReference: 'order-1' });
      assert.ok(Date.now() - started < 2000, `answered in ${Date.now() - started} ms`);
      assert.equal(r.status, 503, r.text);
      assert.equal(r.json.code, 'TESSERA_STORE_UNAVAILABLE');
      assert.equal(r.json.outcomeKnown, true);
    }
    assert.equal((await sandboxCharges(sb)).length, 0, 'nothing reached the provider');
    await redis.restart();
    for (let i = 0; i < 3; i++) {
      let r: Answer | undefined;
      for (let attempt = 0; attempt < 100; attempt++) {
        r = await pay(i, { cardToken: i === 0 ? token : await cardToken(sb), orderReference: 'order-1' });
        if (r.status !== 503) break;
        await sleep(100);
      }
      assert.equal(r?.status, 201, r?.text);
    }
  });
});
