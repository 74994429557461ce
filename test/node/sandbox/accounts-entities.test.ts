import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { entityV3Schema } from '../../../server/provider/schemas/accounts/index.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { fastestMs } from '../../support/timing.js';
import { accessToken, authed, requests, sampleFixtures, V2, V3 } from './accounts-support.js';

type Body = Record<string, unknown>;
const clone = <T>(v: T): T => structuredClone(v);

describe('Account Services entities', () => {
  let sb: RunningSandbox;
  let token: string;
  before(async () => {
    sb = await startSandbox({ fixtures: sampleFixtures() });
  });
  beforeEach(async () => {
    sb.context.reset();
    token = await accessToken(sb, 'accounts');
  });
  after(() => sb.close());

  const onboard = (body: unknown, accept = V3) =>
    call(`${sb.url}/accounts/entities`, { headers: authed(token, { accept }), body });
  const read = (id: string, accept = V3) =>
    call(`${sb.url}/accounts/entities/${id}`, { headers: authed(token, { accept }) });

  it('onboards a sole trader in 3.0: 201 with ent_ id, status and links; GET answers the same data', async () => {
    const r = await onboard(requests.individualGb());
    assert.equal(r.status, 201, r.text);
    assert.match(r.json.id, /^ent_[a-z2-7]{26}$/);
    assert.equal(r.json.reference, 'ref-individual-gb');
    assert.equal(r.json.status, 'pending');
    assert.deepEqual(Object.keys(r.json._links).sort(), ['members', 'payment_instruments', 'reserve_rules', 'self']);
    assert.equal(r.headers.get('svc-version'), '1.0.0');
    assert.match(r.headers.get('svc-request-id') ?? '', /^req_/);
    const got = await call(r.json._links.self.href, { headers: authed(token, { accept: V3 }) });
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(got.json.individual, requests.individualGb().individual);
    assert.deepEqual(got.json.contact_details, requests.individualGb().contact_details);
    assert.deepEqual(got.json.requirements_due, []);
  });

  it('answers each version in its own form: 2.0 dates as YYYY-MM-DD and only a self link', async () => {
    const v2 = clone(requests.individualGb('ref-v2')) as Body & { individual: Body };
    v2.individual.date_of_birth = '1985-12-10';
    const created = await onboard(v2, V2);
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(Object.keys(created.json).sort(), ['_links', 'id', 'reference']);
    assert.deepEqual(Object.keys(created.json._links), ['self']);
    const as3 = await read(created.json.id, V3);
    assert.deepEqual(as3.json.individual.date_of_birth, { day: 10, month: 12, year: 1985 });
    const as2 = await read(created.json.id, V2);
    assert.equal(as2.json.individual.date_of_birth, '1985-12-10');
    const company = await read('ent_fixture_b', V2);
    assert.equal(company.json.company.representatives[0].date_of_birth, '1976-12-09');
    // A 3.0 body sent as 2.0 is refused on its date form.
    const wrong = await onboard(requests.individualGb('ref-v3-as-v2'), V2);
    assert.equal(wrong.status, 422);
    assert.ok(wrong.json.error_codes.includes('individual.date_of_birth_invalid'), wrong.text);
  });

  it('takes in 2.0 only the dates 3.0 takes, so every entity reads back in both forms', async () => {
    // 2.0 took any YYYY-MM-DD: an entity onboarded with 1850 then answered a 3.0 GET whose year 3.0 itself refuses.
    const person = (reference: string, date: string) => {
      const b = clone(requests.individualGb(reference)) as Body & { individual: Body };
      b.individual.date_of_birth = date;
      return b;
    };
    const old = await onboard(person('ref-1850', '1850-01-01'), V2);
    assert.equal(old.status, 422, old.text);
    assert.deepEqual(old.json.error_codes, ['individual.date_of_birth_invalid']);
    const asV3 = await onboard({
      ...requests.individualGb('ref-1850-v3'),
      individual: { ...requests.individualGb().individual, date_of_birth: { day: 1, month: 1, year: 1850 } },
    });
    assert.equal(asV3.status, 422, 'and 3.0 refuses the same date');
    const co = clone(requests.companyUs('ref-co-1899')) as Body & { company: Body & { representatives: Body[] } };
    co.company.date_of_incorporation = '1899-12-31';
    for (const r of co.company.representatives) r.date_of_birth = '1976-12-09';
    const company = await onboard(co, V2);
    assert.equal(company.status, 422, company.text);
    assert.deepEqual(company.json.error_codes, ['company.date_of_incorporation_invalid']);

    const first = await onboard(person('ref-1900', '1900-01-01'), V2);
    assert.equal(first.status, 201, first.text);
    const read3 = await read(first.json.id, V3);
    assert.deepEqual(read3.json.individual.date_of_birth, { day: 1, month: 1, year: 1900 });
    assert.ok(entityV3Schema.safeParse(read3.json).success, read3.text);
  });

  it('serves the lite variants in 2.0 only, with requirements due', async () => {
    const lite = clone(requests.individualGb('ref-lite')) as Body & { individual: Body };
    delete lite.individual.identification;
    delete lite.individual.national_tax_id;
    delete lite.individual.date_of_birth;
    const r = await onboard(lite, V2);
    assert.equal(r.status, 201, r.text);
    const got = await read(r.json.id);
    assert.equal(got.json.status, 'requirements_due');
    assert.deepEqual(got.json.requirements_due, ['individual.date_of_birth', 'individual.identification']);
    const as3 = await onboard({ ...lite, reference: 'ref-lite-3' }, V3);
    assert.equal(as3.status, 422, '3.0 has no lite variant');
    assert.ok(as3.json.error_codes.includes('individual.date_of_birth_required'));
    assert.ok(as3.json.error_codes.includes('individual.identification_required'));

    const co = clone(requests.companyUs('ref-co-lite')) as Body & { company: Body };
    delete co.company.representatives;
    delete co.company.tax_id;
    const coLite = await onboard(co, V2);
    assert.equal(coLite.status, 201, coLite.text);
    assert.deepEqual((await read(coLite.json.id)).json.requirements_due, ['company.representatives', 'company.tax_id']);
  });

  it('onboards companies (GB, EEA, US) and the US SaaS variants', async () => {
    assert.equal((await onboard(requests.companyUs())).status, 201);
    const fr = clone(requests.companyUs('ref-co-fr')) as Body & { company: Body & { registered_address: Body } };
    fr.company.registered_address = { address_line1: '1 rue de Rivoli', city: 'Paris', zip: '75001', country: 'FR' };
    delete fr.company.tax_id;
    assert.equal((await onboard(fr)).status, 201);
    const saas = clone(requests.companyUs('ref-saas')) as Body & { company: Body };
    delete saas.company.representatives;
    const r = await onboard({ ...saas, saas: true });
    assert.equal(r.status, 201, r.text);
    const got = await read(r.json.id);
    assert.equal(got.json.saas, undefined, 'GET answers a full variant, never the SaaS one');
    assert.equal(got.json.company.tax_id, '12-3456789');
    const ind = clone(requests.individualGb('ref-saas-ind')) as Body & {
      individual: Body & { registered_address: Body };
    };
    delete ind.individual.identification;
    ind.individual.registered_address = {
      address_line1: '5 Elm St',
      city: 'Austin',
      state: 'TX',
      zip: '73301',
      country: 'US',
    };
    ind.individual.national_tax_id = '123456789';
    assert.equal((await onboard({ ...ind, saas: true })).status, 201);
    const gbSaas = await onboard({ ...requests.individualGb('ref-saas-gb'), saas: true });
    assert.equal(gbSaas.status, 422);
    assert.deepEqual(gbSaas.json.error_codes, ['saas_region_unsupported']);
  });

  it('creates the entity and its one member from a hosted-onboarding invitation', async () => {
    const r = await onboard(requests.invitation());
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.status, 'draft');
    const members = await call(`${sb.url}/accounts/entities/${r.json.id}/members`, { headers: authed(token) });
    assert.equal(members.status, 200);
    assert.equal(members.json.data.length, 1);
    assert.match(members.json.data[0].user_id, /^usr_[a-z2-7]{26}$/);
    const got = await read(r.json.id);
    assert.deepEqual(got.json.contact_details, { invitee: { email: 'owner@shop.example' } });
    assert.deepEqual(got.json.requirements_due, ['contact_details.phone', 'profile', 'individual_or_company']);
    const bad = await onboard({ reference: 'ref-bad-invite', contact_details: { invitee: { email: 'not-an-email' } } });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.json.error_codes, ['contact_details.invitee.email_invalid']);
  });

  it('answers 409 with a link to the existing entity when the reference is taken', async () => {
    const first = await onboard(requests.individualGb('ref-taken'));
    const second = await onboard(requests.companyUs('ref-taken'));
    assert.equal(second.status, 409);
    assert.equal(second.json.error_type, 'conflict');
    assert.deepEqual(second.json.error_codes, ['reference_already_exists']);
    assert.equal(second.json._links.self.href, first.json._links.self.href);
    assert.equal((await onboard(requests.individualGb('fixture-a'))).status, 409, 'fixture references count');
  });

  it('requires Accept with schema_version 3.0 or 2.0 (400), JSON only (406)', async () => {
    const cases: [string | undefined, number, string][] = [
      [undefined, 400, 'schema_version_required'],
      ['application/json', 400, 'schema_version_required'],
      ['*/*', 400, 'schema_version_required'],
      ['application/json;schema_version=1.0', 400, 'schema_version_unsupported'],
      ['application/json;schema_version=', 400, 'schema_version_unsupported'],
      ['application/xml;schema_version=3.0', 406, 'not_acceptable'],
      ['text/html', 406, 'not_acceptable'],
    ];
    for (const [accept, status, code] of cases) {
      const headers = authed(token, accept ? { accept } : {});
      for (const r of [
        await call(`${sb.url}/accounts/entities`, { headers, body: requests.individualGb('ref-accept') }),
        await call(`${sb.url}/accounts/entities/ent_fixture_a`, { headers }),
      ]) {
        assert.equal(r.status, status, `${accept}: ${r.text}`);
        assert.deepEqual(r.json.error_codes, [code], String(accept));
      }
    }
    const quoted = await read('ent_fixture_a', 'application/json; schema_version="2.0"');
    assert.equal(quoted.status, 200);
    const listed = await read('ent_fixture_a', 'text/html, application/json;q=0.9;schema_version=3.0');
    assert.equal(listed.status, 200);
  });

  it('reads Accept as a list: the first acceptable JSON range with a supported schema_version wins', async () => {
    const dateOf = (r: { json: { individual: { date_of_birth: unknown } } }) => r.json.individual.date_of_birth;
    const v3 = { day: 10, month: 12, year: 1985 };
    const v2 = '1985-12-10';
    const answered: [string, unknown][] = [
      // A +json structured-syntax suffix type is a JSON media type (RFC 6838 §4.2.8).
      ['application/vnd.provider+json;schema_version=3.0', v3],
      ['application/vnd.provider+json; schema_version="2.0"', v2],
      // An unsupported version in one range does not spoil a supported one in the next.
      ['application/json;schema_version=9.9, application/json;schema_version=3.0', v3],
      ['application/json;schema_version=2.0, application/json;schema_version=3.0', v2],
      // Higher weights first; q=0 is "not acceptable".
      ['application/json;schema_version=2.0;q=0.5, application/json;schema_version=3.0', v3],
      ['application/json;schema_version=3.0;q=0, application/json;schema_version=2.0', v2],
      ['text/html, application/json;schema_version=1.0;q=0.9, */*;schema_version=2.0;q=0.1', v2],
    ];
    for (const [accept, date] of answered) {
      const r = await read('ent_fixture_a', accept);
      assert.equal(r.status, 200, `${accept}: ${r.text}`);
      assert.deepEqual(dateOf(r), date, accept);
      assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    }
    const created = await call(`${sb.url}/accounts/entities`, {
      headers: authed(token, { accept: 'application/vnd.provider+json;schema_version=3.0' }),
      body: requests.individualGb('ref-vnd-json'),
    });
    assert.equal(created.status, 201, created.text);
    const refused: [string, number, string][] = [
      ['application/json;schema_version=9.9, application/json;schema_version=1.0', 400, 'schema_version_unsupported'],
      [
        'application/json;schema_version=9.9, application/json;schema_version=3.0;q=0',
        400,
        'schema_version_unsupported',
      ],
      ['application/json, application/hal+json', 400, 'schema_version_required'],
      ['application/json;schema_version=3.0;q=0', 406, 'not_acceptable'],
      ['application/vnd.provider+xml;schema_version=3.0', 406, 'not_acceptable'],
      [`application/json;schema_version=3.0${', a/b'.repeat(1000)}`, 400, 'accept_too_long'],
    ];
    for (const [accept, status, code] of refused) {
      const r = await read('ent_fixture_a', accept);
      assert.equal(r.status, status, `${accept.slice(0, 80)}: ${r.text}`);
      assert.deepEqual(r.json.error_codes, [code], accept.slice(0, 80));
    }
  });

  it('parses Accept in time linear in its length (4 KiB of hostile ranges answers at once)', async () => {
    const fill = (unit: string) => unit.repeat(Math.floor(4096 / unit.length));
    for (const accept of [fill('a/b;c="'), fill(';'), fill('a/b;q=0.5;'), fill('a/'), fill('*/*;x=\\"'), fill(' ,')]) {
      const ms = await fastestMs(async () => {
        const r = await read('ent_fixture_a', accept);
        assert.ok(r.status >= 400 && r.status < 500, `${accept.slice(0, 20)}: ${r.status}`);
      }, 500);
      assert.ok(ms < 500, `${accept.slice(0, 20)}: ${ms.toFixed(0)} ms`);
    }
  });

  it('answers 404 for an unknown entity and 400 for a malformed id', async () => {
    const r = await read('ent_unknown');
    assert.equal(r.status, 404);
    assert.deepEqual(r.json.error_codes, ['entity_not_found']);
    assert.equal((await read('usr_1')).status, 400);
  });

  it('refuses invalid onboarding requests with 422 naming every field', async () => {
    const individual = requests.individualGb();
    const withInd = (patch: Body) => ({ ...individual, individual: { ...individual.individual, ...patch } });
    const cases: [unknown, string[]][] = [
      [{}, ['individual_or_company_required']],
      [{ ...individual, company: requests.companyUs().company }, ['individual_and_company_exclusive']],
      [
        withInd({ first_name: undefined, last_name: '' }),
        ['individual.first_name_required', 'individual.last_name_too_short'],
      ],
      [withInd({ first_name: 'x'.repeat(51) }), ['individual.first_name_too_long']],
      [withInd({ date_of_birth: { day: 31, month: 2, year: 1990 } }), ['individual.date_of_birth_invalid']],
      [withInd({ date_of_birth: { day: 1, month: 1, year: 2020 } }), ['individual.date_of_birth_under_age']],
      [withInd({ date_of_birth: { day: 1.5, month: 1, year: 1990 } }), ['individual.date_of_birth.day_invalid']],
      [withInd({ identification: {} }), ['individual.identification_required']],
      [
        withInd({ identification: { document: { type: 'passport', front: 'http://x' } } }),
        ['individual.identification.document.front_invalid'],
      ],
      [
        withInd({ registered_address: { ...individual.individual.registered_address, country: 'gb' } }),
        ['individual.registered_address.country_invalid'],
      ],
      [
        withInd({ registered_address: { ...individual.individual.registered_address, country: 'BR' } }),
        ['individual.registered_address.country_unsupported'],
      ],
      [
        withInd({ registered_address: { address_line1: '1', city: 'Austin', zip: '1', country: 'US' } }),
        ['individual.registered_address.state_required', 'individual.national_tax_id_invalid'],
      ],
      [{ ...individual, reference: 'has space' }, ['reference_invalid']],
      [{ ...individual, reference: undefined }, ['reference_required']],
      [
        { ...individual, profile: { urls: ['javascript:alert(1)'], mccs: ['12345'] } },
        ['profile.urls_invalid', 'profile.mccs_invalid'],
      ],
      [{ ...individual, profile: { urls: [], mccs: ['5734'] } }, ['profile.urls_too_small']],
      [
        { ...individual, contact_details: { phone: { number: '<script>', country_code: '44' } } },
        ['contact_details.phone.number_invalid'],
      ],
      [{ ...individual, individual: 'Ada' }, ['individual_invalid']],
    ];
    for (const [body, codes] of cases) {
      const r = await onboard(body);
      assert.equal(r.status, 422, `${JSON.stringify(body).slice(0, 200)}: ${r.text}`);
      assert.equal(r.json.error_type, 'request_invalid');
      assert.deepEqual([...r.json.error_codes].sort(), [...codes].sort(), JSON.stringify(body).slice(0, 300));
    }
    const us = clone(requests.companyUs('ref-us-notax')) as Body & { company: Body };
    delete us.company.tax_id;
    const noTax = await onboard(us);
    assert.deepEqual(noTax.json.error_codes, ['company.tax_id_required']);
  });

  it('answers malformed and hostile bodies with a 4xx', async () => {
    const headers = authed(token, { accept: V3, 'content-type': 'application/json' });
    const url = `${sb.url}/accounts/entities`;
    const cases: [string, number, string][] = [
      ['{"reference":', 400, 'body_malformed'],
      ['[]', 400, 'body_not_object'],
      ['{"__proto__":{"admin":true}}', 400, 'forbidden_key'],
      [`{"reference":"${'x'.repeat(70_000)}"}`, 413, 'body_too_large'],
    ];
    for (const [raw, status, code] of cases) {
      const r = await call(url, { method: 'POST', raw, headers });
      assert.equal(r.status, status, r.text);
      assert.deepEqual(r.json.error_codes, [code]);
    }
    const form = await call(url, {
      method: 'POST',
      raw: 'reference=x',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 415);
  });
});

