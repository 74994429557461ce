import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { accessToken, authed, sampleFixtures } from './accounts-support.js';

describe('Account Services payment instruments', () => {
  let sb: RunningSandbox;
  let token: string;
  let base: string;
  before(async () => {
    sb = await startSandbox({ fixtures: sampleFixtures() });
    base = `${sb.url}/accounts/entities/ent_fixture_a/payment-instruments`;
  });
  beforeEach(async () => {
    sb.context.reset();
    token = await accessToken(sb);
  });
  after(() => sb.close());

  const get = (id: string, cred = token) => call(`${base}/${id}`, { headers: authed(cred) });
  const patch = (id: string, body: unknown) => call(`${base}/${id}`, { method: 'PATCH', body, headers: authed(token) });

  it('reads an instrument with every spec field, and default on read', async () => {
    const r = await get('ppi_verified_1');
    assert.equal(r.status, 200, r.text);
    const { _links, ...rest } = r.json;
    assert.match(rest.instrument_id, /^src_/);
    assert.deepEqual(rest, {
      id: 'ppi_verified_1',
      label: 'Account ppi_verified_1',
      type: 'bank_account',
      currency: 'GBP',
      country: 'GB',
      document: { type: 'bank_statement', file_id: 'file_statement1' },
      status: 'verified',
      instrument_id: rest.instrument_id,
      default: true,
    });
    assert.equal(_links.self.href, `${base}/ppi_verified_1`);
    const card = await get('ppi_card', sb.credentials.secretKey);
    assert.equal(card.json.type, 'card_token');
    assert.equal(card.json.instrument_id, 'src_fixture_card');
    assert.equal(card.json.document, undefined);
    assert.equal(r.headers.get('svc-version'), '1.0.0');
  });

  it('keeps at most one default per entity and currency', async () => {
    const r = await patch('ppi_verified_2', { default: true });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.json).sort(), ['_links', 'id']);
    assert.equal(r.json.id, 'ppi_verified_2');
    assert.equal((await get('ppi_verified_2')).json.default, true);
    assert.equal((await get('ppi_verified_1')).json.default, false);
    assert.equal((await get('ppi_card')).json.default, false);
    // Another currency keeps its own default.
    assert.equal((await patch('ppi_eur', { default: true })).status, 200);
    assert.equal((await get('ppi_eur')).json.default, true);
    assert.equal((await get('ppi_verified_2')).json.default, true);
    const list = await call(base, { headers: authed(token) });
    const defaults = list.json.data
      .filter((p: { default: boolean }) => p.default)
      .map((p: { currency: string }) => p.currency);
    assert.deepEqual(defaults.sort(), ['EUR', 'GBP']);
    assert.equal((await patch('ppi_eur', { default: false })).status, 200);
    assert.equal((await get('ppi_eur')).json.default, false);
  });

  it('answers 428 when default is asked for an instrument that is not verified, changing nothing', async () => {
    const r = await patch('ppi_unverified', { default: true, label: 'Renamed' });
    assert.equal(r.status, 428);
    assert.equal(r.json.error_type, 'precondition_required');
    assert.deepEqual(r.json.error_codes, ['instrument_not_verified']);
    const after = await get('ppi_unverified');
    assert.equal(after.json.label, 'Account ppi_unverified');
    assert.equal(after.json.default, false);
    assert.equal((await get('ppi_verified_1')).json.default, true);
  });

  it('updates the label', async () => {
    assert.equal((await patch('ppi_unverified', { label: 'Savings' })).status, 200);
    assert.equal((await get('ppi_unverified')).json.label, 'Savings');
  });

  it('refuses bad PATCH input with 422 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{}, 'label_or_default_required'],
      [{ label: 'x'.repeat(51) }, 'label_too_long'],
      [{ label: '' }, 'label_too_short'],
      [{ label: 42 }, 'label_invalid'],
      // Text a platform's staff reads must read as what it is: no controls, no bidi overrides (as in the legacy API).
      [{ label: 'a\u0000b' }, 'label_invalid'],
      [{ label: 'Main \u202eTNUOCCA' }, 'label_invalid'],
      [{ label: 'x\ud800' }, 'label_invalid'],
      [{ default: 'true' }, 'default_invalid'],
      [{ default: null }, 'default_invalid'],
      [{ label: ['a'] }, 'label_invalid'],
    ];
    for (const [body, code] of cases) {
      const r = await patch('ppi_verified_1', body);
      assert.equal(r.status, 422, `${JSON.stringify(body)}: ${r.text}`);
      assert.equal(r.json.error_type, 'request_invalid');
      assert.deepEqual(r.json.error_codes, [code], JSON.stringify(body));
    }
    const empty = await call(`${base}/ppi_verified_1`, { method: 'PATCH', headers: authed(token) });
    assert.equal(empty.status, 422);
    assert.deepEqual(empty.json.error_codes, ['body_required']);
    const malformed = await call(`${base}/ppi_verified_1`, {
      method: 'PATCH',
      raw: '{"label":',
      headers: authed(token, { 'content-type': 'application/json' }),
    });
    assert.equal(malformed.status, 400);
    assert.deepEqual(malformed.json.error_codes, ['body_malformed']);
    const xml = await call(`${base}/ppi_verified_1`, {
      method: 'PATCH',
      raw: '<data><label>x</label></data>',
      headers: authed(token, { 'content-type': 'application/xml' }),
    });
    assert.equal(xml.status, 415);
    assert.equal(xml.json.error_type, 'unsupported_media_type');
  });

  it('answers 404 for unknown entities and instruments, 400 for malformed ids', async () => {
    const cases: [string, number, string][] = [
      [`${sb.url}/accounts/entities/ent_nope/payment-instruments/ppi_verified_1`, 404, 'entity_not_found'],
      [`${base}/ppi_nope`, 404, 'payment_instrument_not_found'],
      [
        `${sb.url}/accounts/entities/ent_fixture_b/payment-instruments/ppi_verified_1`,
        404,
        'payment_instrument_not_found',
      ],
      [`${base}/rsv_future`, 400, 'payment_instrument_id_invalid'],
      [`${base}/ppi_${'x'.repeat(100)}`, 400, 'payment_instrument_id_invalid'],
      [`${sb.url}/accounts/entities/%00/payment-instruments/ppi_verified_1`, 400, 'entity_id_invalid'],
    ];
    for (const [url, status, code] of cases) {
      const r = await call(url, { headers: authed(token) });
      assert.equal(r.status, status, `${url}: ${r.text}`);
      assert.deepEqual(r.json.error_codes, [code]);
    }
  });

  it('creates bank and card instruments (extension) and lists them', async () => {
    const bank = await call(base, {
      headers: authed(sb.credentials.secretKey),
      body: {
        type: 'bank_account',
        label: 'New account',
        currency: 'GBP',
        country: 'GB',
        account_number: 'GB94BARC10201530093459',
        document: { type: 'bank_statement', file_id: 'file_new' },
      },
    });
    assert.equal(bank.status, 201, bank.text);
    assert.match(bank.json.id, /^ppi_[a-z2-7]{26}$/);
    const read = await get(bank.json.id);
    assert.equal(read.json.status, 'unverified');
    assert.match(read.json.instrument_id, /^src_/);
    const card = await call(base, {
      headers: authed(token),
      body: {
        type: 'card_token',
        label: 'Card',
        currency: 'USD',
        country: 'US',
        instrument_id: 'src_fixture_card',
        status: 'verified',
      },
    });
    assert.equal(card.status, 201, card.text);
    assert.equal((await patch(card.json.id, { default: true })).status, 200);
    const list = await call(base, { headers: authed(token) });
    assert.equal(list.json.data.length, 7);
    assert.ok(list.json.data.every((p: { id: string }) => p.id.startsWith('ppi_')));
  });

  it('refuses bad create input with 422 naming the field', async () => {
    const ok = {
      type: 'bank_account',
      label: 'L',
      currency: 'GBP',
      country: 'GB',
      account_number: 'GB94BARC10201530093459',
      document: { type: 'bank_statement', file_id: 'file_x' },
    };
    const cases: [unknown, string][] = [
      [{ ...ok, type: 'crypto' }, 'type_invalid'],
      [{ ...ok, currency: 'gbp' }, 'currency_invalid'],
      [{ ...ok, country: 'GBR' }, 'country_invalid'],
      [{ ...ok, account_number: undefined }, 'account_number_required'],
      [{ ...ok, document: { type: 'selfie', file_id: 'file_x' } }, 'document.type_invalid'],
      [{ ...ok, document: { type: 'bank_statement', file_id: 'doc_1' } }, 'document.file_id_invalid'],
      [{ ...ok, status: 'approved' }, 'status_invalid'],
      [{ type: 'card_token', label: 'C', currency: 'GBP', country: 'GB' }, 'token_or_instrument_id_required'],
      [
        { type: 'card_token', label: 'C', currency: 'GBP', country: 'GB', instrument_id: 'src_nope' },
        'instrument_id_not_found',
      ],
      [{ type: 'card_token', label: 'C', currency: 'GBP', country: 'GB', token: 'card_tok_nope' }, 'token_unknown'],
    ];
    for (const [body, code] of cases) {
      const r = await call(base, { headers: authed(token), body });
      assert.equal(r.status, 422, `${JSON.stringify(body)}: ${r.text}`);
      assert.ok(r.json.error_codes.includes(code), `${code} in ${r.text}`);
    }
  });
});

