import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findSecurityCode, isSecurityCodeName, jsonHoldsSecurityCode } from '../../../server/common/card-fields.js';
import { type HelperLogger, redactingLogger } from '../../../server/helper/log.js';
import { createRedactor } from '../../../server/provider/log.js';
import { maskValue } from '../../../server/sandbox/core/mask.js';
import { seededRandom } from '../../support/random.js';
import { fastestMsSync } from '../../support/timing.js';

/** Names under which a page or a merchant's code could send a security code, in the spellings seen in the wild. */
const NAMES = [
  'cvv',
  'CVV2',
  'cvc',
  'Cvc2',
  'csc',
  'cvn',
  'cav2',
  'security_code',
  'securityCode',
  'cardSecurityCode',
  'cardCode',
  'card-cvv',
  'cvvCode',
  'card_verification',
  'card-verification-value',
  'cardVerificationNumber',
];
const CODE = '9371';

describe('one rule for the names of a card security code', () => {
  it('every name above is a security code; ids and look-alikes are not', () => {
    for (const name of NAMES) assert.equal(isSecurityCodeName(name), true, name);
    for (const name of ['cid', 'code', 'cvvResult ', 'currency', 'csv', 'postcode', 'cvv'.repeat(30)]) {
      assert.equal(isSecurityCodeName(name), false, name);
    }
    assert.equal(findSecurityCode({ metadata: { order: { cardCode: CODE } } }), 'metadata.order.cardCode');
  });

  it('the helper log, the provider clients and the sandbox request log all drop a code under every name', () => {
    const lines: object[] = [];
    const sink = (obj: object) => void lines.push(obj);
    const logger: HelperLogger = redactingLogger({ debug: sink, info: sink, warn: sink, error: sink }, []);
    const provider = createRedactor();
    for (const name of NAMES) {
      const body = { metadata: { [name]: CODE, order: 'ord_1' } };
      logger.info(body);
      const seen = [
        ['helper log', lines.at(-1)],
        ['provider client log', provider(body)],
        ['sandbox request log', maskValue(body)],
      ] as const;
      for (const [where, value] of seen) {
        const text = JSON.stringify(value);
        assert.ok(!text.includes(CODE), `${where} kept ${name}: ${text}`);
        assert.ok(text.includes('ord_1'), `${where} dropped the rest: ${text}`);
      }
    }
  });

  it('jsonHoldsSecurityCode finds a code in the JSON text that the parsed value lost to a duplicate key', () => {
    // Overwritten by a blank, in any spelling of a name, escaped, spaced, nested.
    for (const text of [
      '{"cvv":"123","cvv":""}',
      '{"a":{"Security_Code" :\n 1234 ,"Security_Code":null}}',
      '{"\u0063vv":"1","cvv":""}',
      '[{"cvc":{"x":1}},{"cvc":[]}]',
      '{"cvv":false}',
    ]) {
      assert.equal(jsonHoldsSecurityCode(text), true, text);
    }
    // Blank codes, names in values (a `:` follows no value in JSON), `cid`, names too long to be one.
    for (const text of [
      '{"cvv":"","cvv" : null}',
      '{"note":"cvv","list":["cvv",":","123"],"cid":"c-42","cvvx":1}',
      '{"s":""cvv":"123""}',
      `{"${'\\u0063'.repeat(70)}cvv":1}`,
    ]) {
      assert.equal(jsonHoldsSecurityCode(text), false, text);
    }
    // On text without duplicate keys it agrees with findSecurityCode on the parsed value.
    const random = seededRandom(14);
    const keys = ['cvv', 'CVC2', 'x', 'cid', '\u0063vv', 'note'];
    const values = ['""', 'null', '"123"', '0', '{}', '[]', '"cvv"', 'false'];
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    for (let n = 0; n < 5_000; n++) {
      const used = new Set<string>();
      const members: string[] = [];
      for (let k = 0; k < 4; k++) {
        const key = pick(keys);
        if (used.has(JSON.parse(`"${key}"`))) continue;
        used.add(JSON.parse(`"${key}"`));
        members.push(`"${key}" : ${random() < 0.3 ? `{"cvv":${pick(values)}}` : pick(values)}`);
      }
      const text = `{${members.join(',')}}`;
      assert.equal(jsonHoldsSecurityCode(text), findSecurityCode(JSON.parse(text)) !== undefined, text);
    }
  });

  it('jsonHoldsSecurityCode reads a megabyte of keys and escapes in linear time', () => {
    const size = 1024 * 1024;
    for (const [name, member] of [
      ['duplicate blank codes', '"cvv":null,'],
      ['escaped names', '"\\u0063\\u0076\\u0076":"",'],
      ['long escaped keys', `"${'\\\\'.repeat(400)}":1,`],
      ['empty keys', '"":"",'],
    ] as const) {
      const text = `{${member.repeat(Math.ceil(size / member.length))}"z":1}`;
      JSON.parse(text);
      const ms = fastestMsSync(() => assert.equal(jsonHoldsSecurityCode(text), false), 2000);
      assert.ok(ms < 2000, `${name}: ${ms.toFixed(0)} ms`);
    }
  });
});
