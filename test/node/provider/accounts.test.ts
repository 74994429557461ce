import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  type AccountsClient,
  AuthenticationError,
  ConflictError,
  createAccountsClient,
  createLegacyClient,
  NotFoundError,
  PermissionError,
  PreconditionFailedError,
  PreconditionRequiredError,
  ProviderServerError,
  type ReserveRuleRequest,
  ValidationError,
} from '../../../server/provider/index.js';
import type { RunningSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { until } from '../../support/timing.js';
import { FAST_RETRY, fault, recordingDispatcher, requests, reset, sandbox } from './support.js';

const CONTACT = { phone: { number: '2079460000', country_code: '+44' } };
const PROFILE = { urls: ['https://shop.example.com'], mccs: ['5311'] };
const PERSON = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  registered_address: { address_line1: '1 Road', city: 'London', zip: 'N1 1AA', country: 'GB' },
  identification: { national_id_number: 'AB123456C' },
};
const RULE: ReserveRuleRequest = {
  type: 'rolling',
  valid_from: '2031-01-01T00:00:00Z',
  rolling: { percentage: 10, holding_duration: { weeks: 2 } },
};
const BANK = {
  type: 'bank_account' as const,
  label: 'Main account',
  currency: 'GBP',
  country: 'GB',
  account_number: 'GB33BUKB20201555555555',
  document: { type: 'bank_statement' as const, file_id: 'file_statement1' },
};

