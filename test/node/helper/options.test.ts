import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import express, { type NextFunction, type Request, type Response } from 'express';
import { type TesseraHelperOptions, tesseraHelper } from '../../../server/helper/index.js';
import { createTokenSource } from '../../../server/provider/index.js';
import { checkCredentials, DEFAULT_CREDENTIALS } from '../../../server/sandbox/config.js';
import { call } from '../../support/http.js';

const SECRET = 'sk_sbox_do0not0show0me0anywhere0000001';
const base: TesseraHelperOptions = {
  publicKey: 'pk_sbox_tessera0demo0public0key0000001',
  secretKey: SECRET,
  resolveCharge: () => ({ amount: 100, currency: 'EUR' }),
};

function messageOf(options: unknown): string {
  try {
    tesseraHelper(options as TesseraHelperOptions);
  } catch (err) {
    assert.ok(err instanceof TypeError, `expected a TypeError, got ${String(err)}`);
    return err.message;
  }
  assert.fail(`tesseraHelper accepted ${JSON.stringify(options)}`);
}

describe('tesseraHelper options', () => {
  it('accepts the minimal options and returns a named router with the card-token URL', () => {
    const helper = tesseraHelper(base);
    assert.equal(typeof helper, 'function');
    assert.equal(helper.environment, 'sandbox');
    assert.match(helper.cardTokenUrl, /^http:\/\/127\.0\.0\.1:4010\/api2\/v2\/tokens\/card$/);
  });

  it('accepts the shop-wide decline limit, off or as a limit', () => {
    for (const declinesTotal of [false, { max: 50, windowMs: 600_000 }] as const) {
      assert.equal(typeof tesseraHelper({ ...base, rateLimits: { declinesTotal } }), 'function');
    }
  });

  it('names the option, shows the bad value and the fix for each bad option', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ environment: 'live' }, /option `environment` .*; got "live"/],
      // A wrong public key may well be the secret key: its value is never shown, only its length.
      [{ publicKey: 'pk' }, /option `publicKey` must be a public key such as "pk_…"; got a string of 2 characters/],
      [
        { legacyBaseUrl: 'http://provider.example' },
        /option `legacyBaseUrl` must be an https:\/\/ URL .*; got "http:\/\/provider.example"/,
      ],
      [{ legacyBaseUrl: 'not a url' }, /option `legacyBaseUrl` must be an https:\/\/ URL/],
      [
        { resolveCharge: 42 },
        /option `resolveCharge` must be a function `\(req, body\) => \(\{ amount, currency \}\)`; got 42/,
      ],
      [{ bodyLimitBytes: 10 }, /option `bodyLimitBytes` .*; got 10/],
      [{ hookTimeoutMs: 0 }, /option `hookTimeoutMs` must be an integer from 100 to 120000; got 0/],
      [{ hookTimeoutMs: '15s' }, /option `hookTimeoutMs` must be an integer from 100 to 120000; got "15s"/],
      [
        { instrumentListTimeoutMs: 50 },
        /option `instrumentListTimeoutMs` must be an integer from 100 to 120000; got 50/,
      ],
      [
        { instrumentListTimeoutMs: 1.5e3 + 0.5 },
        /option `instrumentListTimeoutMs` must be an integer from 100 to 120000; got 1500.5/,
      ],
      [
        { providerResponseBudgetBytes: 1024 },
        /option `providerResponseBudgetBytes` must be an integer from 4194304 to 4294967296; got 1024/,
      ],
      [{ rateLimits: { chargesPerIp: { max: 0, windowMs: 60_000 } } }, /option `rateLimits.chargesPerIp.max`/],
      [
        { corsOrigins: ['https://shop.example/checkout'] },
        /option `corsOrigins.0` must be an origin .*; got "https:\/\/shop.example\/checkout"/,
      ],
      [{ logger: console.log }, /option `logger` must be a pino-compatible logger/],
      [{ store: {} }, /option `store` must implement TesseraStore/],
      [
        { store: { get() {}, set() {}, hit() {}, count() {} } },
        /option `store` must implement TesseraStore \(get, set, hit, count, unhit, claim, release\)/,
      ],
      [
        {
          store: {
            ...Object.fromEntries(
              ['get', 'set', 'hit', 'count', 'unhit', 'claim', 'release'].map((m) => [m, () => {}]),
            ),
            claimAndGet: 'yes',
          },
        },
        /option `store` must implement TesseraStore: its optional `claimAndGet` must be a method when given/,
      ],
      [
        {
          store: {
            ...Object.fromEntries(
              ['get', 'set', 'hit', 'count', 'unhit', 'claim', 'release'].map((m) => [m, () => {}]),
            ),
            setAndRelease: {},
          },
        },
        /option `store` must implement TesseraStore: its optional `setAndRelease` must be a method when given/,
      ],
      [
        {
          store: {
            ...Object.fromEntries(
              ['get', 'set', 'hit', 'count', 'unhit', 'claim', 'release', 'reserve'].map((m) => [m, () => {}]),
            ),
          },
        },
        /option `store` must implement TesseraStore: its optional `reserve` and `unreserve` go together/,
      ],
      [{ onCharge: 'mark paid' }, /option `onCharge` must be a function `\(charge, context\) => void`/],
      [
        { paymentInstrumentIds: ['ppi_1'] },
        /option `paymentInstrumentIds` must be a function `\(entityId, \{ claims, req \}\) => string\[\]`/,
      ],
      [
        { paymentInstrumentIds: () => [] },
        /option `paymentInstrumentIds` serves a dashboard route: it needs `clientId`\/`clientSecret`/,
      ],
      [{ exposeDeclineCodes: 'yes' }, /option `exposeDeclineCodes` must be a boolean/],
      [{ startupStoreCheck: 'off' }, /option `startupStoreCheck` must be a boolean/],
      [{ rateLimits: { requestsPerIp: { max: 0, windowMs: 60_000 } } }, /option `rateLimits.requestsPerIp.max`/],
      [{ rateLimits: { declinesTotal: { max: 0, windowMs: 60_000 } } }, /option `rateLimits.declinesTotal.max`/],
      [{ rateLimits: { declinesTotal: { max: 50, windowMs: 999 } } }, /option `rateLimits.declinesTotal.windowMs`/],
      // zod's own message for a value that is no limit at all was "Invalid input".
      [
        { rateLimits: { declinesTotal: { max: '50', windowMs: 60_000 } } },
        /option `rateLimits.declinesTotal` must be \{ max, windowMs \} \(integers\) or false; got \{"max":"50"/,
      ],
      [
        { rateLimits: { declinesTotal: true } },
        /option `rateLimits.declinesTotal` must be \{ max, windowMs \}.*; got true/,
      ],
      [
        { rateLimits: { chargesPerIp: 'off' } },
        /option `rateLimits.chargesPerIp` must be \{ max, windowMs \}.*; got "off"/,
      ],
      [{ rateLimits: { declinesTotal: { max: 50 } } }, /option `rateLimits.declinesTotal` must be \{ max, windowMs \}/],
      [
        { rateLimits: { declinesTotal: { max: 50, windowMs: 60_000, perIp: true } } },
        /unknown option `rateLimits.declinesTotal.perIp`/,
      ],
      [{ clientId: 'cli_abcdefgh1234' }, /option `clientSecret` is required with the other OAuth option/],
      [
        { clientId: 'cli_abcdefgh1234', clientSecret: 'a-long-client-secret' },
        /option `hostAuth` is required with the Account Services client/,
      ],
      [
        {
          environment: 'production',
          legacyBaseUrl: 'https://api.provider.example',
          publicUrl: 'https://shop.example/payments',
        },
        /option `publicKey` is a sandbox key but `environment` is "production"/,
      ],
    ];
    for (const [patch, expected] of cases) {
      const message = messageOf({ ...base, ...patch });
      assert.match(message, /^tesseraHelper: /, message);
      assert.match(message, expected, message);
    }
  });

  it('takes the client ids the sandbox and the token source take, and refuses the ones they refuse', () => {
    const long = `cli_${'a1B2'.repeat(49)}`; // 196 after cli_: 200 in all, the longest any credential may be
    const verdicts = (clientId: string) => {
      const sandbox = (() => {
        try {
          checkCredentials({ ...DEFAULT_CREDENTIALS, clientId });
          return true;
        } catch {
          return false;
        }
      })();
      const tokens = (() => {
        try {
          createTokenSource({ clientId, clientSecret: 'a-long-client-secret' });
          return true;
        } catch {
          return false;
        }
      })();
      const helper = !/option `clientId`/.test(messageOf({ ...base, clientId }));
      return { sandbox, tokens, helper };
    };
    for (const clientId of ['cli_abcdefgh', `cli_${'x'.repeat(101)}`, long]) {
      assert.deepEqual(verdicts(clientId), { sandbox: true, tokens: true, helper: true }, clientId);
    }
    for (const clientId of [`${long}x`, 'cli_abcdefg', 'cli_abc-defgh', 'abcdefghijkl']) {
      assert.deepEqual(verdicts(clientId), { sandbox: false, tokens: false, helper: false }, clientId);
    }
  });

  it('takes hostAuth.jwksStaleIfErrorSeconds from 0 to 86 400 seconds, whole, and names it otherwise', () => {
    const hostAuth = {
      issuer: 'https://m.example',
      audience: 'a',
      algorithms: ['ES256' as const],
      jwksUrl: 'https://m.example/jwks.json',
    };
    const oauth = { clientId: 'cli_abcdefgh1234', clientSecret: 'a-long-client-secret' };
    for (const value of [-1, 86_401, 1.5, '60']) {
      assert.throws(
        () => tesseraHelper({ ...base, ...oauth, hostAuth: { ...hostAuth, jwksStaleIfErrorSeconds: value } } as never),
        /hostAuth\.jwksStaleIfErrorSeconds/,
        String(value),
      );
    }
    for (const value of [0, 1, 86_400]) {
      assert.doesNotThrow(() =>
        tesseraHelper({ ...base, ...oauth, hostAuth: { ...hostAuth, jwksStaleIfErrorSeconds: value } }),
      );
    }
  });

  it('refuses the issuer’s private key as hostAuth.key, in every form, and takes its public half', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const hostAuth = { issuer: 'https://m.example', audience: 'a', algorithms: ['ES256'] };
    const oauth = { clientId: 'cli_abcdefgh1234', clientSecret: 'a-long-client-secret' };
    for (const key of [
      privateKey,
      privateKey.export({ type: 'pkcs8', format: 'pem' }),
      privateKey.export({ type: 'sec1', format: 'pem' }),
      privateKey.export({ format: 'jwk' }),
    ]) {
      assert.throws(
        () => tesseraHelper({ ...base, ...oauth, hostAuth: { ...hostAuth, key } } as never),
        /option `hostAuth.key` is a private key: pass its public half/,
      );
    }
    for (const key of [
      publicKey,
      publicKey.export({ type: 'spki', format: 'pem' }),
      publicKey.export({ format: 'jwk' }),
    ]) {
      assert.doesNotThrow(() => tesseraHelper({ ...base, ...oauth, hostAuth: { ...hostAuth, key } } as never));
    }
  });

  it('takes a WebCrypto CryptoKey as hostAuth.key (what jose’s importSPKI, importJWK and generateKeyPair give), not a private one', async () => {
    const { privateKey, publicKey } = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
      'sign',
      'verify',
    ]);
    const hostAuth = { issuer: 'https://m.example', audience: 'a', algorithms: ['ES256' as const] };
    const oauth = { clientId: 'cli_abcdefgh1234', clientSecret: 'a-long-client-secret' };
    assert.doesNotThrow(() => tesseraHelper({ ...base, ...oauth, hostAuth: { ...hostAuth, key: publicKey } }));
    assert.throws(
      () => tesseraHelper({ ...base, ...oauth, hostAuth: { ...hostAuth, key: privateKey } }),
      /option `hostAuth.key` is a private key: pass its public half/,
    );
  });

  it('refuses a CryptoKey that verifies no host token, or none of hostAuth.algorithms, at configuration', async () => {
    const subtle = crypto.subtle;
    const rsa = { modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' };
    const ec = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const oaep = await subtle.generateKey({ name: 'RSA-OAEP', ...rsa }, false, ['encrypt', 'decrypt']);
    const ecdh = await subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
    const x25519 = (await subtle.generateKey({ name: 'X25519' }, false, ['deriveBits'])) as CryptoKeyPair;
    // The issuer's ECDSA public key, imported without the `verify` usage.
    const spki = await subtle.exportKey('spki', ec.publicKey);
    const unusable = await subtle.importKey('spki', spki, { name: 'ECDSA', namedCurve: 'P-256' }, false, []);
    const hmac = await subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    const rs256 = await subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', ...rsa }, false, ['sign', 'verify']);
    const oauth = { clientId: 'cli_abcdefgh1234', clientSecret: 'a-long-client-secret' };
    const helperWith = (key: CryptoKey, algorithms: string[] = ['RS256', 'PS256', 'ES256']) =>
      tesseraHelper({
        ...base,
        ...oauth,
        hostAuth: { issuer: 'https://m.example', audience: 'a', algorithms, key },
      } as never);
    for (const key of [oaep.publicKey, ecdh.publicKey, x25519.publicKey, unusable]) {
      assert.throws(() => helperWith(key), /option `hostAuth.key` is a CryptoKey for .*: it verifies no host token/);
    }
    assert.throws(() => helperWith(hmac), /option `hostAuth.key` must be an asymmetric public key, not a secret/);
    // Made for RS256: hostAuth.algorithms must list it.
    assert.throws(
      () => helperWith(rs256.publicKey, ['RS512', 'PS256']),
      /option `hostAuth.key` verifies only RS256, which `hostAuth.algorithms` \(RS512, PS256\) does not list/,
    );
    assert.doesNotThrow(() => helperWith(rs256.publicKey, ['RS256']));
    assert.doesNotThrow(() => helperWith(ec.publicKey, ['ES256']));
  });

  it('never lets a secret travel over plain HTTP except to loopback', () => {
    const oauth = {
      clientId: 'cli_abcdefgh1234',
      clientSecret: 'a-long-client-secret',
      hostAuth: {
        issuer: 'https://m.example',
        audience: 'a',
        algorithms: ['ES256'],
        jwksUrl: 'https://m.example/jwks',
      },
    };
    const cases: [Record<string, unknown>, string][] = [
      [{ legacyBaseUrl: 'http://10.0.0.5:4010' }, 'legacyBaseUrl'],
      [{ legacyBaseUrl: 'http://sandbox.provider.example' }, 'legacyBaseUrl'],
      [{ ...oauth, accountsBaseUrl: 'http://{prefix}.api.provider.example' }, 'accountsBaseUrl'],
      [{ ...oauth, authBaseUrl: 'http://{prefix}.access.provider.example' }, 'authBaseUrl'],
      [{ ...oauth, hostAuth: { ...oauth.hostAuth, jwksUrl: 'http://m.example/jwks' } }, 'hostAuth.jwksUrl'],
      [{ publicUrl: 'http://shop.example/payments' }, 'publicUrl'],
    ];
    for (const [patch, option] of cases) {
      assert.match(
        messageOf({ ...base, ...patch }),
        new RegExp(`option \`${option.replace('.', '\\.')}\` must be an https:// URL`),
      );
    }
    for (const url of [
      'http://127.0.0.1:4010',
      'http://localhost:4010',
      'http://[::1]:4010',
      'https://api.provider.example',
    ]) {
      assert.doesNotThrow(() => tesseraHelper({ ...base, legacyBaseUrl: url }), url);
    }
    assert.doesNotThrow(() =>
      tesseraHelper({
        ...base,
        ...oauth,
        accountsBaseUrl: 'https://{prefix}.api.provider.example',
      } as TesseraHelperOptions),
    );
  });

  it('needs real provider URLs in production', () => {
    const live = { ...base, publicKey: 'pk_live_0000000000000001', environment: 'production' as const };
    assert.match(messageOf(live), /option `legacyBaseUrl` is required when `environment` is "production"/);
    const helper = tesseraHelper({
      ...live,
      legacyBaseUrl: 'https://api.provider.example',
      publicUrl: 'https://shop.example/payments',
    });
    assert.equal(helper.cardTokenUrl, 'https://api.provider.example/v2/tokens/card');
  });

  it('needs publicUrl in production: the 3-D Secure return URL must not come from a Host header its sender chose', () => {
    const live = {
      ...base,
      publicKey: 'pk_live_0000000000000001',
      environment: 'production' as const,
      legacyBaseUrl: 'https://api.provider.example',
    };
    const message = messageOf(live);
    assert.match(message, /option `publicUrl` is required when `environment` is "production"/);
    assert.match(message, /Host header/);
    assert.doesNotThrow(() => tesseraHelper({ ...live, publicUrl: 'https://shop.example/payments' }));
    // The sandbox environment (the demo, local development) still takes the URL from each request.
    assert.doesNotThrow(() => tesseraHelper(base));
  });

  it('requires the keys and resolveCharge', () => {
    assert.match(messageOf({}), /option `resolveCharge` must be a function/);
    assert.match(messageOf({ resolveCharge: base.resolveCharge }), /option `secretKey` is required/);
    assert.match(messageOf({ ...base, publicKey: undefined }), /option `publicKey` is required/);
  });

  it('never shows a secret value in an error, only its length', () => {
    const message = messageOf({ ...base, secretKey: 'sk_no' });
    assert.match(message, /option `secretKey` .*; got a string of 5 characters/);
    assert.ok(!message.includes('sk_no'));
    const secret = messageOf({ ...base, clientId: 'cli_abcdefgh1234', clientSecret: 'short' });
    assert.ok(!secret.includes('"short"'), secret);
    // The secret key put where the public key goes: the check that catches the mistake must not print the secret.
    const swapped = messageOf({ ...base, publicKey: 'sk_live_realsecret123' });
    assert.match(swapped, /option `publicKey` must be a public key such as "pk_…"; got a string of 21 characters/);
    assert.ok(!swapped.includes('realsecret'), swapped);
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----';
    const hostAuth = {
      issuer: 'https://m.example',
      audience: 'a',
      algorithms: ['ES256'],
      key: pem,
      jwksUrl: 'https://m.example/j',
    };
    const nested = messageOf({ ...base, clientId: 'cli_abcdefgh1234', clientSecret: 'a-long-client-secret', hostAuth });
    assert.match(nested, /option `hostAuth` needs exactly one of `jwksUrl` and `key`; got \{.*"key":"\[hidden\]"/);
    assert.ok(!nested.includes('MIIE'), nested);
  });

  it('refuses a URL option that carries a user or password, and never shows them in any message', () => {
    const clients = { clientId: 'cli_abcdefgh1234', clientSecret: 'a-long-client-secret' };
    const hostAuth = { issuer: 'https://m.example', audience: 'a', algorithms: ['ES256'] };
    for (const [options, option] of [
      [{ legacyBaseUrl: 'https://user:hunter2@api.provider.example' }, 'legacyBaseUrl'],
      [{ ...clients, accountsBaseUrl: 'https://user:hunter2@{prefix}.api.example' }, 'accountsBaseUrl'],
      [{ publicUrl: 'https://user:hunter2@shop.example/payments' }, 'publicUrl'],
      [
        { ...clients, hostAuth: { ...hostAuth, jwksUrl: 'https://hunter2@auth.example/jwks.json' } },
        'hostAuth.jwksUrl',
      ],
    ] as const) {
      const message = messageOf({ ...base, ...options });
      assert.match(message, new RegExp(`option \`${option}\` must not carry a user or password`), message);
      assert.match(message, /got "https:\/\/\[hidden\]@/, message);
      assert.ok(!message.includes('hunter2'), message);
    }
    // Errors that show the whole value around such a URL hide its user info too.
    for (const options of [
      { hostAuth: { ...hostAuth, jwksUrl: 'https://user:hunter2@auth.example/jwks.json' } },
      { corsOrigins: ['https://user:hunter2@shop.example'] },
    ]) {
      const around = messageOf({ ...base, ...options });
      assert.match(around, /"https:\/\/\[hidden\]@/, around);
      assert.ok(!around.includes('hunter2'), around);
    }
  });

  it('hides the user info of a URL the parser reads with one slash, a backslash, no slash or a tab after the scheme', () => {
    // WHATWG URL reads each of these as https://user:hunter2@auth.example: they are refused, and the message that
    // refuses them must not quote the password it refuses them for.
    const hostAuth = { issuer: 'https://m.example', audience: 'a', algorithms: ['ES256'] };
    const clients = { clientId: 'cli_abcdefgh1234', clientSecret: 'a-long-client-secret' };
    for (const jwksUrl of [
      'https:/user:hunter2@auth.example/jwks.json',
      'https:\\\\user:hunter2@auth.example/jwks.json',
      'https:user:hunter2@auth.example/jwks.json',
      'https:/\t/user:hunter2@auth.example/jwks.json',
    ]) {
      const message = messageOf({ ...base, ...clients, hostAuth: { ...hostAuth, jwksUrl } });
      assert.match(message, /option `hostAuth.jwksUrl` must not carry a user or password/, message);
      assert.ok(!message.includes('hunter2'), message);
    }
  });

  it('suggests the right name for a near-miss key, also nested', () => {
    assert.match(messageOf({ ...base, secretkey: SECRET }), /unknown option `secretkey`\. Did you mean `secretKey`\?/);
    assert.match(messageOf({ ...base, resolveCharges: base.resolveCharge }), /Did you mean `resolveCharge`\?/);
    assert.match(
      messageOf({ ...base, rateLimits: { chargesPerIP: false } }),
      /unknown option `rateLimits.chargesPerIP`\. Did you mean `rateLimits.chargesPerIp`\?/,
    );
    assert.match(
      messageOf({ ...base, rateLimits: { declineTotal: { max: 50, windowMs: 600_000 } } }),
      /unknown option `rateLimits.declineTotal`\. Did you mean `rateLimits.declinesTotal`\?/,
    );
    assert.match(
      messageOf({ ...base, zzzzzzzz: 1 }),
      /unknown option `zzzzzzzz`\. Known options: environment, publicKey/,
    );
  });

  it('refuses a non-object and a function', () => {
    assert.match(messageOf('sk_x'), /expected an options object/);
    assert.match(messageOf(null), /expected an options object/);
    assert.match(
      messageOf(() => ({})),
      /expected an options object, got a function/,
    );
  });

  it('detects app.use(tesseraHelper) without the call and passes a TypeError to next', async () => {
    const app = express();
    app.use('/payments', tesseraHelper as unknown as express.RequestHandler);
    let seen: unknown;
    app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
      seen = err;
      res.status(500).json({ message: (err as Error).message });
    });
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const r = await call(`http://127.0.0.1:${(server.address() as AddressInfo).port}/payments/config`);
      assert.ok(seen instanceof TypeError);
      assert.match(r.json.message, /mounted without being called: write `app.use\(path, tesseraHelper\(\{ … \}\)\)`/);
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });
});
