import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync, KeyObject } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it, mock } from 'node:test';
import { gzipSync } from 'node:zlib';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { HelperHttpError } from '../../../server/helper/errors.js';
import { createHostVerifier, type HostAuthOptions } from '../../../server/helper/host-auth.js';
import {
  JWKS_CACHE_MAX_AGE_MS,
  JWKS_MAX_BYTES,
  JWKS_RETRY_MS,
  JwksTooLarge,
} from '../../../server/helper/jwks-fetch.js';
import type { HelperLogger } from '../../../server/helper/log.js';
import { VirtualClock } from '../../../server/sandbox/clock.js';
import { startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { captureLogger, type Issuer, sandboxHelperOptions, startHelper, startIssuer } from './support.js';

/** For the tests that do not read the verifier's log lines. */
const quiet: HelperLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** jose's cache age in seconds: a set is stale past it, and `jwksStaleIfErrorSeconds` counts from there. */
const CACHE_AGE = JWKS_CACHE_MAX_AGE_MS / 1000;

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** Expects `promise` to reject with this status and code. */
async function refused(promise: Promise<unknown>, status: number, code: string, message?: RegExp): Promise<void> {
  await assert.rejects(promise, (err: { status: number; code: string; message: string }) => {
    assert.equal(err.status, status);
    assert.equal(err.code, code);
    if (message) assert.match(err.message, message);
    return true;
  });
}

describe('host JWT verification', () => {
  const clock = new VirtualClock();
  const now = () => clock.nowMs();
  let issuer: Issuer;
  let options: HostAuthOptions;
  before(async () => {
    issuer = await startIssuer(now);
    options = { issuer: issuer.issuer, audience: issuer.audience, algorithms: ['ES256'], jwksUrl: issuer.jwksUrl };
  });
  after(() => issuer.close());

  /** A JWKS endpoint serving the issuer's set while `up`, else 503; `close` ends it. */
  async function switchableJwks() {
    const state = { up: true };
    const good = await (await fetch(issuer.jwksUrl)).text();
    const server = createServer((_req, res) => {
      if (state.up) res.writeHead(200, { 'content-type': 'application/json' }).end(good);
      else res.writeHead(503).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      state,
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`,
      close() {
        server.closeAllConnections();
        server.close();
      },
    };
  }

  it('accepts a good token from the JWKS and reads sub, entities and instruments, with its other claims', async () => {
    const verify = createHostVerifier(options, now, quiet);
    const seconds = Math.floor(now() / 1000);
    const token = await issuer.sign(
      { entities: ['ent_a'], instruments: ['src_a'], sid: 'bound' },
      { iat: seconds, exp: seconds + 300 },
    );
    // Every claim, for hostAuth.isBound (docs/decisions/helper.md#helper-host-binding).
    assert.deepEqual(await verify(`Bearer ${token}`), {
      iss: issuer.issuer,
      aud: issuer.audience,
      sub: 'usr_1',
      iat: seconds,
      exp: seconds + 300,
      sid: 'bound',
      entities: ['ent_a'],
      instruments: ['src_a'],
    });
    const bare = await verify(`Bearer ${await issuer.sign()}`);
    assert.deepEqual(
      [bare.iss, bare.sub, bare.entities, bare.instruments],
      [issuer.issuer, 'usr_1', [], []],
      'absent lists are empty',
    );
    // RFC 6750 §2.1: `"Bearer" 1*SP b64token`, the scheme in any case.
    assert.equal((await verify(`bearer   ${await issuer.sign()}`)).sub, 'usr_1');
  });

  it('accepts a configured key (SPKI PEM) instead of a JWKS', async () => {
    const pem = issuer.publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const verify = createHostVerifier({ ...options, jwksUrl: undefined, key: pem }, now, quiet);
    assert.equal((await verify(`Bearer ${await issuer.sign()}`)).sub, 'usr_1');
  });

  it('answers 401 TESSERA_HOST_AUTH_MISSING without a bearer token', async () => {
    const verify = createHostVerifier(options, now, quiet);
    for (const header of [undefined, '', 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer a b', `Bearer ${'a'.repeat(9000)}`]) {
      await refused(verify(header), 401, 'TESSERA_HOST_AUTH_MISSING');
    }
  });

  it('rejects every classic attack with 401 TESSERA_HOST_AUTH_INVALID', async () => {
    const verify = createHostVerifier(options, now, quiet);
    const seconds = Math.floor(now() / 1000);
    const claims = { iss: issuer.issuer, aud: issuer.audience, sub: 'usr_1', exp: seconds + 300, entities: ['ent_a'] };
    const none = new UnsecuredJWT(claims).encode();
    // The attacker signs HS256 with the issuer's *public* key as the HMAC secret (algorithm confusion).
    const pem = issuer.publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const signingInput = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
    const confused = `${signingInput}.${createHmac('sha256', pem).update(signingInput).digest('base64url')}`;
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const foreign = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'host-1' }).sign(other);
    const valid = await issuer.sign();
    const [h, p, s] = valid.split('.');
    const tampered = `${h}.${b64({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), sub: 'usr_admin' })}.${s}`;
    const cases: [string, string, RegExp?][] = [
      ['alg none', none],
      ['HS256 signed with the public key', confused, /algorithm is not allowed/],
      ['wrong audience', await issuer.sign({ aud: 'someone-else' }), /aud claim/],
      ['wrong issuer', await issuer.sign({ iss: 'https://evil.example' }), /iss claim/],
      ['expired beyond the tolerance', await issuer.sign({}, { exp: seconds - 6, iat: seconds - 600 }), /expired/],
      ['signed by another key', foreign],
      ['payload changed after signing', tampered],
      ['not a JWT', 'abc.def.ghi'],
      ['missing sub', await issuer.sign({ sub: undefined })],
      ['entities not a list of strings', await issuer.sign({ entities: 'ent_a' })],
      ['instruments holding a number', await issuer.sign({ instruments: [1] })],
    ] as [string, string, RegExp?][];
    for (const [name, token, message] of cases) {
      await assert.rejects(verify(`Bearer ${token}`), (err: { status: number; code: string; message: string }) => {
        assert.equal(err.status, 401, name);
        assert.equal(err.code, 'TESSERA_HOST_AUTH_INVALID', name);
        if (message) assert.match(err.message, message, name);
        return true;
      });
    }
  });

  it('rejects typed tokens that are not host JWTs, crit extensions, nbf and iat in the future', async () => {
    const verify = createHostVerifier(options, now, quiet);
    const seconds = Math.floor(now() / 1000);
    const crit = await new SignJWT({ sub: 'usr_1', ext: 1 })
      .setProtectedHeader({ alg: 'ES256', kid: 'host-1', crit: ['ext'], ext: 1 } as never)
      .setIssuer(issuer.issuer)
      .setAudience(issuer.audience)
      .setExpirationTime(seconds + 300)
      .sign(issuer.privateKey, { crit: { ext: true } });
    const cases: [string, string, RegExp][] = [
      ['an OAuth access token (typ at+jwt)', await issuer.sign({}, { header: { typ: 'at+jwt' } }), /typ header/],
      ['a logout token', await issuer.sign({}, { header: { typ: 'logout+jwt' } }), /typ header/],
      ['a crit extension the helper does not know', crit, /not valid/],
      ['nbf in the future', await issuer.sign({ nbf: seconds + 3600 }), /nbf claim/],
      ['iat a year ahead', await issuer.sign({}, { iat: seconds + 365 * 86400, exp: seconds + 300 }), /iat claim/],
      ['an unknown kid', await issuer.sign({}, { header: { kid: '../../other' } }), /not valid/],
    ];
    for (const [name, token, message] of cases) {
      await refused(verify(`Bearer ${token}`), 401, 'TESSERA_HOST_AUTH_INVALID', message).catch((err) => {
        throw new Error(`${name}: ${err.message}`);
      });
    }
    for (const typ of ['JWT', 'jwt', 'application/jwt']) {
      assert.equal((await verify(`Bearer ${await issuer.sign({}, { header: { typ } })}`)).sub, 'usr_1', typ);
    }
    assert.equal((await verify(`bearer ${await issuer.sign({}, { iat: seconds + 4 })}`)).sub, 'usr_1');
  });

  it('allows at most the configured clock tolerance, by the helper clock', async () => {
    const verify = createHostVerifier({ ...options, clockToleranceSeconds: 30 }, now, quiet);
    const token = await issuer.sign({}, { exp: Math.floor(now() / 1000) + 10 });
    clock.advance(35);
    assert.equal((await verify(`Bearer ${token}`)).sub, 'usr_1');
    clock.advance(10);
    await refused(verify(`Bearer ${token}`), 401, 'TESSERA_HOST_AUTH_INVALID', /expired/);
  });

  it('enforces maxAgeSeconds through iat when configured', async () => {
    const verify = createHostVerifier({ ...options, maxAgeSeconds: 60 }, now, quiet);
    const seconds = Math.floor(now() / 1000);
    await refused(
      verify(`Bearer ${await issuer.sign({}, { iat: seconds - 600, exp: seconds + 300 })}`),
      401,
      'TESSERA_HOST_AUTH_INVALID',
      /older than maxAgeSeconds allows/,
    );
  });

  it('answers 503 when the JWKS cannot be reached', async () => {
    const verify = createHostVerifier({ ...options, jwksUrl: 'http://127.0.0.1:9/jwks.json' }, now, quiet);
    await refused(verify(`Bearer ${await issuer.sign()}`), 503, 'TESSERA_HOST_AUTH_UNAVAILABLE');
  });

  it('says outcomeKnown: true on the 503 of an unreadable JWKS: nothing was done, the same request may be sent again', async () => {
    const verify = createHostVerifier({ ...options, jwksUrl: 'http://127.0.0.1:9/jwks.json' }, now, quiet);
    const error = await verify(`Bearer ${await issuer.sign()}`).catch((e: unknown) => e);
    assert.ok(error instanceof HelperHttpError, String(error));
    assert.equal(error.code, 'TESSERA_HOST_AUTH_UNAVAILABLE');
    assert.equal(error.outcomeKnown, true);
  });

  it('answers 503 in bounded time when the JWKS accepts the connection but never answers', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const verify = createHostVerifier(
        { ...options, jwksUrl: `http://127.0.0.1:${port}/jwks.json`, jwksTimeoutMs: 200 },
        now,
        quiet,
      );
      const started = performance.now();
      await refused(verify(`Bearer ${await issuer.sign()}`), 503, 'TESSERA_HOST_AUTH_UNAVAILABLE');
      assert.ok(performance.now() - started < 2000, 'the JWKS timeout bounds the wait');
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('answers 503, not 401, when the JWKS answers an error, a body that is not a key set, or stalls its body, with or without jwksStaleIfErrorSeconds', async () => {
    // Each is the issuer's fault, not the token's: a 401 would tell the page to drop a good token.
    const privateJwk = { ...(await exportJWK(issuer.privateKey)), kid: 'host-1', alg: 'ES256' };
    const answers: Record<string, (res: import('node:http').ServerResponse) => void> = {
      '/500': (res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"down"}'),
      '/404': (res) => res.writeHead(404).end(),
      '/204': (res) => res.writeHead(204).end(),
      '/999': (res) => res.writeHead(999).end('{"keys":[]}'),
      '/html': (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>'),
      '/truncated': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":['),
      '/not-a-set': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":5}'),
      // An issuer that publishes its private key: jose refuses the set (and the merchant's log says so).
      '/private': (res) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [privateJwk] })),
      '/stalled-body': (res) => res.writeHead(200, { 'content-type': 'application/json' }).write('{"keys":['),
      // Not followed, though it points at the issuer's good set: a 3xx is an answer other than 200.
      '/redirect': (res) => res.writeHead(302, { location: issuer.jwksUrl }).end(),
    };
    const jwks = createServer((req, res) => answers[req.url ?? '']?.(res) ?? res.writeHead(400).end());
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = jwks.address() as AddressInfo;
      const token = await issuer.sign();
      // With jwksStaleIfErrorSeconds too: a set jose loaded whose key cannot be used (`/private`) is the one the
      // fallback holds, and its lookup failed the same way: 401 TESSERA_HOST_AUTH_INVALID, telling the page to drop a
      // good token, until the fallback's own error was taken for the issuer's too.
      for (const stale of [{}, { jwksStaleIfErrorSeconds: 3600 }]) {
        for (const path of Object.keys(answers)) {
          const verify = createHostVerifier(
            { ...options, ...stale, jwksUrl: `http://127.0.0.1:${port}${path}`, jwksTimeoutMs: 300 },
            now,
            quiet,
          );
          await refused(verify(`Bearer ${token}`), 503, 'TESSERA_HOST_AUTH_UNAVAILABLE').catch((err: Error) => {
            throw new Error(`JWKS at ${path} (${JSON.stringify(stale)}): ${err.message}`);
          });
        }
      }
    } finally {
      jwks.closeAllConnections();
      jwks.close();
    }
  });

  it('fetches a failing JWKS at most once per JWKS_RETRY_MS after two failures, whatever the number of tokens, and again after', async () => {
    // jose keeps no cooldown after a failed fetch: each request (random `kid`s, or any token while no set was ever
    // loaded) fetched the issuer's JWKS again, one outbound request per inbound one for as long as the issuer failed.
    // The wait starts at the second failed fetch in a row (a single one is a blip: see the next test).
    let fetches = 0;
    let up = false;
    const good = await (await fetch(issuer.jwksUrl)).text();
    const jwks = createServer((_req, res) => {
      fetches++;
      if (up) res.writeHead(200, { 'content-type': 'application/json' }).end(good);
      else res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = jwks.address() as AddressInfo;
      const verify = createHostVerifier({ ...options, jwksUrl: `http://127.0.0.1:${port}/jwks.json` }, now, quiet);
      const token = await issuer.sign();
      for (let i = 0; i < 30; i++) {
        const kid = i % 2 ? 'host-1' : `kid-${i}`;
        await refused(
          verify(`Bearer ${await issuer.sign({}, { header: { kid } })}`),
          503,
          'TESSERA_HOST_AUTH_UNAVAILABLE',
        );
      }
      assert.equal(fetches, 2, 'two fetches for 30 requests while the issuer fails');
      clock.advance(JWKS_RETRY_MS / 1000 - 1);
      await refused(verify(`Bearer ${token}`), 503, 'TESSERA_HOST_AUTH_UNAVAILABLE');
      assert.equal(fetches, 2, 'still waiting: the refused lookups did not start the wait again');
      clock.advance(1);
      await refused(verify(`Bearer ${token}`), 503, 'TESSERA_HOST_AUTH_UNAVAILABLE');
      assert.equal(fetches, 3, 'fetched again once the wait is over');
      up = true;
      await refused(verify(`Bearer ${token}`), 503, 'TESSERA_HOST_AUTH_UNAVAILABLE');
      clock.advance(JWKS_RETRY_MS / 1000);
      assert.equal((await verify(`Bearer ${token}`)).sub, 'usr_1', 'the issuer is back: the set is loaded');
      assert.equal(fetches, 4);
    } finally {
      jwks.closeAllConnections();
      jwks.close();
    }
  });

  it('answers the next request after one failed JWKS fetch (a blip) from a fetch of its own, not 503 for JWKS_RETRY_MS', async () => {
    // The wait used to start at the first failed fetch: a set older than jose's 10 minutes (refreshed by the first
    // request after them), a new `kid` after a key rotation, or the first token after a start, met one failed fetch, and
    // every request of every user was 503 for 5 s, the issuer back at once. Now only two failures in a row start it.
    let fetches = 0;
    let failNext = true;
    const good = await (await fetch(issuer.jwksUrl)).text();
    const jwks = createServer((_req, res) => {
      fetches++;
      if (failNext) {
        failNext = false;
        res.writeHead(503).end();
      } else res.writeHead(200, { 'content-type': 'application/json' }).end(good);
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = jwks.address() as AddressInfo;
      const jwksUrl = `http://127.0.0.1:${port}/jwks.json`;
      // The first token after a start.
      let verify = createHostVerifier({ ...options, jwksUrl }, now, quiet);
      const first = await Promise.all([1, 2, 3].map(() => issuer.sign()));
      // Three lookups at once share one failed fetch: one failure, not three.
      await Promise.all(first.map((t) => refused(verify(`Bearer ${t}`), 503, 'TESSERA_HOST_AUTH_UNAVAILABLE')));
      assert.equal(fetches, 1);
      assert.equal((await verify(`Bearer ${await issuer.sign()}`)).sub, 'usr_1', 'the issuer is back: served');
      assert.equal(fetches, 2);
      // A set older than jose's 10 minutes, refreshed by the next request: jose measures its ages on Date.
      verify = createHostVerifier({ ...options, jwksUrl }, now, quiet);
      mock.timers.enable({ apis: ['Date'], now: Date.now() });
      try {
        assert.equal((await verify(`Bearer ${await issuer.sign()}`)).sub, 'usr_1');
        mock.timers.tick(11 * 60_000);
        failNext = true;
        await refused(verify(`Bearer ${await issuer.sign()}`), 503, 'TESSERA_HOST_AUTH_UNAVAILABLE');
        assert.equal((await verify(`Bearer ${await issuer.sign()}`)).sub, 'usr_1', 'a key of the loaded set: served');
        assert.equal(fetches, 5);
        // A failure after the set was loaded again is a first failure again, not a second in a row.
        mock.timers.tick(11 * 60_000);
        failNext = true;
        await refused(verify(`Bearer ${await issuer.sign()}`), 503, 'TESSERA_HOST_AUTH_UNAVAILABLE');
        assert.equal((await verify(`Bearer ${await issuer.sign()}`)).sub, 'usr_1');
        assert.equal(fetches, 7);
      } finally {
        mock.timers.reset();
      }
    } finally {
      jwks.closeAllConnections();
      jwks.close();
    }
  });

  it('serves the last good JWKS for jwksStaleIfErrorSeconds while the issuer fails, never longer, never for a kid it lacks', async () => {
    // A set older than jose's 10 minutes was not used while the issuer was down: every dashboard request was 503 until
    // it was back. With the option, a failed fetch (5xx, a network error, an unreadable answer, a stopped issuer)
    // falls back to the last good set fetched within the window; a successful fetch replaces it at once.
    let mode: 'up' | 'empty' | '500' | 'reset' | 'html' = 'up';
    const good = await (await fetch(issuer.jwksUrl)).text();
    const jwks = createServer((req, res) => {
      if (mode === 'up') res.writeHead(200, { 'content-type': 'application/json' }).end(good);
      else if (mode === 'empty') res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}');
      else if (mode === '500') res.writeHead(500).end();
      else if (mode === 'html') res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
      else req.socket.destroy();
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const { port } = jwks.address() as AddressInfo;
    const jwksUrl = `http://127.0.0.1:${port}/jwks.json`;
    const WINDOW = 3600;
    // jose measures its cache's age on Date, and the helper's clock (a VirtualClock) reads Date too: one tick moves both.
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const older = (seconds: number) => mock.timers.tick(seconds * 1000);
    const bearer = async (kid = 'host-1') => `Bearer ${await issuer.sign({}, { header: { kid } })}`;
    try {
      const lenient = createHostVerifier({ ...options, jwksUrl, jwksStaleIfErrorSeconds: WINDOW }, now, quiet);
      const strict = createHostVerifier({ ...options, jwksUrl }, now, quiet);
      const zero = createHostVerifier({ ...options, jwksUrl, jwksStaleIfErrorSeconds: 0 }, now, quiet);
      for (const verify of [lenient, strict, zero]) assert.equal((await verify(await bearer())).sub, 'usr_1');
      older(11 * 60);
      for (const m of ['500', 'reset', 'html'] as const) {
        mode = m;
        assert.equal((await lenient(await bearer())).sub, 'usr_1', `${m}: the kept set answers`);
        // Without the option (or with 0), as before: 503 until the issuer is back.
        await refused(strict(await bearer()), 503, 'TESSERA_HOST_AUTH_UNAVAILABLE');
        await refused(zero(await bearer()), 503, 'TESSERA_HOST_AUTH_UNAVAILABLE');
        // A kid the kept set lacks (a key the issuer may have added since) is the issuer's fault still.
        await refused(lenient(await bearer('host-2')), 503, 'TESSERA_HOST_AUTH_UNAVAILABLE');
      }
      // Stale for WINDOW seconds (fetched CACHE_AGE + WINDOW seconds ago): still served; one second later, not.
      older(CACHE_AGE + WINDOW - 11 * 60);
      assert.equal((await lenient(await bearer())).sub, 'usr_1', 'at the end of the window');
      older(1);
      await refused(lenient(await bearer()), 503, 'TESSERA_HOST_AUTH_UNAVAILABLE');
      // The issuer is back without the key: the fetch that succeeds replaces the set, and the key is refused at once.
      older(JWKS_RETRY_MS / 1000);
      mode = 'empty';
      await refused(lenient(await bearer()), 401, 'TESSERA_HOST_AUTH_INVALID');
      // Down again: the kept set is the one without the key.
      older(11 * 60);
      mode = '500';
      await refused(lenient(await bearer()), 503, 'TESSERA_HOST_AUTH_UNAVAILABLE');
      // Back with the key, then stopped altogether: the new set is kept from its own fetch on.
      older(JWKS_RETRY_MS / 1000);
      mode = 'up';
      assert.equal((await lenient(await bearer())).sub, 'usr_1');
      older(11 * 60);
      jwks.closeAllConnections();
      await new Promise((resolve) => jwks.close(resolve));
      assert.equal((await lenient(await bearer())).sub, 'usr_1', 'the issuer stopped: the kept set answers');
    } finally {
      mock.timers.reset();
      jwks.closeAllConnections();
      jwks.close();
    }
  });

  it('counts jwksStaleIfErrorSeconds from when the set went stale (RFC 5861): a window under the cache age still serves', async () => {
    // The window counted from the fetch, but jose answers from a set younger than its cache age (10 minutes) without
    // fetching, so the fallback only ever ran with a set older than that: any window from 1 to 600 s acted as 0.
    const jwks = await switchableJwks();
    const jwksUrl = jwks.url;
    const WINDOW = 300;
    const { logger, log } = captureLogger();
    const events = () =>
      log.lines.map(({ event, ageSeconds, staleForSeconds }) => ({ event, ageSeconds, staleForSeconds }));
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const older = (seconds: number) => mock.timers.tick(seconds * 1000);
    const bearer = async () => `Bearer ${await issuer.sign()}`;
    try {
      const verify = createHostVerifier({ ...options, jwksUrl, jwksStaleIfErrorSeconds: WINDOW }, now, logger);
      assert.equal((await verify(await bearer())).sub, 'usr_1');
      // Within the cache age jose answers from the set without fetching, down issuer or not.
      jwks.state.up = false;
      older(CACHE_AGE - 1);
      assert.equal((await verify(await bearer())).sub, 'usr_1', 'fresh: no fetch');
      // Stale from the cache age on: the kept set answers for WINDOW seconds more, and not one second after.
      older(1);
      assert.equal((await verify(await bearer())).sub, 'usr_1', 'just stale: the kept set answers');
      older(WINDOW / 2);
      assert.equal((await verify(await bearer())).sub, 'usr_1', 'within the window');
      older(WINDOW / 2);
      assert.equal((await verify(await bearer())).sub, 'usr_1', 'at the end of the window');
      older(1);
      await refused(verify(await bearer()), 503, 'TESSERA_HOST_AUTH_UNAVAILABLE');
      // And the operator is told: the kept set answered from the cache age on, and stopped WINDOW seconds later.
      assert.deepEqual(events(), [
        { event: 'tessera.host_auth.jwks.stale', ageSeconds: CACHE_AGE, staleForSeconds: undefined },
        {
          event: 'tessera.host_auth.jwks.stale_expired',
          ageSeconds: CACHE_AGE + WINDOW + 1,
          staleForSeconds: WINDOW + 1,
        },
      ]);
    } finally {
      mock.timers.reset();
      jwks.close();
    }
  });

  it('logs a stale JWKS once per outage: a warn when the kept set starts answering, an error when it is too old, an info when a fetch succeeds; codes, never the URL or a body', async () => {
    // Nothing was logged while the kept set answered: an operator could not see that the dashboard ran on keys the
    // issuer may have revoked, nor when it stopped.
    const BODY = 'issuer-body-with-secret-marker';
    let mode: 'up' | '500' | 'reset' = 'up';
    const good = await (await fetch(issuer.jwksUrl)).text();
    const jwks = createServer((req, res) => {
      if (mode === 'up') res.writeHead(200, { 'content-type': 'application/json' }).end(good);
      else if (mode === '500') res.writeHead(500, { 'content-type': 'text/plain' }).end(BODY);
      else req.socket.destroy();
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const { port } = jwks.address() as AddressInfo;
    // An issuer that takes a key in its query: the URL is a secret too.
    const jwksUrl = `http://127.0.0.1:${port}/jwks.json?access_key=query-secret-marker`;
    const WINDOW = 3600;
    const { logger, log } = captureLogger();
    /** The verifier's lines, without pino's own fields. */
    const lines = () =>
      log.lines.map(({ level, event, msg, time: _t, pid: _p, hostname: _h, ...fields }) => ({
        level,
        event,
        fields,
        msg,
      }));
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const older = (seconds: number) => mock.timers.tick(seconds * 1000);
    const tokens: string[] = [];
    const bearer = async () => {
      tokens.push(await issuer.sign());
      return `Bearer ${tokens.at(-1)}`;
    };
    try {
      const verify = createHostVerifier({ ...options, jwksUrl, jwksStaleIfErrorSeconds: WINDOW }, now, logger);
      assert.equal((await verify(await bearer())).sub, 'usr_1');
      assert.deepEqual(lines(), [], 'a good fetch says nothing');

      // Outage 1: the issuer answers 500, then resets connections; it is back within the window.
      older(11 * 60);
      mode = '500';
      for (let i = 0; i < 20; i++) assert.equal((await verify(await bearer())).sub, 'usr_1');
      older(JWKS_RETRY_MS / 1000);
      mode = 'reset';
      for (let i = 0; i < 5; i++) assert.equal((await verify(await bearer())).sub, 'usr_1');
      assert.deepEqual(lines(), [
        {
          level: 40,
          event: 'tessera.host_auth.jwks.stale',
          fields: { ageSeconds: 11 * 60, staleIfErrorSeconds: WINDOW, code: 'ERR_JOSE_GENERIC', status: 500 },
          msg: lines()[0]?.msg,
        },
      ]);
      older(JWKS_RETRY_MS / 1000);
      mode = 'up';
      assert.equal((await verify(await bearer())).sub, 'usr_1');
      for (let i = 0; i < 3; i++) assert.equal((await verify(await bearer())).sub, 'usr_1');
      assert.deepEqual(lines().slice(1), [
        {
          level: 30,
          event: 'tessera.host_auth.jwks.recovered',
          fields: { staleForSeconds: 2 * (JWKS_RETRY_MS / 1000), expired: false },
          msg: lines()[1]?.msg,
        },
      ]);

      // Outage 2: connections reset for longer than the window.
      older(11 * 60);
      mode = 'reset';
      for (let i = 0; i < 5; i++) assert.equal((await verify(await bearer())).sub, 'usr_1');
      older(CACHE_AGE + WINDOW - 11 * 60 + 1);
      for (let i = 0; i < 5; i++) await refused(verify(await bearer()), 503, 'TESSERA_HOST_AUTH_UNAVAILABLE');
      older(JWKS_RETRY_MS / 1000);
      for (let i = 0; i < 5; i++) await refused(verify(await bearer()), 503, 'TESSERA_HOST_AUTH_UNAVAILABLE');
      const second = lines().slice(2);
      assert.deepEqual(
        second.map(({ level, event }) => ({ level, event })),
        [
          { level: 40, event: 'tessera.host_auth.jwks.stale' },
          { level: 50, event: 'tessera.host_auth.jwks.stale_expired' },
        ],
        'one warn, one error, whatever the number of requests',
      );
      // undici reports a connection the server reset as UND_ERR_SOCKET or ECONNRESET, under its `fetch failed`.
      const code = second[0]!.fields.code;
      assert.ok(code === 'UND_ERR_SOCKET' || code === 'ECONNRESET', `code ${String(code)}`);
      assert.deepEqual(second[0]!.fields, { ageSeconds: 11 * 60, staleIfErrorSeconds: WINDOW, code });
      assert.deepEqual(second[1]!.fields, {
        ageSeconds: CACHE_AGE + WINDOW + 1,
        staleIfErrorSeconds: WINDOW,
        staleForSeconds: CACHE_AGE + WINDOW - 11 * 60 + 1,
        code,
      });
      older(JWKS_RETRY_MS / 1000);
      mode = 'up';
      assert.equal((await verify(await bearer())).sub, 'usr_1');
      assert.deepEqual(
        lines()
          .slice(4)
          .map(({ level, event, fields }) => ({ level, event, fields })),
        [
          {
            level: 30,
            event: 'tessera.host_auth.jwks.recovered',
            fields: { staleForSeconds: CACHE_AGE + WINDOW - 11 * 60 + 1 + 2 * (JWKS_RETRY_MS / 1000), expired: true },
          },
        ],
      );

      // No secret and nothing the issuer sent: not the URL (its host, port, path or query), not the body, no token.
      const text = log.text();
      for (const secret of [BODY, 'query-secret-marker', 'jwks.json', `:${port}`, '127.0.0.1', ...tokens]) {
        assert.ok(!text.includes(secret), `the lines hold ${secret}`);
      }
      for (const { msg } of lines()) assert.equal(typeof msg, 'string');
    } finally {
      mock.timers.reset();
      jwks.closeAllConnections();
      jwks.close();
    }
  });

  it("writes the stale-JWKS lines through the helper's logger", async () => {
    // The verifier had no logger: a helper could not have said anything of its JWKS.
    const jwks = await switchableJwks();
    const sb = await startSandbox();
    const base = sandboxHelperOptions(sb, issuer);
    const helper = await startHelper({
      ...base,
      resolveCharge: () => ({ amount: 100, currency: 'EUR' }),
      // The issuer's clock, which the tests above moved.
      now,
      hostAuth: {
        ...base.hostAuth,
        jwksUrl: jwks.url,
        jwksStaleIfErrorSeconds: 3600,
      },
    });
    // A user with no entity: verified, then 403 before any provider call.
    const ask = async () =>
      (
        await call(`${helper.url}/entities/ent_fixture_a/payment-instruments`, {
          headers: { authorization: `Bearer ${await issuer.sign()}` },
        })
      ).json.code;
    const events = () =>
      helper.log.lines.filter((l) => String(l.event).startsWith('tessera.host_auth.jwks')).map((l) => l.event);
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    try {
      assert.equal(await ask(), 'TESSERA_HOST_FORBIDDEN');
      mock.timers.tick(11 * 60_000);
      jwks.state.up = false;
      assert.equal(await ask(), 'TESSERA_HOST_FORBIDDEN', 'verified with the kept set');
      assert.equal(await ask(), 'TESSERA_HOST_FORBIDDEN');
      mock.timers.tick(JWKS_RETRY_MS);
      jwks.state.up = true;
      assert.equal(await ask(), 'TESSERA_HOST_FORBIDDEN');
      assert.deepEqual(events(), ['tessera.host_auth.jwks.stale', 'tessera.host_auth.jwks.recovered']);
    } finally {
      mock.timers.reset();
      await helper.close();
      await sb.close();
      jwks.close();
    }
  });

  describe('JWKS size cap', () => {
    /** A JWKS server whose answer `serve` writes; it counts the body bytes it wrote and notes each closed answer. */
    async function jwksServer(serve: (res: ServerResponse, count: (n: number) => void) => void) {
      const seen = { written: 0, closed: 0, headers: [] as IncomingHttpHeaders[] };
      const server = createServer((req, res) => {
        seen.headers.push(req.headers);
        res.once('close', () => seen.closed++);
        serve(res, (n) => {
          seen.written += n;
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      return {
        seen,
        url: `http://127.0.0.1:${port}/jwks.json`,
        close() {
          server.closeAllConnections();
          server.close();
        },
      };
    }

    /** Writes `prefix`, then spaces in 64 KiB chunks as fast as the socket takes them, up to `total` bytes, and stalls. */
    function flood(res: ServerResponse, count: (n: number) => void, total: number, prefix = '{"keys":[') {
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      res.write(prefix);
      count(prefix.length);
      let left = total;
      const pump = () => {
        while (left > 0 && !res.destroyed) {
          left -= chunk.length;
          count(chunk.length);
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
      };
      pump();
    }

    /**
     * The helper closed the connection (the server's answer ends without the server ending it) when the server had
     * written a fraction of its body: what it wrote past the cap is what the sockets' buffers held.
     */
    async function stoppedReading(seen: { written: number; closed: number }) {
      const deadline = performance.now() + 3000;
      while (seen.closed === 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      assert.equal(seen.closed, 1, 'the helper closed the connection');
      assert.ok(seen.written < 16 * 1024 * 1024, `the server wrote ${seen.written} bytes before the close`);
    }

    it(`answers 503 at once to a JWKS body over ${JWKS_MAX_BYTES} bytes and stops reading it`, async () => {
      // 64 MiB of body, then a stall: without a cap the helper buffers all of it and answers only at its timeout.
      const endless = await jwksServer((res, count) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        flood(res, count, 64 * 1024 * 1024);
      });
      try {
        const verify = createHostVerifier({ ...options, jwksUrl: endless.url, jwksTimeoutMs: 10_000 }, now, quiet);
        const started = performance.now();
        await refused(verify(`Bearer ${await issuer.sign()}`), 503, 'TESSERA_HOST_AUTH_UNAVAILABLE');
        assert.ok(performance.now() - started < 3000, 'refused long before the 10 s timeout');
        await stoppedReading(endless.seen);
        // jose's own headers only: nothing of the merchant's, no credential.
        const [headers] = endless.seen.headers;
        assert.equal(headers?.authorization, undefined);
        assert.equal(headers?.cookie, undefined);
        assert.match(headers?.accept ?? '', /application\/json/);
      } finally {
        endless.close();
      }
    });

    it('answers 503 to a JWKS that announces a Content-Length over the cap without reading its body', async () => {
      const announced = await jwksServer((res, count) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(50 * 1024 * 1024) });
        flood(res, count, 50 * 1024 * 1024 - 9);
      });
      try {
        const verify = createHostVerifier({ ...options, jwksUrl: announced.url, jwksTimeoutMs: 10_000 }, now, quiet);
        const started = performance.now();
        await refused(verify(`Bearer ${await issuer.sign()}`), 503, 'TESSERA_HOST_AUTH_UNAVAILABLE');
        assert.ok(performance.now() - started < 3000, 'refused long before the 10 s timeout');
        await stoppedReading(announced.seen);
      } finally {
        announced.close();
      }
    });

    it('answers 503 to a compressed JWKS that inflates past the cap, counting the inflated bytes', async () => {
      // 64 MiB of JSON white space is 64 KiB of gzip: the cap is on what would be parsed, not on what was sent.
      const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
      const compressed = await jwksServer((res, count) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(bomb);
        count(bomb.length);
      });
      try {
        const verify = createHostVerifier({ ...options, jwksUrl: compressed.url, jwksTimeoutMs: 10_000 }, now, quiet);
        const error = await verify(`Bearer ${await issuer.sign()}`).catch((e: unknown) => e);
        assert.ok(error instanceof HelperHttpError, String(error));
        assert.equal(error.status, 503);
        assert.equal(error.code, 'TESSERA_HOST_AUTH_UNAVAILABLE');
        // Refused for its size, not read whole and then found not to be JSON.
        assert.ok(error.cause instanceof JwksTooLarge, String(error.cause));
      } finally {
        compressed.close();
      }
    });

    for (const framing of ['content-length', 'chunked'] as const) {
      it(`verifies with a JWKS of exactly ${JWKS_MAX_BYTES} bytes and refuses one byte more (${framing})`, async () => {
        const jwk = { ...(await exportJWK(issuer.publicKey)), kid: 'host-1', alg: 'ES256', use: 'sig' };
        const set = JSON.stringify({ keys: [jwk] });
        // JSON allows trailing white space: the same set, padded to the size asked for.
        const padded = (size: number) => set + ' '.repeat(size - set.length);
        let size = JWKS_MAX_BYTES;
        const server = await jwksServer((res) => {
          const body = padded(size);
          if (framing === 'content-length') {
            res.writeHead(200, { 'content-type': 'application/json' }).end(body);
          } else {
            res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
            for (let i = 0; i < body.length; i += 10_000) res.write(body.slice(i, i + 10_000));
            res.end();
          }
        });
        try {
          const token = `Bearer ${await issuer.sign()}`;
          assert.equal((await createHostVerifier({ ...options, jwksUrl: server.url }, now, quiet)(token)).sub, 'usr_1');
          size = JWKS_MAX_BYTES + 1;
          await refused(
            createHostVerifier({ ...options, jwksUrl: server.url }, now, quiet)(token),
            503,
            'TESSERA_HOST_AUTH_UNAVAILABLE',
          );
        } finally {
          server.close();
        }
      });
    }
  });

  it('answers 401, not 503, to a token whose algorithm does not fit the configured key (ES384 header, P-256 key)', async () => {
    // The key is local: nothing on the issuer's side can fail, so whatever the token's header makes jose or WebCrypto
    // throw (a `DataError` for a curve that does not match) is the token's fault, and the page should fetch a new one.
    const verify = createHostVerifier(
      { ...options, jwksUrl: undefined, key: issuer.publicKey, algorithms: ['ES256', 'ES384', 'ES512'] },
      now,
      quiet,
    );
    const seconds = Math.floor(now() / 1000);
    for (const [alg, curve] of [
      ['ES384', 'P-384'],
      ['ES512', 'P-521'],
    ] as const) {
      const attacker = generateKeyPairSync('ec', { namedCurve: curve }).privateKey;
      const token = await new SignJWT({ iss: issuer.issuer, aud: issuer.audience, sub: 'usr_admin' })
        .setProtectedHeader({ alg })
        .setIssuedAt(seconds)
        .setExpirationTime(seconds + 300)
        .sign(attacker);
      await refused(verify(`Bearer ${token}`), 401, 'TESSERA_HOST_AUTH_INVALID').catch((err: Error) => {
        throw new Error(`${alg}: ${err.message}`);
      });
    }
    assert.equal((await verify(`Bearer ${await issuer.sign()}`)).sub, 'usr_1');
  });

  it('holds a token to the algorithm its CryptoKey was imported for (RS256 only, not RS512 or PS256)', async () => {
    // What jose's importSPKI(pem, 'RS256') and generateKeyPair('RS256') give: a key for RSASSA-PKCS1-v1_5 with SHA-256.
    const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
    const signer = KeyObject.from(privateKey as never);
    const algorithms = ['RS256', 'RS512', 'PS256'] as const;
    const verify = createHostVerifier(
      { ...options, algorithms: [...algorithms], jwksUrl: undefined, key: publicKey },
      now,
      quiet,
    );
    const seconds = Math.floor(now() / 1000);
    const tokenAs = (alg: string) =>
      new SignJWT({ iss: issuer.issuer, aud: issuer.audience, sub: 'usr_1' })
        .setProtectedHeader({ alg })
        .setIssuedAt(seconds)
        .setExpirationTime(seconds + 300)
        .sign(signer);
    assert.equal((await verify(`Bearer ${await tokenAs('RS256')}`)).sub, 'usr_1');
    // The same RSA key under another algorithm: a KeyObject made from the CryptoKey verified both.
    for (const alg of ['RS512', 'PS256']) {
      await refused(verify(`Bearer ${await tokenAs(alg)}`), 401, 'TESSERA_HOST_AUTH_INVALID').catch((err: Error) => {
        throw new Error(`${alg}: ${err.message}`);
      });
    }
  });

  it('refuses a symmetric key at configuration', () => {
    assert.throws(
      () => createHostVerifier({ ...options, jwksUrl: undefined, key: { kty: 'oct', k: 'c2VjcmV0' } }, now, quiet),
      /option `hostAuth.key` must be an asymmetric public key/,
    );
  });

  it('refuses a token that lives longer than an hour by default (year 3000), or without iat', async () => {
    const verify = createHostVerifier(options, now, quiet);
    const seconds = Math.floor(now() / 1000);
    const year3000 = Date.UTC(3000, 0, 1) / 1000;
    const noIat = await new SignJWT({ iss: issuer.issuer, aud: issuer.audience, sub: 'usr_1' })
      .setProtectedHeader({ alg: 'ES256', kid: 'host-1' })
      .setExpirationTime(seconds + 300)
      .sign(issuer.privateKey);
    const cases: [string, string, RegExp][] = [
      ['exp in the year 3000', await issuer.sign({}, { exp: year3000 }), /lifetime/],
      ['exp one hour and a minute after iat', await issuer.sign({}, { exp: seconds + 3660 }), /lifetime/],
      // Issued long ago (no maxAgeSeconds), so exp − iat is long even though exp − now is short.
      ['issued 2 h before it expires', await issuer.sign({}, { iat: seconds - 7000, exp: seconds + 200 }), /lifetime/],
      ['no iat', noIat, /iat claim/],
    ];
    for (const [name, token, message] of cases) {
      await refused(verify(`Bearer ${token}`), 401, 'TESSERA_HOST_AUTH_INVALID', message).catch((err) => {
        throw new Error(`${name}: ${err.message}`);
      });
    }
    assert.equal((await verify(`Bearer ${await issuer.sign({}, { exp: seconds + 3600 })}`)).sub, 'usr_1');
  });

  it('takes maxLifetimeSeconds to allow longer or demand shorter tokens', async () => {
    const seconds = Math.floor(now() / 1000);
    const day = await issuer.sign({}, { exp: seconds + 86_400 });
    assert.equal(
      (await createHostVerifier({ ...options, maxLifetimeSeconds: 86_400 }, now, quiet)(`Bearer ${day}`)).sub,
      'usr_1',
    );
    const fiveMinutes = await issuer.sign({}, { exp: seconds + 300 });
    const strict = createHostVerifier({ ...options, maxLifetimeSeconds: 120 }, now, quiet);
    await refused(strict(`Bearer ${fiveMinutes}`), 401, 'TESSERA_HOST_AUTH_INVALID', /lifetime/);
  });

  describe('ECDSA high-s twins', () => {
    const CURVES = {
      ES256: { curve: 'P-256', size: 32, n: 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n },
      ES384: {
        curve: 'P-384',
        size: 48,
        n: 0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973n,
      },
      ES512: {
        curve: 'P-521',
        size: 66,
        n: 0x01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409n,
      },
    } as const;
    const hex = (v: bigint, size: number) => Buffer.from(v.toString(16).padStart(size * 2, '0'), 'hex');

    /** The same token with s replaced by n − s: a second signature that verifies under the same key. */
    function twin(token: string, alg: keyof typeof CURVES): { s: bigint; twin: string } {
      const { size, n } = CURVES[alg];
      const [h, p, sig] = token.split('.');
      const bytes = Buffer.from(sig!, 'base64url');
      const s = BigInt(`0x${bytes.subarray(size).toString('hex')}`);
      const flipped = Buffer.concat([bytes.subarray(0, size), hex(n - s, size)]).toString('base64url');
      return { s, twin: `${h}.${p}.${flipped}` };
    }

    /** A valid token of `alg` whose own signature is low-s, and its high-s twin. */
    async function lowAndHigh(alg: keyof typeof CURVES) {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: CURVES[alg].curve });
      const seconds = Math.floor(now() / 1000);
      for (;;) {
        const token = await new SignJWT({ iss: issuer.issuer, aud: issuer.audience, sub: 'usr_1' })
          .setProtectedHeader({ alg })
          .setIssuedAt(seconds)
          .setExpirationTime(seconds + 300)
          .sign(privateKey);
        const t = twin(token, alg);
        if (t.s <= CURVES[alg].n >> 1n) return { low: token, high: t.twin, publicKey };
      }
    }

    for (const alg of Object.keys(CURVES) as (keyof typeof CURVES)[]) {
      it(`${alg}: with requireLowS the high-s twin of a valid token is refused, the token itself accepted`, async () => {
        const { low, high, publicKey } = await lowAndHigh(alg);
        const base = { ...options, jwksUrl: undefined, key: publicKey, algorithms: [alg] };
        // Without the option both verify: that is what ECDSA (and jose) accept.
        const lenient = createHostVerifier(base, now, quiet);
        assert.equal((await lenient(`Bearer ${high}`)).sub, 'usr_1');
        const strict = createHostVerifier({ ...base, requireLowS: true }, now, quiet);
        assert.equal((await strict(`Bearer ${low}`)).sub, 'usr_1');
        await refused(strict(`Bearer ${high}`), 401, 'TESSERA_HOST_AUTH_INVALID', /low-s/);
      });
    }
  });
});
