import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { coerceFromXml } from '../../../server/provider/codec/coerce.js';
import { chargeResponseSchema, errorBodySchema } from '../../../server/provider/schemas/legacy.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import {
  advance,
  cardToken,
  charge,
  chargeBody,
  fromXml,
  getCharge,
  postCharge,
  SANDBOX,
  xmlRequest,
} from './legacy-support.js';

const HOUR = 3600;

describe('legacy API: charges', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await startSandbox();
  });
  after(() => sb.close());

  it('answers every field of the charge-response table', async () => {
    const shipping = {
      addressLine1: '1 Main St',
      postcode: 'N1 9GU',
      country: 'GB',
      phone: { countryCode: '44', number: '7700' },
    };
    const body = await chargeBody(sb, '4242424242424242', {
      trackId: 'order-1001',
      description: 'Two books',
      customerIp: '203.0.113.7',
      customerName: 'Ada Lovelace',
      transactionIndicator: '2',
      metadata: { channel: 'web', 'cart id': 'c-1' },
      shippingDetails: shipping,
      products: [
        {
          name: 'Book',
          description: 'Notes',
          price: 999,
          quantity: 2,
          shippingCost: 1,
          sku: 'B-1',
          trackingUrl: 'https://t.example/1',
        },
      ],
      udf1: 'one',
      udf5: 'five',
      successUrl: 'https://shop.example/ok',
    });
    const r = await postCharge(sb, body);
    assert.equal(r.status, 200, r.text);
    const c = chargeResponseSchema.parse(r.json);
    assert.deepEqual(Object.keys(r.json).sort(), Object.keys(chargeResponseSchema.shape).sort());
    assert.match(c.id, /^charge_[a-z2-7]{26}$/);
    assert.equal(c.liveMode, false);
    assert.ok(Math.abs(Date.parse(c.created) - sb.clock.nowMs()) < 5000);
    assert.match(c.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(c.value, 1999);
    assert.equal(c.currency, 'EUR');
    assert.equal(c.trackId, 'order-1001');
    assert.equal(c.description, 'Two books');
    assert.equal(c.email, body.email);
    assert.equal(c.customerIp, '203.0.113.7');
    assert.equal(c.chargeMode, 1);
    assert.equal(c.transactionIndicator, 2);
    assert.equal(c.autoCapture, 'y');
    assert.equal(c.autoCapTime, 0);
    assert.equal(c.responseCode, '10000');
    assert.equal(c.responseMessage, 'Approved');
    assert.equal(typeof c.responseAdvancedInfo, 'string');
    assert.equal(c.status, 'Captured');
    assert.match(c.authCode, /^\d{6}$/);
    assert.equal(c.isCascaded, false);
    assert.equal(c.riskCheck, true);
    assert.equal(c.customerPaymentPlans, null);
    assert.deepEqual(c.metadata, { channel: 'web', 'cart id': 'c-1' });
    assert.equal(c.shippingDetails?.postcode, 'N1 9GU');
    assert.deepEqual(c.products, body.products);
    assert.deepEqual([c.udf1, c.udf2, c.udf3, c.udf4, c.udf5], ['one', null, null, null, 'five']);
    assert.match(c.card.customerId, /^cust_[a-z2-7]{26}$/);
    assert.match(c.card.id, /^card_/);
    assert.equal(c.card.last4, '4242');
    assert.equal(c.card.bin, '424242');
    assert.equal(c.card.paymentMethod, 'Visa');
    assert.equal(c.card.expiryMonth, '06');
    assert.match(c.card.expiryYear, /^\d{4}$/);
    assert.match(c.card.fingerprint, /^[0-9A-F]{64}$/);
    assert.equal(c.card.cvvCheck, 'Y');
    assert.equal(c.card.avsCheck, 'Y', 'billing taken from shipping has line 1 and postcode');
    assert.equal(c.card.billingDetails?.addressLine1, '1 Main St', 'billing omitted: taken as the shipping address');
  });

  it('takes the billing address from the charge, else the card token, and checks AVS only with one', async () => {
    const token = await cardToken(sb, '4242424242424242', {
      billingDetails: { addressLine1: 'Token St', postcode: 'T1' },
    });
    const fromToken = await postCharge(sb, { cardToken: token, value: 5, currency: 'USD', email: 'b1@example.com' });
    assert.equal(fromToken.json.card.billingDetails.addressLine1, 'Token St');
    const own = await charge(sb, '4242424242424242', { billingDetails: { city: 'Leeds' } });
    assert.equal(own.card.billingDetails.city, 'Leeds');
    assert.equal(own.card.avsCheck, 'S');
    const none = await charge(sb);
    assert.equal(none.card.billingDetails, null);
    assert.equal(none.shippingDetails, null);
  });

  it('enforces every row of the charge-request table with a 4xx naming the field', async () => {
    type Case = [Record<string, unknown>, number, string, string];
    const long = (n: number) => 'x'.repeat(n);
    const meta11 = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v']));
    const cases: Case[] = [
      [{ cardToken: undefined }, 400, 'cardToken_required', 'cardToken'],
      [{ cardToken: 'tok_123' }, 400, 'cardToken_invalid', 'cardToken'],
      [{ cardToken: 'card_tok_doesnotexist0000000000' }, 422, 'card_token_unknown', 'cardToken'],
      [{ currency: undefined }, 400, 'currency_required', 'currency'],
      [{ currency: 'EU' }, 400, 'currency_invalid', 'currency'],
      [{ currency: 'XYZ' }, 400, 'currency_invalid', 'currency'],
      [{ currency: 978 }, 400, 'currency_invalid', 'currency'],
      [{ value: undefined }, 400, 'value_required', 'value'],
      [{ value: 0 }, 400, 'value_invalid', 'value'],
      [{ value: -5 }, 400, 'value_invalid', 'value'],
      [{ value: 10.5 }, 400, 'value_invalid', 'value'],
      [{ value: '10.5' }, 400, 'value_invalid', 'value'],
      [{ value: '1e3' }, 400, 'value_invalid', 'value'],
      [{ value: 2 ** 64 }, 400, 'value_invalid', 'value'],
      [{ value: '18446744073709551616' }, 400, 'value_invalid', 'value'],
      [{ value: true }, 400, 'value_invalid', 'value'],
      [{ email: undefined }, 400, 'email_required', 'email'],
      [{ email: 'not-an-email' }, 400, 'email_invalid', 'email'],
      [{ email: undefined, customerId: 'cust_nobody' }, 422, 'customer_unknown', 'customerId'],
      [{ customerId: 'customer-1' }, 400, 'customerId_invalid', 'customerId'],
      [{ autoCapture: 'yes' }, 400, 'autoCapture_invalid', 'autoCapture'],
      [{ autoCapture: 'y' }, 400, 'autoCapTime_required', 'autoCapTime'],
      [{ autoCapTime: -1 }, 400, 'autoCapTime_invalid', 'autoCapTime'],
      [{ autoCapTime: 168.5 }, 400, 'autoCapTime_invalid', 'autoCapTime'],
      [{ autoCapTime: 'soon' }, 400, 'autoCapTime_invalid', 'autoCapTime'],
      [{ chargeMode: 3 }, 400, 'chargeMode_invalid', 'chargeMode'],
      [{ chargeMode: '2x' }, 400, 'chargeMode_invalid', 'chargeMode'],
      [{ transactionIndicator: 4 }, 400, 'transactionIndicator_invalid', 'transactionIndicator'],
      [{ transactionIndicator: '0' }, 400, 'transactionIndicator_invalid', 'transactionIndicator'],
      [{ customerIp: '999.1.1.1' }, 400, 'customerIp_invalid', 'customerIp'],
      [{ customerName: long(101) }, 400, 'customerName_invalid', 'customerName'],
      [{ description: long(501) }, 400, 'description_invalid', 'description'],
      [{ successUrl: 'javascript:alert(1)' }, 400, 'successUrl_invalid', 'successUrl'],
      [{ failUrl: '/relative' }, 400, 'failUrl_invalid', 'failUrl'],
      [{ metadata: meta11 }, 400, 'metadata_invalid', 'metadata'],
      [{ metadata: { k: long(101) } }, 400, 'metadata_invalid', 'metadata.k'],
      [{ metadata: { [long(101)]: 'v' } }, 400, 'metadata_key_invalid', 'metadata'],
      [{ metadata: { n: 1 } }, 400, 'metadata_invalid', 'metadata.n'],
      [{ metadata: ['a'] }, 400, 'metadata_invalid', 'metadata'],
      [{ products: { name: 'x' } }, 400, 'products_invalid', 'products'],
      [{ products: [{ price: 'free' }] }, 400, 'products.price_invalid', 'products.0.price'],
      [{ products: [{ name: 'ok' }, { quantity: 1.5 }] }, 400, 'products.quantity_invalid', 'products.1.quantity'],
      [{ products: [{ shippingCost: -1 }] }, 400, 'products.shippingCost_invalid', 'products.0.shippingCost'],
      [{ shippingDetails: 'London' }, 400, 'shippingDetails_invalid', 'shippingDetails'],
      [
        { billingDetails: { phone: { number: 7700 } } },
        400,
        'billingDetails.phone.number_invalid',
        'billingDetails.phone.number',
      ],
      [{ recipientDetails: 'x' }, 400, 'recipientDetails_invalid', 'recipientDetails'],
      [{ riskCheck: 'false' }, 400, 'riskCheck_invalid', 'riskCheck'],
      [{ riskCheck: false }, 403, 'risk_check_bypass_not_enabled', 'riskCheck'],
      [{ trackId: long(51) }, 400, 'trackId_invalid', 'trackId'],
      [{ trackId: '' }, 400, 'trackId_invalid', 'trackId'],
      [{ udf1: long(101) }, 400, 'udf1_invalid', 'udf1'],
      [{ udf3: long(101) }, 400, 'udf3_invalid', 'udf3'],
      [{ udf5: 5 }, 400, 'udf5_invalid', 'udf5'],
    ];
    for (const [patch, status, code, field] of cases) {
      const body: Record<string, unknown> = { ...(await chargeBody(sb)), ...patch };
      for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
      const r = await postCharge(sb, body);
      assert.equal(r.status, status, `${JSON.stringify(patch).slice(0, 80)}: ${r.text}`);
      errorBodySchema.parse(r.json);
      assert.equal(r.json.errorCode, code, JSON.stringify(patch).slice(0, 80));
      assert.equal(r.json.errors[0].field, field, JSON.stringify(patch).slice(0, 80));
      assert.equal(r.json.requestId, r.headers.get('svc-request-id'));
      if (body.cardToken && typeof body.cardToken === 'string' && body.cardToken.length === 35) {
        const retry = await postCharge(sb, { ...(await chargeBody(sb)), cardToken: body.cardToken });
        assert.equal(retry.status, 200, `a refused charge leaves its token usable (${code})`);
      }
    }
  });

  it('names a bad metadata key with a stable code, the real reason and the key made safe, never echoed raw', async () => {
    type Case = [metadata: Record<string, unknown>, code: string, field: string, message: string];
    const cases: Case[] = [
      [
        { 'a\u202eb': 'v' },
        'metadata_key_invalid',
        'metadata',
        'metadata: the key "a\\u202Eb" must not contain control or bidirectional-override characters',
      ],
      [{ 'a\u0000b': 'v' }, 'metadata_key_invalid', 'metadata', 'metadata: the key "a\\u0000b" must not contain'],
      [{ '': 'v' }, 'metadata_key_invalid', 'metadata', 'metadata: a key must not be empty'],
      [
        { ['k'.repeat(101)]: 'v' },
        'metadata_key_invalid',
        'metadata',
        `metadata: the key "${'k'.repeat(32)}…" must be at most 100 characters`,
      ],
      [
        Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v'])),
        'metadata_invalid',
        'metadata',
        'metadata: must have at most 10 pairs',
      ],
      [{ 'gift note': 'v'.repeat(101) }, 'metadata_invalid', 'metadata.gift note', 'must be at most 100 characters'],
      // A bad value under an allowed but invisible key (a zero-width space): the field shows it escaped.
      [{ 'x\u200by': 5 }, 'metadata_invalid', 'metadata.x\\u200By', 'metadata.x\\u200By: must be a string'],
    ];
    for (const [metadata, code, field, message] of cases) {
      const r = await postCharge(sb, { ...(await chargeBody(sb)), metadata });
      const label = JSON.stringify(metadata).slice(0, 60);
      assert.equal(r.status, 400, `${label}: ${r.text}`);
      assert.equal(r.json.errorCode, code, label);
      assert.equal(r.json.errors[0].code, code, label);
      assert.equal(r.json.errors[0].field, field, label);
      assert.ok(r.json.message.startsWith(message) || r.json.message.includes(message), `${label}: ${r.json.message}`);
      for (const text of [r.json.errorCode, r.json.message, ...r.json.errors.flatMap(Object.values)]) {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: checking that none is echoed is the point
        assert.doesNotMatch(text, /[\u0000-\u001f\u202a-\u202e\u2066-\u2069]/, label);
      }
      assert.ok(r.json.errorCode.length <= 40, label);
    }
  });

  it('accepts the value as a numeric string, currency in any case, metadata at its limits, unicode text', async () => {
    const meta10 = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`k${i}`.padEnd(100, 'k'), 'v'.repeat(100)]),
    );
    const c = await charge(sb, '4242424242424242', {
      value: '250',
      currency: 'gbp',
      metadata: meta10,
      customerName: 'أحمد\u200f',
      trackId: `🧾${'x'.repeat(49)}`,
      udf2: '日本語'.repeat(33),
    });
    assert.equal(c.value, 250);
    assert.equal(c.currency, 'GBP');
    assert.equal(Object.keys(c.metadata).length, 10);
    assert.equal(c.trackId, `🧾${'x'.repeat(49)}`, 'limits count characters, an emoji is one');
  });

  it('uses a card token once, and not after 15 minutes of sandbox clock', async () => {
    const body = await chargeBody(sb);
    assert.equal((await postCharge(sb, body)).status, 200);
    const twice = await postCharge(sb, { ...body, trackId: 'other' });
    assert.equal(twice.status, 422);
    assert.equal(twice.json.errorCode, 'card_token_used');
    assert.equal(twice.json.errors[0].field, 'cardToken');

    const fresh = await chargeBody(sb);
    await advance(sb, 15 * 60 - 1);
    const justInTime = await chargeBody(sb);
    await advance(sb, 1);
    const expired = await postCharge(sb, fresh);
    assert.equal(expired.status, 422);
    assert.equal(expired.json.errorCode, 'card_token_expired');
    assert.equal((await postCharge(sb, justInTime)).status, 200);
  });

  it('makes at most one charge from a token, however many requests race for it', async () => {
    const body = await chargeBody(sb);
    const answers = await Promise.all(Array.from({ length: 10 }, () => postCharge(sb, body)));
    assert.equal(answers.filter((a) => a.status === 200).length, 1);
    for (const a of answers.filter((x) => x.status !== 200)) assert.equal(a.json.errorCode, 'card_token_used');
  });

  it('keeps no card number or CVV from charge traffic in the request log', async () => {
    await charge(sb, '378282246310005', { description: 'paid with 3782 822463 10005', udf1: '6011111111111117' });
    const xml = await chargeBody(sb, '3566002020360505');
    await call(`${sb.url}${SANDBOX}/charges/token`, {
      method: 'POST',
      ...xmlRequest(xml),
      headers: {
        'content-type': 'application/xml',
        authorization: sb.credentials.secretKey,
        accept: 'application/xml',
      },
    });
    const log = await call(`${sb.url}/_sandbox/requests?limit=200`);
    for (const pan of ['378282246310005', '3782 822463 10005', '6011111111111117', '3566002020360505']) {
      assert.ok(!log.text.includes(pan), `log holds ${pan}`);
    }
    assert.ok(!log.text.includes(sb.credentials.secretKey));
    assert.match(log.text, /378282\*+0005/);
  });

  it('logs a charge answer as it was sent, not as the charge is now', async () => {
    const body = await chargeBody(sb, '4242424242424242', { autoCapTime: 2 });
    const made = await postCharge(sb, body);
    assert.equal(made.json.status, 'Authorised', made.text);
    await advance(sb, 3 * 3600);
    assert.equal((await getCharge(sb, made.json.id)).json.status, 'Captured');
    const log = await call(`${sb.url}/_sandbox/requests?limit=200`);
    const entry = log.json.data.find(
      (e: { method: string; responseBody?: { id?: string } }) =>
        e.method === 'POST' && e.responseBody?.id === made.json.id,
    );
    assert.ok(entry, 'the charge is in the log');
    assert.equal(entry.responseBody.status, 'Authorised');
    assert.deepEqual(entry.requestBody, body);
  });

  it('creates a customer on the first charge by email and finds it again by email or id', async () => {
    const first = await charge(sb, '4242424242424242', { email: 'Repeat@Example.com', customerName: 'First' });
    const second = await charge(sb, '5555555555554444', { email: 'repeat@example.com', customerName: 'Other' });
    assert.equal(second.card.customerId, first.card.customerId);
    const byId = await postCharge(sb, {
      ...(await chargeBody(sb)),
      email: undefined,
      customerId: first.card.customerId,
    });
    assert.equal(byId.status, 200, byId.text);
    assert.equal(byId.json.email, 'Repeat@Example.com');
    const mismatch = await postCharge(sb, {
      ...(await chargeBody(sb)),
      email: 'someone@example.com',
      customerId: first.card.customerId,
    });
    assert.equal(mismatch.status, 422);
    assert.equal(mismatch.json.errorCode, 'customer_email_mismatch');
    assert.equal(mismatch.json.errors[0].field, 'email');
    const other = await charge(sb, '4242424242424242', { email: 'new@example.com' });
    assert.notEqual(other.card.customerId, first.card.customerId);
  });

  it('keeps trackId unique per merchant, except that a declined attempt does not hold it', async () => {
    await charge(sb, '4242424242424242', { trackId: 'order-77' });
    const dup = await postCharge(sb, await chargeBody(sb, '4242424242424242', { trackId: 'order-77' }));
    assert.equal(dup.status, 422);
    assert.equal(dup.json.errorCode, 'track_id_duplicate');
    assert.equal(dup.json.errors[0].field, 'trackId');
    const declined = await charge(sb, '4000000000009995', { trackId: 'order-78' });
    assert.equal(declined.status, 'Declined');
    const retry = await charge(sb, '4242424242424242', { trackId: 'order-78' });
    assert.equal(retry.status, 'Captured');
  });

  it('needs the secret key for charges, payment tokens and reads', async () => {
    const body = await chargeBody(sb);
    const cases: [string, Record<string, string>, string][] = [
      ['/charges/token', { authorization: sb.credentials.publicKey }, 'secret_key_required'],
      ['/charges/token', {}, 'authorization_missing'],
      ['/charges/token', { authorization: 'sk_sbox_guess' }, 'authorization_invalid'],
      ['/tokens/payment', { authorization: sb.credentials.publicKey }, 'secret_key_required'],
    ];
    for (const [path, headers, code] of cases) {
      const r = await call(`${sb.url}${SANDBOX}${path}`, { body, headers });
      assert.equal(r.status, 401, `${path} ${code}`);
      assert.equal(r.json.errorCode, code);
      assert.ok(!r.text.includes(sb.credentials.publicKey) && !r.text.includes('sk_sbox_guess'));
    }
    assert.equal((await postCharge(sb, body)).status, 200, 'the refused attempts left the token usable');
    const read = await call(`${sb.url}${SANDBOX}/charges/charge_x`, {
      headers: { authorization: sb.credentials.publicKey },
    });
    assert.equal(read.status, 401);
  });

  it('creates payment tokens from value, currency and chargeMode', async () => {
    const ok = await call(`${sb.url}${SANDBOX}/tokens/payment`, {
      body: { value: '1000', currency: 'usd', chargeMode: 2 },
      headers: { authorization: sb.credentials.secretKey },
    });
    assert.equal(ok.status, 200, ok.text);
    assert.match(ok.json.id, /^pay_tok_[a-z2-7]{26}$/);
    assert.equal(ok.json.liveMode, false);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ currency: 'USD' }, 'value_required', 'value'],
      [{ value: 1, currency: 'usdollar' }, 'currency_invalid', 'currency'],
      [{ value: 1, currency: 'USD', chargeMode: 5 }, 'chargeMode_invalid', 'chargeMode'],
    ];
    for (const [body, code, field] of cases) {
      const r = await call(`${sb.url}${SANDBOX}/tokens/payment`, {
        body,
        headers: { authorization: sb.credentials.secretKey },
      });
      assert.equal(r.status, 400);
      assert.equal(r.json.errorCode, code);
      assert.equal(r.json.errors[0].field, field);
    }
  });

  it('reads a charge back by id in JSON or XML, and 404s an unknown one', async () => {
    const c = await charge(sb);
    const r = await getCharge(sb, c.id);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, c);
    const x = await getCharge(sb, c.id, { accept: 'application/xml' });
    assert.match(x.headers.get('content-type') ?? '', /^application\/xml/);
    assert.deepEqual(chargeResponseSchema.parse(coerceFromXml(chargeResponseSchema, fromXml(x.text))), c);
    const missing = await getCharge(sb, 'charge_nothing');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.errorCode, 'charge_not_found');
    const missingXml = await getCharge(sb, 'charge_nothing', { accept: 'application/xml' });
    assert.equal((fromXml(missingXml.text) as { errorCode: string }).errorCode, 'charge_not_found');
  });

  it('takes a full XML charge request (arrays of one, booleans, metadata keys) and answers JSON', async () => {
    const body = await chargeBody(sb, '378282246310005', {
      value: 1250,
      autoCapture: 'n',
      autoCapTime: 0,
      riskCheck: true,
      chargeMode: 1,
      products: [{ name: 'Only one', price: 12.5, quantity: 1 }],
      metadata: { 'not an xml name': 'ok', plain: 'yes' },
      billingDetails: { addressLine1: 'A', postcode: 'B', phone: { countryCode: '1', number: '555' } },
    });
    const r = await call(`${sb.url}${SANDBOX}/charges/token`, {
      method: 'POST',
      ...xmlRequest(body),
      headers: { 'content-type': 'application/xml', authorization: sb.credentials.secretKey },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.value, 1250);
    assert.equal(r.json.status, 'Authorised');
    assert.deepEqual(r.json.products, [{ name: 'Only one', price: 12.5, quantity: 1 }]);
    assert.deepEqual(r.json.metadata, { 'not an xml name': 'ok', plain: 'yes' });
    assert.equal(r.json.card.paymentMethod, 'American Express');
    const bad = await call(`${sb.url}${SANDBOX}/charges/token`, {
      method: 'POST',
      ...xmlRequest({ ...(await chargeBody(sb)), value: 'ten' }),
      headers: {
        'content-type': 'application/xml',
        authorization: sb.credentials.secretKey,
        accept: 'application/xml',
      },
    });
    assert.equal(bad.status, 400);
    const err = fromXml(bad.text) as { errorCode: string; errors: { field: string } };
    assert.equal(err.errorCode, 'value_invalid');
    assert.equal(err.errors.field, 'value');
  });

  it('takes in XML every number and empty product it takes in JSON, and answers XML that reads back the same', async () => {
    // 0.1 * 3 is 0.30000000000000004 (17 digits after the point) and 1e-7 was written "1e-7": both were refused in
    // XML (products.0.price_invalid, autoCapTime_invalid) though the same JSON numbers are accepted.
    const price = 0.1 * 3;
    const autoCapTime = 1e-7;
    const body = await chargeBody(sb, '4242424242424242', {
      autoCapture: 'n',
      autoCapTime,
      products: [{ name: 'Thirds', price, shippingCost: 2.5e-7 }],
    });
    const r = await call(`${sb.url}${SANDBOX}/charges/token`, {
      method: 'POST',
      ...xmlRequest(body),
      headers: { 'content-type': 'application/xml', authorization: sb.credentials.secretKey },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.autoCapTime, autoCapTime);
    assert.deepEqual(r.json.products, [{ name: 'Thirds', price, shippingCost: 2.5e-7 }]);
    const xml = await getCharge(sb, r.json.id, { accept: 'application/xml' });
    assert.doesNotMatch(xml.text, /<(price|shippingCost|autoCapTime)>[^<]*e/);
    const read = chargeResponseSchema.parse(coerceFromXml(chargeResponseSchema, fromXml(xml.text)));
    assert.equal(read.autoCapTime, autoCapTime);
    assert.deepEqual(read.products, [{ name: 'Thirds', price, shippingCost: 2.5e-7 }]);
    // One product without fields is written <products/>, which was read as no product at all.
    const empty = await call(`${sb.url}${SANDBOX}/charges/token`, {
      method: 'POST',
      ...xmlRequest(await chargeBody(sb, '4242424242424242', { products: [{}] })),
      headers: { 'content-type': 'application/xml', authorization: sb.credentials.secretKey },
    });
    assert.equal(empty.status, 200, empty.text);
    assert.deepEqual(empty.json.products, [{}]);
  });

  it('serves /v2/charges/token with liveMode true in production mode', async () => {
    const prod = await startSandbox({ mode: 'production' });
    try {
      const r = await call(`${prod.url}/v2/charges/token`, {
        body: { cardToken: await cardToken(prod), value: 100, currency: 'USD', email: 'p@example.com' },
        headers: { authorization: prod.credentials.secretKey },
      });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.liveMode, true);
      assert.equal(
        (await call(`${prod.url}/v2/charges/${r.json.id}`, { headers: { authorization: prod.credentials.secretKey } }))
          .json.liveMode,
        true,
      );
      assert.equal((await call(`${prod.url}/api2/v2/charges/token`, { body: {} })).status, 404);
    } finally {
      await prod.close();
    }
  });
});

