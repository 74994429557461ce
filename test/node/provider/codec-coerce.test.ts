import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { coerceFromXml } from '../../../server/provider/codec/coerce.js';
import { decodeXml, encodeXml } from '../../../server/provider/codec/xml.js';
import {
  type ChargeResponse,
  cardTokenResponseSchema,
  chargeModeSchema,
  chargeRequestSchema,
  chargeResponseSchema,
  errorBodySchema,
  paymentTokenRequestSchema,
  valueSchema,
} from '../../../server/provider/schemas/legacy.js';
import { fastestMsSync } from '../../support/timing.js';

const address = {
  addressLine1: '1 Main St',
  addressLine2: null,
  postcode: 'N1 9GU',
  country: 'GB',
  city: 'London',
  state: null,
  phone: { countryCode: '44', number: '7700 900000' },
};

const sampleCharge: ChargeResponse = {
  id: 'charge_abc',
  liveMode: false,
  created: '2026-01-02T03:04:05.678Z',
  value: 1999,
  currency: 'EUR',
  trackId: 'order-1',
  description: null,
  email: 'a@example.com',
  customerIp: '203.0.113.7',
  chargeMode: 1,
  transactionIndicator: 1,
  autoCapture: 'y',
  autoCapTime: 0.5,
  responseMessage: 'Approved',
  responseAdvancedInfo: 'Approved',
  responseCode: '10000',
  status: 'Authorised',
  authCode: '012345',
  isCascaded: false,
  card: {
    id: 'card_abc',
    last4: '4242',
    bin: '424242',
    paymentMethod: 'Visa',
    expiryMonth: '06',
    expiryYear: '2030',
    fingerprint: 'F'.repeat(64),
    name: null,
    customerId: 'cust_abc',
    billingDetails: address,
    cvvCheck: 'Y',
    avsCheck: 'Y',
  },
  riskCheck: true,
  customerPaymentPlans: null,
  metadata: { 'cart id': 'c-1', plain: '007' },
  shippingDetails: null,
  products: [{ name: 'Book', price: 9.99, quantity: 2, sku: '0042' }],
  udf1: '123',
  udf2: null,
  udf3: null,
  udf4: null,
  udf5: 'true',
};

const roundTrip = <S extends z.ZodType>(schema: S, value: Record<string, unknown>) =>
  schema.parse(coerceFromXml(schema, decodeXml(encodeXml(value))));

