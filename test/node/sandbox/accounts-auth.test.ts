import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { accessToken, authed, callWithHost, sampleFixtures, V3 } from './accounts-support.js';

describe('Account Services auth', () => {
  let sb: RunningSandbox;
  let all: string;
  let accountsOnly: string;
  let updaterOnly: string;
  before(async () => {
    sb = await startSandbox({ fixtures: sampleFixtures() });
    all = await accessToken(sb);
    accountsOnly = await accessToken(sb, 'accounts');
    updaterOnly = await accessToken(sb, 'vault:real-time-account-updater');
  });
  after(() => sb.close());

  const card = { source_options: { card: { number: '4000000000004004', expiry_month: 1, expiry_year: 2030 } } };
  // [name, method, path, body, Accept, which credentials work]
  const endpoints: [string, string, string, unknown, string | undefined, 'entities' | 'accountsOrKey' | 'updater'][] = [
    ['GET entity', 'GET', '/accounts/entities/ent_fixture_a', undefined, V3, 'entities'],
    ['GET members', 'GET', '/accounts/entities/ent_fixture_a/members', undefined, undefined, 'accountsOrKey'],
    [
      'GET instrument',
      'GET',
      '/accounts/entities/ent_fixture_a/payment-instruments/ppi_verified_1',
      undefined,
      undefined,
      'accountsOrKey',
    ],
    [
      'GET reserve rule',
      'GET',
      '/accounts/entities/ent_fixture_a/reserve-rules/rsv_future',
      undefined,
      undefined,
      'accountsOrKey',
    ],
    ['POST account updater', 'POST', '/account-updater/cards', card, undefined, 'updater'],
  ];

  it('answers 401 for a missing, malformed, unknown, forged or expired credential on every endpoint', async () => {
    const forged = await new SignJWT({ scope: 'accounts vault:real-time-account-updater' })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setIssuer('tessera-sandbox')
      .setAudience('tessera-sandbox')
      .setSubject(sb.credentials.clientId)
      .setExpirationTime('1h')
      .sign(new Uint8Array(32));
    const [h, p, s] = all.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ scope: 'accounts', sub: sb.credentials.clientId })).toString('base64url')}.${s}`;
    const cases: [string, Record<string, string>, string][] = [
      ['none', {}, 'authorization_required'],
      ['basic scheme', { authorization: 'Basic abc' }, 'authorization_malformed'],
      ['two credentials', { authorization: 'Bearer a b' }, 'authorization_malformed'],
      ['bearer without value', { authorization: 'Bearer ' }, 'authorization_malformed'],
      ['not a jwt', authed('hello'), 'token_invalid'],
      ['wrong secret key', authed('sk_sbox_wrong'), 'key_invalid'],
      ['forged signature', authed(forged), 'token_invalid'],
      ['tampered payload', authed(tampered), 'token_invalid'],
      ['alg none', authed(`${Buffer.from('{"alg":"none"}').toString('base64url')}.${p}.`), 'token_invalid'],
    ];
    for (const [ep, method, path, body, accept] of endpoints) {
      for (const [name, headers, code] of cases) {
        const r = await call(`${sb.url}${path}`, {
          method,
          body,
          headers: { ...headers, ...(accept ? { accept } : {}) },
        });
        assert.equal(r.status, 401, `${ep} / ${name}: ${r.text}`);
        assert.deepEqual(r.json.error_codes, [code], `${ep} / ${name}`);
        assert.equal(r.json.error_type, 'unauthorized');
        const challenge = r.headers.get('www-authenticate') ?? '';
        assert.match(
          challenge,
          /^Bearer realm="tessera-sandbox"(, error="invalid_token", error_description="[^"\\]*")?$/,
        );
      }
    }
  });

  it('expires access tokens on the sandbox clock', async () => {
    const token = await accessToken(sb, 'accounts');
    const path = `${sb.url}/accounts/entities/ent_fixture_a/members`;
    assert.equal((await call(path, { headers: authed(token) })).status, 200);
    // iat/exp are whole seconds (floored), so a token issued late in a second has up to one second
    // less: 3598 s stays clear of the boundary on a slow machine, 3 more seconds cross it.
    sb.clock.advance(3598);
    assert.equal((await call(path, { headers: authed(token) })).status, 200);
    sb.clock.advance(3);
    const r = await call(path, { headers: authed(token) });
    assert.equal(r.status, 401);
    assert.deepEqual(r.json.error_codes, ['token_expired']);
    assert.match(r.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    all = await accessToken(sb);
    accountsOnly = await accessToken(sb, 'accounts');
    updaterOnly = await accessToken(sb, 'vault:real-time-account-updater');
  });

  it('answers 403 for valid credentials without the permission, 200 with it', async () => {
    const { secretKey, publicKey } = sb.credentials;
    const allowed = {
      entities: [all, accountsOnly],
      accountsOrKey: [all, accountsOnly, secretKey],
      updater: [all, updaterOnly],
    };
    const refused = {
      entities: [
        [updaterOnly, 'scope_required'],
        [secretKey, 'secret_key_not_allowed'],
        [publicKey, 'public_key_not_allowed'],
      ],
      accountsOrKey: [
        [updaterOnly, 'scope_required'],
        [publicKey, 'public_key_not_allowed'],
      ],
      updater: [
        [accountsOnly, 'scope_required'],
        [secretKey, 'secret_key_not_allowed'],
        [publicKey, 'public_key_not_allowed'],
      ],
    };
    for (const [ep, method, path, body, accept, kind] of endpoints) {
      const headers = (c: string) => authed(c, accept ? { accept } : {});
      for (const cred of allowed[kind]) {
        const r = await call(`${sb.url}${path}`, { method, body, headers: headers(cred) });
        assert.equal(r.status, 200, `${ep} with ${cred.slice(0, 12)}: ${r.text}`);
      }
      for (const [cred, code] of refused[kind]) {
        const r = await call(`${sb.url}${path}`, { method, body, headers: headers(cred!) });
        assert.equal(r.status, 403, `${ep} with ${cred!.slice(0, 12)}: ${r.text}`);
        assert.deepEqual(r.json.error_codes, [code]);
        assert.equal(r.json.error_type, 'forbidden');
        assert.match(r.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
      }
    }
  });

  it('puts Svc-Version and Svc-Request-Id on every answer, and the request id in every error body', async () => {
    const answers = [
      await call(`${sb.url}/accounts/entities/ent_fixture_a/members`, { headers: authed(all) }),
      await call(`${sb.url}/accounts/entities/ent_fixture_a/members`),
      await call(`${sb.url}/accounts/entities/ent_nope/members`, { headers: authed(all) }),
      await call(`${sb.url}/accounts/nothing-here`, { headers: authed(all) }),
      await call(`${sb.url}/accounts/entities/ent_fixture_a/members`, {
        headers: authed(all, { accept: 'application/xml' }),
      }),
    ];
    const seen = new Set<string>();
    for (const r of answers) {
      assert.equal(r.headers.get('svc-version'), '1.0.0', r.text);
      const id = r.headers.get('svc-request-id') ?? '';
      assert.match(id, /^req_[a-z2-7]{26}$/);
      seen.add(id);
      if (r.status >= 400) assert.equal(r.json.request_id, id);
    }
    assert.equal(seen.size, answers.length);
    assert.deepEqual(
      answers.map((r) => r.status),
      [200, 401, 404, 404, 406],
    );
    assert.equal(answers[4]!.json.error_type, 'not_acceptable');
  });

  it('renders injected faults in the Account Services error shape', async () => {
    await call(`${sb.url}/_sandbox/faults`, { body: { path: '/accounts/**', status: 503 } });
    const r = await call(`${sb.url}/accounts/entities/ent_fixture_a/members`, { headers: authed(all) });
    assert.equal(r.status, 503);
    assert.equal(r.json.error_type, 'service_unavailable');
    assert.deepEqual(r.json.error_codes, ['injected_fault']);
    assert.equal(r.json.request_id, r.headers.get('svc-request-id'));
    assert.equal(r.headers.get('svc-version'), '1.0.0');
  });

  it('applies the host prefix rule to the API: 421 for a foreign first label, accepted by IP and localhost', async () => {
    const path = `${sb.url}/accounts/entities/ent_fixture_a/members`;
    const port = new URL(sb.url).port;
    const cases: [string, number][] = [
      [`tessdemo.api.sandbox.example:${port}`, 200],
      [`127.0.0.1:${port}`, 200],
      [`localhost:${port}`, 200],
      ['evil.api.sandbox.example', 421],
      ['tessdemo0.api.sandbox.example', 421],
    ];
    for (const [host, status] of cases) {
      const r = await callWithHost(path, host, { headers: authed(all) });
      assert.equal(r.status, status, `${host}: ${r.text}`);
      if (status === 421) {
        assert.equal(r.json.error_type, 'misdirected_request');
        assert.deepEqual(r.json.error_codes, ['host_prefix_mismatch']);
      }
    }
    const linked = await callWithHost(
      `${sb.url}/accounts/entities/ent_fixture_a`,
      `tessdemo.api.sandbox.example:${port}`,
      {
        headers: authed(all, { accept: V3 }),
      },
    );
    assert.equal(
      linked.json._links.self.href,
      `http://tessdemo.api.sandbox.example:${port}/accounts/entities/ent_fixture_a`,
    );
  });
});

describe('Account Services in production mode', () => {
  it('hides the onboarding simulator and the sandbox controls (404) but serves the API', async () => {
    const prod = await startSandbox({ mode: 'production', fixtures: sampleFixtures() });
    try {
      const token = await accessToken(prod);
      const sim = await call(`${prod.url}/onboarding-simulator/entities/ent_fixture_a`, { headers: authed(token) });
      assert.equal(sim.status, 404);
      assert.equal(sim.json.error_type, 'not_found');
      const move = await call(`${prod.url}/onboarding-simulator/entities/ent_fixture_a`, {
        headers: authed(token),
        body: { status: 'active' },
      });
      assert.equal(move.status, 404);
      assert.equal((await call(`${prod.url}/_sandbox/account-updater/test-cards`)).status, 404);
      assert.equal((await call(`${prod.url}/_sandbox/accounts/settings`)).status, 404);
      const api = await call(`${prod.url}/accounts/entities/ent_fixture_a/members`, { headers: authed(token) });
      assert.equal(api.status, 200);
    } finally {
      await prod.close();
    }
  });
});
