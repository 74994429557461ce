import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applyEdit,
  brandById,
  caretAfterDigits,
  digitsOf,
  digitValue,
  formatExpiryEdit,
  formatNumberEdit,
  groupNumber,
  maxNumberLength,
  parseExpiryDigits,
  toAsciiDigits,
} from '../../../shared/card/index.js';
import { isLoopbackHost, secureUrl } from '../../../shared/url.js';
import { LAZY_LOCALES } from '../../../widget/i18n/all.js';
import { matchLocale } from '../../../widget/i18n/match.js';
import { en } from '../../../widget/i18n/strings.js';

describe('groupNumber', () => {
  const cases: [string, string, string][] = [
    ['4242424242424242', 'visa', '4242 4242 4242 4242'],
    ['4000000000000000006', 'visa', '4000 0000 0000 0000 006'],
    ['378282246310005', 'amex', '3782 822463 10005'],
    ['36227206271667', 'diners', '3622 720627 1667'],
    ['42', 'visa', '42'],
    ['', 'visa', ''],
  ];
  for (const [digits, brand, shown] of cases) {
    it(`${digits || '(empty)'} as ${brand} → "${shown}"`, () => {
      assert.equal(groupNumber(digits, brandById(brand)), shown);
    });
  }
  it('groups 4-4-4-4 while the brand is unknown', () => {
    assert.equal(groupNumber('999999999', undefined), '9999 9999 9');
  });
});

describe('digits', () => {
  it('converts Arabic-Indic, Eastern Arabic-Indic and full-width digits', () => {
    assert.equal(toAsciiDigits('٠١٢٣٤٥٦٧٨٩'), '0123456789');
    assert.equal(toAsciiDigits('۰۱۲۳۴۵۶۷۸۹'), '0123456789');
    assert.equal(toAsciiDigits('０１２３４５６７８９'), '0123456789');
  });
  it('converts Devanagari and the digits of every other script', () => {
    assert.equal(toAsciiDigits('४२४२ ४२४२ ४२४२ ४२४२'), '4242 4242 4242 4242');
    assert.equal(toAsciiDigits('০১২৩৪৫৬৭৮৯'), '0123456789'); // Bengali
    assert.equal(toAsciiDigits('๐๑๒๓๔๕๖๗๘๙'), '0123456789'); // Thai
    assert.equal(toAsciiDigits('𝟎𝟗𝟘𝟡𝟢𝟫𝟬𝟵𝟶𝟿'), '0909090909'); // the five adjacent mathematical sets
    assert.equal(toAsciiDigits('𑁦𑁯'), '09'); // Brahmi, outside the BMP
    assert.equal(digitsOf('card ४२४२-४२४२'), '42424242');
  });

  it('gives every \\p{Nd} code point in Unicode its value: each run is whole sets of ten, 0 to 9 in order', () => {
    const nd = /\p{Nd}/u;
    const runs: [number, number][] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (!nd.test(String.fromCodePoint(cp))) continue;
      const last = runs.at(-1);
      if (last && last[1] === cp - 1) last[1] = cp;
      else runs.push([cp, cp]);
    }
    // Unicode 15 has about 70 decimal digit sets; ASCII is the first.
    assert.ok(runs.length > 60, `${runs.length} runs`);
    assert.deepEqual(runs[0], [0x30, 0x39]);
    let sets = 0;
    for (const [start, end] of runs) {
      const size = end - start + 1;
      assert.equal(size % 10, 0, `run U+${start.toString(16)}..U+${end.toString(16)} is ${size} long`);
      for (let cp = start; cp <= end; cp++) {
        const value = (cp - start) % 10;
        assert.equal(digitValue(cp), value, `U+${cp.toString(16)}`);
        assert.equal(toAsciiDigits(String.fromCodePoint(cp)), String(value), `U+${cp.toString(16)}`);
      }
      sets += size / 10;
    }
    // Nothing outside \p{Nd} is converted (letters, other numbers such as ² or ½, symbols).
    assert.equal(toAsciiDigits('a²½Ⅻ⑤'), 'a²½Ⅻ⑤');
    assert.ok(sets >= runs.length);
  });

  it('drops everything that is not a digit', () => {
    assert.equal(digitsOf(' 4242-42a42 '), '42424242');
  });
  it('knows the longest length per brand', () => {
    assert.equal(maxNumberLength(brandById('amex')), 15);
    assert.equal(maxNumberLength(undefined), 19);
  });
  it('puts the caret after the n-th digit', () => {
    assert.equal(caretAfterDigits('4242 4242', 0), 0);
    assert.equal(caretAfterDigits('4242 4242', 4), 4);
    assert.equal(caretAfterDigits('4242 4242', 5), 6);
    assert.equal(caretAfterDigits('4242 4242', 99), 9);
  });
});

