import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { type Answer, call } from '../../support/http.js';
import {
  type Fleet,
  type Instance,
  oneChargeForConcurrentRequests,
  pay as payOn,
  startInstance,
  stopInstance,
  threeDsReturnOnAnother,
} from './instance-process.js';
import { RedisServer } from './redis-server.js';
import { cardToken, fault, sandboxCharges } from './support.js';

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
