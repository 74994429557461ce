import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { type Answer, call } from '../../support/http.js';
import {
  type Fleet,
  type Instance,
  oneChallengeForConcurrentRequests,
  oneChargeForConcurrentRequests,
  pay as payOn,
  startInstance,
  stopInstance,
  threeDsReturnOnAnother,
} from './instance-process.js';
import { RedisServer } from './redis-server.js';
import { answerChallenge, cardToken, fault, sandboxCharges } from './support.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
  let fleet: Fleet;
  const pay = (i: number, body: Record<string, unknown>): Promise<Answer> => payOn(fleet, i, body);
  const delivered = () => fleet.delivered();

  before(async () => {
    sb = await startSandbox();
    redis = await RedisServer.start();
    admin = new Redis(redis.url, { lazyConnect: true });
    admin.on('error', () => {});
    instances = await Promise.all([0, 1, 2].map(() => startInstance(sb, { url: redis.url })));
    fleet = {
      sb,
      instances,
      delivered: () => admin.lrange('test:oncharge', 0, -1),
      challenged: () => admin.lrange('test:onchallenge', 0, -1),
      claims: () => admin.keys('tessera:*claim'),
    };
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

  it('makes one provider charge for 50 concurrent requests for one token spread over three instances', () =>
    oneChargeForConcurrentRequests(fleet));

  it('finishes a 3-D Secure charge started on one instance through the return on another', () =>
    threeDsReturnOnAnother(fleet));

  it('calls onChallenge once for a 3-D Secure charge sent at once to three instances with one token, all answered the same 202, and onCharge once for its return on another', () =>
    oneChallengeForConcurrentRequests(fleet));

  it('binds a charge to its shop across instances: a 3-D Secure charge of alpha returned through another instance tells alpha, a retry under beta is 409', async () => {
    const shop = (i: number, name: string, body: Record<string, unknown>) =>
      call(`${instances[i]!.url.replace(/\/payments$/, '')}/shops/${name}/payments/charges`, {
        body: { email: 'a@shop.example', ...body },
      });
    const body = { cardToken: await cardToken(sb, '4000000000003220'), orderReference: 'order-3ds' };
    const started = await shop(0, 'alpha', body);
    assert.equal(started.status, 202, started.text);
    // Pending on alpha: another instance refuses the token under beta, and makes no charge of it.
    const pendingBeta = await shop(1, 'beta', body);
    assert.equal(pendingBeta.status, 409, pendingBeta.text);
    assert.equal(pendingBeta.json.code, 'TESSERA_CARD_TOKEN_USED');
    const query = new URL(await answerChallenge(sb, started.json.redirectUrl)).search;
    // The return reaches another instance under one path for every shop (publicUrl's): onCharge still sees alpha.
    const back = await fetch(`${instances[1]!.url}/charges/3ds-return${query}`, {
      headers: { accept: 'application/json' },
    });
    assert.equal(back.status, 201, await back.clone().text());
    const { id } = (await back.json()) as { id: string };
    assert.deepEqual(await delivered(), [`${instances[1]!.child.pid} ${id} alpha`]);
    const beta = await shop(2, 'beta', body);
    assert.equal(beta.status, 409, beta.text);
    const alpha = await shop(2, 'alpha', body);
    assert.equal(alpha.status, 201, alpha.text);
    assert.equal(alpha.json.id, id);
    assert.equal((await sandboxCharges(sb)).length, 1, 'one provider charge request');
    assert.deepEqual(await delivered(), [`${instances[1]!.child.pid} ${id} alpha`], 'onCharge once, for alpha');
  });

  it("refuses a token under beta on one instance while alpha's charge of it is in flight on another: 409, one provider charge", async () => {
    const shop = (i: number, name: string, body: Record<string, unknown>) =>
      call(`${instances[i]!.url.replace(/\/payments$/, '')}/shops/${name}/payments/charges`, {
        body: { email: 'a@shop.example', ...body },
      });
    const body = { cardToken: await cardToken(sb), orderReference: 'order-1' };
    await fault(sb, { method: 'POST', path: '/api2/v2/charges/token', delayMs: 1500, count: 1 });
    const first = shop(0, 'alpha', body);
    await sleep(300);
    const beta = await shop(1, 'beta', body);
    assert.equal(beta.status, 409, beta.text);
    assert.equal(beta.json.code, 'TESSERA_CARD_TOKEN_USED');
    const alpha = await first;
    assert.equal(alpha.status, 201, alpha.text);
    assert.equal((await shop(2, 'beta', body)).status, 409);
    assert.deepEqual(await madeCharges(sb), [alpha.json.id], 'one provider charge');
    assert.equal((await sandboxCharges(sb)).length, 1, 'beta never reached the provider');
    assert.deepEqual(await delivered(), [`${instances[0]!.child.pid} ${alpha.json.id} alpha`]);
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

  it('counts the shop-wide declinesTotal across instances: declines from many addresses, each under its limit, reach it together', async () => {
    // Two more instances, behind one proxy (trust proxy 1), with the shop-wide limit on.
    const env = {
      TESSERA_TRUST_PROXY: '1',
      TESSERA_RATE_LIMITS: JSON.stringify({
        chargesPerIp: false,
        declinesPerIp: { max: 2, windowMs: 600_000 },
        declinesTotal: { max: 4, windowMs: 600_000 },
      }),
    };
    const shop = await Promise.all([0, 1].map(() => startInstance(sb, { url: redis.url }, env)));
    try {
      const payFrom = async (i: number, number?: string) =>
        call(`${shop[i % 2]!.url}/charges`, {
          body: { cardToken: await cardToken(sb, number), orderReference: 'order-1', email: 'a@shop.example' },
          headers: { 'x-forwarded-for': `198.51.100.${i}` },
        });
      for (let i = 0; i < 4; i++) {
        const declined = await payFrom(i, '4000000000000002');
        assert.equal(declined.status, 402, declined.text);
      }
      for (let i = 4; i < 6; i++) {
        const blocked = await payFrom(i);
        assert.equal(blocked.status, 429, blocked.text);
        assert.equal(blocked.json.code, 'TESSERA_TOO_MANY_DECLINES');
        assert.equal(blocked.json.limit, 'declinesTotal');
        const retryAfter = Number(blocked.headers.get('retry-after'));
        assert.ok(retryAfter > 590 && retryAfter <= 600, `Retry-After: ${retryAfter}`);
      }
      assert.equal((await sandboxCharges(sb)).length, 4, 'the blocked charges never reached the provider');
      assert.equal(await admin.get('tessera:declines:total'), '4');
    } finally {
      for (const instance of shop) await stopInstance(instance);
    }
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
    instances[0] = await startInstance(sb, { url: redis.url });
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
