import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodeXml } from '../../../server/provider/codec/xml.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { cardBody, chargeBody, SANDBOX } from './legacy-support.js';

type Case = [name: string, raw: string | Buffer, contentType: string, status: number, code: string, field: string];

const JSON_TYPE = 'application/json';
const XML_TYPE = 'application/xml';

describe('legacy API: hostile and malformed input', () => {
  let sb: RunningSandbox;
  let valid: Record<string, unknown>;
  before(async () => {
    sb = await startSandbox();
    valid = await chargeBody(sb);
  });
  after(() => sb.close());

  /** The valid charge body with `patch` spliced in as raw JSON text. */
  /** The valid charge body as XML with `rawText` spliced, unescaped, into the element `key`. */
  const xmlWith = (key: string, rawText: string) =>
    encodeXml({ ...valid, [key]: '__RAW__' }).replace('__RAW__', rawText);

  const withRaw = (key: string, rawValue: string) =>
    JSON.stringify({ ...valid, [key]: '__RAW__' }).replace('"__RAW__"', rawValue);

  it('answers every hostile charge body with a 4xx naming the problem, never a 500', async () => {
    const cases: Case[] = [
      ['truncated JSON', '{"value":', JSON_TYPE, 400, 'body_malformed', 'body'],
      ['JSON array', '[{"value":1}]', JSON_TYPE, 400, 'body_not_object', 'body'],
      ['JSON string', '"charge"', JSON_TYPE, 400, 'body_not_object', 'body'],
      ['JSON null', 'null', JSON_TYPE, 400, 'body_not_object', 'body'],
      ['__proto__ key', '{"__proto__":{"polluted":1}}', JSON_TYPE, 400, 'forbidden_key', '__proto__'],
      [
        'constructor.prototype',
        withRaw('metadata', '{"constructor":{"prototype":{"x":1}}}'),
        JSON_TYPE,
        400,
        'forbidden_key',
        'metadata.constructor',
      ],
      [
        '__proto__ in a product',
        withRaw('products', '[{"__proto__":{"admin":true}}]'),
        JSON_TYPE,
        400,
        'forbidden_key',
        'products.0.__proto__',
      ],
      [
        '__proto__ under a key with a bidi override (the key is escaped in the field)',
        withRaw('metadata', '{"a\\u202e":{"__proto__":1}}'),
        JSON_TYPE,
        400,
        'forbidden_key',
        'metadata.a\\u202E.__proto__',
      ],
      [
        'oversized',
        withRaw('description', JSON.stringify('x'.repeat(70_000))),
        JSON_TYPE,
        413,
        'body_too_large',
        'body',
      ],
      ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]), JSON_TYPE, 400, 'body_encoding', 'body'],
      [
        'deep nesting',
        withRaw('metadata', `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`),
        JSON_TYPE,
        400,
        'body_too_deep',
        'metadata.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a',
      ],
      ['text/plain', 'value=1', 'text/plain', 415, 'unsupported_media_type', 'Content-Type'],
      ['form-encoded', 'value=1', 'application/x-www-form-urlencoded', 415, 'unsupported_media_type', 'Content-Type'],
      ['value 1e400', withRaw('value', '1e400'), JSON_TYPE, 400, 'value_invalid', 'value'],
      ['value 2^64', withRaw('value', '18446744073709551616'), JSON_TYPE, 400, 'value_invalid', 'value'],
      ['value -0', withRaw('value', '-0'), JSON_TYPE, 400, 'value_invalid', 'value'],
      ['autoCapTime 1e-400', withRaw('autoCapTime', '1e400'), JSON_TYPE, 400, 'autoCapTime_invalid', 'autoCapTime'],
      ['full-width digits in value', withRaw('value', '"１００"'), JSON_TYPE, 400, 'value_invalid', 'value'],
      [
        'RTL override in trackId',
        withRaw('trackId', '"order\\u202e1001"'),
        JSON_TYPE,
        400,
        'trackId_invalid',
        'trackId',
      ],
      [
        'NUL in customerName',
        withRaw('customerName', '"Ada\\u0000"'),
        JSON_TYPE,
        400,
        'customerName_invalid',
        'customerName',
      ],
      ['lone surrogate in udf1', withRaw('udf1', '"\\ud800x"'), JSON_TYPE, 400, 'udf1_invalid', 'udf1'],
      [
        'zero-width joiner flood in udf2',
        withRaw('udf2', JSON.stringify('\u200d'.repeat(101))),
        JSON_TYPE,
        400,
        'udf2_invalid',
        'udf2',
      ],
      [
        'array for billingDetails',
        withRaw('billingDetails', '[]'),
        JSON_TYPE,
        400,
        'billingDetails_invalid',
        'billingDetails',
      ],
      ['array for metadata', withRaw('metadata', '[["a","b"]]'), JSON_TYPE, 400, 'metadata_invalid', 'metadata'],
      [
        'object for products',
        withRaw('products', '{"0":{"name":"x"}}'),
        JSON_TYPE,
        400,
        'products_invalid',
        'products',
      ],
      [
        'object for cardToken',
        withRaw('cardToken', '{"id":"card_tok_x"}'),
        JSON_TYPE,
        400,
        'cardToken_invalid',
        'cardToken',
      ],
      ['number for email', withRaw('email', '42'), JSON_TYPE, 400, 'email_invalid', 'email'],
      ['malformed XML', '<data><value>1</data>', XML_TYPE, 400, 'xml_malformed', 'body'],
      [
        'XML DOCTYPE (XXE)',
        '<?xml version="1.0"?><!DOCTYPE data [<!ENTITY x SYSTEM "file:///etc/passwd">]><data><udf1>&x;</udf1></data>',
        XML_TYPE,
        400,
        'xml_doctype',
        'body',
      ],
      [
        'XML billion laughs',
        `<!DOCTYPE d [<!ENTITY a "aaaa">${Array.from({ length: 9 }, (_, i) => `<!ENTITY a${i} "&a;&a;&a;">`).join('')}]><data><udf1>&a8;</udf1></data>`,
        XML_TYPE,
        400,
        'xml_doctype',
        'body',
      ],
      ['XML ENTITY without DOCTYPE', '<!ENTITY x "y"><data/>', XML_TYPE, 400, 'xml_doctype', 'body'],
      ['XML wrong root', '<charge><value>1</value></charge>', XML_TYPE, 400, 'xml_root', 'body'],
      // The same keys as in JSON, refused the same way: forbidden_key naming the field.
      [
        'XML __proto__ element',
        '<data><__proto__><x>1</x></__proto__></data>',
        XML_TYPE,
        400,
        'forbidden_key',
        '__proto__',
      ],
      [
        'XML __proto__ metadata key',
        '<data><metadata><item key="__proto__">x</item></metadata></data>',
        XML_TYPE,
        400,
        'forbidden_key',
        'metadata.__proto__',
      ],
      [
        'XML <prototype> in metadata',
        '<data><metadata><prototype>x</prototype></metadata></data>',
        XML_TYPE,
        400,
        'forbidden_key',
        'metadata.prototype',
      ],
      [
        'XML top-level <constructor>',
        '<data><constructor>1</constructor></data>',
        XML_TYPE,
        400,
        'forbidden_key',
        'constructor',
      ],
      [
        'XML <__proto__> in products',
        '<data><products><__proto__>1</__proto__></products></data>',
        XML_TYPE,
        400,
        'forbidden_key',
        'products.__proto__',
      ],
      ['XML too deep', `<data>${'<a>'.repeat(40)}1${'</a>'.repeat(40)}</data>`, XML_TYPE, 400, 'xml_too_deep', 'body'],
      [
        'XML too many elements',
        `<data>${'<a/>'.repeat(10_001)}</data>`,
        XML_TYPE,
        400,
        'xml_too_many_elements',
        'body',
      ],
      ['XML text root', '<data>just text</data>', XML_TYPE, 400, 'xml_root', 'body'],
      // Not well-formed: only the five predefined entities and references to XML Chars exist without a DTD.
      ['XML undeclared entity', xmlWith('description', 'a&foo;b'), XML_TYPE, 400, 'xml_malformed', 'body'],
      ['XML reference past U+10FFFF', xmlWith('description', 'a&#x110000;b'), XML_TYPE, 400, 'xml_malformed', 'body'],
      [
        'XML huge decimal reference',
        xmlWith('description', 'a&#99999999999;b'),
        XML_TYPE,
        400,
        'xml_malformed',
        'body',
      ],
      ['XML reference to a non-Char', xmlWith('description', 'a&#xFFFF;b'), XML_TYPE, 400, 'xml_malformed', 'body'],
      ['XML raw control character', xmlWith('description', 'a\u0001b'), XML_TYPE, 400, 'xml_malformed', 'body'],
    ];
    for (const [name, raw, type, status, code, field] of cases) {
      const r = await call(`${sb.url}${SANDBOX}/charges/token`, {
        method: 'POST',
        raw,
        headers: { 'content-type': type, authorization: sb.credentials.secretKey },
      });
      assert.equal(r.status, status, `${name}: ${r.text.slice(0, 300)}`);
      assert.match(r.headers.get('content-type') ?? '', /^application\/json/, name);
      assert.equal(r.json.errorCode, code, name);
      assert.equal(r.json.errors[0].field, field, name);
      assert.doesNotMatch(r.text, /at .*\.ts:\d+|stack/i, `${name}: no stack trace`);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(({} as Record<string, unknown>).admin, undefined);
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });

  it('answers XML-typed hostile values field by field after coercion', async () => {
    const xml = (inner: string) =>
      `<data><cardToken>${valid.cardToken}</cardToken><currency>EUR</currency><email>a@b.co</email>${inner}</data>`;
    const cases: [string, string, string][] = [
      ['<value>1e400</value>', 'value_invalid', 'value'],
      ['<value>ten</value>', 'value_invalid', 'value'],
      // One rule with JSON text ("value":"1e3" is refused): neither is charged as 1000 or 1999.
      ['<value>1e3</value>', 'value_invalid', 'value'],
      ['<value>1999.000</value>', 'value_invalid', 'value'],
      ['<value>+100</value>', 'value_invalid', 'value'],
      [`<value>${'1'.repeat(60_000)}x</value>`, 'value_invalid', 'value'],
      ['<value>100</value><chargeMode>9</chargeMode>', 'chargeMode_invalid', 'chargeMode'],
      ['<value>100</value><riskCheck>maybe</riskCheck>', 'riskCheck_invalid', 'riskCheck'],
      ['<value>100</value><products><price>free</price></products>', 'products.price_invalid', 'products.0.price'],
      ['<value>100</value><metadata><a><b>1</b></a></metadata>', 'metadata_invalid', 'metadata.a'],
      // Text read as a JSON string is read ("value":" 1999" is refused): no trimming around numbers.
      ['<value>\n 1999\n</value>', 'value_invalid', 'value'],
      ['<value> 1999</value>', 'value_invalid', 'value'],
      ['<value>&#32;1999</value>', 'value_invalid', 'value'],
      ['<value>100</value><chargeMode> 2</chargeMode>', 'chargeMode_invalid', 'chargeMode'],
      [
        '<value>100</value><autoCapture>y</autoCapture><autoCapTime>1 </autoCapTime>',
        'autoCapTime_invalid',
        'autoCapTime',
      ],
      ['<value>100</value><products><price> 1.5</price></products>', 'products.price_invalid', 'products.0.price'],
      ['<value>100</value><riskCheck> true</riskCheck>', 'riskCheck_invalid', 'riskCheck'],
    ];
    for (const [inner, code, field] of cases) {
      const r = await call(`${sb.url}${SANDBOX}/charges/token`, {
        method: 'POST',
        raw: xml(inner),
        headers: { 'content-type': XML_TYPE, authorization: sb.credentials.secretKey },
      });
      assert.equal(r.status, 400, `${inner}: ${r.text}`);
      assert.equal(r.json.errorCode, code, inner);
      assert.equal(r.json.errors[0].field, field, inner);
    }
    // The JSON twin of the first whitespace case is refused the same way.
    const twin = await call(`${sb.url}${SANDBOX}/charges/token`, {
      body: { ...valid, value: '\n 1999\n' },
      headers: { authorization: sb.credentials.secretKey },
    });
    assert.equal(twin.status, 400, twin.text);
    assert.equal(twin.json.errorCode, 'value_invalid');
    // White space between elements is layout, not data: a pretty-printed charge is still taken.
    const pretty = `<?xml version="1.0"?>\n<data>\n  <cardToken>${(await chargeBody(sb)).cardToken}</cardToken>\n  <value>1999</value>\n  <currency>EUR</currency>\n  <email>a@b.co</email>\n  <billingDetails>\n  </billingDetails>\n  <products>\n    <name>Book</name>\n    <price>1.5</price>\n  </products>\n</data>\n`;
    const ok = await call(`${sb.url}${SANDBOX}/charges/token`, {
      method: 'POST',
      raw: pretty,
      headers: { 'content-type': XML_TYPE, authorization: sb.credentials.secretKey },
    });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.value, 1999);
    assert.deepEqual(ok.json.products, [{ name: 'Book', price: 1.5 }]);
  });

  it('refuses an XML body in another encoding with 415 charset_unsupported on the body, never reading it as UTF-8', async () => {
    const post = (raw: string | Buffer, type = XML_TYPE) =>
      call(`${sb.url}${SANDBOX}/charges/token`, {
        raw,
        headers: { 'content-type': type, authorization: sb.credentials.secretKey },
      });
    const body = encodeXml(valid).replace(/^<\?xml[^?]*\?>/, '');
    const cases: [name: string, raw: string | Buffer, type: string, message: RegExp][] = [
      // ASCII only, so it also decodes as UTF-8: it was charged.
      ['declared UTF-16', `<?xml version="1.0" encoding="UTF-16"?>${body}`, XML_TYPE, /"UTF-16"/],
      ['declared UTF-16, as text/xml', `<?xml version="1.0" encoding="utf-16"?>${body}`, 'text/xml', /"utf-16"/],
      ['declared ISO-8859-1', `<?xml version='1.0' encoding='ISO-8859-1'?>${body}`, XML_TYPE, /"ISO-8859-1"/],
      // Latin-1 bytes are not UTF-8: the answer names the declaration, not only "not valid UTF-8".
      [
        'declared and written in Latin-1',
        Buffer.from(
          `<?xml version="1.0" encoding="latin1"?>${body.replace('</data>', '<udf1>caf\u00e9</udf1></data>')}`,
          'latin1',
        ),
        XML_TYPE,
        /"latin1"/,
      ],
      [
        'UTF-16LE with a byte order mark',
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(body, 'utf16le')]),
        XML_TYPE,
        /UTF-16 byte order mark/,
      ],
      [
        'UTF-16BE with a byte order mark',
        Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(body, 'utf16le').swap16()]),
        XML_TYPE,
        /UTF-16 byte order mark/,
      ],
      [
        // Started with two zero bytes, it was not told from broken UTF-8: 400 body_encoding.
        'UTF-32BE with a byte order mark',
        Buffer.concat([
          Buffer.from([0, 0, 0xfe, 0xff]),
          ...[...body].map((c) => Buffer.from([0, 0, 0, c.charCodeAt(0)])),
        ]),
        XML_TYPE,
        /UTF-32 byte order mark/,
      ],
      [
        'UTF-16 JSON with a byte order mark',
        Buffer.from(`\ufeff${JSON.stringify(valid)}`, 'utf16le'),
        JSON_TYPE,
        /byte order mark/,
      ],
    ];
    for (const [name, raw, type, message] of cases) {
      const r = await post(raw, type);
      assert.equal(r.status, 415, `${name}: ${r.text}`);
      assert.equal(r.json.errorCode, 'charset_unsupported', name);
      assert.equal(r.json.errors[0].field, 'body', name);
      assert.match(r.json.message, message, name);
    }
    for (const decl of [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<?xml version="1.0" encoding="us-ascii"?>',
      '\ufeff',
    ]) {
      const r = await post(`${decl}${encodeXml(await chargeBody(sb)).replace(/^<\?xml[^?]*\?>/, '')}`);
      assert.equal(r.status, 200, `${decl}: ${r.text}`);
    }
  });

  it('refuses an Accept it cannot serve with 406, and hostile card-token bodies with 4xx', async () => {
    const notAcceptable = await call(`${sb.url}${SANDBOX}/charges/token`, {
      body: valid,
      headers: { authorization: sb.credentials.secretKey, accept: 'text/html' },
    });
    assert.equal(notAcceptable.status, 406);
    assert.equal(notAcceptable.json.errorCode, 'not_acceptable');
    const cases: [string, number, string, string][] = [
      [
        JSON.stringify({ ...cardBody(sb), number: '４２４２４２４２４２４２４２４２' }),
        400,
        'number_invalid',
        'number',
      ],
      [JSON.stringify({ ...cardBody(sb), number: '4242424242424242\u0000' }), 400, 'number_invalid', 'number'],
      [JSON.stringify({ ...cardBody(sb), number: `\u202e${'4242424242424242'}` }), 400, 'number_invalid', 'number'],
      [JSON.stringify({ ...cardBody(sb), number: '4'.repeat(5000) }), 400, 'number_invalid', 'number'],
      [JSON.stringify({ ...cardBody(sb), expiryMonth: '６' }), 400, 'expiryMonth_invalid', 'expiryMonth'],
      [JSON.stringify({ ...cardBody(sb), cvv: '１２３' }), 400, 'cvv_invalid', 'cvv'],
      [JSON.stringify({ ...cardBody(sb), name: '🙂'.repeat(101) }), 400, 'name_invalid', 'name'],
      [JSON.stringify([cardBody(sb)]), 400, 'body_not_object', 'body'],
      ['{"number":"4242424242424242","__proto__":{}}', 400, 'forbidden_key', '__proto__'],
    ];
    for (const [raw, status, code, field] of cases) {
      const r = await call(`${sb.url}${SANDBOX}/tokens/card`, {
        method: 'POST',
        raw,
        headers: { 'content-type': JSON_TYPE, authorization: sb.credentials.publicKey },
      });
      assert.equal(r.status, status, `${raw.slice(0, 80)}: ${r.text}`);
      assert.equal(r.json.errorCode, code, raw.slice(0, 80));
      assert.equal(r.json.errors[0].field, field, raw.slice(0, 80));
    }
    const unknownFields = await call(`${sb.url}${SANDBOX}/tokens/card`, {
      body: { ...cardBody(sb), favouriteColour: 'teal', nested: { deep: [1, 2] } },
      headers: { authorization: sb.credentials.publicKey },
    });
    assert.equal(unknownFields.status, 200, 'unknown fields are ignored');
    assert.equal(unknownFields.json.favouriteColour, undefined);
  });

  it('refuses crafted XML card-token bodies at once while answering another request (no ReDoS)', async () => {
    // The public key is public (the helper's /config shows it) and the endpoint answers CORS: anyone can send these.
    const fill = (unit: string, bytes: number) => `<data>${unit.repeat(Math.ceil(bytes / unit.length))}`;
    const bodies = [fill('<a', 6_000), fill('<a', 60_000), fill('<a b="<', 60_000), fill('<!--', 60_000)];
    for (const raw of bodies) {
      const started = performance.now();
      const [hostile, other] = await Promise.all([
        call(`${sb.url}${SANDBOX}/tokens/card`, {
          raw,
          headers: { authorization: sb.credentials.publicKey, 'content-type': XML_TYPE },
        }),
        call(`${sb.url}/_sandbox/test-cards`),
      ]);
      const ms = performance.now() - started;
      assert.equal(hostile.status, 400, `${raw.slice(0, 20)}…: ${hostile.text}`);
      assert.equal(hostile.json.errorCode, 'xml_malformed');
      assert.equal(hostile.json.errors[0].field, 'body');
      assert.equal(other.status, 200);
      assert.ok(ms < 1000, `${raw.length} B of ${raw.slice(6, 10)}: ${ms.toFixed(0)} ms`);
    }
  });
});