describe('Account Services reserve rules', () => {
  let sb: RunningSandbox;
  let token: string;
  let base: string;
  const rule = (validFrom: string, percentage = 12.5) => ({
    type: 'rolling',
    valid_from: validFrom,
    rolling: { percentage, holding_duration: { weeks: 3 } },
  });
  const future = (days: number) => new Date(sb.clock.nowMs() + days * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
  before(async () => {
    sb = await startSandbox({ fixtures: sampleFixtures() });
    base = `${sb.url}/accounts/entities/ent_fixture_a/reserve-rules`;
  });
  beforeEach(async () => {
    sb.context.reset();
    token = await accessToken(sb, 'accounts');
  });
  after(() => sb.close());

  const put = (id: string, body: unknown, ifMatch?: string) =>
    call(`${base}/${id}`, { method: 'PUT', body, headers: authed(token, ifMatch ? { 'if-match': ifMatch } : {}) });

  it('runs the ETag cycle: GET → PUT with If-Match → new ETag; the old one is stale (412)', async () => {
    const first = await call(`${base}/rsv_future`, { headers: authed(token) });
    assert.equal(first.status, 200, first.text);
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
    assert.equal(first.json.type, 'rolling');
    assert.deepEqual(first.json.rolling, { percentage: 10, holding_duration: { weeks: 2 } });
    assert.equal(
      (await call(`${base}/rsv_future`, { headers: authed(token) })).headers.get('etag'),
      etag,
      'stable between writes',
    );

    const updated = await put('rsv_future', rule(future(20)), etag);
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.json.id, 'rsv_future');
    const etag2 = updated.headers.get('etag')!;
    assert.notEqual(etag2, etag);
    const reread = await call(`${base}/rsv_future`, { headers: authed(token) });
    assert.equal(reread.headers.get('etag'), etag2);
    assert.equal(reread.json.rolling.percentage, 12.5);

    const stale = await put('rsv_future', rule(future(25)), etag);
    assert.equal(stale.status, 412);
    assert.equal(stale.json.error_type, 'precondition_failed');
    assert.deepEqual(stale.json.error_codes, ['etag_mismatch']);
    assert.equal((await put('rsv_future', rule(future(25)), `W/${etag2}`)).status, 412, 'weak tags never match');
    assert.equal((await put('rsv_future', rule(future(25)), `"other", ${etag2}`)).status, 200, 'a list may hold it');
  });

  it('answers 428 when If-Match is missing', async () => {
    const r = await put('rsv_future', rule(future(20)));
    assert.equal(r.status, 428);
    assert.equal(r.json.error_type, 'precondition_required');
    assert.deepEqual(r.json.error_codes, ['if_match_required']);
  });

  it('refuses to update a rule that has been active (valid_from ≤ sandbox now) with 422, also once the clock passes it', async () => {
    const active = await call(`${base}/rsv_active`, { headers: authed(token) });
    const r = await put('rsv_active', rule(future(20)), active.headers.get('etag')!);
    assert.equal(r.status, 422);
    assert.deepEqual(r.json.error_codes, ['reserve_rule_active']);

    const current = await call(`${base}/rsv_future`, { headers: authed(token) });
    sb.clock.advance(11 * 86_400);
    token = await accessToken(sb, 'accounts');
    const late = await put('rsv_future', rule(future(20)), current.headers.get('etag')!);
    assert.equal(late.status, 422);
    assert.deepEqual(late.json.error_codes, ['reserve_rule_active']);
  });

  it('creates rules (extension) with an ETag and validates bodies with 422 naming the field', async () => {
    const created = await call(base, { headers: authed(sb.credentials.secretKey), body: rule(future(5)) });
    assert.equal(created.status, 201, created.text);
    assert.match(created.json.id, /^rsv_/);
    const etag = created.headers.get('etag')!;
    assert.equal((await call(`${base}/${created.json.id}`, { headers: authed(token) })).headers.get('etag'), etag);
    assert.equal((await call(base, { headers: authed(token) })).json.data.length, 3);

    const cases: [unknown, string][] = [
      [{ ...rule(future(5)), type: 'fixed' }, 'type_invalid'],
      [rule('2030-01-01'), 'valid_from_invalid'],
      [rule('2030-01-01T00:00:00+02:00'), 'valid_from_invalid'],
      [rule(future(5), 12.345), 'rolling.percentage_invalid'],
      [rule(future(5), 101), 'rolling.percentage_too_large'],
      [rule(future(5), -1), 'rolling.percentage_too_small'],
      [
        { ...rule(future(5)), rolling: { percentage: 5, holding_duration: { weeks: 1.5 } } },
        'rolling.holding_duration.weeks_invalid',
      ],
      [{ ...rule(future(5)), rolling: { percentage: 5 } }, 'rolling.holding_duration_required'],
      [{ type: 'rolling' }, 'valid_from_required'],
    ];
    for (const [body, code] of cases) {
      const r = await call(base, { headers: authed(token), body });
      assert.equal(r.status, 422, `${JSON.stringify(body)}: ${r.text}`);
      assert.ok(r.json.error_codes.includes(code), `${code} in ${r.text}`);
    }
    const past = await put(created.json.id, rule('2020-01-01T00:00:00Z'), etag);
    assert.equal(past.status, 422);
    assert.deepEqual(past.json.error_codes, ['valid_from_not_in_future']);
    const notFound = await put('rsv_nope', rule(future(5)), etag);
    assert.equal(notFound.status, 404);
    assert.deepEqual(notFound.json.error_codes, ['reserve_rule_not_found']);
  });
});