describe('Account Services members (beta)', () => {
  let sb: RunningSandbox;
  let token: string;
  before(async () => {
    sb = await startSandbox({ fixtures: sampleFixtures() });
  });
  beforeEach(async () => {
    sb.context.reset();
    token = await accessToken(sb, 'accounts');
  });
  after(() => sb.close());
  const members = (entity: string) => `${sb.url}/accounts/entities/${entity}/members`;

  it('lists members and resends the invitation only to the registered user', async () => {
    const list = await call(members('ent_fixture_a'), { headers: authed(sb.credentials.secretKey) });
    assert.deepEqual(list.json, { data: [{ user_id: 'usr_fixture_a' }] });
    assert.deepEqual((await call(members('ent_fixture_b'), { headers: authed(token) })).json, { data: [] });
    const ok = await call(`${members('ent_fixture_a')}/usr_fixture_a`, {
      method: 'PUT',
      headers: authed(token),
      body: {},
    });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.json, { id: 'usr_fixture_a' });
    const cases: [string, number, string][] = [
      [`${members('ent_fixture_a')}/usr_someone_else`, 404, 'member_not_found'],
      [`${members('ent_fixture_b')}/usr_fixture_a`, 404, 'member_not_found'],
      [`${members('ent_nope')}/usr_fixture_a`, 404, 'entity_not_found'],
      [`${members('ent_fixture_a')}/ent_fixture_a`, 400, 'user_id_invalid'],
    ];
    for (const [url, status, code] of cases) {
      const r = await call(url, { method: 'PUT', headers: authed(token), body: {} });
      assert.equal(r.status, status, `${url}: ${r.text}`);
      assert.deepEqual(r.json.error_codes, [code]);
    }
    const noBody = await call(`${members('ent_fixture_a')}/usr_fixture_a`, { method: 'PUT', headers: authed(token) });
    assert.equal(noBody.status, 422);
    assert.deepEqual(noBody.json.error_codes, ['body_required']);
    assert.equal((await call(members('ent_nope'), { headers: authed(token) })).status, 404);
  });

  it('answers 403 when hosted onboarding is off for the account', async () => {
    const off = await call(`${sb.url}/_sandbox/accounts/settings`, {
      method: 'PUT',
      body: { hosted_onboarding: false },
    });
    assert.deepEqual(off.json, { hosted_onboarding: false });
    const invite = await call(`${sb.url}/accounts/entities`, {
      headers: authed(token, { accept: V3 }),
      body: requests.invitation('invite-when-off'),
    });
    for (const r of [
      invite,
      await call(members('ent_fixture_a'), { headers: authed(token) }),
      await call(`${members('ent_fixture_a')}/usr_fixture_a`, { method: 'PUT', headers: authed(token), body: {} }),
    ]) {
      assert.equal(r.status, 403, r.text);
      assert.deepEqual(r.json.error_codes, ['hosted_onboarding_disabled']);
    }
    const bad = await call(`${sb.url}/_sandbox/accounts/settings`, {
      method: 'PUT',
      body: { hosted_onboarding: 'no' },
    });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.json.error_codes, ['hosted_onboarding_invalid']);
  });

  it('starts with hosted onboarding off when the fixtures say so', async () => {
    const off = await startSandbox({ fixtures: sampleFixtures({ settings: { hosted_onboarding: false } }) });
    try {
      const t = await accessToken(off, 'accounts');
      const r = await call(`${off.url}/accounts/entities/ent_fixture_a/members`, { headers: authed(t) });
      assert.equal(r.status, 403);
    } finally {
      await off.close();
    }
  });
});

