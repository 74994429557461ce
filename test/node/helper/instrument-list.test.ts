import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { PaymentInstrumentIdsContext, TesseraHelperOptions } from '../../../server/helper/index.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { type Answer, call } from '../../support/http.js';
import { until } from '../../support/timing.js';
import { sampleFixtures } from '../sandbox/accounts-support.js';
import {
  accountsCalls,
  fault,
  type Issuer,
  type RunningHelper,
  sandboxHelperOptions,
  startHelper,
  startIssuer,
} from './support.js';

/**
 * `GET /entities/:entityId/payment-instruments`: the provider's API as specified reads one payout instrument by id
 * and lists none, so a platform names the ids it recorded (`paymentInstrumentIds`) and the helper reads each with
 * the specified GET (docs/decisions/helper.md#helper-instrument-list).
 */
describe('listing payout instruments', () => {
  let sb: RunningSandbox;
  let issuer: Issuer;
  const helpers: RunningHelper[] = [];
  const calls: { entityId: string; context: PaymentInstrumentIdsContext }[] = [];
  let answer: (entityId: string) => unknown = () => [];

  async function helper(extra: Partial<TesseraHelperOptions> = {}): Promise<RunningHelper> {
    const started = await startHelper({
      ...sandboxHelperOptions(sb, issuer),
      resolveCharge: () => ({ amount: 100, currency: 'EUR' }),
      ...extra,
    });
    helpers.push(started);
    return started;
  }

  const named = (extra: Partial<TesseraHelperOptions> = {}) =>
    helper({
      paymentInstrumentIds: (entityId, context) => {
        calls.push({ entityId, context });
        return answer(entityId) as string[];
      },
      ...extra,
    });

  async function list(target: RunningHelper, entityId = 'ent_fixture_a'): Promise<Answer> {
    const token = await issuer.sign({ sub: 'usr_a', entities: ['ent_fixture_a', 'ent_missing'], instruments: [] });
    return call(`${target.url}/entities/${entityId}/payment-instruments`, {
      headers: { authorization: `Bearer ${token}`, 'x-dashboard': 'yes' },
    });
  }

  before(async () => {
    sb = await startSandbox({ fixtures: sampleFixtures() });
    issuer = await startIssuer(() => sb.clock.nowMs());
  });
  beforeEach(() => {
    sb.context.reset();
    calls.length = 0;
    answer = () => [];
  });
  after(async () => {
    for (const x of helpers) await x.close();
    await issuer.close();
    await sb.close();
  });

  it('reads each instrument the platform names with the specified GET, in its order, once each', async () => {
    const h = await named();
    answer = () => ['ppi_eur', 'ppi_verified_1', 'ppi_eur', 'ppi_card'];
    const r = await list(h);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.json.data.map((p: { id: string }) => p.id),
      ['ppi_eur', 'ppi_verified_1', 'ppi_card'],
    );
    // The same safe shape as every dashboard answer (accounts.test.ts checks it field by field).
    const fields = ['country', 'currency', 'default', 'id', 'instrumentId', 'label', 'status', 'type'];
    assert.deepEqual(Object.keys(r.json.data[1]).sort(), fields);
    assert.equal(r.json.data[1].default, true);
    assert.ok(!/_links|file_|account_number/.test(r.text));
    // Only the specified one-instrument GET reached the provider, never its list extension.
    assert.deepEqual((await accountsCalls(sb)).sort(), [
      'GET /accounts/entities/ent_fixture_a/payment-instruments/ppi_card',
      'GET /accounts/entities/ent_fixture_a/payment-instruments/ppi_eur',
      'GET /accounts/entities/ent_fixture_a/payment-instruments/ppi_verified_1',
    ]);
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.entityId, 'ent_fixture_a');
    assert.equal(calls[0]!.context.claims.sub, 'usr_a');
    assert.equal(calls[0]!.context.req.get('x-dashboard'), 'yes');
  });

  it('answers an empty list without calling the provider, and awaits an async answer', async () => {
    const h = await named();
    const empty = await list(h);
    assert.equal(empty.status, 200, empty.text);
    assert.deepEqual(empty.json.data, []);
    answer = async () => ['ppi_card'];
    const later = await list(h);
    assert.deepEqual(
      later.json.data.map((p: { id: string }) => p.id),
      ['ppi_card'],
    );
    assert.deepEqual(await accountsCalls(sb), ['GET /accounts/entities/ent_fixture_a/payment-instruments/ppi_card']);
  });

  it('reads the most it takes (100) in the order given, each once', async () => {
    const h = await named();
    const ids = Array.from({ length: 100 }, (_, i) => (i % 2 ? 'ppi_verified_2' : `ppi_gone_${i}`));
    ids[99] = 'ppi_verified_1';
    answer = () => ids;
    const r = await list(h);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.json.data.map((p: { id: string }) => p.id),
      ['ppi_verified_2', 'ppi_verified_1'],
    );
    // 50 gone ids, ppi_verified_2 and ppi_verified_1: 52 distinct, each read once.
    assert.equal((await accountsCalls(sb)).length, 52);
  });

  it('reads at most 8 instruments at a time, so a long list does not flood the provider', async () => {
    const h = await named();
    answer = () => Array.from({ length: 16 }, (_, i) => `ppi_slow_${i}`);
    // Every read waits 150 ms at the provider: 16 reads take two waves at 8 at a time, one wave if all at once.
    await fault(sb, {
      method: 'GET',
      path: '/accounts/entities/*/payment-instruments/ppi_slow_*',
      delayMs: 150,
      count: 16,
    });
    const started = performance.now();
    const r = await list(h);
    const ms = performance.now() - started;
    assert.equal(r.status, 200, r.text);
    assert.equal((await accountsCalls(sb)).length, 16);
    // A lower bound only: a busy machine makes it slower, never faster.
    assert.ok(ms >= 295, `16 reads took ${ms.toFixed(0)} ms: more than 8 ran at once`);
  });

  it('leaves out an instrument the provider no longer has, and says so in the log', async () => {
    const h = await named();
    answer = () => ['ppi_verified_2', 'ppi_removed'];
    const r = await list(h);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.json.data.map((p: { id: string }) => p.id),
      ['ppi_verified_2'],
    );
    const warning = h.log.lines.find((l) => l.event === 'tessera.payment_instrument.missing');
    assert.equal(warning?.id, 'ppi_removed');
    assert.equal(warning?.entityId, 'ent_fixture_a');
  });

  it('answers 404 naming entityId when the provider has no such entity', async () => {
    const h = await named();
    answer = () => ['ppi_verified_1'];
    const r = await list(h, 'ent_missing');
    assert.equal(r.status, 404, r.text);
    assert.equal(r.json.code, 'TESSERA_NOT_FOUND');
    assert.equal(r.json.field, 'entityId');
  });

  it('asks the platform only after the host token allowed the entity', async () => {
    const h = await named();
    answer = () => ['ppi_verified_1'];
    const other = await list(h, 'ent_fixture_b');
    assert.equal(other.status, 403, other.text);
    const bare = await call(`${h.url}/entities/ent_fixture_a/payment-instruments`);
    assert.equal(bare.status, 401, bare.text);
    assert.equal(calls.length, 0);
    assert.deepEqual(await accountsCalls(sb), []);
  });

  it('answers 500 TESSERA_INSTRUMENT_IDS_FAILED when the hook throws or answers anything but ppi_ ids', async () => {
    const h = await named();
    const bad: [string, () => unknown, RegExp][] = [
      [
        'throws',
        () => {
          throw new Error('platform database down');
        },
        /paymentInstrumentIds threw: platform database down/,
      ],
      ['rejects', () => Promise.reject(new TypeError('no rows')), /paymentInstrumentIds threw: no rows/],
      ['undefined', () => undefined, /must be a list of ppi_… ids/],
      ['a string', () => 'ppi_verified_1', /must be a list of ppi_… ids/],
      ['an object', () => ({ data: ['ppi_verified_1'] }), /must be a list of ppi_… ids/],
      ['a number in it', () => ['ppi_verified_1', 7], /\[1\] must be a ppi_… id/],
      ['another kind of id', () => ['src_fixture_card'], /\[0\] must be a ppi_… id/],
      ['a path in an id', () => ['ppi_verified_1/../../reserve-rules/rsv_future'], /\[0\] must be a ppi_… id/],
      ['too many', () => Array.from({ length: 101 }, (_, i) => `ppi_${i}`), /at most 100 instruments/],
    ];
    for (const [what, hook, logged] of bad) {
      answer = hook;
      const before = h.log.lines.length;
      const r = await list(h);
      assert.equal(r.status, 500, `${what}: ${r.text}`);
      assert.equal(r.json.code, 'TESSERA_INSTRUMENT_IDS_FAILED', what);
      // The page learns nothing of the platform's failure; the merchant's log has it.
      assert.ok(!/platform database|no rows|ppi_|src_/.test(r.json.message), `${what}: ${r.json.message}`);
      const line = h.log.lines.slice(before).find((l) => l.event === 'tessera.payment_instrument_ids.failed');
      assert.match(String(line?.msg), logged, what);
    }
    assert.deepEqual(await accountsCalls(sb), [], 'nothing is read for a bad answer');
  });

  it('logs what the hook threw in the shape of every error line, with the entity, even when its getters throw', async () => {
    const h = await named();
    const inner = Object.assign(new Error('ECONNRESET'), { code: 'ECONNRESET' });
    for (const [thrown, expected] of [
      [
        Object.assign(new TypeError('no rows', { cause: inner }), { code: 'E_DB' }),
        {
          type: 'TypeError',
          message: 'no rows',
          code: 'E_DB',
          cause: { type: 'Error', message: 'ECONNRESET', code: 'ECONNRESET' },
        },
      ],
      [
        Object.defineProperty(new Error('m'), 'message', {
          get() {
            throw new Error('getter');
          },
        }),
        { type: 'Error', message: '[a value that could not be read]' },
      ],
    ] as const) {
      answer = () => {
        throw thrown;
      };
      const before = h.log.lines.length;
      const r = await list(h);
      // Before, a message getter that threw escaped the log line: 500 TESSERA_INTERNAL, the helper's own failure.
      assert.equal(r.status, 500, r.text);
      assert.equal(r.json.code, 'TESSERA_INSTRUMENT_IDS_FAILED', r.text);
      const line = h.log.lines.slice(before).find((l) => l.event === 'tessera.payment_instrument_ids.failed')!;
      assert.equal(line.entityId, 'ent_fixture_a');
      const { stack: _s, cause, ...rest } = line.cause as Record<string, unknown>;
      const { stack: _t, ...innerRest } = (cause ?? {}) as Record<string, unknown>;
      assert.deepEqual(cause === undefined ? rest : { ...rest, cause: innerRest }, expected);
    }
  });

  it('answers 503 TESSERA_HOOK_TIMEOUT when the hook has not answered within hookTimeoutMs, and reads nothing', async () => {
    const h = await named({ hookTimeoutMs: 200 });
    let late!: (ids: string[]) => void;
    answer = () =>
      new Promise<string[]>((resolve) => {
        late = resolve;
      });
    const r = await list(h);
    assert.equal(r.status, 503, r.text);
    assert.equal(r.json.code, 'TESSERA_HOOK_TIMEOUT');
    assert.equal(r.json.outcomeKnown, true);
    assert.equal(r.headers.get('retry-after'), '2');
    const line = h.log.lines.find((l) => l.event === 'tessera.hook.timeout');
    assert.equal(line?.hook, 'paymentInstrumentIds');
    assert.equal(line?.timeoutMs, 200);
    // Its answer comes after the page's: nothing is read for it.
    late(['ppi_verified_1']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(await accountsCalls(sb), []);
    // A hook that answers in time is read as usual on the same helper.
    answer = () => ['ppi_verified_1'];
    const again = await list(h);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(
      again.json.data.map((i: { id: string }) => i.id),
      ['ppi_verified_1'],
    );
  });

  it('passes a HelperHttpError the hook throws to the page as it is', async () => {
    const { HelperHttpError } = await import('../../../server/helper/index.js');
    const h = await named();
    answer = () => {
      throw new HelperHttpError(403, 'TESSERA_HOST_FORBIDDEN', 'this user may not see payouts', { field: 'entityId' });
    };
    const r = await list(h);
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.code, 'TESSERA_HOST_FORBIDDEN');
    assert.equal(r.json.field, 'entityId');
  });

  it('answers a HelperHttpError the hook throws with a status that cannot be answered as 500 TESSERA_INSTRUMENT_IDS_FAILED, never a stack trace', async () => {
    const { HelperHttpError } = await import('../../../server/helper/index.js');
    const h = await named();
    for (const [status, headers] of [
      [1000, {}],
      [200, {}],
      [503, { 'Retry-After': 'a\nb' }],
    ] as const) {
      answer = () => {
        throw new HelperHttpError(status, 'PLATFORM_DOWN', 'no payouts now', { headers });
      };
      const r = await list(h);
      // The hook threw: the catalogue's code for that (as `resolveCharge`'s is TESSERA_RESOLVE_CHARGE_FAILED), not
      // TESSERA_INTERNAL, which says the helper itself failed.
      assert.equal(r.status, 500, r.text);
      assert.equal(r.json.code, 'TESSERA_INSTRUMENT_IDS_FAILED', r.text);
      assert.ok(!/RangeError|TypeError|at /.test(r.text), r.text);
    }
    const lines = h.log.lines.filter((l) => l.event === 'tessera.payment_instrument_ids.failed');
    assert.equal(lines.length, 3);
    assert.match(String(lines[0]?.msg), /PLATFORM_DOWN.*1000/);
  });

  it('answers a provider fault on one read with 502/503 and outcomeKnown', async () => {
    const h = await named();
    answer = () => ['ppi_verified_1', 'ppi_verified_2'];
    for (const [rule, status] of [
      [{ status: 500 }, 502],
      [{ status: 503 }, 503],
      [{ reset: true }, 503],
    ] as const) {
      await fault(sb, { method: 'GET', path: '/accounts/entities/*/payment-instruments/ppi_verified_2', ...rule });
      const r = await list(h);
      assert.equal(r.status, status, `${JSON.stringify(rule)}: ${r.text}`);
      assert.equal(r.json.outcomeKnown, true);
    }
    const reads = ['ppi_verified_1', 'ppi_verified_2'].map(
      (id) => `GET /accounts/entities/ent_fixture_a/payment-instruments/${id}`,
    );
    assert.deepEqual((await accountsCalls(sb)).sort(), [...reads, ...reads, ...reads].sort(), 'both read each time');
  });

  it('answers a failed read only once the reads already sent have ended (none outlives the answer)', async () => {
    const h = await named();
    answer = () => ['ppi_verified_1', 'ppi_verified_2', 'ppi_eur'];
    const path = '/accounts/entities/*/payment-instruments';
    await fault(sb, { method: 'GET', path: `${path}/ppi_verified_1`, delayMs: 300 });
    await fault(sb, { method: 'GET', path: `${path}/ppi_verified_2`, status: 500 });
    const started = performance.now();
    const r = await list(h);
    assert.equal(r.status, 502, r.text);
    // A lower bound, not a timing target: answering at the first failure would take a few milliseconds.
    assert.ok(performance.now() - started >= 290, 'the slow read in flight was waited for');
    const paths = await accountsCalls(sb);
    assert.equal(paths.length, 3, 'each read was sent once (they run side by side)');
  });

  /** Many instruments whose every read the provider holds for `delayMs` (each answers 404 after it: none exists). */
  async function slowReads(count: number, delayMs: number): Promise<string[]> {
    await fault(sb, { method: 'GET', path: '/accounts/entities/*/payment-instruments/ppi_slow_*', delayMs, count });
    return Array.from({ length: count }, (_, i) => `ppi_slow_${i}`);
  }

  /** The helper's attempts of instrument reads, from its `provider.request` lines (debug). */
  const readsSent = (h: RunningHelper) =>
    h.log.lines.filter((l) => l.event === 'provider.request' && /payment-instruments\//.test(String(l.operation)));

  /** The sandbox's log of instrument reads: status 0 for one whose client went away before its answer. */
  async function sandboxReads(): Promise<{ path: string; status: number }[]> {
    const r = await call(`${sb.url}/_sandbox/requests?limit=200`);
    return (r.json.data as { method: string; path: string; status: number }[]).filter(
      (e) => e.method === 'GET' && e.path.includes('/payment-instruments/'),
    );
  }

  const cancelledAtSandbox = async (count: number) => {
    const reads = await sandboxReads();
    return reads.length === count && reads.every((e) => e.status === 0);
  };

  /**
   * The list of `h`, answered 504 `TESSERA_PROVIDER_TIMEOUT` (nothing done) before the provider's 8 s hold of a read
   * could end: a bound against a hang only, not a timing target.
   */
  async function timedOutList(h: RunningHelper): Promise<Answer> {
    const started = performance.now();
    const r = await list(h);
    assert.ok(performance.now() - started < 8000, 'answered before any read could end');
    assert.equal(r.status, 504, r.text);
    assert.equal(r.json.code, 'TESSERA_PROVIDER_TIMEOUT');
    assert.equal(r.json.outcomeKnown, true);
    return r;
  }

  it('answers 504 TESSERA_PROVIDER_TIMEOUT once instrumentListTimeoutMs has run out, cancelling the reads in flight and sending no more', async () => {
    const h = await named({ instrumentListTimeoutMs: 300 });
    // 40 reads the provider holds 8 s each: before the budget, the page waited 5 waves of 8 s (40 s) for a 200 with
    // an empty list, and a provider that answered just under `providerTimeoutMs` kept it waiting 100 / 8 × 10 s.
    const ids = await slowReads(40, 8000);
    answer = () => ids;
    const r = await timedOutList(h);
    assert.match(r.json.message, /did not answer in time: nothing was done/);
    assert.equal(r.json.data, undefined, 'never a partial list');
    // The first wave only, each sent once: the reads in flight were cancelled (not retried), the rest never sent.
    assert.equal(readsSent(h).length, 8);
    assert.deepEqual(
      h.log.lines.filter((l) => l.event === 'provider.retry' || l.event === 'provider.error'),
      [],
      'a cancelled read is neither retried nor logged as a provider failure',
    );
    // One line says why: the 5xx line every error answer gets, its cause naming the budget and what was read.
    const errors = h.log.lines.filter((l) => l.event === 'tessera.error');
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.code, 'TESSERA_PROVIDER_TIMEOUT');
    const cause = (errors[0]!.err as { cause: Record<string, unknown> }).cause;
    assert.equal(cause.type, 'InstrumentListTimeout');
    assert.equal(cause.timeoutMs, 300);
    assert.equal(cause.entityId, 'ent_fixture_a');
    assert.equal(cause.read, 0);
    assert.equal(cause.listed, 40);
    assert.match(String(cause.message), /instrumentListTimeoutMs \(300 ms\)/);
    // The provider saw each of the 8 go away before it answered (the sandbox logs a request when it closes).
    await until(() => cancelledAtSandbox(8), 'the sandbox logged the 8 reads as cancelled');
    assert.equal(readsSent(h).length, 8, 'no read was sent after the answer');
  });

  it('answers a list whose reads end within instrumentListTimeoutMs whole, slow reads and all', async () => {
    const h = await named({ instrumentListTimeoutMs: 5000 });
    answer = () => ['ppi_verified_1', 'ppi_eur', 'ppi_card'];
    await fault(sb, { method: 'GET', path: '/accounts/entities/*/payment-instruments/*', delayMs: 100, count: 3 });
    const r = await list(h);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.json.data.map((p: { id: string }) => p.id),
      ['ppi_verified_1', 'ppi_eur', 'ppi_card'],
    );
  });

  it('bounds the sandbox list extension by instrumentListTimeoutMs too', async () => {
    const h = await helper({ instrumentListTimeoutMs: 300 });
    await fault(sb, { method: 'GET', path: '/accounts/entities/*/payment-instruments', delayMs: 8000 });
    await timedOutList(h);
  });

  it('stops the reads when the page goes away: those in flight are cancelled, the queued ones never sent', async () => {
    const h = await named();
    const ids = await slowReads(40, 8000);
    answer = () => ids;
    const token = await issuer.sign({ sub: 'usr_a', entities: ['ent_fixture_a'], instruments: [] });
    const closed = new AbortController();
    const page = fetch(`${h.url}/entities/ent_fixture_a/payment-instruments`, {
      headers: { authorization: `Bearer ${token}` },
      signal: closed.signal,
    }).catch((err: unknown) => err);
    await until(() => readsSent(h).length === 8, 'the first 8 reads were sent');
    closed.abort();
    assert.equal(((await page) as Error).name, 'AbortError');
    await until(() => cancelledAtSandbox(8), 'the sandbox logged the 8 reads as cancelled');
    assert.equal(readsSent(h).length, 8, 'none of the 32 queued reads was sent');
    // Nobody to answer, and nothing failed: no error line.
    assert.deepEqual(
      h.log.lines.filter((l) => l.event === 'tessera.error' || l.event === 'provider.error'),
      [],
    );
  });

  it('stops at instrumentListTimeoutMs while a read waits for the access token renewed after a 401', async () => {
    const h = await named({ instrumentListTimeoutMs: 300, providerTimeoutMs: 8000 });
    answer = () => ['ppi_card'];
    assert.equal((await list(h)).status, 200, 'the access token is cached');
    await fault(sb, { method: 'GET', path: '/accounts/entities/*/payment-instruments/*', status: 401 });
    // The new token's answer sends its headers, then nothing: that request ends only at providerTimeoutMs.
    await fault(sb, { method: 'POST', path: '/connect/token', stallBody: true });
    await timedOutList(h);
    // The budget's 504, not the access-token request's failure once it timed out.
    const errors = h.log.lines.filter((l) => l.event === 'tessera.error');
    assert.equal(errors.length, 1);
    assert.equal((errors[0]!.err as { cause: { type: string } }).cause.type, 'InstrumentListTimeout');
  });

  it("holds one listener per read on the list's signal, retry waits included: no leak warning", async () => {
    const warnings: Error[] = [];
    const warned = (w: Error) => warnings.push(w);
    process.on('warning', warned);
    try {
      const h = await named({ providerMaxRetries: 2 });
      const ids = Array.from({ length: 8 }, (_, i) => `ppi_reset_${i}`);
      answer = () => ids;
      // Each first read's connection is closed without an answer: the 8 wait to be sent again at the same time.
      await fault(sb, {
        method: 'GET',
        path: '/accounts/entities/*/payment-instruments/ppi_reset_*',
        reset: true,
        count: 8,
      });
      const r = await list(h);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json.data, [], 'none exists');
      assert.equal(h.log.lines.filter((l) => l.event === 'provider.retry').length, 8);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(
        warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message),
        [],
      );
    } finally {
      process.off('warning', warned);
    }
  });

  it('without the hook, uses the sandbox list extension, and answers 501 where there is none', async () => {
    const h = await helper();
    const r = await list(h);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.data.length, 5);
    assert.deepEqual(await accountsCalls(sb), ['GET /accounts/entities/ent_fixture_a/payment-instruments']);

    const missing = await list(h, 'ent_missing');
    assert.equal(missing.status, 404, missing.text);
    assert.equal(missing.json.field, 'entityId');

    // A provider without the extension (the real one) answers its list path with a plain 404.
    await fault(sb, { method: 'GET', path: '/accounts/entities/*/payment-instruments', status: 404 });
    const none = await list(h);
    assert.equal(none.status, 501, none.text);
    assert.equal(none.json.code, 'TESSERA_LIST_NOT_CONFIGURED');
    assert.match(none.json.message, /paymentInstrumentIds/);
  });

  it('in production without the hook, answers 501 without calling the provider', async () => {
    const h = await helper({
      environment: 'production',
      publicKey: 'pk_live_0000000000000001',
      publicUrl: 'https://shop.example/payments',
      startupKeyCheck: false,
    });
    const r = await list(h);
    assert.equal(r.status, 501, r.text);
    assert.equal(r.json.code, 'TESSERA_LIST_NOT_CONFIGURED');
    assert.deepEqual(await accountsCalls(sb), []);
  });
});