describe('legacy API: charge states on the sandbox clock', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await startSandbox();
  });
  after(() => sb.close());

  const status = async (id: string) => (await getCharge(sb, id)).json.status;

  it('captures at once when autoCapTime is 0, explicitly or by default', async () => {
    assert.equal((await charge(sb)).status, 'Captured');
    assert.equal((await charge(sb, '4242424242424242', { autoCapture: 'y', autoCapTime: 0 })).status, 'Captured');
  });

  it('captures an authorisation when autoCapTime elapses (decimals are fractions of an hour)', async () => {
    const c = await charge(sb, '4242424242424242', { autoCapture: 'y', autoCapTime: 0.5 });
    assert.equal(c.status, 'Authorised');
    assert.equal(c.autoCapTime, 0.5);
    await advance(sb, 29 * 60);
    assert.equal(await status(c.id), 'Authorised');
    await advance(sb, 60);
    assert.equal(await status(c.id), 'Captured');
    await advance(sb, 200 * HOUR);
    assert.equal(await status(c.id), 'Captured', 'a captured charge does not expire');
  });

  it('answers autoCapture as requested, in either case, and acts on it the same (JSON and XML)', async () => {
    // legacy-card-api.md: autoCapture is "y or n"; the answer's autoCapture is "as requested".
    const upper = await charge(sb, '4242424242424242', { autoCapture: 'Y', autoCapTime: 1 });
    assert.deepEqual([upper.autoCapture, upper.status], ['Y', 'Authorised']);
    const off = await charge(sb, '4242424242424242', { autoCapture: 'N' });
    assert.deepEqual([off.autoCapture, off.status], ['N', 'Authorised']);
    const now = await charge(sb, '4242424242424242', { autoCapture: 'Y', autoCapTime: 0 });
    assert.deepEqual([now.autoCapture, now.status], ['Y', 'Captured']);
    const lower = await charge(sb, '4242424242424242', { autoCapture: 'y', autoCapTime: 1 });
    assert.equal(lower.autoCapture, 'y');
    const xml = await postCharge(sb, await chargeBody(sb, '4242424242424242', { autoCapture: 'N' }), {
      accept: 'application/xml',
    });
    assert.match(xml.text, /<autoCapture>N<\/autoCapture>/);
    const missing = await postCharge(sb, await chargeBody(sb, '4242424242424242', { autoCapture: 'Y' }));
    assert.equal(missing.status, 400, 'autoCapTime is required with "Y" as with "y"');
    assert.equal(missing.json.errorCode, 'autoCapTime_required');
    await advance(sb, HOUR);
    const read = await getCharge(sb, upper.id);
    assert.deepEqual([read.json.autoCapture, read.json.status], ['Y', 'Captured']);
    assert.deepEqual([(await getCharge(sb, off.id)).json.status], ['Authorised']);
  });

  it('captures at 168 hours rather than expiring when autoCapTime is the maximum', async () => {
    const c = await charge(sb, '4242424242424242', { autoCapture: 'Y', autoCapTime: '168' });
    await advance(sb, 168 * HOUR);
    assert.equal(await status(c.id), 'Captured');
  });

  it('expires an uncaptured authorisation after 168 hours', async () => {
    const c = await charge(sb, '5555555555554444', { autoCapture: 'n' });
    assert.equal(c.status, 'Authorised');
    await advance(sb, 168 * HOUR - 1);
    assert.equal(await status(c.id), 'Authorised');
    await advance(sb, 1);
    const r = (await getCharge(sb, c.id)).json;
    assert.equal(r.status, 'Expired');
    assert.equal(r.responseCode, '10000', 'the issuer approved it; the authorisation lapsed');
  });

  it('leaves Declined and Flagged charges where they are', async () => {
    const declined = await charge(sb, '4000000000000002');
    const flagged = await charge(sb, '4000000000004954', { autoCapture: 'y', autoCapTime: 1 });
    assert.equal(flagged.status, 'Flagged');
    await advance(sb, 300 * HOUR);
    assert.equal(await status(declined.id), 'Declined');
    assert.equal(await status(flagged.id), 'Flagged');
  });

  it('forgets every charge, token and customer on reset', async () => {
    const c = await charge(sb);
    const token = await cardToken(sb);
    assert.equal((await call(`${sb.url}/_sandbox/reset`, { method: 'POST' })).status, 204);
    assert.equal((await getCharge(sb, c.id)).status, 404);
    const r = await postCharge(sb, { cardToken: token, value: 1, currency: 'USD', email: 'x@example.com' });
    assert.equal(r.json.errorCode, 'card_token_unknown');
  });
});
