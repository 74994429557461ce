import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findSecurityCode, isSecurityCodeName } from '../../../server/common/card-fields.js';
import { type HelperLogger, redactingLogger } from '../../../server/helper/log.js';
import { createRedactor } from '../../../server/provider/log.js';
import { maskValue } from '../../../server/sandbox/core/mask.js';

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
});
