import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { z } from 'zod';
import {
  accountUpdaterResponseSchema,
  entityCreatedV2Schema,
  entityCreatedV3Schema,
  entityV2Schema,
  entityV3Schema,
  errorBodySchema,
  membersListSchema,
  paymentInstrumentListSchema,
  paymentInstrumentSchema,
  paymentInstrumentWriteResponseSchema,
  reinviteResponseSchema,
  reserveRuleListSchema,
  reserveRuleSchema,
  reserveRuleWriteResponseSchema,
  simulatorStateSchema,
  storedBankAccountSchema,
  storedInstrumentSchema,
  tokenResponseSchema,
} from '../../../server/provider/schemas/accounts/index.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { accessToken, authed, FORM, form, requests, sampleFixtures, V2, V3 } from './accounts-support.js';

/** The answer parses with the shared schema and loses nothing: sandbox and client agree field by field. */
function conforms(schema: z.ZodType, body: unknown, what: string): void {
  const parsed = schema.safeParse(body);
  assert.ok(parsed.success, `${what}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues).slice(0, 500)}`);
  assert.deepEqual(parsed.data, body, `${what}: a field the schema does not know`);
}

describe('Account Services answers match the shared schemas', () => {
  let sb: RunningSandbox;
  let token: string;
  before(async () => {
    sb = await startSandbox({ fixtures: sampleFixtures() });
    token = await accessToken(sb);
  });
  after(() => sb.close());
  const get = async (path: string, accept?: string) => {
    const r = await call(`${sb.url}${path}`, { headers: authed(token, accept ? { accept } : {}) });
    assert.ok(r.status < 300, `${path}: ${r.text}`);
    return r.json;
  };
  const send = async (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
    (await call(`${sb.url}${path}`, { method, body, headers: authed(token, headers) })).json;
  const a = '/accounts/entities/ent_fixture_a';

  it('token, entities (both versions, every kind), members', async () => {
    const tok = await call(`${sb.url}/connect/token`, {
      method: 'POST',
      raw: form({
        grant_type: 'client_credentials',
        client_id: sb.credentials.clientId,
        client_secret: sb.credentials.clientSecret,
      }),
      headers: FORM,
    });
    conforms(tokenResponseSchema, tok.json, 'token');
    conforms(
      entityCreatedV3Schema,
      await send('POST', '/accounts/entities', requests.individualGb('c-1'), { accept: V3 }),
      'created 3.0',
    );
    const lite = structuredClone(requests.companyUs('c-2')) as Record<string, unknown> & {
      company: Record<string, unknown>;
    };
    delete lite.company.representatives;
    delete lite.company.tax_id;
    const created2 = await send('POST', '/accounts/entities', lite, { accept: V2 });
    conforms(entityCreatedV2Schema, created2, 'created 2.0');
    const invite = await send('POST', '/accounts/entities', requests.invitation('c-3'), { accept: V3 });
    for (const id of ['ent_fixture_a', 'ent_fixture_b', created2.id, invite.id]) {
      conforms(entityV3Schema, await get(`/accounts/entities/${id}`, V3), `entity 3.0 ${id}`);
      conforms(entityV2Schema, await get(`/accounts/entities/${id}`, V2), `entity 2.0 ${id}`);
    }
    conforms(membersListSchema, await get(`${a}/members`), 'members');
    conforms(reinviteResponseSchema, await send('PUT', `${a}/members/usr_fixture_a`, {}), 'reinvite');
  });

  it('payment instruments, reserve rules, simulator', async () => {
    conforms(paymentInstrumentSchema, await get(`${a}/payment-instruments/ppi_verified_1`), 'instrument');
    conforms(paymentInstrumentSchema, await get(`${a}/payment-instruments/ppi_card`), 'card instrument');
    conforms(paymentInstrumentListSchema, await get(`${a}/payment-instruments`), 'instrument list');
    conforms(
      paymentInstrumentWriteResponseSchema,
      await send('PATCH', `${a}/payment-instruments/ppi_verified_2`, { label: 'x' }),
      'patch',
    );
    const created = await send('POST', `${a}/payment-instruments`, {
      type: 'card_token',
      label: 'c',
      currency: 'GBP',
      country: 'GB',
      instrument_id: 'src_fixture_card',
    });
    conforms(paymentInstrumentWriteResponseSchema, created, 'create instrument');
    conforms(reserveRuleSchema, await get(`${a}/reserve-rules/rsv_future`), 'rule');
    conforms(reserveRuleListSchema, await get(`${a}/reserve-rules`), 'rule list');
    const rule = {
      type: 'rolling',
      valid_from: '2099-01-01T00:00:00Z',
      rolling: { percentage: 1.25, holding_duration: { weeks: 1 } },
    };
    conforms(reserveRuleWriteResponseSchema, await send('POST', `${a}/reserve-rules`, rule), 'create rule');
    conforms(
      reserveRuleWriteResponseSchema,
      await send('PUT', `${a}/reserve-rules/rsv_future`, rule, { 'if-match': '*' }),
      'put rule',
    );
    conforms(simulatorStateSchema, await get('/onboarding-simulator/entities/ent_fixture_b'), 'simulator');
  });

  it('account updater, stored instruments, error bodies', async () => {
    for (const number of ['4000000000001000', '4000000000003006', '4000000000004004']) {
      const body = await send('POST', '/account-updater/cards', {
        source_options: { card: { number, expiry_month: 1, expiry_year: 2025 } },
      });
      conforms(accountUpdaterResponseSchema, body, `updater ${number}`);
    }
    // The spec's rule, which the schema holds the sandbox to: card with CARD_UPDATED and CARD_EXPIRY_UPDATED only,
    // a failure code with UPDATE_FAILED.
    const card = { encrypted_card_number: 'x', bin: '400000', last4: '1000', expiry_month: 1, expiry_year: 2030 };
    const updated = { ...card, fingerprint: 'F' };
    for (const wrong of [
      { account_update_status: 'CARD_UPDATED' },
      { account_update_status: 'CARD_EXPIRY_UPDATED' },
      { account_update_status: 'CARD_CLOSED', card: updated },
      { account_update_status: 'UPDATE_FAILED', account_update_failure_code: 'UP_TO_DATE', card: updated },
      { account_update_status: 'UPDATE_FAILED' },
    ]) {
      assert.equal(accountUpdaterResponseSchema.safeParse(wrong).success, false, JSON.stringify(wrong));
    }
    assert.ok(accountUpdaterResponseSchema.safeParse({ account_update_status: 'CARD_CLOSED' }).success);
    conforms(storedInstrumentSchema, await get('/instruments/src_fixture_card'), 'stored card');
    const pi = await get(`${a}/payment-instruments/ppi_verified_1`);
    conforms(storedBankAccountSchema, await get(`/instruments/${pi.instrument_id}`), 'stored bank account');
    const errors = [
      await send('POST', '/account-updater/cards', { source_options: {} }),
      (await call(`${sb.url}${a}/members`)).json,
      await send('POST', '/accounts/entities', requests.individualGb('fixture-a'), { accept: V3 }),
      await send('PUT', `${a}/reserve-rules/rsv_future`, {
        type: 'rolling',
        valid_from: '2099-01-01T00:00:00Z',
        rolling: { percentage: 1, holding_duration: { weeks: 1 } },
      }),
    ];
    for (const e of errors) conforms(errorBodySchema, e, `error ${JSON.stringify(e).slice(0, 80)}`);
  });
});
