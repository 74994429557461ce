import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffDelay, parseRetryAfter } from '../../../server/provider/http/backoff.js';
import { retryDelay } from '../../../server/provider/http/transport.js';
import {
  clientPrefix,
  createAccountsClient,
  createLegacyClient,
  createTokenSource,
} from '../../../server/provider/index.js';
import { resolveBaseUrl } from '../../../server/provider/urls.js';

const SECRET = 'sk_sbox_tessera0demo0secret0key0000001';
const CLIENT = { clientId: 'cli_tessdemo0000000000000001', clientSecret: 'tessera-sandbox-client-secret-0001' };

describe('provider client options', () => {
  it('refuse bad options at construction, naming the option, the value and the fix', () => {
    const cases: [() => unknown, RegExp][] = [
      [
        () => createLegacyClient({ secretKey: SECRET, timeoutMs: 0 }),
        /option `timeoutMs` must be an integer from 1 to 600000; got 0/,
      ],
      [
        () => createLegacyClient({ secretKey: SECRET, maxRetries: -1 }),
        /option `maxRetries` must be an integer from 0 to 10; got -1/,
      ],
      [
        () => createLegacyClient({ secretKey: SECRET, retryBaseMs: 100, retryMaxMs: 50 }),
        /option `retryMaxMs` must be at least retryBaseMs \(100\); got 50/,
      ],
      [
        () => createLegacyClient({ secretKey: SECRET, format: 'yaml' as 'xml' }),
        /option `format` must be "json" or "xml"; got "yaml"/,
      ],
      [
        () => createLegacyClient({ secretKey: SECRET, paths: 'prod' as 'live' }),
        /option `paths` must be "sandbox" \(\/api2\/v2\/…\) or "live" \(\/v2\/…\); got "prod"/,
      ],
      [
        () => createLegacyClient({ secretkey: SECRET } as never),
        /unknown option `secretkey`\. Did you mean `secretKey`\?/,
      ],
      [
        // Leaving both keys out does not compile (LegacyKeys); JavaScript callers get this error.
        () => createLegacyClient({} as never),
        /give `publicKey` \(card tokens\), `secretKey` \(charges, payment tokens\) or both/,
      ],
      [
        () => createLegacyClient({ publicKey: SECRET }),
        /option `publicKey` holds a secret key; pass it as `secretKey`/,
      ],
      [
        () => createLegacyClient({ secretKey: SECRET, baseUrl: 'http://provider.example.com' }),
        /option `baseUrl` must use https:\/\/ \(plain http:\/\/ is only allowed to loopback/,
      ],
      [
        () => createLegacyClient({ secretKey: SECRET, baseUrl: 'not a url' }),
        /option `baseUrl` must be an absolute URL/,
      ],
      [
        () => createLegacyClient({ secretKey: SECRET, idempotencyHeader: 'Bad Header' }),
        /option `idempotencyHeader` must be an HTTP header name; got "Bad Header"/,
      ],
      [
        // A header value undici cannot send: taken before, every call then failed at dispatch.
        () => createLegacyClient({ secretKey: SECRET, userAgent: 'shop ☃' }),
        /option `userAgent` must be printable ASCII on one line; got "shop ☃"/,
      ],
      [
        () => createLegacyClient({ secretKey: SECRET, userAgent: 'shop\u0001' }),
        /option `userAgent` must be printable ASCII on one line/,
      ],
      [
        // Below the largest answer a client reads: an answer it would read alone could never be read.
        () => createLegacyClient({ secretKey: SECRET, responseBudgetBytes: 1024 * 1024 }),
        /option `responseBudgetBytes` must be an integer from 4194304 to 4294967296; got 1048576/,
      ],
      [
        () => createAccountsClient({ ...CLIENT, responseBudgetBytes: '64MB' as never }),
        /option `responseBudgetBytes` must be an integer from 4194304 to 4294967296; got "64MB"/,
      ],
      [
        () => createTokenSource({ ...CLIENT, responseBudgetByte: 8 * 1024 * 1024 } as never),
        /unknown option `responseBudgetByte`\. Did you mean `responseBudgetBytes`\?/,
      ],
      [
        () => createLegacyClient({ secretKey: SECRET, dispatcher: {} as never }),
        /option `dispatcher` must be an undici Dispatcher/,
      ],
      [
        () => createLegacyClient({ secretKey: SECRET, logger: { info() {} } as never }),
        /option `logger` must be a pino-compatible logger with the methods \(debug, info, warn, error\); missing debug, warn, error/,
      ],
      [() => createLegacyClient(createLegacyClient as never), /expected an options object, got a function/],
      [
        () => createAccountsClient({}),
        /give OAuth credentials \(`clientId` and `clientSecret`\), a `secretKey`, or both/,
      ],
      [() => createAccountsClient({ clientId: 'tessdemo' }), /option `clientId` must be the OAuth client id/],
      [
        () => createAccountsClient({ clientId: CLIENT.clientId }),
        /option `clientSecret` is required with `clientId`; got undefined$/,
      ],
      [
        () => createAccountsClient({ clientId: CLIENT.clientId, clientSecret: 5 as never }),
        /option `clientSecret` must be the OAuth client secret .*; got a number/,
      ],
      [
        () => createAccountsClient({ ...CLIENT, schemaVersion: '4.0' as '3.0' }),
        /option `schemaVersion` must be "3.0" \(the latest\) or "2.0"; got "4.0"/,
      ],
      [
        () => createAccountsClient({ secretKey: SECRET, baseUrl: 'https://{prefix}.api.example.com' }),
        /option `baseUrl` uses \{prefix\}, which needs the `clientId` option/,
      ],
      [
        () => createAccountsClient({ ...CLIENT, authUrl: 'http://{prefix}.access.example.com' }),
        /option `authUrl` must use https:\/\//,
      ],
      [
        () => createAccountsClient({ ...CLIENT, baseUrl: 'https://x.example.com/?a=1' }),
        /option `baseUrl` must not carry a query or a fragment/,
      ],
      [
        () => createTokenSource({ ...CLIENT, refreshMarginSeconds: -5 }),
        /option `refreshMarginSeconds` must be a number of seconds from 0 to 3600; got -5/,
      ],
    ];
    for (const [make, message] of cases) {
      assert.throws(make, (e: Error) => e instanceof TypeError && message.test(e.message), String(message));
    }
  });

  it('never show a secret in an option error', () => {
    const secret = 'super-secret-value-1234567';
    for (const make of [
      () => createLegacyClient({ secretKey: `${secret} with spaces` }),
      () => createAccountsClient({ clientId: CLIENT.clientId, clientSecret: `${secret}\n` }),
      () => createLegacyClient({ publicKey: `sk_${secret}` }),
    ]) {
      assert.throws(make, (e: Error) => e instanceof TypeError && !e.message.includes(secret));
    }
  });

  it('builds base URLs from templates with the client-id prefix and allows http only to loopback', () => {
    assert.equal(clientPrefix('cli_tessdemo0000000000000001'), 'tessdemo');
    assert.equal(
      resolveBaseUrl('f', 'baseUrl', 'https://{prefix}.api.example.com/', CLIENT.clientId),
      'https://tessdemo.api.example.com',
    );
    for (const ok of ['http://127.0.0.1:4010', 'http://127.8.9.10', 'http://[::1]:4010', 'http://localhost:1/x/']) {
      assert.match(resolveBaseUrl('f', 'baseUrl', ok), /^http:\/\//);
    }
    for (const bad of ['http://10.0.0.1', 'http://128.0.0.1', 'http://localhost.example.com', 'ftp://127.0.0.1']) {
      assert.throws(() => resolveBaseUrl('f', 'baseUrl', bad), TypeError, bad);
    }
  });

  it('computes capped exponential backoff with jitter in [d/2, d]', () => {
    assert.equal(
      backoffDelay(0, 500, 5000, () => 0),
      250,
    );
    assert.equal(
      backoffDelay(0, 500, 5000, () => 1),
      500,
    );
    assert.equal(
      backoffDelay(1, 500, 5000, () => 1),
      1000,
    );
    assert.equal(
      backoffDelay(2, 500, 5000, () => 0.5),
      1500,
    );
    assert.equal(
      backoffDelay(10, 500, 5000, () => 1),
      5000,
    );
    assert.equal(
      backoffDelay(10, 500, 5000, () => 0),
      2500,
    );
  });

  it('waits the longer of the backoff and Retry-After, and not at all beyond 60 s', () => {
    const config = { retryBaseMs: 500, retryMaxMs: 5000, timeoutMs: 120_000 };
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(
      retryDelay(null, 0, config, () => 1, now),
      500,
    );
    assert.equal(
      retryDelay('3', 0, config, () => 1, now),
      3000,
    );
    assert.equal(
      retryDelay('0', 1, config, () => 1, now),
      1000,
    );
    assert.equal(
      retryDelay('Thu, 01 Jan 2026 00:00:20 GMT', 0, config, () => 0, now),
      20_000,
    );
    assert.equal(
      retryDelay('61', 0, config, () => 1, now),
      undefined,
    );
    assert.equal(
      retryDelay('soon', 2, config, () => 1, now),
      2000,
    );
  });

  it('does not wait a Retry-After longer than one attempt may last (timeoutMs)', () => {
    const config = { retryBaseMs: 500, retryMaxMs: 5000, timeoutMs: 10_000 };
    assert.equal(
      retryDelay('10', 0, config, () => 1),
      10_000,
    );
    assert.equal(
      retryDelay('11', 0, config, () => 1),
      undefined,
    );
    assert.equal(
      retryDelay('60', 0, config, () => 1),
      undefined,
    );
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('3', now), 3000);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now), 10_000);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter(null, now), undefined);
    // A provider's absurd value is a year at most: RateLimitError.retryAfter stays a finite number of seconds.
    const year = 365 * 24 * 3600_000;
    assert.equal(parseRetryAfter('9'.repeat(400), now), year);
    assert.equal(parseRetryAfter('99999999999999999999', now), year);
    assert.equal(parseRetryAfter('Fri, 31 Dec 9999 23:59:59 GMT', now), year);
  });
});
