import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  AuthenticationError,
  createLegacyClient,
  InvalidResponseError,
  isThreeDSecureRedirect,
  type LegacyClient,
  NotFoundError,
  ValidationError,
} from '../../../server/provider/index.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { bareServer, recordingDispatcher, sandbox } from './support.js';

const CARD = { number: '4242424242424242', expiryMonth: 12, expiryYear: 2031, cvv: '123' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

for (const format of ['json', 'xml'] as const) {
  describe(`legacy client over ${format.toUpperCase()}`, () => {
    let sb: RunningSandbox;
    let legacy: LegacyClient;
    const wire = recordingDispatcher();

    before(async () => {
      sb = await sandbox();
      legacy = createLegacyClient({
        publicKey: sb.credentials.publicKey,
        secretKey: sb.credentials.secretKey,
        baseUrl: sb.url,
        format,
        dispatcher: wire.dispatcher,
        validateResponses: true,
      });
    });
    after(async () => {
      await sb.close();
      await wire.close();
    });

    const token = async (card = CARD) => (await legacy.cardTokens.create(card)).data.id;

    it('creates a card token with the public key and reports the request id', async () => {
      const result = await legacy.cardTokens.create({ ...CARD, name: 'A Shopper' });
      assert.equal(result.status, 200);
      assert.match(result.requestId ?? '', /^req_/);
      assert.match(result.data.id, /^card_tok_/);
      assert.equal(result.data.used, false);
      assert.equal(result.data.liveMode, false);
      assert.equal(result.data.card.last4, '4242');
      assert.equal(result.data.card.name, 'A Shopper');
      const sent = wire.sent.at(-1)!;
      assert.equal(sent.path, '/api2/v2/tokens/card');
      assert.equal(sent.headers.authorization, sb.credentials.publicKey);
      assert.equal(sent.headers['content-type'], `application/${format}`);
      assert.equal(sent.headers.accept, `application/${format}`);
    });

    it('charges a card token with the secret key and an idempotency key, then reads the charge back', async () => {
      const created = await legacy.charges.create({
        cardToken: await token(),
        value: 1999,
        currency: 'EUR',
        email: 'shopper@example.com',
        metadata: { order: 'A-1', 'odd key!': 'x' },
        products: [{ name: 'Tea', price: 1999, quantity: 1 }],
        autoCapture: 'n',
      });
      const charge = created.data;
      if (isThreeDSecureRedirect(charge)) assert.fail('a non-3-D Secure charge answered with a redirect');
      assert.match(charge.id, /^charge_/);
      assert.equal(charge.value, 1999);
      assert.equal(charge.status, 'Authorised');
      assert.equal(charge.responseCode, '10000');
      assert.deepEqual(charge.metadata, { order: 'A-1', 'odd key!': 'x' });
      assert.equal(charge.products[0]?.quantity, 1);
      assert.match(created.idempotencyKey ?? '', UUID);
      const sent = wire.sent.at(-1)!;
      assert.equal(sent.headers['idempotency-key'], created.idempotencyKey);
      assert.equal(sent.headers.authorization, sb.credentials.secretKey);

      const read = await legacy.charges.retrieve(charge.id);
      assert.equal(read.data.id, charge.id);
      assert.equal(read.data.status, 'Authorised');
      assert.equal(read.data.autoCapture, 'n');
      sb.clock.advance(169 * 3600);
      assert.equal((await legacy.charges.retrieve(charge.id)).data.status, 'Expired');
    });

    it('reads back autoCapture in the case it was sent ("Y" stays "Y")', async () => {
      const created = await legacy.charges.create({
        cardToken: await token(),
        value: 500,
        currency: 'EUR',
        email: 'upper@example.com',
        autoCapture: 'Y',
        autoCapTime: 1,
      });
      const charge = created.data;
      if (isThreeDSecureRedirect(charge)) assert.fail('a non-3-D Secure charge answered with a redirect');
      assert.equal(charge.autoCapture, 'Y');
      assert.equal(charge.status, 'Authorised');
      sb.clock.advance(3600);
      const read = await legacy.charges.retrieve(charge.id);
      assert.deepEqual([read.data.autoCapture, read.data.status], ['Y', 'Captured']);
    });

    it('sends and reads back floating-point numbers (0.1 * 3, 1e-7) as the JSON client does', async () => {
      const price = 0.1 * 3;
      const created = await legacy.charges.create({
        cardToken: await token(),
        value: 300,
        currency: 'EUR',
        email: 'thirds@example.com',
        autoCapture: 'n',
        autoCapTime: 1e-7,
        products: [{ name: 'Thirds', price, quantity: 3 }],
      });
      const charge = created.data;
      if (isThreeDSecureRedirect(charge)) assert.fail('a non-3-D Secure charge answered with a redirect');
      assert.equal(charge.autoCapTime, 1e-7);
      assert.deepEqual(charge.products, [{ name: 'Thirds', price, quantity: 3 }]);
      const read = await legacy.charges.retrieve(charge.id);
      assert.equal(read.data.autoCapTime, 1e-7);
      assert.equal(read.data.products[0]?.price, price);
    });

    it('sends a metadata key named __proto__ as the field it is: the provider refuses it by its path', async () => {
      // JSON.parse makes such keys own fields. Over XML the encoder assigned it, so it became the copy's prototype and
      // the field vanished from the document: the charge went through without it, where JSON's was refused.
      const metadata = JSON.parse('{"order": "A-2", "__proto__": {"polluted": "yes"}}') as Record<string, string>;
      const charged = legacy.charges.create({ cardToken: await token(), value: 100, currency: 'EUR', metadata });
      await assert.rejects(charged, (e: unknown) => {
        assert.ok(e instanceof ValidationError, String(e));
        assert.equal(e.status, 400);
        assert.match(JSON.stringify(e.body), /forbidden_key/);
        assert.match(JSON.stringify(e.body), /metadata\.__proto__/);
        return true;
      });
      assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched');
    });

    it("uses the caller's idempotency key and replays the first answer for it", async () => {
      const body = { cardToken: await token(), value: 500, currency: 'GBP', email: 'a@example.com' };
      const first = await legacy.charges.create(body, { idempotencyKey: `order-${format}-1` });
      const again = await legacy.charges.create(body, { idempotencyKey: `order-${format}-1` });
      assert.equal(first.idempotencyKey, `order-${format}-1`);
      assert.equal(again.data.id, first.data.id);
    });

    it('creates a payment token with the secret key', async () => {
      const result = await legacy.paymentTokens.create({ value: '2500', currency: 'usd', chargeMode: 1 });
      assert.match(result.data.id, /^pay_tok_/);
      assert.equal(result.data.liveMode, false);
    });

    it('answers a 3-D Secure charge with a redirect, and reads the outcome by its pay_tok_ after the challenge', async () => {
      const created = await legacy.charges.create({
        cardToken: await token({ ...CARD, number: '4000000000003220' }),
        value: 4200,
        currency: 'EUR',
        email: 'a@example.com',
        chargeMode: 2,
        successUrl: 'https://shop.example.com/ok',
        failUrl: 'https://shop.example.com/failed',
      });
      assert.ok(isThreeDSecureRedirect(created.data));
      const payToken = created.data.id;
      assert.match(payToken, /^pay_tok_/);
      const challenge = await fetch(new URL(created.data.redirectUrl, sb.url), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'outcome=pass',
        redirect: 'manual',
      });
      assert.equal(challenge.status, 303);
      const verified = await legacy.charges.retrieve(payToken);
      assert.match(verified.data.id, /^charge_/);
      assert.equal(verified.data.responseCode, '10000');
      assert.ok(['Authorised', 'Captured'].includes(verified.data.status));
    });

    it('turns the error bodies into typed errors with field errors and the request id', async () => {
      const used = await token();
      await legacy.charges.create({ cardToken: used, value: 100, currency: 'EUR', email: 'a@example.com' });
      const cases: [() => Promise<unknown>, number, string, string][] = [
        [
          async () => legacy.charges.create({ cardToken: await token(), value: 100, currency: 'EUR' }),
          400,
          'email',
          'email_required',
        ],
        [
          async () =>
            legacy.charges.create({ cardToken: await token(), value: -5, currency: 'EUR', email: 'a@example.com' }),
          400,
          'value',
          'value_invalid',
        ],
        [
          async () =>
            legacy.charges.create({ cardToken: await token(), value: 100, currency: 'XYZ', email: 'a@example.com' }),
          400,
          'currency',
          'currency_invalid',
        ],
        [() => legacy.cardTokens.create({ ...CARD, number: '4242424242424241' }), 400, 'number', 'number_invalid'],
      ];
      for (const [call, status, field, code] of cases) {
        const error = await call().then(
          () => assert.fail('expected an error'),
          (e: unknown) => e,
        );
        assert.ok(error instanceof ValidationError, String(error));
        assert.equal(error.status, status);
        assert.equal(error.code, 'TESSERA_VALIDATION');
        assert.match(error.requestId ?? '', /^req_/);
        assert.equal(error.outcomeKnown, true);
        assert.deepEqual(
          error.fieldErrors.map((f) => [f.field, f.code]),
          [[field, code]],
          JSON.stringify(error.fieldErrors),
        );
      }
      const reuse = await legacy.charges
        .create({ cardToken: used, value: 100, currency: 'EUR', email: 'a@example.com' })
        .catch((e: unknown) => e);
      assert.ok(reuse instanceof ValidationError);
      assert.equal(reuse.fieldErrors[0]?.field, 'cardToken');
      assert.ok(!reuse.message.includes(used), 'the card token is masked in the message');

      const missing = await legacy.charges.retrieve('charge_doesnotexist').catch((e: unknown) => e);
      assert.ok(missing instanceof NotFoundError);
      assert.equal(missing.status, 404);
    });

    it('reports a wrong key as AuthenticationError without the key in the message', async () => {
      const wrongKey = 'sk_sbox_not0the0right0key000000000000';
      const other = createLegacyClient({ secretKey: wrongKey, baseUrl: sb.url, format });
      const error = await other.paymentTokens.create({ value: 1, currency: 'EUR' }).catch((e: unknown) => e);
      assert.ok(error instanceof AuthenticationError);
      assert.equal(error.status, 401);
      assert.ok(!error.message.includes(wrongKey));
      await other.close();
    });

    it('refuses an operation whose key was not configured, before sending', async () => {
      const publicOnly = createLegacyClient({ publicKey: sb.credentials.publicKey, baseUrl: sb.url, format });
      await assert.rejects(
        async () => publicOnly.charges.create({ cardToken: 'card_tok_x', value: 1, currency: 'EUR', email: 'a@b.co' }),
        /charges\.create needs the `secretKey` option of createLegacyClient/,
      );
      await assert.rejects(async () => legacy.charges.retrieve('../../_sandbox/reset'), TypeError);
      await publicOnly.close();
    });
  });
}