describe('Account Services client against the sandbox', () => {
  let sb: RunningSandbox;
  let accounts: AccountsClient;
  const wire = recordingDispatcher();
  let n = 0;

  const oauthClient = (extra: object = {}) =>
    createAccountsClient({
      clientId: sb.credentials.clientId,
      clientSecret: sb.credentials.clientSecret,
      baseUrl: sb.url,
      authUrl: sb.url,
      ...FAST_RETRY,
      ...extra,
    });
  const entity = async () =>
    (
      await accounts.entities.create({
        reference: `ref-${++n}`,
        contact_details: CONTACT,
        profile: PROFILE,
        individual: { ...PERSON, date_of_birth: { day: 1, month: 2, year: 1990 } },
      })
    ).data.id;

  before(async () => {
    sb = await sandbox();
    accounts = oauthClient({ dispatcher: wire.dispatcher });
  });
  after(async () => {
    await sb.close();
    await wire.close();
  });
  beforeEach(async () => {
    await reset(sb);
    wire.sent.length = 0;
  });

  describe('entities', () => {
    it('onboards and reads an entity in schema version 3.0 by default', async () => {
      const created = await accounts.entities.create({
        reference: 'shop-3',
        contact_details: CONTACT,
        profile: PROFILE,
        individual: { ...PERSON, date_of_birth: { day: 1, month: 2, year: 1990 } },
      });
      assert.equal(created.status, 201);
      assert.match(created.data.id, /^ent_/);
      assert.equal(created.data.status, 'pending');
      assert.equal(created.version, '1.0.0');
      assert.match(created.requestId ?? '', /^req_/);
      const post = wire.sent.find((s) => s.path === '/accounts/entities')!;
      assert.equal(post.headers.accept, 'application/json;schema_version=3.0');
      assert.match(post.headers.authorization ?? '', /^Bearer eyJ/);

      const read = await accounts.entities.retrieve(created.data.id);
      assert.equal(read.data.reference, 'shop-3');
      assert.deepEqual(read.data.individual?.date_of_birth, { day: 1, month: 2, year: 1990 });
      assert.equal(read.version, '1.0.0');
    });

    it('onboards and reads in schema version 2.0 when asked per call or per client', async () => {
      const created = await accounts.entities.create(
        {
          reference: 'shop-2',
          contact_details: CONTACT,
          profile: PROFILE,
          individual: { ...PERSON, date_of_birth: '1990-02-01' },
        },
        { schemaVersion: '2.0' },
      );
      assert.equal(wire.sent.at(-1)?.headers.accept, 'application/json;schema_version=2.0');
      assert.equal('status' in created.data, false, 'the 2.0 created form has no status');
      const v2 = createAccountsClient({
        ...clientCredentials(sb),
        baseUrl: sb.url,
        authUrl: sb.url,
        schemaVersion: '2.0',
      });
      const read = await v2.entities.retrieve(created.data.id);
      assert.equal(read.data.individual?.date_of_birth, '1990-02-01');
      const asV3 = await accounts.entities.retrieve(created.data.id);
      assert.deepEqual(asV3.data.individual?.date_of_birth, { day: 1, month: 2, year: 1990 });
      await v2.close();
    });

    it('throws ConflictError with links to the existing entity, and ValidationError naming fields', async () => {
      const id = await entity();
      const again = await accounts.entities
        .create({
          reference: `ref-${n}`,
          contact_details: CONTACT,
          profile: PROFILE,
          individual: { ...PERSON, date_of_birth: { day: 1, month: 2, year: 1990 } },
        })
        .catch((e: unknown) => e);
      assert.ok(again instanceof ConflictError);
      assert.equal(again.status, 409);
      assert.match(JSON.stringify(again.links), new RegExp(`/accounts/entities/${id}"`));

      const invalid = await accounts.entities
        .create({
          reference: 'bad-1',
          contact_details: CONTACT,
          profile: PROFILE,
          individual: { ...PERSON, first_name: '', date_of_birth: { day: 1, month: 13, year: 1990 } },
        })
        .catch((e: unknown) => e);
      assert.ok(invalid instanceof ValidationError);
      assert.equal(invalid.status, 422);
      assert.deepEqual(invalid.fieldErrors.map((f) => f.field).sort(), [
        'individual.date_of_birth.month',
        'individual.first_name',
      ]);
      const missing = await accounts.entities.retrieve('ent_unknown0000').catch((e: unknown) => e);
      assert.ok(missing instanceof NotFoundError);
    });
  });

  describe('members', () => {
    it('lists the invited member and resends the invitation; others are not found; off is forbidden', async () => {
      const invited = await accounts.entities.create({
        reference: 'invite-1',
        contact_details: { invitee: { email: 'owner@example.com' } },
      });
      const list = await accounts.members.list(invited.data.id);
      assert.equal(list.data.data.length, 1);
      const userId = list.data.data[0]!.user_id;
      assert.match(userId, /^usr_/);
      const resent = await accounts.members.reinvite(invited.data.id, userId);
      assert.equal(resent.data.id, userId);
      await assert.rejects(accounts.members.reinvite(invited.data.id, 'usr_someoneelse'), NotFoundError);
      await call(`${sb.url}/_sandbox/accounts/settings`, { method: 'PUT', body: { hosted_onboarding: false } });
      const off = await accounts.members.list(invited.data.id).catch((e: unknown) => e);
      assert.ok(off instanceof PermissionError);
      assert.equal(off.code, 'TESSERA_PERMISSION');
    });
  });

  describe('payment instruments', () => {
    it('creates, lists, reads and relabels an instrument; default on an unverified one is 428', async () => {
      const id = await entity();
      const created = await accounts.paymentInstruments.create(id, BANK);
      assert.match(created.data.id, /^ppi_/);
      const read = await accounts.paymentInstruments.retrieve(id, created.data.id);
      assert.equal(read.data.type, 'bank_account');
      assert.equal(read.data.status, 'unverified');
      assert.match(read.data.instrument_id, /^src_/);
      assert.equal(read.version, '1.0.0');
      const list = await accounts.paymentInstruments.list(id);
      assert.deepEqual(
        list.data.data.map((p) => p.id),
        [created.data.id],
      );
      const relabelled = await accounts.paymentInstruments.update(id, created.data.id, { label: 'Payouts' });
      assert.equal(relabelled.data.id, created.data.id);
      assert.equal((await accounts.paymentInstruments.retrieve(id, created.data.id)).data.label, 'Payouts');
      const required = await accounts.paymentInstruments
        .update(id, created.data.id, { default: true })
        .catch((e: unknown) => e);
      assert.ok(required instanceof PreconditionRequiredError);
      assert.equal(required.status, 428);
      assert.equal(required.code, 'TESSERA_PRECONDITION_REQUIRED');

      const verified = await accounts.paymentInstruments.create(id, { ...BANK, status: 'verified' });
      await accounts.paymentInstruments.update(id, verified.data.id, { default: true });
      assert.equal((await accounts.paymentInstruments.retrieve(id, verified.data.id)).data.default, true);
    });

    it('stores a card from a card token as an instrument and creates a card payout instrument from it', async () => {
      const legacy = createLegacyClient({ publicKey: sb.credentials.publicKey, baseUrl: sb.url });
      const token = await legacy.cardTokens.create({
        number: '5100000000002004',
        expiryMonth: 12,
        expiryYear: 2031,
        cvv: '123',
      });
      const stored = await accounts.instruments.create({ type: 'token', token: token.data.id });
      assert.match(stored.data.id, /^src_/);
      assert.equal(stored.data.last4, '2004');
      assert.equal((await accounts.instruments.retrieve(stored.data.id)).data.scheme, 'mastercard');
      const id = await entity();
      const card = await accounts.paymentInstruments.create(id, {
        type: 'card_token',
        label: 'Card',
        currency: 'GBP',
        country: 'GB',
        instrument_id: stored.data.id,
      });
      assert.equal((await accounts.paymentInstruments.retrieve(id, card.data.id)).data.type, 'card_token');
      await legacy.close();
    });
  });

  describe('account updater', () => {
    it('answers each outcome for a card, and for a stored instrument', async () => {
      const updated = await accounts.accountUpdater.retrieveCard({
        source_options: { card: { number: '4000000000001000', expiry_month: 1, expiry_year: 2030 } },
      });
      assert.equal(updated.data.account_update_status, 'CARD_UPDATED');
      assert.equal(updated.data.card?.last4, '9003');
      const closed = await accounts.accountUpdater.retrieveCard({
        source_options: { card: { number: '340000000000306', expiry_month: 1, expiry_year: 2030 } },
      });
      assert.equal(closed.data.account_update_status, 'CARD_CLOSED');
      assert.equal(closed.data.card, undefined);
      const both = await accounts.accountUpdater.retrieveCard({ source_options: {} }).catch((e: unknown) => e);
      assert.ok(both instanceof ValidationError);
      assert.equal(both.fieldErrors[0]?.code, 'source_options_card_or_instrument_required');
      assert.equal(both.fieldErrors[0]?.field, '', 'a rule over two fields names neither');
      const network = await accounts.accountUpdater
        .retrieveCard({ source_options: { card: { number: '6011111111111117', expiry_month: 1, expiry_year: 2030 } } })
        .catch((e: unknown) => e);
      assert.ok(network instanceof ValidationError, String(network));
      assert.deepEqual(
        network.fieldErrors.map((f) => [f.field, f.code]),
        [['source_options.card.number', 'source_options.card.number_network_unsupported']],
      );
      const unknown = await accounts.accountUpdater
        .retrieveCard({ source_options: { instrument: { id: 'src_unknown000' } } })
        .catch((e: unknown) => e);
      assert.ok(unknown instanceof NotFoundError);
    });
  });

  describe('reserve rules', () => {
    it('creates, lists and reads a rule with its ETag, and updates it with If-Match', async () => {
      const id = await entity();
      const created = await accounts.reserveRules.create(id, RULE);
      assert.match(created.data.id, /^rsv_/);
      const read = await accounts.reserveRules.retrieve(id, created.data.id);
      assert.ok(read.etag);
      assert.equal(read.data.rolling.percentage, 10);
      assert.equal((await accounts.reserveRules.list(id)).data.data.length, 1);
      const updated = await accounts.reserveRules.update(
        id,
        created.data.id,
        { ...RULE, rolling: { percentage: 12.5, holding_duration: { weeks: 4 } } },
        { ifMatch: read.etag },
      );
      assert.ok(updated.etag && updated.etag !== read.etag);
      assert.equal(wire.sent.find((s) => s.method === 'PUT')?.headers['if-match'], read.etag);
      assert.equal((await accounts.reserveRules.retrieve(id, created.data.id)).data.rolling.percentage, 12.5);

      const stale = await accounts.reserveRules
        .update(id, created.data.id, RULE, { ifMatch: read.etag })
        .catch((e: unknown) => e);
      assert.ok(stale instanceof PreconditionFailedError);
      assert.equal(stale.status, 412);
      assert.equal(stale.etag, updated.etag, 'the 412 tells the current ETag');
      await assert.rejects(
        accounts.reserveRules.update(id, created.data.id, RULE, {} as never),
        /`options\.ifMatch` must be the rule's ETag/,
      );
    });

    it('refuses an ifMatch that cannot be sent as a header with a TypeError, sending nothing', async () => {
      const id = await entity();
      const created = await accounts.reserveRules.create(id, RULE);
      wire.sent.length = 0;
      // The HTTP stack refuses these only when dispatching: that used to surface as a NetworkError with the outcome
      // unknown, after two retries, for a PUT that was never sent.
      for (const ifMatch of ['"a\u0000b"', '"a\u007fb"', '"a\u2028b"', '"\ud83d\ude00"', ' \t ']) {
        await assert.rejects(
          accounts.reserveRules.update(id, created.data.id, RULE, { ifMatch }),
          (e: unknown) => e instanceof TypeError && /`options\.ifMatch` must be the rule's ETag/.test(e.message),
          JSON.stringify(ifMatch),
        );
      }
      assert.deepEqual(
        wire.sent.filter((s) => s.method === 'PUT'),
        [],
      );
    });

    it('takes path ids the sandbox takes (64 after the prefix) and refuses any other with a TypeError, sending nothing', async () => {
      // One rule with the sandbox and the helper (docs/decisions/provider.md#account-ids): the client took any 128
      // letters, digits, `_` and `-`, so an id of 65 was sent and refused by the provider.
      const id = await entity();
      const longest = { ent: `ent_${'e'.repeat(64)}`, rsv: `rsv_${'r'.repeat(64)}` };
      // At the bound the sandbox reads the id and finds nothing there.
      await assert.rejects(accounts.entities.retrieve(longest.ent), NotFoundError);
      await assert.rejects(accounts.reserveRules.retrieve(id, longest.rsv), NotFoundError);
      await assert.rejects(accounts.paymentInstruments.retrieve(id, `ppi_${'p'.repeat(64)}`), NotFoundError);
      wire.sent.length = 0;
      const refused: [string, () => Promise<unknown>][] = [
        ['id', () => accounts.entities.retrieve(`${longest.ent}x`)],
        ['entityId', () => accounts.paymentInstruments.list(`${longest.ent}x`)],
        ['id', () => accounts.reserveRules.retrieve(id, `${longest.rsv}x`)],
        ['id', () => accounts.paymentInstruments.retrieve(id, `ppi_${'p'.repeat(65)}`)],
        ['id', () => accounts.instruments.retrieve(`src_${'s'.repeat(65)}`)],
        ['userId', () => accounts.members.reinvite(id, `usr_${'u'.repeat(65)}`)],
        // Another kind of id, where the provider would have answered 400 `<name>_invalid`.
        ['id', () => accounts.paymentInstruments.retrieve(id, 'rsv_abc')],
        ['entityId', () => accounts.reserveRules.list('ppi_abc')],
      ];
      for (const [name, attempt] of refused) {
        await assert.rejects(
          attempt(),
          (e: unknown) =>
            e instanceof TypeError && e.message.includes(`\`${name}\` must be`) && /1 to 64/.test(e.message),
          attempt.toString(),
        );
      }
      assert.deepEqual(wire.sent, []);
    });

    it('refuses to change a rule that has become active (422 on the sandbox clock)', async () => {
      const id = await entity();
      const { data } = await accounts.reserveRules.create(id, RULE);
      sb.clock.advance(10 * 365 * 24 * 3600);
      const error = await accounts.reserveRules
        .modify(id, data.id, (r) => ({ ...r, rolling: { ...r.rolling, percentage: 1 } }))
        .catch((e: unknown) => e);
      assert.ok(error instanceof ValidationError);
      assert.equal(error.fieldErrors[0]?.code, 'reserve_rule_active');
    });

    it('modify re-reads and applies the change again once after a 412, then gives up', async () => {
      const id = await entity();
      const { data } = await accounts.reserveRules.create(id, RULE);
      const other = oauthClient();
      const competitor = async (percentage: number) => {
        const now = await other.reserveRules.retrieve(id, data.id);
        await other.reserveRules.update(
          id,
          data.id,
          { ...RULE, rolling: { percentage, holding_duration: { weeks: 2 } } },
          {
            ifMatch: now.etag!,
          },
        );
      };
      let calls = 0;
      const result = await accounts.reserveRules.modify(id, data.id, async (current) => {
        calls++;
        if (calls === 1) await competitor(20);
        return { ...current, rolling: { ...current.rolling, percentage: current.rolling.percentage + 1 } };
      });
      assert.equal(calls, 2);
      assert.ok(result.etag);
      assert.equal((await accounts.reserveRules.retrieve(id, data.id)).data.rolling.percentage, 21);

      let tries = 0;
      const error = await accounts.reserveRules
        .modify(id, data.id, async (current) => {
          tries++;
          await competitor(30 + tries);
          return current;
        })
        .catch((e: unknown) => e);
      assert.ok(error instanceof PreconditionFailedError);
      assert.equal(tries, 2);
      await other.close();
    });

    it('retries a PUT with If-Match on 503 but not a PATCH without an idempotency key', async () => {
      const id = await entity();
      const { data } = await accounts.reserveRules.create(id, RULE);
      const read = await accounts.reserveRules.retrieve(id, data.id);
      const path = `/accounts/entities/${id}/reserve-rules/${data.id}`;
      await fault(sb, { path, method: 'PUT', status: 503 });
      await accounts.reserveRules.update(id, data.id, RULE, { ifMatch: read.etag! });
      assert.deepEqual(
        (await requests(sb, path)).filter((r) => r.method === 'PUT').map((r) => r.status),
        [503, 200],
      );
      const pi = await accounts.paymentInstruments.create(id, BANK);
      const piPath = `/accounts/entities/${id}/payment-instruments/${pi.data.id}`;
      await fault(sb, { path: piPath, method: 'PATCH', status: 503 });
      const error = await accounts.paymentInstruments.update(id, pi.data.id, { label: 'x' }).catch((e: unknown) => e);
      assert.ok(error instanceof ProviderServerError);
      assert.equal(error.outcomeKnown, false);
      assert.equal((await requests(sb, piPath)).filter((r) => r.method === 'PATCH').length, 1);
      await fault(sb, { path: piPath, method: 'PATCH', status: 503 });
      await accounts.paymentInstruments.update(id, pi.data.id, { label: 'y' }, { idempotencyKey: 'relabel-1' });
      assert.equal((await requests(sb, piPath)).filter((r) => r.method === 'PATCH').length, 3);
    });
  });

  describe('reserve rules after a PUT whose outcome is unknown', () => {
    const withPercentage = (percentage: number): ReserveRuleRequest => ({
      ...RULE,
      rolling: { ...RULE.rolling, percentage },
    });

    it('answers the 412 that the retry meets with outcomeKnown false, since the first attempt applied', async () => {
      const id = await entity();
      const { data } = await accounts.reserveRules.create(id, RULE);
      const path = `/accounts/entities/${id}/reserve-rules/${data.id}`;
      const read = await accounts.reserveRules.retrieve(id, data.id);
      // The provider applies the PUT, then the answer is lost as a 502: the retry's If-Match no longer matches.
      await fault(sb, { path, method: 'PUT', status: 502, phase: 'after', count: 1 });
      const error = await accounts.reserveRules
        .update(id, data.id, withPercentage(11), { ifMatch: read.etag! })
        .catch((e: unknown) => e);
      assert.ok(error instanceof PreconditionFailedError, String(error));
      assert.equal(error.outcomeKnown, false, 'the first attempt may have applied');
      assert.equal(error.attempts, 2);
      assert.equal((await accounts.reserveRules.retrieve(id, data.id)).data.rolling.percentage, 11);
      // Without an attempt of unknown outcome before it, a 412 still says the PUT did nothing.
      const stale = await accounts.reserveRules
        .update(id, data.id, withPercentage(12), { ifMatch: read.etag! })
        .catch((e: unknown) => e);
      assert.ok(stale instanceof PreconditionFailedError);
      assert.equal(stale.outcomeKnown, true);
    });

    it('modify does not apply its change a second time after such a 412', async () => {
      const id = await entity();
      const { data } = await accounts.reserveRules.create(id, RULE);
      const path = `/accounts/entities/${id}/reserve-rules/${data.id}`;
      await fault(sb, { path, method: 'PUT', status: 502, phase: 'after', count: 1 });
      let calls = 0;
      const error = await accounts.reserveRules
        .modify(id, data.id, (current) => {
          calls++;
          return withPercentage(current.rolling.percentage + 1);
        })
        .catch((e: unknown) => e);
      assert.ok(error instanceof PreconditionFailedError, String(error));
      assert.equal(error.outcomeKnown, false);
      assert.equal(calls, 1, 'the change was not applied again');
      assert.equal((await accounts.reserveRules.retrieve(id, data.id)).data.rolling.percentage, 11, 'once: 10 + 1');
      assert.deepEqual(
        (await requests(sb, path)).filter((r) => r.method === 'PUT').map((r) => r.status),
        [502, 412],
      );
    });
  });

  describe('authentication', () => {
    it('refreshes an expired access token once after a 401 and retries the call', async () => {
      const client = oauthClient();
      const id = await entity();
      await client.paymentInstruments.list(id);
      // The token has expired at the provider (sandbox clock), while our cache still holds it.
      sb.clock.advance(3601);
      const before = (await requests(sb)).length;
      const result = await client.paymentInstruments.list(id);
      assert.equal(result.status, 200);
      const after = (await requests(sb)).slice(before);
      assert.deepEqual(
        after.map((r) => `${r.method} ${r.path} ${r.status}`),
        [
          `GET /accounts/entities/${id}/payment-instruments 401`,
          'POST /connect/token 200',
          `GET /accounts/entities/${id}/payment-instruments 200`,
        ],
      );
      await client.close();
    });

    it('refreshes an expired token once for many concurrent calls refused with 401', async () => {
      const client = oauthClient();
      const id = await entity();
      await client.paymentInstruments.list(id);
      sb.clock.advance(3601);
      const before = (await requests(sb, '/connect/token')).length;
      const results = await Promise.all(Array.from({ length: 8 }, () => client.paymentInstruments.list(id)));
      assert.ok(results.every((r) => r.status === 200));
      assert.equal((await requests(sb, '/connect/token')).length - before, 1);
      await client.close();
    });

    it("ends the wait for the token renewed after a 401 when the caller's signal aborts, with its reason", async () => {
      const client = oauthClient({ timeoutMs: 1000, maxRetries: 0 });
      const id = await entity();
      const path = `/accounts/entities/${id}/payment-instruments`;
      await client.paymentInstruments.list(id);
      await fault(sb, { path, status: 401 });
      // The new token's answer sends its headers, then nothing: that request ends only at the client's timeout.
      await fault(sb, { path: '/connect/token', method: 'POST', stallBody: true });
      const controller = new AbortController();
      const reason = new Error('the page went away');
      const listed = client.paymentInstruments.list(id, { signal: controller.signal }).catch((e: unknown) => e);
      await until(async () => (await requests(sb, path)).some((r) => r.status === 401), 'the call was refused');
      controller.abort(reason);
      assert.equal(await listed, reason, "the signal's reason, not the token request's timeout");
      await client.close();
    });

    it('gives up with AuthenticationError when the call is refused again after the one refresh', async () => {
      const client = oauthClient();
      const id = await entity();
      const path = `/accounts/entities/${id}/payment-instruments`;
      await client.paymentInstruments.list(id);
      const tokensBefore = (await requests(sb, '/connect/token')).length;
      await fault(sb, { path, status: 401, count: 5 });
      const error = await client.paymentInstruments.list(id).catch((e: unknown) => e);
      assert.ok(error instanceof AuthenticationError);
      assert.equal(error.status, 401);
      assert.equal((await requests(sb, path)).filter((r) => r.status === 401).length, 2);
      assert.equal((await requests(sb, '/connect/token')).length - tokensBefore, 1, 'exactly one refresh');
      await client.close();
    });

    it('shares one token request among concurrent calls and asks once per scope', async () => {
      const id = await entity();
      const client = oauthClient();
      const before = (await requests(sb, '/connect/token')).length;
      await Promise.all(Array.from({ length: 12 }, () => client.paymentInstruments.list(id)));
      assert.equal((await requests(sb, '/connect/token')).length - before, 1);
      await client.accountUpdater.retrieveCard({
        source_options: { card: { number: '4000000000002008', expiry_month: 1, expiry_year: 2030 } },
      });
      await client.paymentInstruments.list(id);
      assert.equal((await requests(sb, '/connect/token')).length - before, 2);
      await client.close();
    });

    it('uses the secret key as a bearer where the API allows it, and refuses OAuth-only calls without OAuth', async () => {
      const id = await entity();
      const keyOnly = createAccountsClient({ secretKey: sb.credentials.secretKey, baseUrl: sb.url });
      const rule = await keyOnly.reserveRules.create(id, RULE);
      assert.equal((await keyOnly.reserveRules.retrieve(id, rule.data.id)).data.id, rule.data.id);
      const log = await requests(sb, `/accounts/entities/${id}/reserve-rules`);
      assert.ok(log.every((r) => r.auth === 'secret_key'));
      await assert.rejects(
        keyOnly.entities.retrieve(id),
        /entities\.retrieve needs OAuth credentials .*the provider does not accept a secret key for it/,
      );
      await keyOnly.close();
    });
  });
});

function clientCredentials(sb: RunningSandbox) {
  return { clientId: sb.credentials.clientId, clientSecret: sb.credentials.clientSecret };
}
