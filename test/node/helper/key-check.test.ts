import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { type TesseraHelperOptions, tesseraHelper } from '../../../server/helper/index.js';
import { createLegacyClient } from '../../../server/provider/index.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { captureLogger } from './support.js';

const WRONG = {
  secretKey: 'sk_sbox_wrongwrongwrong0000',
  publicKey: 'pk_sbox_wrongwrongwrong0000',
  clientSecret: 'wrong-client-secret-0000',
};

describe('startup key check against the sandbox', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await startSandbox();
  });
  beforeEach(() => sb.context.reset());
  after(() => sb.close());

  function start(extra: Partial<TesseraHelperOptions>) {
    const { logger, log } = captureLogger();
    const helper = tesseraHelper({
      publicKey: sb.credentials.publicKey,
      secretKey: sb.credentials.secretKey,
      clientId: sb.credentials.clientId,
      clientSecret: sb.credentials.clientSecret,
      legacyBaseUrl: sb.url,
      accountsBaseUrl: sb.url,
      authBaseUrl: sb.url,
      hostAuth: {
        issuer: 'https://shop.example',
        audience: 'tessera',
        algorithms: ['ES256'],
        jwksUrl: `${sb.url}/jwks`,
      },
      providerMaxRetries: 0,
      resolveCharge: () => undefined,
      logger,
      ...extra,
    });
    const warnings = () => log.lines.filter((l) => (l.level as number) >= 40);
    return { helper, log, warnings };
  }

  it('right keys: every set accepted, no warning, nothing created at the provider', async () => {
    const { helper, warnings } = start({});
    assert.deepEqual(await helper.keyCheck, {
      secretKey: 'accepted',
      publicKey: 'accepted',
      clientCredentials: 'accepted',
    });
    assert.deepEqual(warnings(), []);
    // What the check sent: an empty charge and an empty card-token request, both refused for the body (400), so
    // nothing was created; and one access token.
    const log = (await call(`${sb.url}/_sandbox/requests?limit=200`)).json.data as {
      method: string;
      path: string;
      status: number;
    }[];
    const sent = log.map((e) => `${e.method} ${e.path} ${e.status}`).sort();
    assert.deepEqual(sent, [
      'POST /api2/v2/charges/token 400',
      'POST /api2/v2/tokens/card 400',
      'POST /connect/token 200',
    ]);
  });

  for (const key of Object.keys(WRONG) as (keyof typeof WRONG)[]) {
    it(`a wrong ${key}: one warning naming it, with the provider's request id and never the key`, async () => {
      const { helper, log, warnings } = start({ [key]: WRONG[key] });
      const result = await helper.keyCheck;
      const name = key === 'clientSecret' ? 'clientCredentials' : key;
      assert.equal(result[name], 'refused');
      for (const other of ['secretKey', 'publicKey', 'clientCredentials'] as const) {
        if (other !== name) assert.equal(result[other], 'accepted', other);
      }
      const lines = warnings().filter((l) => l.event === 'tessera.key_check');
      assert.equal(lines.length, 1, JSON.stringify(warnings()));
      assert.equal(lines[0]!.key, name);
      assert.equal(lines[0]!.status, 401);
      assert.match(String(lines[0]!.requestId), /^req_/);
      assert.match(String(lines[0]!.msg), /refused/);
      assert.ok(!log.text().includes(WRONG[key]), 'the key is never logged');
    });
  }

  it('a provider that cannot be reached: one warning per key set, startup not held, nothing thrown', async () => {
    const { helper, warnings } = start({
      legacyBaseUrl: 'http://127.0.0.1:9',
      accountsBaseUrl: 'http://127.0.0.1:9',
      authBaseUrl: 'http://127.0.0.1:9',
    });
    assert.equal(typeof helper, 'function', 'the helper exists before the check answers');
    assert.deepEqual(await helper.keyCheck, {
      secretKey: 'unchecked',
      publicKey: 'unchecked',
      clientCredentials: 'unchecked',
    });
    const lines = warnings().filter((l) => l.event === 'tessera.key_check');
    assert.deepEqual(lines.map((l) => l.key).sort(), ['clientCredentials', 'publicKey', 'secretKey']);
    assert.ok(lines.every((l) => l.outcome === 'unchecked'));
  });

  it("a ready legacyClient without legacyBaseUrl: the widget's card-token URL and the key check go to its provider", async () => {
    const legacyClient = createLegacyClient({ secretKey: sb.credentials.secretKey, baseUrl: sb.url, maxRetries: 0 });
    try {
      const { helper, warnings } = start({ secretKey: undefined, legacyBaseUrl: undefined, legacyClient });
      // Before, both went to the local sandbox's default address (http://127.0.0.1:4010), whatever the client called.
      assert.equal(helper.cardTokenUrl, `${sb.url}/api2/v2/tokens/card`);
      assert.equal((await helper.keyCheck).publicKey, 'accepted');
      assert.deepEqual(warnings(), []);
    } finally {
      await legacyClient.close();
    }
  });

  it("a wrapper's baseUrl that throws is no baseUrl; one that is not a secure URL is refused at once (the widget would post card numbers to it)", async () => {
    const legacyClient = createLegacyClient({ secretKey: sb.credentials.secretKey, baseUrl: sb.url, maxRetries: 0 });
    const wrap = (baseUrl: PropertyDescriptor) => Object.create(legacyClient, { baseUrl }) as typeof legacyClient;
    const throwing = {
      get() {
        throw new Error('not ready yet');
      },
    };
    try {
      // Before, the getter's error came out of tesseraHelper(), even with legacyBaseUrl given.
      for (const legacyBaseUrl of [undefined, sb.url]) {
        const { helper } = start({
          secretKey: undefined,
          legacyBaseUrl,
          legacyClient: wrap(throwing),
          startupKeyCheck: false,
        });
        assert.equal(helper.cardTokenUrl, `${legacyBaseUrl ?? 'http://127.0.0.1:4010'}/api2/v2/tokens/card`);
      }
      // Before, '' gave the card-token URL "/api2/v2/tokens/card", which the widget resolves against the shop's page.
      for (const value of [
        '',
        '/provider',
        'http://provider.example',
        'javascript:alert(1)//',
        'https://user:pw@provider.example',
      ]) {
        assert.throws(
          () =>
            start({
              secretKey: undefined,
              legacyBaseUrl: undefined,
              legacyClient: wrap({ value }),
              startupKeyCheck: false,
            }),
          (e: Error) =>
            e instanceof TypeError &&
            /legacyClient has a baseUrl that is not an https:\/\/ URL/.test(e.message) &&
            !e.message.includes('pw'),
          JSON.stringify(value),
        );
        // legacyBaseUrl, when given, wins: the client's is not used.
        const { helper } = start({ secretKey: undefined, legacyClient: wrap({ value }), startupKeyCheck: false });
        assert.equal(helper.cardTokenUrl, `${sb.url}/api2/v2/tokens/card`);
      }
    } finally {
      await legacyClient.close();
    }
  });

  it('startupKeyCheck: false makes no call', async () => {
    const { helper, warnings } = start({ startupKeyCheck: false, secretKey: WRONG.secretKey });
    assert.deepEqual(await helper.keyCheck, {});
    assert.deepEqual(warnings(), []);
  });
});
