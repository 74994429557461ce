import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { UnsecuredJWT } from 'jose';
import type { HostAuthOptions, TesseraHelperOptions } from '../../../server/helper/index.js';
import { tesseraHelper } from '../../../server/helper/index.js';
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

type IsBound = NonNullable<HostAuthOptions['isBound']>;
type BindingCall = Parameters<IsBound>;

/**
 * `hostAuth.isBound`: the merchant holds a verified host token to the request it came with (its session), so a token
 * copied out of the page is refused away from it (docs/decisions/helper.md#helper-host-binding).
 */
describe('hostAuth.isBound: a host token bound to the request it came with', () => {
  let sb: RunningSandbox;
  let issuer: Issuer;
  const helpers: RunningHelper[] = [];
  const calls: BindingCall[] = [];
  const LIST = '/entities/ent_fixture_a/payment-instruments';
  const ONE = '/entities/ent_fixture_a/payment-instruments/ppi_verified_2';

  /** The test's stand-in for a session check: the token's `sid` must be the request's `session` cookie. */
  const sameSession: IsBound = (claims, { req }) => req.headers.cookie === `session=${String(claims.sid)}`;

  async function helper(isBound: IsBound | undefined, extra: Partial<TesseraHelperOptions> = {}) {
    const options = sandboxHelperOptions(sb, issuer);
    const started = await startHelper({
      ...options,
      resolveCharge: () => ({ amount: 100, currency: 'EUR' }),
      hostAuth: {
        ...options.hostAuth,
        ...(isBound
          ? {
              isBound: (...args: BindingCall) => {
                calls.push(args);
                return isBound(...args);
              },
            }
          : {}),
      },
      ...extra,
    });
    helpers.push(started);
    return started;
  }

  function ask(
    target: RunningHelper,
    path: string,
    token: string | undefined,
    cookie?: string,
    init: { method?: string; body?: unknown } = {},
  ): Promise<Answer> {
    return call(`${target.url}${path}`, {
      ...init,
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(cookie === undefined ? {} : { cookie }),
      },
    });
  }

  const token = (sid = 'sess-1') =>
    issuer.sign({ sub: 'usr_a', sid, entities: ['ent_fixture_a'], instruments: ['src_updated'] });

  before(async () => {
    sb = await startSandbox({ fixtures: sampleFixtures() });
    issuer = await startIssuer(() => sb.clock.nowMs());
  });
  beforeEach(() => {
    sb.context.reset();
    calls.length = 0;
  });
  after(async () => {
    for (const h of helpers) await h.close();
    await issuer.close();
    await sb.close();
  });

  it('passes a token the check answers true for, and gives it every claim (frozen) and the request', async () => {
    const h = await helper(sameSession);
    const r = await ask(h, LIST, await token(), 'session=sess-1');
    assert.equal(r.status, 200, r.text);
    assert.equal(calls.length, 1);
    const [claims, context] = calls[0]!;
    assert.deepEqual(
      [claims.iss, claims.sub, claims.sid, claims.aud, claims.entities, claims.instruments],
      [issuer.issuer, 'usr_a', 'sess-1', issuer.audience, ['ent_fixture_a'], ['src_updated']],
    );
    assert.equal(context.req.headers.cookie, 'session=sess-1');
    // A hook cannot widen what the token allows.
    assert.ok(Object.isFrozen(claims) && Object.isFrozen(claims.entities) && Object.isFrozen(claims.instruments));
  });

  it('freezes every claim to the bottom: what one hook changes in a nested claim, the next never sees', async () => {
    let seen: unknown;
    const h = await helper(
      (claims) => {
        for (const change of [
          () => Object.assign(claims.cnf as object, { jkt: 'changed' }),
          () => (claims.aud as string[]).push('another-app'),
        ]) {
          assert.throws(change, TypeError);
        }
        return true;
      },
      {
        paymentInstrumentIds: (_entity, { claims }) => {
          seen = [(claims as { cnf?: unknown }).cnf, (claims as { aud?: unknown }).aud];
          return ['ppi_verified_2'];
        },
      },
    );
    const nested = await issuer.sign({
      sub: 'usr_a',
      sid: 'sess-1',
      cnf: { jkt: 'thumbprint' },
      aud: [issuer.audience, 'tessera-reports'],
      entities: ['ent_fixture_a'],
    });
    const r = await ask(h, LIST, nested, 'session=sess-1');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(seen, [{ jkt: 'thumbprint' }, [issuer.audience, 'tessera-reports']]);
  });

  it('answers 401 TESSERA_HOST_AUTH_UNBOUND for a valid token the check refuses, asks the provider nothing, and counts it per IP', async () => {
    const h = await helper(sameSession, {
      rateLimits: { hostAuthFailuresPerIp: { max: 3, windowMs: 60_000 }, hostRequestsPerUser: false },
    });
    const good = await token();
    // Without its session, from another session, on a write as on a read.
    const refusals = [
      await ask(h, LIST, good),
      await ask(h, LIST, good, 'session=sess-2'),
      await ask(h, ONE, good, 'session=sess-2', { method: 'PATCH', body: { label: 'Stolen' } }),
    ];
    for (const r of refusals) {
      assert.deepEqual([r.status, r.json?.code, r.json?.field], [401, 'TESSERA_HOST_AUTH_UNBOUND', 'authorization']);
      assert.equal(r.headers.get('www-authenticate'), 'Bearer realm="tessera", error="invalid_token"');
    }
    assert.deepEqual(await accountsCalls(sb), [], 'nothing was read or changed');
    // Three 401s: the IP is past hostAuthFailuresPerIp, even with the right session, before its token is read.
    const limited = await ask(h, LIST, good, 'session=sess-1');
    assert.deepEqual(
      [limited.status, limited.json.code, limited.json.limit],
      [429, 'TESSERA_RATE_LIMITED', 'hostAuthFailuresPerIp'],
    );
    assert.equal(calls.length, 3, 'the limited request was not checked');
    sb.clock.advance(60);
    assert.equal((await ask(h, LIST, good, 'session=sess-1')).status, 200, 'the window is over');
  });

  it('spends nothing of the user budget on a refused token: a stolen token cannot lock its user out', async () => {
    const h = await helper(sameSession, { rateLimits: { hostRequestsPerUser: { max: 2, windowMs: 60_000 } } });
    const good = await token();
    for (let i = 0; i < 5; i++) assert.equal((await ask(h, LIST, good, 'session=thief')).status, 401);
    for (let i = 0; i < 2; i++)
      assert.equal((await ask(h, LIST, good, 'session=sess-1')).status, 200, `request ${i + 1}`);
  });

  it('never passes a token when the check throws, rejects or answers other than true or false: 503, logged, not counted', async () => {
    let answer: () => unknown = () => true;
    const h = await helper(() => answer() as boolean, {
      rateLimits: { hostAuthFailuresPerIp: { max: 1, windowMs: 60_000 }, hostRequestsPerUser: false },
    });
    const good = await token();
    const broken: [string, () => unknown][] = [
      [
        'threw: session store down',
        () => {
          throw new Error('session store down');
        },
      ],
      ['threw: session store gone', () => Promise.reject(new Error('session store gone'))],
      ['answered a string, not true or false', () => 'yes'],
      ['answered a number, not true or false', () => 1],
      ['answered a undefined, not true or false', () => undefined],
      ['answered an object, not true or false', () => Promise.resolve({ ok: true })],
    ];
    for (const [said, hook] of broken) {
      answer = hook;
      for (const [method, path, body] of [
        ['GET', LIST, undefined],
        ['PATCH', ONE, { label: 'Changed' }],
      ] as const) {
        const r = await ask(h, path, good, 'session=sess-1', { method, ...(body ? { body } : {}) });
        assert.deepEqual(
          [r.status, r.json?.code, r.json?.outcomeKnown],
          [503, 'TESSERA_HOST_AUTH_UNAVAILABLE', true],
          `${said}: ${r.text}`,
        );
        assert.doesNotMatch(r.text, /session store/);
      }
      const logged = h.log.lines.filter((l) => l.event === 'tessera.host_auth.is_bound.failed').at(-1);
      assert.equal(logged?.msg, `hostAuth.isBound ${said}`);
    }
    assert.deepEqual(await accountsCalls(sb), [], 'nothing was read or changed');
    // None of the 503s counted toward hostAuthFailuresPerIp (max 1): the token is not at fault.
    answer = () => true;
    assert.equal((await ask(h, LIST, good, 'session=sess-1')).status, 200);
  });

  it('answers 503 TESSERA_HOOK_TIMEOUT, never 200, when the check has not answered within hookTimeoutMs', {
    timeout: 20_000,
  }, async () => {
    let late: (v: boolean) => void = () => {};
    const h = await helper(
      () =>
        new Promise<boolean>((resolve) => {
          late = resolve;
        }),
      { hookTimeoutMs: 200 },
    );
    const r = await ask(h, ONE, await token(), 'session=sess-1', { method: 'PATCH', body: { label: 'Late' } });
    assert.deepEqual([r.status, r.json.code, r.json.outcomeKnown], [503, 'TESSERA_HOOK_TIMEOUT', true]);
    assert.equal(r.headers.get('retry-after'), '2');
    late(true);
    const logged = h.log.lines.find((l) => l.event === 'tessera.hook.timeout');
    assert.deepEqual([logged?.hook, logged?.timeoutMs], ['hostAuth.isBound', 200]);
    assert.deepEqual(await accountsCalls(sb), [], 'its late true changed nothing');
  });

  it('is not called for a missing token, nor for one that fails its signature or claims', async () => {
    const h = await helper(() => true);
    const seconds = Math.floor(sb.clock.nowMs() / 1000);
    const good = await token();
    const [head, body] = good.split('.');
    const refused = [
      undefined,
      new UnsecuredJWT({ iss: issuer.issuer, aud: issuer.audience, sub: 'usr_a', sid: 'sess-1' }).encode(),
      `${head}.${body}.${'A'.repeat(86)}`,
      await issuer.sign({ sid: 'sess-1', aud: 'another-app' }),
      await issuer.sign({ sid: 'sess-1' }, { exp: seconds - 60, iat: seconds - 600 }),
      await issuer.sign({ sid: 'sess-1', sub: '' }),
      await issuer.sign({ sid: 'sess-1', entities: 'ent_fixture_a' }),
    ];
    for (const bad of refused) {
      const r = await ask(h, LIST, bad, 'session=sess-1');
      assert.equal(r.status, 401, r.text);
      assert.notEqual(r.json.code, 'TESSERA_HOST_AUTH_UNBOUND');
    }
    assert.equal(calls.length, 0);
    assert.equal((await ask(h, LIST, good, 'session=sess-1')).status, 200);
    assert.equal(calls.length, 1);
  });

  it('changes nothing without the option: a valid token passes with or without a session', async () => {
    const h = await helper(undefined);
    const good = await token();
    assert.equal((await ask(h, LIST, good)).status, 200);
    assert.equal((await ask(h, LIST, good, 'session=other')).status, 200);
  });

  it('refuses an isBound that is not a function when the helper is built, naming it', () => {
    const options = sandboxHelperOptions(sb, issuer);
    assert.throws(
      () =>
        tesseraHelper({
          ...options,
          resolveCharge: () => undefined,
          hostAuth: { ...options.hostAuth, isBound: true as never },
        }),
      /option `hostAuth.isBound` must be a function `\(claims, \{ req \}\) => boolean`/,
    );
  });
});
