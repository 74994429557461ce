import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { UnsecuredJWT } from 'jose';
import { type CardUpdatedEvent, MemoryStore, type TesseraHelperOptions } from '../../../server/helper/index.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { type Answer, call } from '../../support/http.js';
import { sampleFixtures } from '../sandbox/accounts-support.js';
import {
  accountsCalls,
  type Issuer,
  type RunningHelper,
  sandboxHelperOptions,
  startHelper,
  startIssuer,
} from './support.js';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('dashboard routes against the sandbox', () => {
  let sb: RunningSandbox;
  let issuer: Issuer;
  let h: RunningHelper;
  const helpers: RunningHelper[] = [];
  const events: CardUpdatedEvent[] = [];
  const seen: string[] = [];
  const now = () => sb.clock.nowMs();

  async function helper(extra: Partial<TesseraHelperOptions> = {}): Promise<RunningHelper> {
    const started = await startHelper({
      ...sandboxHelperOptions(sb, issuer),
      resolveCharge: () => ({ amount: 100, currency: 'EUR' }),
      onCardUpdated: (event) => {
        events.push(event);
      },
      ...extra,
    });
    helpers.push(started);
    return started;
  }

  async function ask(
    path: string,
    token: string | undefined,
    init: { method?: string; body?: unknown; target?: RunningHelper } = {},
  ): Promise<Answer> {
    const r = await call(`${(init.target ?? h).url}${path}`, {
      ...(init.method ? { method: init.method } : {}),
      ...(init.body === undefined ? {} : { body: init.body }),
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    seen.push(r.text, JSON.stringify([...r.headers]));
    return r;
  }

  const tokenA = () =>
    issuer.sign({
      sub: 'usr_a',
      entities: ['ent_fixture_a'],
      instruments: ['src_updated', 'src_closed', 'src_uptodate'],
    });

  before(async () => {
    const sample = sampleFixtures({
      stored_cards: [
        { id: 'src_fixture_card', number: '4000000000002008', expiry_month: 6, expiry_year: 2025 },
        { id: 'src_updated', number: '4000000000001000', expiry_month: 6, expiry_year: 2025 },
        { id: 'src_closed', number: '4000000000003006', expiry_month: 6, expiry_year: 2025 },
        { id: 'src_uptodate', number: '4000000000004004', expiry_month: 6, expiry_year: 2030 },
        { id: 'src_other', number: '4000000000002008', expiry_month: 6, expiry_year: 2025 },
      ],
    });
    // Entity B's own payout instruments: its default and a verified spare another entity's user must not make default.
    const bank = (id: string, isDefault: boolean) => ({
      id,
      label: `B ${id}`,
      type: 'bank_account',
      currency: 'USD',
      country: 'US',
      status: 'verified',
      default: isDefault,
      account_number: '000123456789',
      document: { type: 'bank_statement', file_id: 'file_statement_b' },
    });
    const entities = sample.accounts.entities.map((e) =>
      e.id === 'ent_fixture_b'
        ? { ...e, payment_instruments: [bank('ppi_b_main', true), bank('ppi_b_spare', false)] }
        : e,
    );
    sb = await startSandbox({ fixtures: { accounts: { ...sample.accounts, entities } } });
    issuer = await startIssuer(now);
    h = await helper();
  });
  beforeEach(() => {
    sb.context.reset();
    events.length = 0;
  });
  after(async () => {
    for (const x of helpers) await x.close();
    await issuer.close();
    await sb.close();
  });

  it('lists and reads the payout instruments of an entity the token names, without provider internals', async () => {
    const token = await tokenA();
    const list = await ask('/entities/ent_fixture_a/payment-instruments', token);
    assert.equal(list.status, 200, list.text);
    const ids = list.json.data.map((p: { id: string }) => p.id).sort();
    assert.deepEqual(ids, ['ppi_card', 'ppi_eur', 'ppi_unverified', 'ppi_verified_1', 'ppi_verified_2']);
    const one = await ask('/entities/ent_fixture_a/payment-instruments/ppi_verified_1', token);
    assert.equal(one.status, 200, one.text);
    const { requestId, instrumentId, ...rest } = one.json;
    assert.match(requestId, /^hreq_/);
    assert.match(instrumentId, /^src_/);
    assert.deepEqual(rest, {
      id: 'ppi_verified_1',
      label: 'Account ppi_verified_1',
      type: 'bank_account',
      currency: 'GBP',
      country: 'GB',
      status: 'verified',
      default: true,
    });
    assert.ok(!/_links|file_|account_number/.test(list.text + one.text));
  });

  it('masks a card number in a label set at the provider, in the list, a read and a PATCH answer', async () => {
    const fixtures = sampleFixtures();
    const [first] = fixtures.accounts.entities[0]!.payment_instruments as { label: string }[];
    first!.label = 'Visa 4242 4242 4242 4242 (ops)';
    const own = await startSandbox({ fixtures });
    try {
      const started = await helper({ ...sandboxHelperOptions(own, issuer) });
      const token = await tokenA();
      const path = '/entities/ent_fixture_a/payment-instruments';
      const list = await ask(path, token, { target: started });
      const one = await ask(`${path}/ppi_verified_1`, token, { target: started });
      const patched = await ask(`${path}/ppi_verified_1`, token, {
        method: 'PATCH',
        body: { default: true },
        target: started,
      });
      for (const r of [list, one, patched]) {
        assert.equal(r.status, 200, r.text);
        assert.ok(!r.text.includes('4242 4242'), r.text);
      }
      assert.ok(
        list.json.data.some((p: { label: string }) => p.label === 'Visa [card ••••4242] (ops)'),
        list.text,
      );
      assert.equal(one.json.label, 'Visa [card ••••4242] (ops)');
      assert.equal(patched.json.label, 'Visa [card ••••4242] (ops)');
    } finally {
      await own.close();
    }
  });

  it('updates label and default, and explains a refused default', async () => {
    const token = await tokenA();
    const path = '/entities/ent_fixture_a/payment-instruments/ppi_verified_2';
    const r = await ask(path, token, { method: 'PATCH', body: { label: 'Main account', default: true } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.label, 'Main account');
    assert.equal(r.json.default, true);
    // The audit line names the user as the issuer and subject together: a `sub` alone is ambiguous across issuers.
    const audit = h.log.lines.filter((l) => l.event === 'tessera.instrument.updated').at(-1);
    assert.deepEqual(
      { entityId: audit?.entityId, id: audit?.id, iss: audit?.iss, sub: audit?.sub },
      { entityId: 'ent_fixture_a', id: 'ppi_verified_2', iss: issuer.issuer, sub: 'usr_a' },
    );
    const old = await ask('/entities/ent_fixture_a/payment-instruments/ppi_verified_1', token);
    assert.equal(old.json.default, false);
    const refused = await ask('/entities/ent_fixture_a/payment-instruments/ppi_unverified', token, {
      method: 'PATCH',
      body: { default: true },
    });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.json.code, 'TESSERA_INSTRUMENT_NOT_VERIFIED');
    assert.equal(refused.json.field, 'default');
  });

  it('answers 400 naming the field for bad paths and bodies, 404 for an unknown instrument', async () => {
    const token = await tokenA();
    const base = '/entities/ent_fixture_a/payment-instruments';
    const cases: [string, string, unknown, number, string, string][] = [
      ['PATCH', `${base}/ppi_verified_2`, {}, 400, 'TESSERA_INVALID_REQUEST', 'label'],
      ['PATCH', `${base}/ppi_verified_2`, { label: 5 }, 400, 'TESSERA_INVALID_REQUEST', 'label'],
      ['PATCH', `${base}/ppi_verified_2`, { label: 'x'.repeat(51) }, 400, 'TESSERA_INVALID_REQUEST', 'label'],
      ['PATCH', `${base}/ppi_verified_2`, { label: 'Main \u202eTNUOCCA' }, 400, 'TESSERA_INVALID_REQUEST', 'label'],
      ['PATCH', `${base}/ppi_verified_2`, { default: 'yes' }, 400, 'TESSERA_INVALID_REQUEST', 'default'],
      // Payouts move to another instrument; they never stop by a dashboard click (decisions: helper-dashboard).
      ['PATCH', `${base}/ppi_verified_1`, { default: false }, 400, 'TESSERA_INVALID_REQUEST', 'default'],
      ['PATCH', `${base}/ppi_verified_2`, { label: 'a', status: 'verified' }, 400, 'TESSERA_INVALID_REQUEST', 'status'],
      // An unknown key is named escaped: no bidi or control character of the sender's reaches the answer.
      ['PATCH', `${base}/ppi_verified_2`, { label: 'a', 'x\u202ey': 1 }, 400, 'TESSERA_INVALID_REQUEST', 'x\\u202Ey'],
      ['GET', `${base}/not-an-id`, undefined, 400, 'TESSERA_INVALID_REQUEST', 'id'],
      ['GET', '/entities/ent_fixture_a%00/payment-instruments', undefined, 400, 'TESSERA_INVALID_REQUEST', 'entityId'],
      ['GET', `${base}/ppi_nope`, undefined, 404, 'TESSERA_NOT_FOUND', 'id'],
    ];
    for (const [method, path, body, status, code, field] of cases) {
      const r = await ask(path, token, { method, body });
      assert.equal(r.status, status, `${method} ${path} ${JSON.stringify(body)}: ${r.text}`);
      assert.equal(r.json.code, code, path);
      assert.equal(r.json.field, field, path);
    }
    const empty = await ask(`${base}/ppi_verified_2`, token, { method: 'PATCH', body: {} });
    assert.equal(empty.json.message, 'label or default is required');
    // An entity the token names but the provider does not have: the 404 names the entity, not the instrument.
    const ghost = await issuer.sign({ sub: 'usr_a', entities: ['ent_nope'], instruments: [] });
    for (const path of ['/entities/ent_nope/payment-instruments/ppi_x', '/entities/ent_nope/payment-instruments']) {
      const r = await ask(path, ghost);
      assert.equal(r.status, 404, r.text);
      assert.equal(r.json.field, 'entityId', path);
    }
    // An entity id the token names but the provider refuses (longer than the 64 characters after `ent_` it takes): the
    // 400 names the entity, not the instrument id beside it.
    const long = `ent_${'a'.repeat(70)}`;
    const refused = await issuer.sign({ sub: 'usr_a', entities: [long], instruments: [] });
    for (const [method, path, body] of [
      ['GET', `/entities/${long}/payment-instruments`, undefined],
      ['GET', `/entities/${long}/payment-instruments/ppi_x`, undefined],
      ['PATCH', `/entities/${long}/payment-instruments/ppi_x`, { label: 'x' }],
    ] as const) {
      const r = await ask(path, refused, { method, body });
      assert.equal(r.status, 400, `${method} ${path}: ${r.text}`);
      assert.equal(r.json.field, 'entityId', `${method} ${path}: ${r.text}`);
    }
    const typed = await ask(`${base}/ppi_verified_2`, token, { method: 'PATCH', body: { label: 5 } });
    assert.equal(typed.json.message, 'label must be a string', 'said plainly, not in zod’s words');
  });

  it('takes ids as long as the provider takes them (64 after the prefix) and refuses a longer one itself', async () => {
    // One id rule for the sandbox, the accounts client and the helper (docs/decisions/provider.md#account-ids): the
    // helper took 100 characters after `ent_`, `ppi_` and `src_`, so it asked the provider about ids the provider
    // refuses, and a platform's `paymentInstrumentIds` answering one got the provider's 400 blamed on the page.
    const ent = `ent_${'e'.repeat(64)}`;
    const ppi = `ppi_${'p'.repeat(64)}`;
    const src = `src_${'s'.repeat(64)}`;
    const fixtures = sampleFixtures({
      stored_cards: [
        { id: 'src_fixture_card', number: '4000000000002008', expiry_month: 6, expiry_year: 2025 },
        { id: src, number: '4000000000001000', expiry_month: 6, expiry_year: 2025 },
      ],
    });
    const entity = fixtures.accounts.entities[0] as { id: string; payment_instruments: { id: string }[] };
    entity.id = ent;
    entity.payment_instruments[0]!.id = ppi;
    const own = await startSandbox({ fixtures });
    try {
      let listed = [ppi];
      const started = await helper({ ...sandboxHelperOptions(own, issuer), paymentInstrumentIds: () => listed });
      const token = await issuer.sign({ sub: 'usr_a', entities: [ent, `${ent}x`], instruments: [src, `${src}x`] });
      const base = `/entities/${ent}/payment-instruments`;
      const at = { target: started };
      const list = await ask(base, token, at);
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(
        list.json.data.map((p: { id: string }) => p.id),
        [ppi],
      );
      assert.equal((await ask(`${base}/${ppi}`, token, at)).status, 200);
      const patched = await ask(`${base}/${ppi}`, token, { ...at, method: 'PATCH', body: { label: 'Main' } });
      assert.equal(patched.status, 200, patched.text);
      const updated = await ask('/account-updater', token, { ...at, method: 'POST', body: { instrumentId: src } });
      assert.equal(updated.status, 200, updated.text);

      const asked = async () =>
        ((await call(`${own.url}/_sandbox/requests?limit=200`)).json.data as { path: string }[]).filter(
          (e) => e.path !== '/connect/token',
        ).length;
      const before = await asked();
      for (const [method, path, body, field] of [
        ['GET', `/entities/${ent}x/payment-instruments`, undefined, 'entityId'],
        ['GET', `${base}/${ppi}x`, undefined, 'id'],
        ['PATCH', `${base}/${ppi}x`, { label: 'Main' }, 'id'],
        ['POST', '/account-updater', { instrumentId: `${src}x` }, 'instrumentId'],
      ] as const) {
        const r = await ask(path, token, { ...at, method, body });
        assert.equal(r.status, 400, `${method} ${path}: ${r.text}`);
        assert.equal(r.json.code, 'TESSERA_INVALID_REQUEST', r.text);
        assert.equal(r.json.field, field, r.text);
        assert.doesNotMatch(r.json.message, /refused by the payment provider/, r.text);
      }
      // The platform's answer is checked with the same rule: an id the provider refuses is the hook's failure.
      listed = [`${ppi}x`];
      const bad = await ask(base, token, at);
      assert.equal(bad.status, 500, bad.text);
      assert.equal(bad.json.code, 'TESSERA_INSTRUMENT_IDS_FAILED', bad.text);
      assert.equal(await asked(), before, 'nothing was sent to the provider for an id it refuses');
    } finally {
      await own.close();
    }
  });

  it("answers 403 for another entity's instruments, without asking the provider", async () => {
    const token = await tokenA();
    const before = (await call(`${sb.url}/_sandbox/requests?limit=200`)).json.data.length;
    for (const [method, path, body] of [
      ['GET', '/entities/ent_fixture_b/payment-instruments', undefined],
      ['GET', '/entities/ent_fixture_b/payment-instruments/ppi_verified_1', undefined],
      ['PATCH', '/entities/ent_fixture_b/payment-instruments/ppi_verified_1', { label: 'mine now' }],
    ] as const) {
      const r = await ask(path, token, { method, body });
      assert.equal(r.status, 403, r.text);
      assert.equal(r.json.code, 'TESSERA_HOST_FORBIDDEN');
      assert.equal(r.json.field, 'entityId');
    }
    assert.equal((await call(`${sb.url}/_sandbox/requests?limit=200`)).json.data.length, before);
  });

  /** What a platform recorded for each entity, as `paymentInstrumentIds` answers it from its database. */
  const recorded: Record<string, string[]> = {
    ent_fixture_a: ['ppi_verified_1', 'ppi_verified_2', 'ppi_unverified', 'ppi_eur', 'ppi_card'],
    ent_fixture_b: ['ppi_b_main', 'ppi_b_spare'],
  };
  const named = (records: Record<string, string[]>, extra: Partial<TesseraHelperOptions> = {}) =>
    helper({ paymentInstrumentIds: (entityId) => records[entityId] ?? [], ...extra });

  /**
   * A provider that finds a payout instrument by its id alone, whatever entity the path names (the spec lists no 404
   * for another entity's instrument): the sandbox behind a proxy that puts each instrument's owner in the path.
   */
  async function entityBlind(): Promise<{ url: string; close: () => void }> {
    const owners = new Map(Object.entries(recorded).flatMap(([entity, ids]) => ids.map((id) => [id, entity] as const)));
    const target = new URL(sb.url);
    const server = createServer((req, res) => {
      const [path = '', query] = (req.url ?? '/').split('?');
      const parts = path.split('/');
      // /accounts/entities/{entityId}/payment-instruments/{id}
      const owner = parts[4] === 'payment-instruments' ? owners.get(parts[5] ?? '') : undefined;
      if (parts[1] === 'accounts' && owner) parts[3] = owner;
      const rewritten = parts.join('/') + (query === undefined ? '' : `?${query}`);
      const upstream = request(
        { host: target.hostname, port: target.port, method: req.method, path: rewritten, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => {
        server.closeAllConnections();
        server.close();
      },
    };
  }

  it("never reads or changes another entity's instrument through a provider that ignores the entity in the path", async () => {
    const blind = await entityBlind();
    try {
      const token = await tokenA();
      const stranger = '/entities/ent_fixture_a/payment-instruments/ppi_b_spare';
      // The provider does let it through: without paymentInstrumentIds the helper can only rely on it (as before).
      const unguarded = await helper({ accountsBaseUrl: blind.url });
      const leaked = await ask(stranger, token, { target: unguarded });
      assert.equal(leaked.status, 200, `the proxy is entity-blind: ${leaked.text}`);
      assert.equal(leaked.json.label, 'B ppi_b_spare');

      const guarded = await named(recorded, { accountsBaseUrl: blind.url });
      sb.context.reset();
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', { default: true }],
        ['PATCH', { label: 'mine now' }],
      ] as const) {
        const r = await ask(stranger, token, { method, body, target: guarded });
        assert.equal(r.status, 404, `${method}: ${r.text}`);
        assert.equal(r.json.code, 'TESSERA_NOT_FOUND', method);
        assert.equal(r.json.field, 'id', method);
        assert.equal(r.json.outcomeKnown, true, method);
      }
      assert.deepEqual(await accountsCalls(sb), [], 'the provider is never asked');
      // B's payouts still go where they went, and its label is its own.
      const tokenB = await issuer.sign({ sub: 'usr_b', entities: ['ent_fixture_b'], instruments: [] });
      const b = await ask('/entities/ent_fixture_b/payment-instruments/ppi_b_spare', tokenB, { target: guarded });
      assert.equal(b.status, 200, b.text);
      assert.equal(b.json.default, false);
      assert.equal(b.json.label, 'B ppi_b_spare');
      // A's own instruments go through the same provider as before.
      const own = await ask('/entities/ent_fixture_a/payment-instruments/ppi_verified_2', token, {
        method: 'PATCH',
        body: { label: 'Spare' },
        target: guarded,
      });
      assert.equal(own.status, 200, own.text);
      assert.equal(own.json.label, 'Spare');
    } finally {
      blind.close();
    }
  });

  it('reads and changes only the instruments paymentInstrumentIds names for the entity, and the provider still checks', async () => {
    const token = await tokenA();
    const seenBy: { entityId: string; sub: string; path: string }[] = [];
    // The platform's records: one of A's own left out, one of B's wrongly put under A.
    const h2 = await helper({
      paymentInstrumentIds: (entityId, { claims, req }) => {
        seenBy.push({ entityId, sub: claims.sub, path: req.path });
        return ['ppi_verified_1', 'ppi_b_spare'];
      },
    });
    const base = '/entities/ent_fixture_a/payment-instruments';
    for (const [method, id, body] of [
      ['GET', 'ppi_verified_2', undefined],
      ['PATCH', 'ppi_verified_2', { default: true }],
      // Named by the platform, yet B's: the provider's own check of the path still refuses it.
      ['GET', 'ppi_b_spare', undefined],
      ['PATCH', 'ppi_b_spare', { default: true }],
    ] as const) {
      const r = await ask(`${base}/${id}`, token, { method, body, target: h2 });
      assert.equal(r.status, 404, `${method} ${id}: ${r.text}`);
      assert.equal(r.json.code, 'TESSERA_NOT_FOUND', `${method} ${id}`);
      assert.equal(r.json.field, 'id', `${method} ${id}`);
    }
    assert.deepEqual(
      await accountsCalls(sb),
      [
        'GET /accounts/entities/ent_fixture_a/payment-instruments/ppi_b_spare',
        'PATCH /accounts/entities/ent_fixture_a/payment-instruments/ppi_b_spare',
      ],
      'an id the platform did not name is never sent',
    );
    assert.deepEqual(seenBy[0], { entityId: 'ent_fixture_a', sub: 'usr_a', path: `${base}/ppi_verified_2` });
    // A bad body is 400 before the platform is asked.
    const asked = seenBy.length;
    const bad = await ask(`${base}/ppi_verified_1`, token, { method: 'PATCH', body: { default: false }, target: h2 });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(seenBy.length, asked);
    const named1 = await ask(`${base}/ppi_verified_1`, token, { method: 'PATCH', body: { label: 'Main' }, target: h2 });
    assert.equal(named1.status, 200, named1.text);
    assert.equal(named1.json.label, 'Main');
  });

  it('answers a failing or slow paymentInstrumentIds on a read or change of one instrument as the list does, and changes nothing', async () => {
    const token = await tokenA();
    const path = '/entities/ent_fixture_a/payment-instruments/ppi_verified_2';
    let answer: () => unknown = () => {
      throw new Error('platform database down');
    };
    const h2 = await helper({ hookTimeoutMs: 200, paymentInstrumentIds: () => answer() as string[] });
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { default: true }],
    ] as const) {
      answer = () => {
        throw new Error('platform database down');
      };
      const failed = await ask(path, token, { method, body, target: h2 });
      assert.equal(failed.status, 500, failed.text);
      assert.equal(failed.json.code, 'TESSERA_INSTRUMENT_IDS_FAILED');
      assert.equal(failed.json.outcomeKnown, true, 'nothing was sent');
      assert.doesNotMatch(failed.json.message, /platform database/);
      answer = () => new Promise(() => {});
      const slow = await ask(path, token, { method, body, target: h2 });
      assert.equal(slow.status, 503, slow.text);
      assert.equal(slow.json.code, 'TESSERA_HOOK_TIMEOUT');
      assert.equal(slow.json.outcomeKnown, true);
    }
    const logged = h2.log.lines.filter((l) => l.event === 'tessera.payment_instrument_ids.failed');
    assert.equal(logged.length, 2);
    assert.match(String(logged[0]?.msg), /paymentInstrumentIds threw: platform database down/);
    assert.deepEqual(await accountsCalls(sb), []);
  });

  it('answers a paymentInstrumentIds answer that throws while it is read as the hook failing: 500, nothing sent', async () => {
    const token = await tokenA();
    // A getter or a proxy of the platform's records (an ORM's lazy list) that throws when the helper reads it.
    const lazy = () => {
      const ids = ['ppi_verified_2'];
      Object.defineProperty(ids, 0, {
        get() {
          throw new Error('records connection closed');
        },
      });
      return ids;
    };
    const proxied = () =>
      new Proxy(['ppi_verified_2'], {
        get(target, key) {
          if (key === 'length') throw new Error('records connection closed');
          return Reflect.get(target, key);
        },
      });
    for (const answer of [lazy, proxied]) {
      const h2 = await helper({ paymentInstrumentIds: answer });
      for (const [method, path, body] of [
        ['GET', '/entities/ent_fixture_a/payment-instruments', undefined],
        ['GET', '/entities/ent_fixture_a/payment-instruments/ppi_verified_2', undefined],
        ['PATCH', '/entities/ent_fixture_a/payment-instruments/ppi_verified_2', { default: true }],
      ] as const) {
        const r = await ask(path, token, { method, body, target: h2 });
        assert.equal(r.status, 500, `${method} ${path}: ${r.text}`);
        assert.equal(r.json.code, 'TESSERA_INSTRUMENT_IDS_FAILED', `${method} ${path}`);
        assert.equal(r.json.outcomeKnown, true, `${method} ${path}: nothing was sent`);
      }
      const logged = h2.log.lines.filter((l) => l.event === 'tessera.payment_instrument_ids.failed');
      assert.equal(logged.length, 3);
      assert.match(String(logged[0]?.msg), /records connection closed/);
      assert.doesNotMatch(h2.log.text(), /TESSERA_INTERNAL/);
    }
    assert.deepEqual(await accountsCalls(sb), []);
  });

  it('answers 401 to a missing token and to every forged one', async () => {
    const path = '/entities/ent_fixture_a/payment-instruments';
    const missing = await ask(path, undefined);
    assert.equal(missing.status, 401);
    assert.equal(missing.json.code, 'TESSERA_HOST_AUTH_MISSING');
    assert.equal(missing.headers.get('www-authenticate'), 'Bearer realm="tessera"');
    const seconds = Math.floor(now() / 1000);
    const claims = {
      iss: issuer.issuer,
      aud: issuer.audience,
      sub: 'usr_a',
      exp: seconds + 300,
      entities: ['ent_fixture_a'],
    };
    const pem = issuer.publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
    const forged = [
      new UnsecuredJWT(claims).encode(),
      `${input}.${createHmac('sha256', pem).update(input).digest('base64url')}`,
      await issuer.sign({ ...claims, aud: 'another-app' }),
      await issuer.sign({ ...claims, iss: 'https://evil.example' }),
      await issuer.sign(claims, { exp: seconds - 60, iat: seconds - 600 }),
      // No user at all: an empty `sub` names nobody, and every such token would share one budget.
      await issuer.sign({ ...claims, sub: '' }),
    ];
    for (const token of forged) {
      const r = await ask(path, token);
      assert.equal(r.status, 401, r.text);
      assert.equal(r.json.code, 'TESSERA_HOST_AUTH_INVALID');
    }
    // The token is checked before the body is read: without one, no body gets a 400 or 415 of its own.
    const bodies: [string, Parameters<typeof call>[1]][] = [
      ['malformed JSON', { raw: '{"instrumentId":', headers: { 'content-type': 'application/json' } }],
      ['another media type', { raw: 'instrumentId=src_1', headers: { 'content-type': 'text/plain' } }],
      ['a card number', { body: { instrumentId: '4242424242424242' } }],
    ];
    for (const [what, init] of bodies) {
      for (const [method, target] of [
        ['POST', '/account-updater'],
        ['PATCH', `${path}/ppi_verified_2`],
      ]) {
        const r = await call(`${h.url}${target}`, { ...init, method });
        assert.equal(r.status, 401, `${method} ${target} with ${what}: ${r.text}`);
        assert.equal(r.json.code, 'TESSERA_HOST_AUTH_MISSING');
      }
    }
  });

  it("keeps every dashboard answer out of any cache: one user's data, a request id of its own", async () => {
    const token = await tokenA();
    const answers: [string, Answer][] = [
      ['list', await ask('/entities/ent_fixture_a/payment-instruments', token)],
      ['read', await ask('/entities/ent_fixture_a/payment-instruments/ppi_verified_1', token)],
      [
        'update',
        await ask('/entities/ent_fixture_a/payment-instruments/ppi_verified_1', token, {
          method: 'PATCH',
          body: { label: 'Main' },
        }),
      ],
      [
        'account updater',
        await ask('/account-updater', token, { method: 'POST', body: { instrumentId: 'src_updated' } }),
      ],
      ['401', await ask('/entities/ent_fixture_a/payment-instruments', undefined)],
      ['403', await ask('/entities/ent_other/payment-instruments', token)],
    ];
    for (const [what, r] of answers) {
      assert.ok(r.status < 300 || r.status >= 400, `${what}: ${r.status}`);
      assert.equal(r.headers.get('cache-control'), 'no-store', what);
      // Express's ETag hashed a body that holds its own request id: it never matched twice, so none is sent.
      assert.equal(r.headers.get('etag'), null, what);
    }
    const head = await call(`${h.url}/entities/ent_fixture_a/payment-instruments/ppi_verified_1`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('cache-control'), 'no-store');
    assert.equal(head.text, '');
  });

  it('answers a dashboard path asked with another method 405 with Allow, with or without a host token', async () => {
    const token = await tokenA();
    const logged = async () => (await call(`${sb.url}/_sandbox/requests?limit=200`)).json.data.length;
    const before = await logged();
    const one = '/entities/ent_fixture_a/payment-instruments/ppi_verified_1';
    const wrong: [string, string, string][] = [
      ['PUT', one, 'GET, HEAD, PATCH'],
      ['DELETE', one, 'GET, HEAD, PATCH'],
      ['POST', one, 'GET, HEAD, PATCH'],
      ['POST', '/entities/ent_fixture_a/payment-instruments', 'GET, HEAD'],
      ['GET', '/account-updater', 'POST'],
      // The entity is not the token's: the method is refused before the claims are read, as before the token is.
      ['DELETE', '/entities/ent_other/payment-instruments/ppi_verified_1', 'GET, HEAD, PATCH'],
    ];
    // The routes are in the README and the right method without a token is 401, not 404: a 401 here would hide no
    // route, and a 405 tells the caller what to fix without a token check (docs/decisions/helper.md#helper-wrong-method).
    for (const bearer of [undefined, token, 'not-a-jwt']) {
      for (const [method, path, allow] of wrong) {
        const r = await ask(path, bearer, method === 'GET' ? { method } : { method, body: {} });
        assert.equal(r.status, 405, `${method} ${path} ${bearer ? 'with' : 'without'} a token: ${r.text}`);
        assert.equal(r.headers.get('allow'), allow, `${method} ${path}`);
        assert.equal(r.json.code, 'TESSERA_METHOD_NOT_ALLOWED');
        assert.equal(r.json.field, 'method');
        assert.equal(r.headers.get('www-authenticate'), null);
      }
    }
    assert.equal(await logged(), before, 'a wrong method never reaches the provider');
    // The right method without a token is still 401, and a path no route takes still 404.
    assert.equal((await ask(one, undefined)).status, 401);
    assert.equal((await ask('/entities/ent_fixture_a/instruments', token)).status, 404);
  });

  it('runs the account updater for a stored card the token names and tells the merchant', async () => {
    const token = await tokenA();
    const updated = await ask('/account-updater', token, { method: 'POST', body: { instrumentId: 'src_updated' } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.json.status, 'CARD_UPDATED');
    assert.deepEqual(Object.keys(updated.json.card).sort(), ['bin', 'expiryMonth', 'expiryYear', 'last4']);
    assert.equal(updated.json.card.last4, '9003');
    assert.ok(!/encrypted|fingerprint/.test(updated.text));
    const closed = await ask('/account-updater', token, { method: 'POST', body: { instrumentId: 'src_closed' } });
    assert.equal(closed.json.status, 'CARD_CLOSED');
    assert.equal(closed.json.card, undefined);
    const same = await ask('/account-updater', token, { method: 'POST', body: { instrumentId: 'src_uptodate' } });
    assert.equal(same.json.status, 'UPDATE_FAILED');
    assert.equal(same.json.failureCode, 'UP_TO_DATE');
    assert.deepEqual(
      events.map((e) => [e.instrumentId, e.status, e.user, e.issuer, e.card?.last4]),
      [
        // The issuer too: a `sub` names one user only within its issuer, and hostAuth.issuer may list several.
        ['src_updated', 'CARD_UPDATED', 'usr_a', issuer.issuer, '9003'],
        ['src_closed', 'CARD_CLOSED', 'usr_a', issuer.issuer, undefined],
      ],
    );
  });

  it('answers CARD_EXPIRY_UPDATED with the new expiry, and still 200 when onCardUpdated throws', async () => {
    const failing = await helper({
      onCardUpdated: () => {
        throw new Error('merchant database down');
      },
    });
    const token = await issuer.sign({ sub: 'usr_a', instruments: ['src_fixture_card'] });
    const r = await ask('/account-updater', token, {
      method: 'POST',
      body: { instrumentId: 'src_fixture_card' },
      target: failing,
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.status, 'CARD_EXPIRY_UPDATED');
    assert.equal(r.json.card.last4, '2008');
    assert.ok(r.json.card.expiryYear > 2025);
    assert.ok(failing.log.lines.some((l) => l.event === 'tessera.on-card-updated.failed'));
    assert.ok(!r.text.includes('merchant database down'));
  });

  it('answers the account updater without waiting for an onCardUpdated that has not settled within hookTimeoutMs', async () => {
    let settle!: () => void;
    const slow = await helper({
      hookTimeoutMs: 200,
      onCardUpdated: () =>
        new Promise<void>((resolve) => {
          settle = resolve;
        }),
    });
    const token = await issuer.sign({ sub: 'usr_a', instruments: ['src_fixture_card'] });
    const r = await ask('/account-updater', token, {
      method: 'POST',
      body: { instrumentId: 'src_fixture_card' },
      target: slow,
    });
    settle();
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.status, 'CARD_EXPIRY_UPDATED');
    const line = slow.log.lines.find((l) => l.event === 'tessera.hook.timeout');
    assert.equal(line?.hook, 'onCardUpdated');
    assert.match(String(line?.msg), /onCardUpdated has not settled within 200 ms/);
  });

  it('refuses the account updater for other cards and for raw card data', async () => {
    const token = await tokenA();
    const cases: [unknown, number, string, string][] = [
      [{ instrumentId: 'src_other' }, 403, 'TESSERA_HOST_FORBIDDEN', 'instrumentId'],
      [{ instrumentId: 'card_tok_x' }, 400, 'TESSERA_INVALID_REQUEST', 'instrumentId'],
      [{}, 400, 'TESSERA_INVALID_REQUEST', 'instrumentId'],
      [{ instrumentId: 'src_updated', card: { expiry_month: 1 } }, 400, 'TESSERA_INVALID_REQUEST', 'card'],
      [{ instrumentId: 'src_updated', number: '4000 0000 0000 1000' }, 400, 'TESSERA_CARD_DATA_REFUSED', 'number'],
      [{ instrumentId: 'src_updated', cvv: '123' }, 400, 'TESSERA_CARD_DATA_REFUSED', 'cvv'],
      [
        { source_options: { card: { number: '4000000000001000' } } },
        400,
        'TESSERA_CARD_DATA_REFUSED',
        'source_options.card.number',
      ],
    ];
    for (const [body, status, code, field] of cases) {
      const r = await ask('/account-updater', token, { method: 'POST', body });
      assert.equal(r.status, status, `${JSON.stringify(body)}: ${r.text}`);
      assert.equal(r.json.code, code);
      assert.equal(r.json.field, field);
    }
    assert.equal(events.length, 0);
    assert.ok(!h.log.text().replace(/\D/g, '').includes('4000000000001000'));
  });

  it('limits dashboard requests per user', async () => {
    const limited = await helper({ rateLimits: { hostRequestsPerUser: { max: 2, windowMs: 60_000 } } });
    const token = await tokenA();
    for (let i = 0; i < 2; i++) {
      assert.equal((await ask('/entities/ent_fixture_a/payment-instruments', token, { target: limited })).status, 200);
    }
    const r = await ask('/entities/ent_fixture_a/payment-instruments', token, { target: limited });
    assert.equal(r.status, 429);
    assert.equal(r.json.code, 'TESSERA_RATE_LIMITED');
  });

  it('limits failed host authentications per IP: past the limit, 429 before any token is checked', async () => {
    // Each refused token cost a signature check (about 0.2 ms, 1 ms with a 7 KB header), and with a failing JWKS a key
    // fetch, without limit: a caller with no valid token could send as many as it liked.
    const limited = await helper({
      rateLimits: { hostAuthFailuresPerIp: { max: 3, windowMs: 60_000 }, hostRequestsPerUser: false },
    });
    const path = '/entities/ent_fixture_a/payment-instruments';
    const good = await tokenA();
    // Valid tokens, and a valid token the path refuses (403), spend nothing of it.
    for (let i = 0; i < 5; i++) assert.equal((await ask(path, good, { target: limited })).status, 200);
    assert.equal((await ask('/entities/ent_fixture_b/payment-instruments', good, { target: limited })).status, 403);
    const none = `${b64({ alg: 'none' })}.${b64({ iss: issuer.issuer, aud: issuer.audience, sub: 'usr_a' })}.`;
    const [head, body] = good.split('.');
    for (const bad of [undefined, none, `${head}.${body}.${'A'.repeat(86)}`]) {
      const r = await ask(path, bad, { target: limited });
      assert.equal(r.status, 401, r.text);
    }
    for (const token of [good, `${head}.${body}.${'B'.repeat(86)}`, undefined]) {
      const r = await ask(path, token, { target: limited });
      assert.equal(r.status, 429, r.text);
      assert.equal(r.json.code, 'TESSERA_RATE_LIMITED');
      assert.equal(r.json.limit, 'hostAuthFailuresPerIp');
      assert.equal(r.json.option, 'rateLimits.hostAuthFailuresPerIp');
      assert.equal(r.headers.get('retry-after'), '60');
    }
    sb.clock.advance(60);
    assert.equal((await ask(path, await tokenA(), { target: limited })).status, 200, 'the window is over');
  });

  it("refuses a dashboard read another site's page started before its token is read: no page can lock out its visitor's IP", async () => {
    // An <img> or a plain fetch() on any site sends its visitor's browser here without a token (a page cannot add
    // `Authorization` without a preflight the helper answers only for `corsOrigins`): each was a 401 that spent the
    // visitor's `hostAuthFailuresPerIp`, so one page view locked every dashboard user behind that IP (an office's NAT)
    // out for the window.
    const limited = await helper({
      rateLimits: { hostAuthFailuresPerIp: { max: 3, windowMs: 60_000 }, hostRequestsPerUser: false },
      corsOrigins: ['https://dashboard.example'],
    });
    const path = '/entities/ent_fixture_a/payment-instruments';
    const foreign: [string, Record<string, string>][] = [
      ['an image', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' }],
      ['a fetch', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors', origin: 'https://evil.example' }],
      ['a same-site page not listed', { 'sec-fetch-site': 'same-site', origin: 'https://blog.shop.example' }],
      ['an older browser', { origin: 'https://evil.example' }],
    ];
    for (let i = 0; i < 3; i++) {
      for (const [what, headers] of foreign) {
        for (const method of ['GET', 'HEAD']) {
          const r = await call(`${limited.url}${path}`, { method, headers });
          assert.equal(r.status, 403, `${method} from ${what}: ${r.status} ${r.text}`);
          assert.equal(r.headers.get('cache-control'), 'no-store', what);
          if (method === 'GET') assert.equal(r.json.code, 'TESSERA_CROSS_SITE_REFUSED', what);
        }
      }
    }
    const token = await tokenA();
    const own: Record<string, string>[] = [
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'cross-site', origin: 'https://dashboard.example' },
      {},
    ];
    for (const headers of own) {
      const r = await call(`${limited.url}${path}`, { headers: { ...headers, authorization: `Bearer ${token}` } });
      assert.equal(r.status, 200, `${JSON.stringify(headers)}: ${r.text}`);
    }
  });

  it('warns once when dashboard requests come through a proxy nobody declared: every user would share its IP', async () => {
    const limited = await helper({ rateLimits: { hostAuthFailuresPerIp: { max: 3, windowMs: 60_000 } } });
    const path = '/entities/ent_fixture_a/payment-instruments';
    for (let i = 0; i < 2; i++) {
      const r = await call(`${limited.url}${path}`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
      assert.equal(r.status, 401, r.text);
    }
    const warnings = limited.log.lines.filter((l) => l.event === 'tessera.trust_proxy');
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
  });

  it('counts dashboard requests per user of each issuer: the same sub of another issuer is another user', async () => {
    // RFC 7519 §4.1.2: a `sub` is unique within its issuer. Keyed on `sub` alone, a user of one issuer spent the budget
    // of every user of the other issuers who had the same `sub`, and could lock them out.
    const partner = 'https://partner.example';
    const options = sandboxHelperOptions(sb, issuer);
    const limited = await helper({
      hostAuth: { ...options.hostAuth, issuer: [issuer.issuer, partner] },
      rateLimits: { hostRequestsPerUser: { max: 2, windowMs: 60_000 } },
    });
    const own = await issuer.sign({ sub: 'usr_1', entities: ['ent_fixture_a'] });
    const theirs = await issuer.sign({ iss: partner, sub: 'usr_1', entities: ['ent_fixture_a'] });
    // A sub that, joined to a prefix of the other issuer, would spell its key if the issuer were not encoded.
    const spelled = await issuer.sign({ iss: 'https', sub: '//partner.example:usr_1', entities: ['ent_fixture_a'] });
    const path = '/entities/ent_fixture_a/payment-instruments';
    for (let i = 0; i < 3; i++) await ask(path, own, { target: limited });
    assert.equal((await ask(path, own, { target: limited })).status, 429);
    for (let i = 0; i < 2; i++) {
      const r = await ask(path, theirs, { target: limited });
      assert.equal(r.status, 200, `the partner's usr_1, request ${i + 1}: ${r.text}`);
    }
    assert.equal((await ask(path, theirs, { target: limited })).status, 429, 'and has a budget of its own');
    const twin = await helper({
      hostAuth: { ...options.hostAuth, issuer: [partner, 'https'] },
      rateLimits: { hostRequestsPerUser: { max: 1, windowMs: 60_000 } },
    });
    assert.equal((await ask(path, theirs, { target: twin })).status, 200);
    assert.equal((await ask(path, spelled, { target: twin })).status, 200, 'another issuer and sub, another budget');
  });

  it("keys a user's budget on a fixed-length digest of iss and sub, however long the sub", async () => {
    // A JWT can carry a `sub` of about 6 KB within the bearer pattern's 8 KiB, and it went into the store key as it was.
    const keys: string[] = [];
    const store = new (class extends MemoryStore {
      override hit(key: string, windowMs: number) {
        keys.push(key);
        return super.hit(key, windowMs);
      }
    })();
    const limited = await helper({ store, rateLimits: { hostRequestsPerUser: { max: 1, windowMs: 60_000 } } });
    const path = '/entities/ent_fixture_a/payment-instruments';
    const long = `usr_${'a'.repeat(5800)}`;
    const users = [long, `${long}b`, 'usr_a'];
    for (const sub of users) {
      const token = await issuer.sign({ sub, entities: ['ent_fixture_a'] });
      assert.ok(token.length <= 8192, `a token the bearer pattern takes (${token.length})`);
      assert.equal((await ask(path, token, { target: limited })).status, 200, `${sub.slice(-8)}: its own budget`);
      assert.equal((await ask(path, token, { target: limited })).status, 429, `${sub.slice(-8)}: and only one`);
    }
    const userKeys = keys.filter((k) => k.startsWith('host:'));
    assert.equal(new Set(userKeys).size, users.length, JSON.stringify(userKeys.map((k) => k.slice(0, 80))));
    for (const key of userKeys) {
      assert.match(key, /^host:[A-Za-z0-9_-]{43}$/, 'host: and a SHA-256 in base64url');
      assert.ok(!key.includes('usr_'), 'no sub in the key');
    }
  });

  it('answers upstream faults with 502/503/504 and outcomeKnown', async () => {
    const token = await tokenA();
    const cases: [Record<string, unknown>, number][] = [
      [{ status: 500 }, 502],
      [{ status: 503 }, 503],
      [{ reset: true }, 503],
    ];
    for (const [rule, status] of cases) {
      await call(`${sb.url}/_sandbox/faults`, {
        body: { method: 'GET', path: '/accounts/entities/*/payment-instruments', ...rule },
      });
      const r = await ask('/entities/ent_fixture_a/payment-instruments', token);
      assert.equal(r.status, status, `${JSON.stringify(rule)}: ${r.text}`);
      assert.equal(r.json.outcomeKnown, true, 'a read never changes anything');
    }
  });

  it('never says "nothing was done" when the read-back after an accepted PATCH fails: the change was made', async () => {
    const token = await tokenA();
    const path = '/entities/ent_fixture_a/payment-instruments/ppi_verified_2';
    const cases: [Record<string, unknown>, number][] = [
      [{ status: 500 }, 502],
      [{ status: 503 }, 503],
      [{ reset: true }, 502],
      // Gone between the PATCH and the read: not "id does not exist", which would say the PATCH found nothing.
      [{ status: 404 }, 502],
    ];
    for (const [rule, status] of cases) {
      // Only the GET that follows the PATCH fails; the PATCH itself is answered 200.
      await call(`${sb.url}/_sandbox/faults`, {
        body: { method: 'GET', path: '/accounts/entities/*/payment-instruments/*', count: 1, ...rule },
      });
      const label = `Account ${status} ${Object.keys(rule)[0]}`;
      const r = await ask(path, token, { method: 'PATCH', body: { label } });
      assert.equal(r.status, status, `${JSON.stringify(rule)}: ${r.text}`);
      assert.equal(r.json.outcomeKnown, false, `${JSON.stringify(rule)}: ${r.text}`);
      assert.doesNotMatch(r.json.message, /nothing was done/, JSON.stringify(rule));
      assert.equal(r.json.field, undefined, JSON.stringify(rule));
      const now = await ask(path, token);
      assert.equal(now.json.label, label, `${JSON.stringify(rule)}: the change was made`);
    }
  });

  it("answers a failed access-token request as this server's fault: 502/503, outcome known, no field of the caller's", async () => {
    const token = await tokenA();
    const cases: [Record<string, unknown>, number, RegExp][] = [
      // RFC 6749 §5.2 refusals (invalid_client, invalid_scope…) come as 400: the server's credentials, not the page's ids.
      [{ status: 400 }, 502, /credentials/],
      [{ status: 401 }, 502, /credentials/],
      [{ status: 500 }, 502, /nothing was done/],
      [{ status: 503 }, 503, /nothing was done/],
    ];
    for (const [rule, status, message] of cases) {
      const fresh = await helper();
      await call(`${sb.url}/_sandbox/faults`, { body: { method: 'POST', path: '/connect/token', count: 1, ...rule } });
      const r = await ask('/entities/ent_fixture_a/payment-instruments/ppi_verified_1', token, { target: fresh });
      assert.equal(r.status, status, `${JSON.stringify(rule)}: ${r.text}`);
      assert.equal(r.json.field, undefined, JSON.stringify(rule));
      assert.equal(r.json.outcomeKnown, true, `${JSON.stringify(rule)}: no request of the caller was sent`);
      assert.match(r.json.message, message, JSON.stringify(rule));
    }
    // The updater is a write: a failed token request still means it was never sent.
    const fresh = await helper();
    await call(`${sb.url}/_sandbox/faults`, {
      body: { method: 'POST', path: '/connect/token', count: 1, status: 500 },
    });
    const updater = await ask('/account-updater', token, {
      target: fresh,
      method: 'POST',
      body: { instrumentId: 'src_updated' },
    });
    assert.equal(updater.status, 502, updater.text);
    assert.equal(updater.json.outcomeKnown, true);
  });

  it('answers a token endpoint that misbehaves (200 HTML, a redirect, an unusable token) as its fault, not refused credentials', async () => {
    let answer: (res: ServerResponse) => void = () => {};
    const endpoint = createServer((_req, res) => answer(res));
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    const authBaseUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`;
    const token = await tokenA();
    const json = (body: unknown) => (res: ServerResponse) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const cases: [string, (res: ServerResponse) => void][] = [
      ['200 HTML', (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>')],
      ['a redirect', (res) => res.writeHead(302, { location: 'https://login.example/' }).end()],
      // An authBaseUrl that is not a token endpoint.
      ['404', (res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<html>not found</html>')],
      // Not a header value: kept, it made every call fail, and writes say their outcome was unknown.
      ['a token with CR LF', json({ access_token: 'abc\r\nX-Injected: 1', token_type: 'Bearer', expires_in: 3600 })],
    ];
    try {
      for (const [what, respond] of cases) {
        answer = respond;
        const fresh = await helper({ authBaseUrl });
        for (const [method, path, body] of [
          ['GET', '/entities/ent_fixture_a/payment-instruments/ppi_verified_1', undefined],
          ['PATCH', '/entities/ent_fixture_a/payment-instruments/ppi_verified_1', { label: 'x' }],
          ['POST', '/account-updater', { instrumentId: 'src_updated' }],
        ] as const) {
          const r = await ask(path, token, { method, body, target: fresh });
          assert.equal(r.status, 502, `${what}, ${method}: ${r.text}`);
          assert.equal(r.json.code, 'TESSERA_PROVIDER_ERROR', `${what}, ${method}`);
          assert.equal(r.json.outcomeKnown, true, `${what}, ${method}: no request of the caller was sent`);
          assert.doesNotMatch(r.json.message, /credentials/, `${what}, ${method}`);
          assert.match(r.json.message, /nothing was done/, `${what}, ${method}`);
        }
      }
    } finally {
      endpoint.closeAllConnections();
      endpoint.close();
    }
  });

  it('never answers or logs the client secret, the secret key or an access token', () => {
    const all = [...seen, ...helpers.map((x) => x.log.text())].join('\n');
    assert.ok(all.length > 1000);
    assert.ok(!all.includes(sb.credentials.clientSecret));
    assert.ok(!all.includes(sb.credentials.secretKey));
    // Sandbox access tokens (and host tokens) are JWTs: none may appear anywhere.
    assert.ok(!/eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\./.test(all));
  });
});