describe('legacy client on the live paths', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await startSandbox({ port: 0, mode: 'production' });
  });
  after(() => sb.close());

  it('sends /v2/… when paths is "live" and gets liveMode objects', async () => {
    const live = createLegacyClient({
      publicKey: sb.credentials.publicKey,
      secretKey: sb.credentials.secretKey,
      baseUrl: sb.url,
      paths: 'live',
    });
    const { data: card } = await live.cardTokens.create(CARD);
    assert.equal(card.liveMode, true);
    const { data: charge } = await live.charges.create({
      cardToken: card.id,
      value: 100,
      currency: 'EUR',
      email: 'a@example.com',
    });
    assert.equal(charge.liveMode, true);
    assert.match(charge.id, /^charge_/);
    const sandboxPaths = createLegacyClient({ secretKey: sb.credentials.secretKey, baseUrl: sb.url });
    await assert.rejects(sandboxPaths.paymentTokens.create({ value: 1, currency: 'EUR' }), NotFoundError);
    await sandboxPaths.close();
    await live.close();
  });
});

describe('legacy client reading a hostile XML answer', () => {
  it('fails fast with InvalidResponseError instead of stalling on a crafted body', async () => {
    // A hostile or broken upstream: `<a` ×25,000 once held charges.retrieve for minutes (the pre-scan backtracked).
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0"?><data>${'<a'.repeat(25_000)}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const legacy = createLegacyClient({
      secretKey: 'sk_sbox_hostile_upstream',
      baseUrl: `http://127.0.0.1:${port}`,
      format: 'xml',
      maxRetries: 0,
    });
    try {
      const started = performance.now();
      await assert.rejects(legacy.charges.retrieve('pay_tok_abc'), InvalidResponseError);
      assert.ok(performance.now() - started < 1000, 'answered in well under a second');
    } finally {
      await legacy.close();
      server.close();
    }
  });
});

