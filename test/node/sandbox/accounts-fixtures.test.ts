import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { accessToken, authed, requests, sampleFixtures, V3 } from './accounts-support.js';

const DEMO = new URL('../../../demo/fixtures/platform.json', import.meta.url).pathname;

describe('Account Services fixtures', () => {
  it('loads the demo platform file: sub-entities A and B with members, instruments, rules and stored cards', async () => {
    const sb = await startSandbox({ fixtures: DEMO });
    try {
      const token = await accessToken(sb);
      const get = (path: string, accept?: string) =>
        call(`${sb.url}${path}`, { headers: authed(token, accept ? { accept } : {}) });
      for (const [id, status, user] of [
        ['ent_demo_a', 'active', 'usr_demo_ada'],
        ['ent_demo_b', 'pending', 'usr_demo_grace'],
      ] as const) {
        assert.equal((await get(`/accounts/entities/${id}`, V3)).json.status, status);
        assert.deepEqual((await get(`/accounts/entities/${id}/members`)).json.data, [{ user_id: user }]);
        const instruments = (await get(`/accounts/entities/${id}/payment-instruments`)).json.data;
        assert.deepEqual(
          instruments.map((p: { status: string }) => p.status).sort(),
          ['unverified', 'verified'],
          `${id}: one verified and one not`,
        );
      }
      const rule = await get('/accounts/entities/ent_demo_a/reserve-rules/rsv_demo_a_future');
      assert.ok(Date.parse(rule.json.valid_from) > sb.clock.nowMs(), 'A has a rule that has never been active');
      const etag = rule.headers.get('etag')!;
      const put = await call(`${sb.url}/accounts/entities/ent_demo_a/reserve-rules/rsv_demo_a_future`, {
        method: 'PUT',
        headers: authed(token, { 'if-match': etag }),
        body: {
          ...rule.json,
          _links: undefined,
          id: undefined,
          rolling: { percentage: 15, holding_duration: { weeks: 2 } },
        },
      });
      assert.equal(put.status, 200, put.text);
      const outcomes: Record<string, string> = {};
      for (const src of [
        'src_demo_visa_updated',
        'src_demo_visa_expiry',
        'src_demo_mc_closed',
        'src_demo_amex_current',
      ]) {
        const r = await call(`${sb.url}/account-updater/cards`, {
          headers: authed(token),
          body: { source_options: { instrument: { id: src } } },
        });
        outcomes[src] = r.json.account_update_status;
      }
      assert.deepEqual(outcomes, {
        src_demo_visa_updated: 'CARD_UPDATED',
        src_demo_visa_expiry: 'CARD_EXPIRY_UPDATED',
        src_demo_mc_closed: 'CARD_CLOSED',
        src_demo_amex_current: 'UPDATE_FAILED',
      });
    } finally {
      await sb.close();
    }
  });

  it('puts the fixture state back on sandbox reset', async () => {
    const sb = await startSandbox({ fixtures: sampleFixtures() });
    try {
      let token = await accessToken(sb);
      const pi = `${sb.url}/accounts/entities/ent_fixture_a/payment-instruments/ppi_verified_2`;
      await call(pi, { method: 'PATCH', headers: authed(token), body: { label: 'Changed', default: true } });
      const created = await call(`${sb.url}/accounts/entities`, {
        headers: authed(token, { accept: V3 }),
        body: requests.individualGb('made-before-reset'),
      });
      assert.equal(created.status, 201);
      await call(`${sb.url}/account-updater/cards`, {
        headers: authed(token),
        body: { source_options: { instrument: { id: 'src_fixture_card' } } },
      });
      assert.equal((await call(`${sb.url}/_sandbox/reset`, { method: 'POST' })).status, 204);
      token = await accessToken(sb);
      const after = await call(pi, { headers: authed(token) });
      assert.equal(after.json.label, 'Account ppi_verified_2');
      assert.equal(after.json.default, false);
      assert.equal((await call(created.json._links.self.href, { headers: authed(token, { accept: V3 }) })).status, 404);
      const again = await call(`${sb.url}/account-updater/cards`, {
        headers: authed(token),
        body: { source_options: { instrument: { id: 'src_fixture_card' } } },
      });
      assert.equal(
        again.json.account_update_status,
        'CARD_EXPIRY_UPDATED',
        'the stored card is back to its fixture expiry',
      );
    } finally {
      await sb.close();
    }
  });

  it('stops the sandbox at start with an error naming the fixture path at fault', async () => {
    const base = sampleFixtures().accounts;
    const entity = base.entities[0]!;
    const pis = entity.payment_instruments!;
    const cases: [unknown, RegExp][] = [
      [{ ...base, extra: 1 }, /accounts\.\(root\): .*extra/i],
      [
        { ...base, stored_cards: [{ id: 'src_x', number: '4000000000001001', expiry_month: 1, expiry_year: 2030 }] },
        /accounts\.stored_cards\.0\.number: not a valid card number/,
      ],
      [
        {
          entities: [
            {
              ...entity,
              request: {
                ...requests.individualGb(),
                individual: { ...requests.individualGb().individual, first_name: undefined },
              },
            },
          ],
        },
        /accounts\.entities\.0\.request\.individual\.first_name: individual\.first_name_required/,
      ],
      [
        { ...base, entities: [entity, { ...entity, request: requests.individualGb('other') }] },
        /accounts\.entities\.1\.id: duplicate "ent_fixture_a"/,
      ],
      [
        { ...base, entities: [entity, { id: 'ent_2', request: requests.individualGb('fixture-a') }] },
        /accounts\.entities\.1\.request\.reference: reference already used/,
      ],
      [
        { entities: [entity] },
        /accounts\.entities\.0\.payment_instruments\.4\.instrument_id: no stored card src_fixture_card/,
      ],
      [
        {
          ...base,
          entities: [{ ...entity, payment_instruments: [{ ...pis[2], default: true }] }],
        },
        /accounts\.entities\.0\.payment_instruments\.0\.default: only a verified instrument/,
      ],
      [
        {
          ...base,
          entities: [
            {
              ...entity,
              payment_instruments: [pis[0], { ...pis[1], default: true }],
            },
          ],
        },
        /accounts\.entities\.0\.payment_instruments\.1\.default: a second default for GBP/,
      ],
      [
        {
          ...base,
          entities: [
            {
              ...entity,
              reserve_rules: [
                { id: 'rsv_1', type: 'rolling', rolling: { percentage: 1, holding_duration: { weeks: 1 } } },
              ],
            },
          ],
        },
        /accounts\.entities\.0\.reserve_rules\.0\.valid_from: give exactly one/,
      ],
      [{ ...base, oauth: { scopes: ['admin'] } }, /accounts\.oauth\.scopes\.0/],
    ];
    for (const [accounts, message] of cases) {
      await assert.rejects(startSandbox({ fixtures: { accounts } }), message, JSON.stringify(accounts).slice(0, 200));
    }
    const dir = mkdtempSync(join(tmpdir(), 'tessera-fixtures-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ accounts: { entities: 'none' } }));
    await assert.rejects(startSandbox({ fixtures: file }), (e: Error) => {
      assert.match(e.message, /accounts\.entities: /);
      assert.ok(e.message.includes(file), e.message);
      return true;
    });
  });
});
