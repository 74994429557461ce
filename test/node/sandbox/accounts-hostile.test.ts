import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { accessToken, authed, requests, sampleFixtures, V2, V3 } from './accounts-support.js';

const HOSTILE: unknown[] = [
  null,
  [],
  {},
  [1, 2],
  1e308,
  -1,
  0.5,
  '',
  ' ',
  'x'.repeat(5000),
  true,
  '\u0000',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  { $gt: '' },
];

/** Every path to a leaf (and to each object) of a JSON value. */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [prefix];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return [...(prefix.length ? [prefix] : []), ...entries.flatMap(([k, v]) => paths(v, [...prefix, k]))];
}

function replaced(value: unknown, path: (string | number)[], leaf: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path.at(-1)!] = leaf;
  return copy;
}

describe('Account Services hostile input', () => {
  let sb: RunningSandbox;
  let token: string;
  before(async () => {
    sb = await startSandbox({ fixtures: sampleFixtures() });
    token = await accessToken(sb);
  });
  after(() => sb.close());

  const v2 = structuredClone(requests.individualGb('hostile-v2')) as Record<string, unknown> & {
    individual: Record<string, unknown>;
  };
  v2.individual.date_of_birth = '1985-12-10';
  const future = '2099-01-01T00:00:00Z';
  const rule = { type: 'rolling', valid_from: future, rolling: { percentage: 10, holding_duration: { weeks: 2 } } };
  const a = '/accounts/entities/ent_fixture_a';
  const targets: [string, string, string, unknown, Record<string, string>][] = [
    ['onboard 3.0 individual', 'POST', '/accounts/entities', requests.individualGb('hostile-3'), { accept: V3 }],
    ['onboard 3.0 company', 'POST', '/accounts/entities', requests.companyUs('hostile-co'), { accept: V3 }],
    ['onboard 2.0 individual', 'POST', '/accounts/entities', v2, { accept: V2 }],
    ['onboard invitation', 'POST', '/accounts/entities', requests.invitation('hostile-inv'), { accept: V3 }],
    ['update instrument', 'PATCH', `${a}/payment-instruments/ppi_verified_2`, { label: 'L', default: true }, {}],
    [
      'create instrument',
      'POST',
      `${a}/payment-instruments`,
      {
        type: 'bank_account',
        label: 'L',
        currency: 'GBP',
        country: 'GB',
        account_number: 'GB94BARC10201530093459',
        document: { type: 'bank_statement', file_id: 'file_x' },
      },
      {},
    ],
    ['create rule', 'POST', `${a}/reserve-rules`, rule, {}],
    ['update rule', 'PUT', `${a}/reserve-rules/rsv_future`, rule, { 'if-match': '*' }],
    [
      'account updater',
      'POST',
      '/account-updater/cards',
      { source_options: { card: { number: '4000000000001000', expiry_month: 5, expiry_year: 2024 } } },
      {},
    ],
    ['store instrument', 'POST', '/instruments', { type: 'token', token: 'card_tok_x' }, {}],
    ['reinvite', 'PUT', `${a}/members/usr_fixture_a`, { note: 'x' }, {}],
    ['simulator', 'POST', '/onboarding-simulator/entities/ent_fixture_b', { status: 'pending' }, {}],
  ];

  it('answers every hostile value in every field with a 2xx or a 4xx naming codes, never a 5xx', async () => {
    let sent = 0;
    for (const [name, method, path, body, headers] of targets) {
      for (const p of paths(body)) {
        for (const leaf of HOSTILE) {
          const mutated = replaced(body, p, leaf);
          const r = await call(`${sb.url}${path}`, { method, body: mutated, headers: authed(token, headers) });
          sent++;
          const what = `${name} ${p.join('.')}=${JSON.stringify(leaf).slice(0, 40)}: ${r.status} ${r.text.slice(0, 300)}`;
          assert.ok(r.status < 500, what);
          if (r.status >= 400) {
            assert.ok(Array.isArray(r.json?.error_codes) && r.json.error_codes.length > 0, what);
            assert.equal(r.json.request_id, r.headers.get('svc-request-id'), what);
          }
        }
      }
      for (const top of HOSTILE.filter((h) => h === null || typeof h !== 'object' || Array.isArray(h))) {
        const r = await call(`${sb.url}${path}`, { method, body: top, headers: authed(token, headers) });
        assert.ok(r.status >= 400 && r.status < 500, `${name} body=${JSON.stringify(top).slice(0, 40)}: ${r.status}`);
      }
    }
    assert.ok(sent > 1000, `sent ${sent}`);
  });
});
