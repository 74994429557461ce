import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { compactDecrypt } from 'jose';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { accessToken, authed, sampleFixtures } from './accounts-support.js';

describe('Account Services account updater and stored instruments', () => {
  let sb: RunningSandbox;
  let token: string;
  before(async () => {
    sb = await startSandbox({ fixtures: sampleFixtures() });
  });
  beforeEach(async () => {
    sb.context.reset();
    token = await accessToken(sb);
  });
  after(() => sb.close());

  const update = (sourceOptions: unknown) =>
    call(`${sb.url}/account-updater/cards`, { headers: authed(token), body: { source_options: sourceOptions } });
  const byCard = (number: string, month = 5, year = 2024) =>
    update({ card: { number, expiry_month: month, expiry_year: year } });
  const cardToken = async (number: string, month = 5, year = 2030) => {
    const r = await call(`${sb.url}/api2/v2/tokens/card`, {
      headers: { authorization: sb.credentials.publicKey },
      body: { number, expiryMonth: month, expiryYear: year, cvv: number.length === 15 ? '1234' : '123' },
    });
    assert.equal(r.status, 200, r.text);
    return r.json.id as string;
  };

  it('answers each outcome of the test-card table, for all three networks', async () => {
    const year = sb.clock.now().getUTCFullYear() + 3;
    const table = (await call(`${sb.url}/_sandbox/account-updater/test-cards`)).json;
    assert.equal(table.data.length, 13);
    const networks = new Set(table.data.map((c: { network: string }) => c.network));
    assert.deepEqual([...networks].sort(), ['amex', 'mastercard', 'visa']);
    for (const row of table.data) {
      const r = await byCard(row.number);
      assert.equal(r.status, 200, `${row.number}: ${r.text}`);
      assert.equal(r.json.account_update_status, row.account_update_status, row.number);
      assert.equal(r.json.account_update_failure_code, row.account_update_failure_code, row.number);
      if (row.account_update_status === 'CARD_UPDATED' || row.account_update_status === 'CARD_EXPIRY_UPDATED') {
        const expected = row.new_number ?? row.number;
        const { card } = r.json;
        assert.deepEqual(Object.keys(card).sort(), [
          'bin',
          'encrypted_card_number',
          'expiry_month',
          'expiry_year',
          'fingerprint',
          'last4',
        ]);
        assert.equal(card.bin, expected.slice(0, 6));
        assert.equal(card.last4, expected.slice(-4));
        assert.equal(card.expiry_month, 5);
        assert.equal(card.expiry_year, year);
        assert.match(card.fingerprint, /^[0-9A-F]{64}$/);
        assert.equal(card.encrypted_card_number.split('.').length, 5, 'compact JWE');
        assert.ok(!card.encrypted_card_number.includes(expected));
        await assert.rejects(compactDecrypt(card.encrypted_card_number, new Uint8Array(32)));
      } else {
        assert.equal(r.json.card, undefined, row.number);
      }
    }
    const other = await byCard('4242424242424242');
    assert.deepEqual(other.json, { account_update_status: 'UPDATE_FAILED', account_update_failure_code: 'UP_TO_DATE' });
  });

  it('refuses a source other than exactly one of card or instrument, and bad card fields, with 422', async () => {
    const card = { number: '4000000000001000', expiry_month: 5, expiry_year: 2024 };
    const cases: [unknown, string][] = [
      [undefined, 'source_options_required'],
      [{}, 'source_options_card_or_instrument_required'],
      [{ card, instrument: { id: 'src_fixture_card' } }, 'source_options_card_and_instrument_exclusive'],
      [{ card: { ...card, number: '4000 0000 0000 1000' } }, 'source_options.card.number_invalid'],
      [{ card: { ...card, number: '4000000000001001' } }, 'source_options.card.number_invalid'],
      [{ card: { ...card, number: 4000000000001000 } }, 'source_options.card.number_invalid'],
      [{ card: { ...card, number: '6011111111111117' } }, 'source_options.card.number_network_unsupported'],
      [{ card: { ...card, number: '3530111333300000' } }, 'source_options.card.number_network_unsupported'],
      [{ card: { ...card, expiry_month: 13 } }, 'source_options.card.expiry_month_too_large'],
      [{ card: { ...card, expiry_month: '05' } }, 'source_options.card.expiry_month_invalid'],
      [{ card: { ...card, expiry_year: 24 } }, 'source_options.card.expiry_year_too_small'],
      [{ card: { number: card.number } }, 'source_options.card.expiry_month_required'],
      [{ instrument: { id: 'card_tok_1' } }, 'source_options.instrument.id_invalid'],
      [{ instrument: {} }, 'source_options.instrument.id_required'],
      ['card', 'source_options_invalid'],
    ];
    for (const [source, code] of cases) {
      const r = await update(source);
      assert.equal(r.status, 422, `${JSON.stringify(source)}: ${r.text}`);
      assert.equal(r.json.error_type, 'request_invalid');
      assert.ok(r.json.error_codes.includes(code), `${code} in ${r.text}`);
    }
  });

  it('answers 404 for an unknown instrument and 422 for a bank account instrument', async () => {
    const unknown = await update({ instrument: { id: 'src_nope' } });
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.json.error_codes, ['instrument_not_found']);
    const pi = await call(`${sb.url}/accounts/entities/ent_fixture_a/payment-instruments/ppi_verified_1`, {
      headers: authed(token),
    });
    const bank = await update({ instrument: { id: pi.json.instrument_id } });
    assert.equal(bank.status, 422);
    assert.deepEqual(bank.json.error_codes, ['source_options.instrument.id_not_a_card']);
  });

  it('stores a card from a card token (extension) and keeps it current when the updater changes it', async () => {
    const tok = await cardToken('4000000000001000', 5, 2027);
    const stored = await call(`${sb.url}/instruments`, { headers: authed(token), body: { type: 'token', token: tok } });
    assert.equal(stored.status, 201, stored.text);
    assert.match(stored.json.id, /^src_[a-z2-7]{26}$/);
    assert.equal(stored.json.scheme, 'visa');
    assert.equal(stored.json.last4, '1000');
    const again = await call(`${sb.url}/instruments`, { headers: authed(token), body: { type: 'token', token: tok } });
    assert.equal(again.status, 422, 'card tokens are single use');
    assert.deepEqual(again.json.error_codes, ['token_used']);

    const first = await update({ instrument: { id: stored.json.id } });
    assert.equal(first.json.account_update_status, 'CARD_UPDATED');
    assert.equal(first.json.card.last4, '9003');
    const read = await call(`${sb.url}/instruments/${stored.json.id}`, { headers: authed(sb.credentials.secretKey) });
    assert.equal(read.json.last4, '9003');
    assert.equal(read.json.expiry_year, first.json.card.expiry_year);
    assert.equal(read.json.fingerprint, first.json.card.fingerprint);
    const second = await update({ instrument: { id: stored.json.id } });
    assert.deepEqual(second.json, {
      account_update_status: 'UPDATE_FAILED',
      account_update_failure_code: 'UP_TO_DATE',
    });
  });

  it('renews a stored expiry once, and closes a stored card for good', async () => {
    const expiry = await update({ instrument: { id: 'src_fixture_card' } });
    assert.equal(expiry.json.account_update_status, 'CARD_EXPIRY_UPDATED');
    assert.equal(expiry.json.card.last4, '2008');
    assert.equal(
      (await update({ instrument: { id: 'src_fixture_card' } })).json.account_update_failure_code,
      'UP_TO_DATE',
    );

    const tok = await cardToken('5100000000003002');
    const stored = await call(`${sb.url}/instruments`, { headers: authed(token), body: { type: 'token', token: tok } });
    assert.equal((await update({ instrument: { id: stored.json.id } })).json.account_update_status, 'CARD_CLOSED');
    const read = await call(`${sb.url}/instruments/${stored.json.id}`, { headers: authed(token) });
    assert.equal(read.json.status, 'closed');
    assert.equal((await update({ instrument: { id: stored.json.id } })).json.account_update_status, 'CARD_CLOSED');
  });

  it('creates a card payout instrument from a card token', async () => {
    const tok = await cardToken('340000000000405');
    const r = await call(`${sb.url}/accounts/entities/ent_fixture_b/payment-instruments`, {
      headers: authed(token),
      body: { type: 'card_token', label: 'Amex payouts', currency: 'USD', country: 'US', token: tok },
    });
    assert.equal(r.status, 201, r.text);
    const pi = await call(r.json._links.self.href, { headers: authed(token) });
    const src = await call(`${sb.url}/instruments/${pi.json.instrument_id}`, { headers: authed(token) });
    assert.equal(src.json.scheme, 'amex');
  });

  it('lets one card token become one thing only when a charge, a stored card and a payout instrument race for it', async () => {
    for (let round = 0; round < 5; round++) {
      const tok = await cardToken('4242424242424242');
      const [charge, stored, payout] = await Promise.all([
        call(`${sb.url}/api2/v2/charges/token`, {
          headers: { authorization: sb.credentials.secretKey },
          body: { cardToken: tok, value: 500, currency: 'USD', email: `race${round}@example.com` },
        }),
        call(`${sb.url}/instruments`, { headers: authed(token), body: { type: 'token', token: tok } }),
        call(`${sb.url}/accounts/entities/ent_fixture_b/payment-instruments`, {
          headers: authed(token),
          body: { type: 'card_token', label: 'race', currency: 'USD', country: 'US', token: tok },
        }),
      ]);
      const won = [charge, stored, payout].filter((r) => r.status < 300);
      assert.equal(won.length, 1, [charge, stored, payout].map((r) => `${r.status} ${r.text}`).join('\n'));
      if (charge.status >= 300) {
        assert.equal(charge.status, 422, charge.text);
        assert.equal(charge.json.errorCode, 'card_token_used');
      }
      for (const r of [stored, payout].filter((a) => a.status >= 300)) {
        assert.equal(r.status, 422, r.text);
        assert.deepEqual(r.json.error_codes, ['token_used']);
      }
    }
  });

  it('validates the stored-instrument request and refuses expired tokens on the sandbox clock', async () => {
    const cases: [unknown, number, string][] = [
      [{ type: 'card', token: 'card_tok_x' }, 422, 'type_invalid'],
      [{ type: 'token' }, 422, 'token_required'],
      [{ type: 'token', token: 'tok_123' }, 422, 'token_invalid'],
      [{ type: 'token', token: 'card_tok_unknown' }, 422, 'token_unknown'],
    ];
    for (const [body, status, code] of cases) {
      const r = await call(`${sb.url}/instruments`, { headers: authed(token), body });
      assert.equal(r.status, status, `${JSON.stringify(body)}: ${r.text}`);
      assert.deepEqual(r.json.error_codes, [code]);
    }
    const tok = await cardToken('4000000000002008');
    sb.clock.advance(16 * 60);
    token = await accessToken(sb);
    const late = await call(`${sb.url}/instruments`, { headers: authed(token), body: { type: 'token', token: tok } });
    assert.equal(late.status, 422);
    assert.deepEqual(late.json.error_codes, ['token_expired']);
    const missing = await call(`${sb.url}/instruments/src_nope`, { headers: authed(token) });
    assert.equal(missing.status, 404);
    const scope = await accessToken(sb, 'accounts');
    const refused = await call(`${sb.url}/instruments/src_fixture_card`, { headers: authed(scope) });
    assert.equal(refused.status, 403);
  });
});

describe('Account Services request log', () => {
  it('keeps no client secret, access token or card number of these endpoints', async () => {
    const sb = await startSandbox({ fixtures: sampleFixtures() });
    try {
      const token = await accessToken(sb);
      await call(`${sb.url}/account-updater/cards`, {
        headers: authed(token),
        body: { source_options: { card: { number: '4000000000001000', expiry_month: 5, expiry_year: 2024 } } },
      });
      const log = await call(`${sb.url}/_sandbox/requests`);
      assert.equal(log.status, 200);
      assert.ok(log.json.data.length >= 2);
      for (const secret of [
        sb.credentials.clientSecret,
        token,
        token.split('.')[2]!,
        '4000000000001000',
        '4000000000009003',
      ]) {
        assert.ok(!log.text.includes(secret), `log holds ${secret.slice(0, 12)}…`);
      }
      assert.ok(log.text.includes('400000******1000'), 'the card is shown masked');
      const kinds = log.json.data.map((e: { auth: string }) => e.auth);
      assert.ok(kinds.includes('bearer'));
    } finally {
      await sb.close();
    }
  });
});