describe('legacy client reading an XML answer in another encoding', () => {
  it('refuses it with InvalidResponseError naming the encoding instead of reading Latin-1 bytes as UTF-8', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        Buffer.from(
          '<?xml version="1.0" encoding="ISO-8859-1"?><data><id>charge_abc</id><description>caf\u00e9</description></data>',
          'latin1',
        ),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const legacy = createLegacyClient({
      secretKey: 'sk_sbox_latin1_upstream',
      baseUrl: `http://127.0.0.1:${port}`,
      format: 'xml',
      maxRetries: 0,
    });
    try {
      await assert.rejects(
        legacy.charges.retrieve('charge_abc'),
        (e: unknown) => e instanceof InvalidResponseError && /"ISO-8859-1"/.test(e.message),
      );
    } finally {
      await legacy.close();
      server.close();
    }
  });
});

describe('legacy client validating a charge answer (validateResponses)', () => {
  it('refuses a charge that breaks the charge schema instead of reading it as a bare payment token', async () => {
    const sb = await sandbox();
    let answer: unknown;
    const upstream = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const { publicKey, secretKey } = sb.credentials;
    const real = createLegacyClient({ publicKey, secretKey, baseUrl: sb.url, validateResponses: true });
    const relayed = createLegacyClient({
      secretKey,
      baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      validateResponses: true,
      maxRetries: 0,
    });
    try {
      const cardToken = (await real.cardTokens.create(CARD)).data.id;
      const { data: charge } = await real.charges.create({
        cardToken,
        value: 1999,
        currency: 'EUR',
        email: 'a@b.example',
      });
      assert.ok(!isThreeDSecureRedirect(charge));
      const request = { cardToken, value: 1999, currency: 'EUR' as const, email: 'a@b.example' };
      // The provider's answer as it is: read whole.
      answer = charge;
      assert.deepEqual((await relayed.charges.create(request)).data, charge);
      // Each still has an id and liveMode, which once passed as a payment token with every other field dropped.
      const { responseAdvancedInfo: _, ...withoutAdvancedInfo } = charge as unknown as Record<string, unknown>;
      for (const broken of [{ ...charge, status: 'Voided' }, { ...charge, value: '1999' }, withoutAdvancedInfo]) {
        answer = broken;
        const error = await relayed.charges.create(request).catch((e: unknown) => e);
        assert.ok(error instanceof InvalidResponseError, JSON.stringify(broken).slice(0, 80));
        // The provider answered the charge with a 2xx: it may have been made, so "nothing was done" would be false.
        assert.equal(error.outcomeKnown, false, JSON.stringify(broken).slice(0, 80));
      }
      // A 3-D Secure answer is a payment token with the challenge's URL.
      answer = { id: 'pay_tok_abc', liveMode: false, redirectUrl: 'https://bank.example/3ds' };
      const { data: redirect } = await relayed.charges.create(request);
      assert.ok(isThreeDSecureRedirect(redirect));
      assert.equal(redirect.redirectUrl, 'https://bank.example/3ds');
    } finally {
      await real.close();
      await relayed.close();
      upstream.close();
      await sb.close();
    }
  });
});