describe('applyEdit', () => {
  it('deletes the digit before a separator removed by Backspace', () => {
    assert.deepEqual(applyEdit('42424242', '42424242', 4, 'deleteContentBackward'), { digits: '4244242', caret: 3 });
  });
  it('deletes the digit after a separator removed by Delete', () => {
    assert.deepEqual(applyEdit('42424242', '42424242', 4, 'deleteContentForward'), { digits: '4242242', caret: 4 });
  });
  it('leaves ordinary edits alone', () => {
    assert.deepEqual(applyEdit('4242', '42942', 3, 'insertText'), { digits: '42942', caret: 3 });
  });
});

describe('formatNumberEdit', () => {
  it('keeps the caret after the typed digit when inserting in a group', () => {
    const r = formatNumberEdit('42424242', '4294242 42', 3, 'insertText');
    assert.equal(r.value, '4294 2424 2');
    assert.equal(r.caret, 3);
  });
  it('refuses a typed digit beyond the brand’s longest length', () => {
    const r = formatNumberEdit('378282246310005', '3782 8224631 10005', 12, 'insertText');
    assert.equal(r.value, '3782 822463 10005');
    assert.equal(r.caret, 11);
  });
  it('cuts a long paste at the longest length', () => {
    const r = formatNumberEdit('', '4242 4242 4242 4242 4242 4242', 29, 'insertFromPaste');
    assert.equal(r.digits, '4242424242424242424');
    assert.equal(r.caret, r.value.length);
  });
  it('detects the brand', () => {
    assert.equal(formatNumberEdit('', '37', 2).brand?.id, 'amex');
  });
});

describe('formatExpiryEdit', () => {
  const cases: [string, string, string, number, string, string][] = [
    ['adds the separator after the month', '1', '12', 2, 'insertText', '12 / '],
    ['pads a month 2–9', '', '4', 1, 'insertText', '04 / '],
    ['pads one digit followed by a slash', '1', '1/', 2, 'insertText', '01 / '],
    ['removes separator and digit on Backspace', '12', '12 /', 4, 'deleteContentBackward', '1'],
    ['takes autofilled MM/YYYY', '', '07/2031', 7, 'insertReplacementText', '07 / 31'],
    ['takes pasted M/YY', '', '7/31', 4, 'insertFromPaste', '07 / 31'],
    ['keeps four digits at most', '1234', '12 / 345', 8, 'insertText', '12 / 34'],
  ];
  for (const [what, before, raw, caret, inputType, shown] of cases) {
    it(what, () => {
      assert.equal(formatExpiryEdit(before, raw, caret, inputType).value, shown);
    });
  }
  it('parses MMYY into month and four-digit year', () => {
    assert.deepEqual(parseExpiryDigits('0731'), { month: 7, year: 2031 });
    assert.ok(Number.isNaN(parseExpiryDigits('073').month));
  });
});

describe('secureUrl', () => {
  const base = 'https://shop.example/checkout';
  it('accepts https and loopback http', () => {
    for (const url of [
      'https://provider.example/tokens',
      'http://127.0.0.1:4010/tokens',
      'http://127.12.0.1/tokens',
      'http://[::1]:4010/tokens',
      'http://localhost:4010/tokens',
      '/relative/to/https/page',
    ]) {
      assert.ok(secureUrl(url, base), url);
    }
  });
  it('refuses plain http to the network, other schemes and garbage', () => {
    for (const url of [
      'http://provider.example/tokens',
      'http://10.0.0.1/tokens',
      'http://localhost.evil.example/',
      'http://127.0.0.1.evil.example/',
      'javascript:alert(1)',
      'data:text/plain,x',
      'ftp://provider.example/',
      'http://[::2]/',
    ]) {
      assert.equal(secureUrl(url, base), undefined, url);
    }
    assert.equal(secureUrl('/tokens', 'http://shop.example/'), undefined);
    assert.equal(secureUrl('http://', 'not a base'), undefined);
  });
  it('names loopback hosts', () => {
    assert.equal(isLoopbackHost('127.0.0.1'), true);
    assert.equal(isLoopbackHost('[::1]'), true);
    assert.equal(isLoopbackHost('localhost'), true);
    assert.equal(isLoopbackHost('128.0.0.1'), false);
  });
});