describe('coerceFromXml', () => {
  it('round-trips a charge response through XML to the same typed object', () => {
    assert.deepEqual(roundTrip(chargeResponseSchema, sampleCharge), sampleCharge);
  });

  it('keeps strings that look like numbers or booleans where the schema wants strings', () => {
    const back = roundTrip(chargeResponseSchema, sampleCharge);
    assert.equal(back.authCode, '012345');
    assert.equal(back.card.expiryMonth, '06');
    assert.equal(back.udf1, '123');
    assert.equal(back.udf5, 'true');
    assert.equal(back.metadata.plain, '007');
    assert.equal(back.products[0]?.sku, '0042');
  });

  it('reads one repeated element as a one-item array, several as an array, none (required) as []', () => {
    const two = { ...sampleCharge, products: [{ name: 'A' }, { name: 'B', price: 1 }] };
    assert.deepEqual(roundTrip(chargeResponseSchema, two).products, two.products);
    const none = { ...sampleCharge, products: [] };
    assert.match(encodeXml(none), /^(?!.*<products)/);
    assert.deepEqual(roundTrip(chargeResponseSchema, none).products, []);
    const error = {
      requestId: 'req_1',
      errorCode: 'x',
      message: 'm',
      errors: [{ field: 'value', code: 'c', message: 'm' }],
    };
    assert.deepEqual(roundTrip(errorBodySchema, error), error);
    assert.deepEqual(roundTrip(errorBodySchema, { ...error, errors: [] }).errors, []);
  });

  it('does not invent an optional array that is absent', () => {
    const coerced = coerceFromXml(chargeRequestSchema, { value: '1' }) as Record<string, unknown>;
    assert.equal('products' in coerced, false);
  });

  it('reads an empty element as an empty object where an object or record is wanted', () => {
    const decoded = decodeXml(encodeXml({ ...sampleCharge, metadata: {} }));
    assert.equal(decoded.metadata, '');
    assert.deepEqual(roundTrip(chargeResponseSchema, { ...sampleCharge, metadata: {} }).metadata, {});
  });

  it('turns booleans and numbers by the schema, including numeric literals inside unions', () => {
    const request = decodeXml(
      '<data><cardToken>card_tok_x</cardToken><currency>usd</currency><value>250</value><email>a@b.co</email>' +
        '<chargeMode>2</chargeMode><transactionIndicator>3</transactionIndicator><autoCapTime>0.5</autoCapTime>' +
        '<riskCheck>true</riskCheck><products><price>12.50</price><quantity>3</quantity></products></data>',
    );
    const parsed = chargeRequestSchema.parse(coerceFromXml(chargeRequestSchema, request));
    assert.equal(parsed.value, 250);
    assert.equal(parsed.currency, 'USD');
    assert.equal(parsed.chargeMode, 2);
    assert.equal(parsed.transactionIndicator, 3);
    assert.equal(parsed.autoCapTime, 0.5);
    assert.equal(parsed.riskCheck, true);
    assert.deepEqual(parsed.products, [{ price: 12.5, quantity: 3 }]);
    const literal = z.object({ mode: z.literal([1, 2]), flag: z.literal(true) });
    assert.deepEqual(coerceFromXml(literal, { mode: '2', flag: 'true' }), { mode: 2, flag: true });
  });

  it('leaves what it cannot convert for the schema to refuse by field', () => {
    const coerced = coerceFromXml(paymentTokenRequestSchema, { value: 'ten', currency: { x: '1' } });
    assert.deepEqual(coerced, { value: 'ten', currency: { x: '1' } });
    const result = paymentTokenRequestSchema.safeParse(coerced);
    assert.equal(result.success, false);
    assert.deepEqual(result.error?.issues.map((i) => i.path.join('.')).sort(), ['currency', 'value']);
    const numbers = z.object({ n: z.number(), b: z.boolean() });
    assert.deepEqual(coerceFromXml(numbers, { n: '12abc', b: 'yes' }), { n: '12abc', b: 'yes' });
    assert.deepEqual(coerceFromXml(numbers, { n: ' 42 ', b: 'false' }), { n: 42, b: false });
    assert.deepEqual(coerceFromXml(numbers, { n: '-1.5', b: 'true' }), { n: -1.5, b: true });
    // One number rule for XML and JSON text (docs/decisions/sandbox.md#legacy-xml-coercion): plain decimals only.
    for (const n of ['-1.5e3', '1e3', '+1', '.5', '1.', '0x10', 'Infinity', '1'.repeat(17)]) {
      assert.deepEqual(coerceFromXml(numbers, { n, b: 'true' }), { n, b: true }, n);
    }
  });

  it('reads back every number it writes: 17 significant digits and tiny numbers are written as plain decimals', () => {
    // A product price computed in floating point (0.1 * 3) or an autoCapTime of 1e-7 hours is a valid JSON number.
    // The writer used String(n) ("0.30000000000000004", "1e-7"), which the plain-decimal rule refused: the sandbox
    // answered 400 to the client's own XML request, and the client read the sandbox's XML answer as text.
    const numbers = z.object({ n: z.number() });
    const cases = [0.1 * 3, 1e-7, -1.5e-10, 123.456, 1 / 3, 5e-324, Number.MAX_SAFE_INTEGER, 0.000001, -0];
    for (const n of cases) {
      const xml = encodeXml({ n });
      assert.doesNotMatch(xml, /e/i.test(String(n)) ? /<n>[^<]*e/i : /^$/, `${n} is written without an exponent`);
      for (const exact of [false, true]) {
        const decoded = decodeXml(xml, { trim: !exact });
        const read = numbers.parse(coerceFromXml(numbers, decoded, { exact }));
        assert.ok(Object.is(read.n, n === 0 ? 0 : n), `${n} (exact: ${exact}) read back as ${read.n}`);
      }
    }
  });

  it('reads an empty element where an array is wanted as one empty item, as it was written', () => {
    // encodeXml writes no element for [] and <products/> for [{}]; the reader took <products/> for [] and the one
    // product was lost, in the sandbox's requests and in the client's answers alike.
    const schema = z.object({ products: z.array(z.object({ name: z.string().nullish() })), tags: z.array(z.string()) });
    for (const value of [
      { products: [{}], tags: [''] },
      { products: [{}, {}], tags: ['', ''] },
      { products: [], tags: [] },
    ]) {
      const xml = encodeXml(value);
      assert.deepEqual(coerceFromXml(schema, decodeXml(xml)), value, xml);
      assert.deepEqual(coerceFromXml(schema, decodeXml(xml, { trim: false }), { exact: true }), value, xml);
    }
  });

  it('reads text for a union that takes text by its string rule, as a JSON string is read', () => {
    // `value` is a number or a digit string: `1e3` and `1999.000` are refused like "1e3" in JSON, not charged.
    for (const value of ['1e3', '1999.000', '+1000', ' 1000x', '.5e1']) {
      const coerced = coerceFromXml(paymentTokenRequestSchema, { value, currency: 'EUR' });
      const xml = paymentTokenRequestSchema.safeParse(coerced);
      const json = paymentTokenRequestSchema.safeParse({ value, currency: 'EUR' });
      assert.equal(xml.success, false, `XML ${value}`);
      assert.equal(json.success, false, `JSON ${value}`);
      assert.deepEqual(
        xml.error?.issues.map((i) => i.path.join('.')),
        ['value'],
      );
    }
    assert.equal(
      paymentTokenRequestSchema.parse(coerceFromXml(paymentTokenRequestSchema, { value: '1999', currency: 'EUR' }))
        .value,
      1999,
    );
  });

  it("reads exact text (the sandbox's requests) by the JSON string rule, and trims only for a lenient reader", () => {
    const doc =
      '<data>\n  <value>\n 1999\n</value>\n  <chargeMode> 2</chargeMode>\n  <billingDetails>\n  </billingDetails>\n  <products>\n    <price> 1.5</price>\n  </products>\n</data>';
    // A reader of answers (the client) trims: a pretty-printed provider answer stays readable.
    const lenient = coerceFromXml(chargeRequestSchema, decodeXml(doc)) as Record<string, unknown>;
    assert.equal(valueSchema.parse(lenient.value), 1999);
    assert.equal(chargeModeSchema.parse(lenient.chargeMode), 2);
    assert.deepEqual(lenient.products, [{ price: 1.5 }]);
    // Exact text: the strings a JSON body would carry, left for the schema to refuse by field.
    const exact = coerceFromXml(chargeRequestSchema, decodeXml(doc, { trim: false }), { exact: true }) as Record<
      string,
      unknown
    >;
    assert.equal(exact.value, '\n 1999\n');
    assert.equal(exact.chargeMode, ' 2');
    assert.equal(valueSchema.safeParse(exact.value).success, false);
    assert.equal(chargeModeSchema.safeParse(exact.chargeMode).success, false);
    assert.deepEqual(exact.products, [{ price: ' 1.5' }]);
    // White space only where an object or an array is wanted is an empty element, not a value.
    assert.deepEqual(exact.billingDetails, {});
    const empty = decodeXml('<data><products>\n</products><metadata> </metadata></data>', { trim: false });
    assert.deepEqual(coerceFromXml(chargeRequestSchema, empty, { exact: true }), { products: [], metadata: {} });
    const numbers = z.object({ n: z.number() });
    assert.deepEqual(coerceFromXml(numbers, { n: ' 42 ' }, { exact: true }), { n: ' 42 ' });
    assert.deepEqual(coerceFromXml(numbers, { n: '42' }, { exact: true }), { n: 42 });
  });

  it('coerces numbers in linear time: a 64 KiB run of digits is refused at once', () => {
    const numbers = z.object({ n: z.number() });
    for (const n of [`${'1'.repeat(65_536)}x`, `1.${'1'.repeat(65_536)}x`, `-${'0'.repeat(65_536)}`]) {
      const ms = fastestMsSync(() => assert.deepEqual(coerceFromXml(numbers, { n }), { n }), 100);
      assert.ok(ms < 100, `${n.length} characters: ${ms.toFixed(0)} ms`);
    }
  });

  it('keeps null (nil="true") as null and does not modify its input', () => {
    const input = decodeXml(
      '<data><id>card_tok_1</id><liveMode>false</liveMode><created>x</created><used>true</used><card><id>c</id><last4>1</last4><bin>2</bin><paymentMethod>Visa</paymentMethod><expiryMonth>01</expiryMonth><expiryYear>2030</expiryYear><fingerprint>f</fingerprint><name nil="true"/></card></data>',
    );
    const snapshot = structuredClone(input);
    const parsed = cardTokenResponseSchema.parse(coerceFromXml(cardTokenResponseSchema, input));
    assert.equal(parsed.card.name, null);
    assert.equal(parsed.used, true);
    assert.equal(parsed.liveMode, false);
    assert.deepEqual(input, snapshot);
  });

  it('walks optional, nullable, default, lazy, record and intersection wrappers', () => {
    type Tree = { n: number; kids?: Tree[] };
    const tree: z.ZodType<Tree> = z.lazy(() => z.object({ n: z.number(), kids: z.array(tree).optional() }));
    assert.deepEqual(coerceFromXml(tree, { n: '1', kids: { n: '2', kids: [{ n: '3' }, { n: '4' }] } }), {
      n: 1,
      kids: [{ n: 2, kids: [{ n: 3 }, { n: 4 }] }],
    });
    const wrapped = z.object({
      a: z.number().nullable().optional(),
      b: z.number().default(5),
      c: z.record(z.string(), z.number()),
      d: z.intersection(z.object({ x: z.number() }), z.object({ y: z.boolean() })),
    });
    assert.deepEqual(coerceFromXml(wrapped, { a: '1', b: '2', c: { p: '3' }, d: { x: '4', y: 'true' } }), {
      a: 1,
      b: 2,
      c: { p: 3 },
      d: { x: 4, y: true },
    });
  });

  it("copies a __proto__ key as an own field, never as the copy's prototype", () => {
    // What JSON.parse (or a caller) hands over may hold an own `__proto__`; `out[key] = …` made it the copy's
    // prototype, so the record seemed to hold the attacker's fields (`polluted`) and lost its own.
    const input = JSON.parse('{"id":"x","__proto__":{"id":"y"},"c":{"__proto__":{"polluted":"yes"},"p":"3"}}');
    const schema = z.object({ id: z.string(), c: z.record(z.string(), z.unknown()) });
    const out = coerceFromXml(schema, input) as Record<string, Record<string, unknown>>;
    for (const copy of [out, out.c!]) {
      assert.equal(Object.getPrototypeOf(copy), Object.prototype);
      assert.ok(Object.hasOwn(copy, '__proto__'));
    }
    assert.equal(out.id, 'x');
    assert.equal(out.c!.polluted, undefined);
    assert.deepEqual(Object.getOwnPropertyDescriptor(out.c, '__proto__')?.value, { polluted: 'yes' });
    assert.deepEqual(Object.keys(out.c!), ['__proto__', 'p']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('stops at a depth limit instead of recursing forever', () => {
    type Deep = { a?: Deep; n?: number };
    const deep: z.ZodType<Deep> = z.lazy(() => z.object({ a: deep.optional(), n: z.number().optional() }));
    let value: Record<string, unknown> = { n: '1' };
    for (let i = 0; i < 200; i++) value = { a: value };
    assert.doesNotThrow(() => coerceFromXml(deep, value));
  });
});

describe('XML codec mapping (legacy API)', () => {
  it('writes root <data>, one element per field, arrays as repeated elements, odd keys as <item key>', () => {
    const xml = encodeXml({
      value: 1,
      products: [{ name: 'a' }, { name: 'b' }],
      metadata: { 'a b': 'c<d' },
      udf1: null,
    });
    assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?><data>/);
    assert.match(xml, /<products><name>a<\/name><\/products><products><name>b<\/name><\/products>/);
    assert.match(xml, /<metadata><item key="a b">c&lt;d<\/item><\/metadata>/);
    assert.match(xml, /<udf1 nil="true"\/>/);
  });

  it('decodes numeric character references and the five predefined entities only', () => {
    const d = decodeXml('<data><a>&lt;&amp;&gt;&quot;&apos;&#65;&#x42;</a></data>');
    assert.equal(d.a, '<&>"\'AB');
    // Any other entity is undeclared (no DTD is accepted): the document is not well-formed.
    assert.throws(() => decodeXml('<data><b>&nope;</b></data>'), { code: 'xml_malformed' });
  });
});