describe('Account Services onboarding simulator', () => {
  let sb: RunningSandbox;
  let token: string;
  before(async () => {
    sb = await startSandbox({ fixtures: sampleFixtures() });
    token = await accessToken(sb, 'accounts');
  });
  after(() => sb.close());
  const sim = (id: string, body?: unknown) =>
    call(`${sb.url}/onboarding-simulator/entities/${id}`, { headers: authed(token), body });

  it('moves an entity through the documented states, visible on GET entity', async () => {
    const start = await sim('ent_fixture_b');
    assert.deepEqual(start.json, {
      id: 'ent_fixture_b',
      status: 'pending',
      allowed_transitions: ['active', 'restricted', 'requirements_due', 'rejected'],
    });
    for (const status of ['requirements_due', 'pending', 'active', 'restricted', 'active']) {
      const r = await sim('ent_fixture_b', { status });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.status, status);
      const e = await call(`${sb.url}/accounts/entities/ent_fixture_b`, { headers: authed(token, { accept: V2 }) });
      assert.equal(e.json.status, status);
    }
    const refused = await sim('ent_fixture_b', { status: 'draft' });
    assert.equal(refused.status, 409);
    assert.deepEqual(refused.json.error_codes, ['status_transition_not_allowed']);
    assert.deepEqual(refused.json.allowed_transitions, ['restricted']);
    assert.equal((await sim('ent_fixture_b', { status: 'restricted' })).status, 200);
    assert.equal((await sim('ent_fixture_b', { status: 'rejected' })).status, 200);
    assert.deepEqual((await sim('ent_fixture_b')).json.allowed_transitions, []);
  });

  it('validates simulator input', async () => {
    const cases: [unknown, number, string][] = [
      [{ status: 'approved' }, 422, 'status_invalid'],
      [{}, 422, 'status_required'],
    ];
    for (const [body, status, code] of cases) {
      const r = await sim('ent_fixture_a', body);
      assert.equal(r.status, status, r.text);
      assert.deepEqual(r.json.error_codes, [code]);
    }
    assert.equal((await sim('ent_nope')).status, 404);
    assert.equal((await call(`${sb.url}/onboarding-simulator/entities/ent_fixture_a`)).status, 401);
  });
});

