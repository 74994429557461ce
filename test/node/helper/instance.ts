// One helper instance for the multi-process tests: Express + tesseraHelper with a RedisStore, on a free loopback
// port; prints `{"url": …}` on one line once it listens. Settings come from the environment:
// TESSERA_SANDBOX_URL, TESSERA_PUBLIC_KEY, TESSERA_SECRET_KEY, and TESSERA_REDIS_URL or TESSERA_REDIS_CLUSTER (the
// loopback ports of a Redis Cluster's nodes, comma-separated); optionally TESSERA_RATE_LIMITS (JSON, replaces the
// `rateLimits` below) and TESSERA_TRUST_PROXY (Express's `trust proxy`, a number of hops). Its onCharge pushes
// `<pid> <charge id>` (and ` <shop>` under `/shops/:shop/payments`) onto the Redis list `test:oncharge`, so a test sees which instance recorded which charge;
// its onChallenge pushes `<pid> <charge id> <order reference>` onto `test:onchallenge` the same way.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Cluster } from 'ioredis';
import pino from 'pino';
import { type CurrencyCode, RedisStore, tesseraHelper } from '../../../server/helper/index.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`instance: ${name} is not set`);
  return value;
};

/** The fixed price table: the server decides amounts. */
const ORDERS: Record<string, { amount: number; currency: CurrencyCode; threeDSecure?: boolean }> = {
  'order-1': { amount: 2500, currency: 'EUR' },
  'order-3ds': { amount: 4200, currency: 'GBP', threeDSecure: true },
};

// 1 s: a busy CI machine (load above 10 on two cores) made 300 ms store calls time out under 50 concurrent charges.
const cluster = process.env.TESSERA_REDIS_CLUSTER;
const store = cluster
  ? new RedisStore({
      client: new Cluster(cluster.split(',').map((port) => ({ host: '127.0.0.1', port: Number(port) }))),
      timeoutMs: 1000,
    })
  : new RedisStore({ url: env('TESSERA_REDIS_URL'), timeoutMs: 1000 });
const app = express();
if (process.env.TESSERA_TRUST_PROXY) app.set('trust proxy', Number(process.env.TESSERA_TRUST_PROXY));
const rateLimits = process.env.TESSERA_RATE_LIMITS
  ? JSON.parse(process.env.TESSERA_RATE_LIMITS)
  : { chargesPerIp: { max: 10_000, windowMs: 60_000 }, declinesPerIp: { max: 3, windowMs: 600_000 } };
// Also under a path with a parameter, as one helper for many shops mounts (issue #15): its onCharge adds the shop.
app.use(
  ['/payments', '/shops/:shop/payments'],
  tesseraHelper({
    publicKey: env('TESSERA_PUBLIC_KEY'),
    secretKey: env('TESSERA_SECRET_KEY'),
    legacyBaseUrl: env('TESSERA_SANDBOX_URL'),
    providerMaxRetries: 0,
    providerTimeoutMs: 5000,
    // The tests count the provider's charge requests; the startup key check would add its probe to them.
    startupKeyCheck: false,
    store,
    logger: pino({ level: 'silent' }),
    resolveCharge: (_req, { orderReference }) => ORDERS[orderReference],
    onCharge: async (charge, { req }) => {
      const shop = req.params.shop === undefined ? '' : ` ${req.params.shop}`;
      await store.client.rpush('test:oncharge', `${process.pid} ${charge.id}${shop}`);
    },
    // Awaited by the helper before its 202: once every answer is in, every call is on the list.
    onChallenge: async (challenge) => {
      await store.client.rpush('test:onchallenge', `${process.pid} ${challenge.id} ${challenge.orderReference}`);
    },
    rateLimits,
  }),
);
const server = createServer(app);
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}/payments`, pid: process.pid })}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void store.close();
  if (cluster) store.client.disconnect();
});