describe('legacy client reading an answer with a __proto__ key', () => {
  // A provider answer's own `__proto__` key is a field like any other: nothing the client copies may take it for the
  // copy's prototype (an XML answer's coercion copied records with `out[key] = …`), and Object.prototype is never touched.
  const polluted = () => (({}) as Record<string, unknown>).status ?? ({} as Record<string, unknown>).polluted;

  it('over JSON, keeps it as an own field of the result, whose prototype stays Object.prototype', async () => {
    const upstream = await bareServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id":"charge_abc","__proto__":{"status":"Authorised","polluted":"yes"},"metadata":{"__proto__":"x"}}');
    });
    const legacy = createLegacyClient({ secretKey: 'sk_sbox_proto', baseUrl: upstream.url, maxRetries: 0 });
    try {
      const { data } = (await legacy.charges.retrieve('charge_abc')) as { data: unknown };
      const body = data as Record<string, unknown>;
      assert.equal(Object.getPrototypeOf(body), Object.prototype);
      assert.deepEqual(Object.keys(body), ['id', '__proto__', 'metadata']);
      assert.equal(body.status, undefined, 'the field is not read through a prototype');
      assert.deepEqual(Object.getOwnPropertyDescriptor(body, '__proto__')?.value, {
        status: 'Authorised',
        polluted: 'yes',
      });
      const metadata = body.metadata as Record<string, unknown>;
      assert.equal(Object.getPrototypeOf(metadata), Object.prototype);
      assert.equal(Object.getOwnPropertyDescriptor(metadata, '__proto__')?.value, 'x');
      assert.equal(polluted(), undefined, 'Object.prototype untouched');
    } finally {
      await legacy.close();
      upstream.close();
    }
  });

  it('over XML, refuses it by its path (InvalidResponseError), as the sandbox refuses it in a request', async () => {
    const answers = [
      '<data><id>charge_abc</id><__proto__><status>Authorised</status></__proto__></data>',
      '<data><id>charge_abc</id><metadata><item key="__proto__"><polluted>yes</polluted></item></metadata></data>',
    ];
    let next = 0;
    const upstream = await bareServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?>${answers[next++]}`);
    });
    const legacy = createLegacyClient({
      secretKey: 'sk_sbox_proto',
      baseUrl: upstream.url,
      format: 'xml',
      maxRetries: 0,
    });
    try {
      for (const field of ['__proto__', 'metadata.__proto__']) {
        await assert.rejects(legacy.charges.retrieve('charge_abc'), (e: unknown) => {
          assert.ok(e instanceof InvalidResponseError, String(e));
          assert.match(e.message, /the key "__proto__" is not allowed/);
          assert.equal((e.cause as { field?: string }).field, field);
          return true;
        });
      }
      assert.equal(polluted(), undefined, 'Object.prototype untouched');
    } finally {
      await legacy.close();
      upstream.close();
    }
  });
});