describe('locales', () => {
  const codes = Object.keys(LAZY_LOCALES);
  it('ships at least 20 besides English, Arabic and Hebrew among them, right to left', () => {
    assert.ok(codes.length >= 20, String(codes.length));
    assert.equal(LAZY_LOCALES.ar?.dir, 'rtl');
    assert.equal(LAZY_LOCALES.he?.dir, 'rtl');
  });
  for (const code of codes) {
    it(`${code} has every English key, non-empty, with the same placeholders`, () => {
      const strings = LAZY_LOCALES[code]! as unknown as Record<string, string>;
      for (const [key, value] of Object.entries(en)) {
        const text = strings[key];
        assert.equal(typeof text, 'string', key);
        assert.ok(text!.trim(), key);
        assert.deepEqual(text!.match(/\{\w+\}/g), value.match(/\{\w+\}/g), key);
      }
    });
  }
  it('words the security code length right for 3, 4 and 3–4 digits, where a language inflects by number', () => {
    // Czech and Ukrainian take the form for 2 to 4 (číslice, цифри), not the one for 5 and more (číslic, цифр).
    const read = (code: string, n: number | string) => LAZY_LOCALES[code]!.cvvInvalid.replace('{n}', String(n));
    // '3–4' is what the form says before a brand is known (widget/card-form/messages.ts).
    for (const n of [3, 4, '3–4']) {
      assert.equal(read('cs', n), `Bezpečnostní kód musí mít ${n} číslice.`);
      assert.equal(read('uk', n), `Код безпеки має містити ${n} цифри.`);
      assert.equal(read('pl', n), `Kod bezpieczeństwa musi mieć ${n} cyfry.`);
      assert.equal(read('ru', n), `Код безопасности должен состоять из ${n} цифр.`);
    }
  });
  it('matches tags to shipped locales', () => {
    const available = ['en', ...codes];
    // Brazil reads Brazilian Portuguese ("Digite", "aceitos"), not European ("Introduza", "aceites").
    assert.equal(matchLocale('pt-BR', available), 'pt-br');
    assert.equal(LAZY_LOCALES[matchLocale('pt_br', available)!]!.numberRequired, 'Digite o número do cartão.');
    assert.equal(matchLocale('pt-PT', available), 'pt');
    assert.equal(matchLocale('pt-AO', available), 'pt');
    assert.equal(matchLocale('pt', available), 'pt');
    assert.equal(matchLocale('he_IL', available), 'he');
    assert.equal(matchLocale('iw', available), 'he');
    assert.equal(matchLocale('no', available), 'nb');
    assert.equal(matchLocale('ZH-hans', available), 'zh');
    assert.equal(matchLocale('zh-CN', available), 'zh');
    assert.equal(matchLocale('zh-Hans-HK', available), 'zh');
    // Traditional Chinese by script, or by a region that writes it (Taiwan, Hong Kong, Macau): not Simplified.
    for (const tag of ['zh-Hant', 'zh-Hant-TW', 'zh_Hant_HK', 'zh-TW', 'zh-hk', 'ZH-MO', 'zh-TW-u-nu-hanidec']) {
      assert.equal(matchLocale(tag, available), 'zh-hant', tag);
    }
    assert.equal(matchLocale('pt-BR-x-private', available), 'pt-br');
    assert.equal(matchLocale('sr-Latn-RS', available), undefined);
    assert.equal(matchLocale('iw-IL', available), 'he');
    assert.equal(matchLocale('in_ID', available), 'id');
    assert.equal(matchLocale('nn-NO', available), 'nb');
    for (const tag of ['__proto__', 'constructor', 'x-__proto__', '../ar', 'ar/../../x', 'ar?x', '-', '']) {
      assert.equal(matchLocale(tag, available), undefined, tag);
    }
    assert.equal(matchLocale('xx', available), undefined);
    assert.equal(matchLocale('', available), undefined);
    assert.equal(matchLocale('en-GB', available), 'en');
  });
});