describe('Account Services idempotent POSTs', () => {
  it('replays the first answer for the same Idempotency-Key and body, refuses another body', async () => {
    const sb = await startSandbox({ fixtures: sampleFixtures() });
    try {
      const token = await accessToken(sb);
      const post = (path: string, body: unknown, key: string, accept = V3) =>
        call(`${sb.url}${path}`, { headers: authed(token, { accept, 'idempotency-key': key }), body });
      const first = await post('/accounts/entities', requests.individualGb('idem-1'), 'key-1');
      assert.equal(first.status, 201, first.text);
      const again = await post('/accounts/entities', requests.individualGb('idem-1'), 'key-1');
      assert.equal(again.status, 201, 'a retry is not a 409 conflict');
      assert.equal(again.json.id, first.json.id);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      const other = await post('/accounts/entities', requests.individualGb('idem-2'), 'key-1');
      assert.equal(other.status, 422);
      assert.deepEqual(other.json.error_codes, ['idempotency_key_reused']);
      // A retry after the access token was refreshed is the same client: it replays, it does not onboard twice.
      sb.clock.advance(5);
      const refreshed = await accessToken(sb);
      assert.notEqual(refreshed, token);
      const retried = await call(`${sb.url}/accounts/entities`, {
        headers: authed(refreshed, { accept: V3, 'idempotency-key': 'key-1' }),
        body: requests.individualGb('idem-1'),
      });
      assert.equal(retried.status, 201, retried.text);
      assert.equal(retried.json.id, first.json.id);
      assert.equal(retried.headers.get('idempotent-replayed'), 'true');
      // The schema_version is part of the request: the same key and body asking for 2.0 is another request (the
      // first 3.0 answer was replayed in its 3.0 form), and one without schema_version is 400 as ever (it was a
      // replayed 201).
      const as2 = await post('/accounts/entities', requests.individualGb('idem-1'), 'key-1', V2);
      assert.equal(as2.status, 422, as2.text);
      assert.deepEqual(as2.json.error_codes, ['idempotency_key_reused']);
      const noVersion = await post('/accounts/entities', requests.individualGb('idem-1'), 'key-1', 'application/json');
      assert.equal(noVersion.status, 400, noVersion.text);
      assert.deepEqual(noVersion.json.error_codes, ['schema_version_required']);
      const sameVersion = await post(
        '/accounts/entities',
        requests.individualGb('idem-1'),
        'key-1',
        `${V3}, */*;q=0.1`,
      );
      assert.equal(sameVersion.status, 201, 'the same version however Accept spells it replays');
      assert.equal(sameVersion.json.id, first.json.id);
      const bad = await post('/accounts/entities', requests.individualGb('idem-3'), 'k\u00e9y');
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.json.error_codes, ['idempotency_key_invalid']);

      const tok = await call(`${sb.url}/api2/v2/tokens/card`, {
        headers: { authorization: sb.credentials.publicKey },
        body: { number: '4000000000001000', expiryMonth: 5, expiryYear: 2030, cvv: '123' },
      });
      const store1 = await post('/instruments', { type: 'token', token: tok.json.id }, 'key-src');
      const store2 = await post('/instruments', { type: 'token', token: tok.json.id }, 'key-src');
      assert.equal(store1.status, 201, store1.text);
      assert.equal(store2.status, 201, 'the replay does not use the single-use token again');
      assert.equal(store2.json.id, store1.json.id);

      // One route, whatever its spelling; its parameters are part of the scope (another entity is another key).
      const instrument = {
        type: 'bank_account',
        label: 'Payouts',
        currency: 'GBP',
        country: 'GB',
        account_number: 'GB94BARC10201530093459',
        document: { type: 'bank_statement', file_id: 'file_idem' },
      };
      const pi1 = await post('/accounts/entities/ent_fixture_a/payment-instruments', instrument, 'key-ppi');
      const pi2 = await post('/Accounts/Entities/ent_fixture_a/Payment-Instruments/', instrument, 'key-ppi');
      const pi3 = await post('/accounts/entities/ent_fixture_b/payment-instruments', instrument, 'key-ppi');
      assert.equal(pi1.status, 201, pi1.text);
      assert.equal(pi2.status, 201, pi2.text);
      assert.equal(pi2.json.id, pi1.json.id);
      assert.equal(pi2.headers.get('idempotent-replayed'), 'true');
      assert.equal(pi3.status, 201, pi3.text);
      assert.notEqual(pi3.json.id, pi1.json.id);
      assert.equal(pi3.headers.get('idempotent-replayed'), null);

      const update = { source_options: { instrument: { id: store1.json.id } } };
      const u1 = await post('/account-updater/cards', update, 'key-upd');
      const u2 = await post('/account-updater/cards', update, 'key-upd');
      assert.equal(u1.json.account_update_status, 'CARD_UPDATED');
      assert.deepEqual(u2.json, u1.json, 'a retried update answers what the first did');
      assert.equal(
        (await post('/account-updater/cards', update, 'key-upd-2')).json.account_update_failure_code,
        'UP_TO_DATE',
      );
    } finally {
      await sb.close();
    }
  });
});
