import { Agent, fetch, request } from 'undici';
import { createAccountsClient, createLegacyClient } from '../server/provider/index.js';
import { startSandbox } from '../server/sandbox/index.js';

/**
 * Per-call overhead of the provider clients: sequential GETs of the same sandbox object through the client and
 * through a bare undici `fetch` (same keep-alive pool settings, same headers, JSON parsed, request id read), in
 * interleaved rounds so drift hits both alike. Target: client / raw under 1.2. A bare undici `request` is timed
 * too: the cheapest call through undici's public request API, which the client beats by reading answers through a
 * dispatch handler of its own (docs/decisions/provider.md#transport).
 */

// Many short interleaved rounds and the median of their ratios: a burst of load from another process
// then spoils one round, not the figure.
const ROUNDS = 80;
const PER_ROUND = 25;

async function time(n: number, fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i++) await fn();
  return performance.now() - started;
}

async function compare(client: () => Promise<unknown>, raw: () => Promise<unknown>, floor: () => Promise<unknown>) {
  await time(200, client);
  await time(200, raw);
  await time(200, floor);
  const raws: number[] = [];
  const clients: number[] = [];
  const floors: number[] = [];
  const ratios: number[] = [];
  const floorRatios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Rotate which side goes first, so none always runs on a warmer connection.
    const order = [raw, client, floor];
    for (let i = 0; i < r % 3; i++) order.push(order.shift()!);
    const ms = new Map<() => Promise<unknown>, number>();
    for (const fn of order) ms.set(fn, await time(PER_ROUND, fn));
    const [rawMs, clientMs, floorMs] = [ms.get(raw)!, ms.get(client)!, ms.get(floor)!];
    raws.push(rawMs);
    clients.push(clientMs);
    floors.push(floorMs);
    ratios.push(clientMs / rawMs);
    floorRatios.push(clientMs / floorMs);
  }
  const calls = ROUNDS * PER_ROUND;
  return {
    calls,
    rawUs: (median(raws) * 1000) / PER_ROUND,
    clientUs: (median(clients) * 1000) / PER_ROUND,
    floorUs: (median(floors) * 1000) / PER_ROUND,
    ratio: median(ratios),
    floorRatio: median(floorRatios),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export async function run(): Promise<string> {
  const sb = await startSandbox({ port: 0 });
  const { clientId, clientSecret, publicKey, secretKey } = sb.credentials;
  const accounts = createAccountsClient({ clientId, clientSecret, baseUrl: sb.url, authUrl: sb.url });
  const legacy = createLegacyClient({ publicKey, secretKey, baseUrl: sb.url });
  const agent = new Agent({ connect: { timeout: 5000 } });
  try {
    const entity = await accounts.entities.create({
      reference: 'bench-1',
      contact_details: { phone: { number: '2079460000', country_code: '+44' } },
      profile: { urls: ['https://shop.example.com'], mccs: ['5311'] },
      individual: {
        first_name: 'Ada',
        last_name: 'Lovelace',
        registered_address: { address_line1: '1 Road', city: 'London', zip: 'N1 1AA', country: 'GB' },
        date_of_birth: { day: 1, month: 2, year: 1990 },
        identification: { national_id_number: 'AB123456C' },
      },
    });
    const rule = await accounts.reserveRules.create(entity.data.id, {
      type: 'rolling',
      valid_from: '2031-01-01T00:00:00Z',
      rolling: { percentage: 10, holding_duration: { weeks: 2 } },
    });
    const token = await accounts.tokens!.token(['accounts']);
    const card = await legacy.cardTokens.create({
      number: '4242424242424242',
      expiryMonth: 12,
      expiryYear: 2031,
      cvv: '123',
    });
    const charge = await legacy.charges.create({
      cardToken: card.data.id,
      value: 100,
      currency: 'EUR',
      email: 'a@example.com',
    });

    const ruleUrl = `${sb.url}/accounts/entities/${entity.data.id}/reserve-rules/${rule.data.id}`;
    const ruleHeaders = { Authorization: `Bearer ${token}`, Accept: 'application/json', 'User-Agent': 'bench' };
    const chargeUrl = `${sb.url}/api2/v2/charges/${charge.data.id}`;
    const chargeHeaders = { Authorization: secretKey, Accept: 'application/json', 'User-Agent': 'bench' };
    const raw = (url: string, headers: Record<string, string>) => async () => {
      const res = await fetch(url, { headers, dispatcher: agent });
      const data = await res.json();
      return [data, res.headers.get('svc-request-id'), res.headers.get('etag')];
    };
    const floor = (url: string, headers: Record<string, string>) => async () => {
      const res = await request(url, { headers, dispatcher: agent });
      const data = await res.body.json();
      return [data, res.headers['svc-request-id'], res.headers.etag];
    };

    const rows = [
      {
        name: 'Accounts: GET reserve rule (OAuth token cached)',
        ...(await compare(
          () => accounts.reserveRules.retrieve(entity.data.id, rule.data.id),
          raw(ruleUrl, ruleHeaders),
          floor(ruleUrl, ruleHeaders),
        )),
      },
      {
        name: 'Legacy: GET charge (secret key, JSON)',
        ...(await compare(
          () => legacy.charges.retrieve(charge.data.id),
          raw(chargeUrl, chargeHeaders),
          floor(chargeUrl, chargeHeaders),
        )),
      },
    ];
    const table = rows
      .map(
        (r) =>
          `| ${r.name} | ${r.calls} | ${r.rawUs.toFixed(0)} µs | ${r.floorUs.toFixed(0)} µs | ${r.clientUs.toFixed(0)} µs | **${r.ratio.toFixed(2)}x** | ${r.ratio < 1.2 ? 'met' : 'missed'} | ${r.floorRatio.toFixed(2)}x |`,
      )
      .join('\n');
    return `## Provider clients: per-call overhead

Sequential GETs against the in-process sandbox on loopback: the typed client (timeouts, retry bookkeeping,
auth, typed result with request id / version / ETag) against a bare undici \`fetch\` of the same URL with the same
headers that parses the JSON and reads the same headers. ${ROUNDS} interleaved rounds of ${PER_ROUND} calls each
after a warm-up; the figures are medians over the rounds. Target: client / raw fetch under 1.2x. The last column
compares the client with a bare undici \`request\` doing the same: the client sends through a dispatch handler that
reads the answer whole without a stream (docs/decisions/provider.md#transport), so it can cost less than either.

| call | calls each | raw fetch | raw request | client | client / fetch | target | client / request |
| --- | --- | --- | --- | --- | --- | --- | --- |
${table}
`;
  } finally {
    await accounts.close();
    await legacy.close();
    await agent.close();
    await sb.close();
  }
}
