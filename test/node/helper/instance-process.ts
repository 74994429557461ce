import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { RunningSandbox } from '../../../server/sandbox/index.js';
import { type Answer, call } from '../../support/http.js';
import { answerChallenge, cardToken, sandboxCharges } from './support.js';

const INSTANCE = fileURLToPath(new URL('./instance.ts', import.meta.url));

/** One helper process (test/node/helper/instance.ts): where it listens, and the process. */
export interface Instance {
  readonly url: string;
  readonly child: ChildProcess;
}

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/**
 * Starts one helper process on `sb` and waits for the URL it prints. `store` is where it keeps its state: a Redis
 * URL, or the ports of a Redis Cluster's nodes; `env` adds settings (TESSERA_RATE_LIMITS, TESSERA_TRUST_PROXY).
 */
export async function startInstance(
  sb: RunningSandbox,
  store: { url: string } | { clusterPorts: readonly number[] },
  env: Record<string, string> = {},
): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', 'tsx', INSTANCE], {
    env: {
      ...process.env,
      TESSERA_SANDBOX_URL: sb.url,
      TESSERA_PUBLIC_KEY: sb.credentials.publicKey,
      TESSERA_SECRET_KEY: sb.credentials.secretKey,
      ...('url' in store ? { TESSERA_REDIS_URL: store.url } : { TESSERA_REDIS_CLUSTER: store.clusterPorts.join(',') }),
      ...env,
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

/** Kills a helper process (SIGKILL, as a crash would) and waits for it to exit. */
export async function stopInstance(instance: Instance): Promise<void> {
  const { child } = instance;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await gone;
}

/** Helper processes sharing one store and one sandbox, and what the tests read of them. */
export interface Fleet {
  readonly sb: RunningSandbox;
  readonly instances: readonly Instance[];
  /** `<pid> <charge id>` for every onCharge call, on any instance (test/node/helper/instance.ts). */
  delivered(): Promise<string[]>;
  /** `<pid> <charge id> <order reference>` for every onChallenge call, on any instance. */
  challenged(): Promise<string[]>;
  /** The claim keys in the store (`tessera:*claim`). */
  claims(): Promise<string[]>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A charge request to the `i`-th instance (round robin). */
export function pay(fleet: Fleet, i: number, body: Record<string, unknown>): Promise<Answer> {
  const { instances } = fleet;
  return call(`${instances[i % instances.length]!.url}/charges`, { body: { email: 'a@shop.example', ...body } });
}

/** The claims left once the answers are in, after waiting a little for releases that follow a replay. */
export async function claimsLeft(fleet: Fleet): Promise<string[]> {
  let keys: string[] = [];
  for (let i = 0; i < 40; i++) {
    keys = await fleet.claims();
    if (keys.length === 0) break;
    await sleep(50);
  }
  return keys;
}

/** 50 concurrent requests for one token over the fleet: one provider charge, one onCharge, every claim given back. */
export async function oneChargeForConcurrentRequests(fleet: Fleet): Promise<void> {
  const token = await cardToken(fleet.sb);
  const answers = await Promise.all(
    Array.from({ length: 50 }, (_, i) => pay(fleet, i, { cardToken: token, orderReference: 'order-1' })),
  );
  const successes = answers.filter((a) => a.status === 201);
  assert.equal(successes.length, 50, JSON.stringify(answers.filter((a) => a.status !== 201).map((a) => a.json)));
  assert.equal(new Set(successes.map((a) => a.json.id)).size, 1, 'every success answers the same charge');
  assert.equal((await sandboxCharges(fleet.sb)).length, 1, 'exactly one provider call');
  const calls = await fleet.delivered();
  assert.equal(calls.length, 1, `one onCharge across the instances: ${calls.join(', ')}`);
  assert.equal(calls[0]!.split(' ')[1], successes[0]!.json.id);
  assert.deepEqual(await claimsLeft(fleet), [], 'every claim on the token and on its delivery given back');
}

/** A 3-D Secure charge started on the first instance and returned to the second: one charge, onCharge once. */
export async function threeDsReturnOnAnother(fleet: Fleet): Promise<void> {
  const { sb, instances } = fleet;
  const token = await cardToken(sb, '4000000000003220');
  const body = { cardToken: token, orderReference: 'order-3ds', successUrl: '/order/done', failUrl: '/order/failed' };
  const started = await pay(fleet, 0, body);
  assert.equal(started.status, 202, started.text);
  const query = new URL(await answerChallenge(sb, started.json.redirectUrl)).search;
  // The load balancer sends the shopper's return to another instance.
  const back = await fetch(`${instances[1]!.url}/charges/3ds-return${query}`, { redirect: 'manual' });
  assert.equal(back.status, 303);
  const chargeId = new URL(back.headers.get('location')!, instances[1]!.url).searchParams.get('chargeId');
  assert.match(chargeId ?? '', /^charge_/);
  const final = await pay(fleet, 2, body);
  assert.equal(final.status, 201, final.text);
  assert.equal(final.json.id, chargeId);
  assert.equal((await sandboxCharges(sb)).length, 1, 'one provider charge request');
  assert.deepEqual(
    await fleet.delivered(),
    [`${instances[1]!.child.pid} ${chargeId}`],
    'onCharge once, from the return',
  );
}

/**
 * One 3-D Secure charge sent at once to every instance, three times each, with the same card token: one provider
 * charge, one onChallenge across the instances, the same 202 for all; the challenge finished through the return on an
 * instance other than the one that called onChallenge: one onCharge, for the charge onChallenge was told of (issue #15).
 */
export async function oneChallengeForConcurrentRequests(fleet: Fleet): Promise<void> {
  const { sb, instances } = fleet;
  const token = await cardToken(sb, '4000000000003220');
  const body = { cardToken: token, orderReference: 'order-3ds', successUrl: '/order/done', failUrl: '/order/failed' };
  const answers = await Promise.all(Array.from({ length: instances.length * 3 }, (_, i) => pay(fleet, i, body)));
  for (const a of answers) assert.equal(a.status, 202, a.text);
  // The same answer, but for the id each request gets.
  const withoutId = ({ requestId: _id, ...rest }: Record<string, unknown>) => rest;
  const first = withoutId(answers[0]!.json);
  for (const { json } of answers) assert.deepEqual(withoutId(json), first, 'every instance answers the same challenge');
  assert.equal(first.status, 'Pending');
  assert.equal((await sandboxCharges(sb)).length, 1, 'one provider charge request');
  const challenged = await fleet.challenged();
  assert.equal(challenged.length, 1, `one onChallenge across the instances: ${challenged.join(', ')}`);
  const [pid, challengeId, orderReference] = challenged[0]!.split(' ');
  assert.match(challengeId ?? '', /^charge_/);
  assert.equal(orderReference, 'order-3ds');
  assert.deepEqual(await fleet.delivered(), [], 'no onCharge while the challenge is open');
  const query = new URL(await answerChallenge(sb, answers[0]!.json.redirectUrl)).search;
  // The shopper's return reaches an instance that did not call onChallenge.
  const other = instances.find((instance) => String(instance.child.pid) !== pid)!;
  const back = await fetch(`${other.url}/charges/3ds-return${query}`, { redirect: 'manual' });
  assert.equal(back.status, 303);
  const chargeId = new URL(back.headers.get('location')!, other.url).searchParams.get('chargeId');
  assert.equal(chargeId, challengeId, 'the charge onChallenge was told of');
  assert.deepEqual(await fleet.delivered(), [`${other.child.pid} ${chargeId}`], 'onCharge once, from the return');
  assert.equal((await fleet.challenged()).length, 1, 'onChallenge still once');
  assert.deepEqual(await claimsLeft(fleet), [], 'every claim given back');
}
