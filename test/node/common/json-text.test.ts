import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findDuplicateKey, someJsonString, someJsonToken } from '../../../server/common/json-text.js';
import { seededRandom } from '../../support/random.js';
import { fastestMsSync } from '../../support/timing.js';

describe('JSON text', () => {
  it('someJsonToken reads strings whole and the structure outside them, in order', () => {
    const text = '{"a,{":[1,"]\\"}",{}],"b":null}';
    const seen: string[] = [];
    someJsonToken(text, (code, start, end, escaped) => {
      seen.push(`${String.fromCharCode(code)}${text.slice(start, end)}${escaped ? '!' : ''}`);
      return false;
    });
    assert.deepEqual(seen, ['{{', '""a,{"', '[[', ',,', '""]\\"}"!', ',,', '{{', '}}', ']]', ',,', '""b"', '}}']);
    const strings: string[] = [];
    someJsonString(text, (start, end) => {
      strings.push(text.slice(start, end));
      return false;
    });
    assert.deepEqual(strings, ['"a,{"', '"]\\"}"', '"b"']);
  });

  it('findDuplicateKey names the path of the first key given twice in one object, compared decoded', () => {
    for (const [text, field] of [
      ['{"a":1,"a":2}', 'a'],
      ['{"tok\\u0065n":1,"token":2}', 'token'],
      ['{"token":1,"\\u0074oken":2}', 'token'],
      ['{"a":{"b":1,"c":{},"b":2}}', 'a.b'],
      ['{"a":[0,[1,{"x":{"y":[]}}],{"z":1,"z":[]}]}', 'a.2.z'],
      ['[{"k":1},{"k":1,"k":1}]', '1.k'],
      ['{"m":{"n":1,"n":2},"m":3}', 'm.n'],
      ['{"":1 , "" : 2}', '""'],
      ['{"a\\u202eb":{"\\"":1,"\\"":1}}', 'a\\u202Eb.\\u0022'],
      [`{"${'k'.repeat(40)}":1,"${'k'.repeat(40)}":1}`, `${'k'.repeat(32)}…`],
      ['{"\\ud83d\\ude00":1,"😀":2}', '😀'],
    ] as const) {
      JSON.parse(text);
      assert.equal(findDuplicateKey(text), field, text);
    }
    for (const text of [
      '{}',
      '[]',
      '"a"',
      '{"a":{},"b":{}}',
      '{"a":{"a":{"a":1}}}',
      '[{"k":1},{"k":1}]',
      '{"a":"a","b":["a","a"],"c":"\\"a\\":1,"}',
      '{"a":1,"A":2,"a ":3,"\\u0061\\u0301":4}',
      '{"a":[],"b":[{}],"c":{"d":[]},"e":1}',
    ]) {
      JSON.parse(text);
      assert.equal(findDuplicateKey(text), undefined, text);
    }
  });

  it('findDuplicateKey agrees with where a seeded generator put the first duplicate', () => {
    const random = seededRandom(8259);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    // Spellings of three keys, some escaped: `"a"` and `"\u0061"` are one key.
    const keys = ['a', '\\u0061', 'b', 'b', '\\"', '\\u0022', ''];
    for (let n = 0; n < 3_000; n++) {
      let first: string | undefined;
      const value = (depth: number, path: string[]): string => {
        const r = random();
        if (depth > 4 || r < 0.35) return pick(['1', 'null', '"a"', '"{\\"a\\":1,\\"a\\":2}"', '[]', '{}']);
        if (r < 0.55) {
          const items = Array.from({ length: Math.floor(random() * 3) }, (_, i) => value(depth + 1, [...path, `${i}`]));
          return `[${items.join(' , ')}]`;
        }
        const used = new Set<string>();
        const members: string[] = [];
        for (let m = Math.floor(random() * 4); m > 0; m--) {
          const key = pick(keys);
          const decoded = JSON.parse(`"${key}"`) as string;
          const segment = decoded === '' ? '""' : decoded === '"' ? '\\u0022' : decoded;
          if (used.has(decoded) && first === undefined) first = [...path, segment].join('.');
          used.add(decoded);
          members.push(`"${key}":${value(depth + 1, [...path, segment])}`);
        }
        return `{${members.join(',')}}`;
      };
      const text = value(0, []);
      JSON.parse(text);
      assert.equal(findDuplicateKey(text), first, text);
    }
  });

  it('findDuplicateKey names a key deep in text a later key overwrote by its first segments, `…` and the key', () => {
    const depth = 10_000;
    const text = `{"a":${'['.repeat(depth)}{"b":1,"b":2}${']'.repeat(depth)},"a":1}`;
    JSON.parse(text);
    assert.equal(findDuplicateKey(text), `a.${'0.'.repeat(29)}….b`);
  });

  it('findDuplicateKey reads a megabyte of keys, objects, nesting and escapes in linear time', () => {
    // The largest bodyLimitBytes. Each case is one body the helper could be sent, all its keys distinct but one at the end.
    const size = 1024 * 1024;
    const members = (member: (i: number) => string) => {
      const list: string[] = [];
      for (let i = 0, length = 0; length < size; i++) {
        list.push(member(i));
        length += list.at(-1)!.length + 1;
      }
      return list.join(',');
    };
    for (const [name, text] of [
      ['many keys', `{${members((i) => `"k${i}":1`)},"k0":2}`],
      // V8 hashes a string longer than 16,383 characters by its length alone: these keys all collide in a Set.
      ['long keys of one length', `{${members((i) => `"${'a'.repeat(16_400)}${i}":1`)},"${'a'.repeat(16_400)}0":2}`],
      ['long escaped keys', `{${members((i) => `"${'\\u0061'.repeat(2_000)}${i}":1`)},"${'a'.repeat(2_000)}0":2}`],
      ['many objects', `[${members(() => '{"a":1,"b":2}')},{"a":1,"a":1}]`],
      ['many empty objects and arrays', `[${members(() => '{},[]')},{"a":1,"a":1}]`],
      ['deep arrays in an overwritten value', `{"a":${'['.repeat(size / 2)}${']'.repeat(size / 2)},"a":1}`],
      ['deep objects', `${'{"a":'.repeat(size / 5)}{"b":1,"b":2}${'}'.repeat(size / 5)}`],
      ['strings of escapes and structure', `{${members((i) => `"k${i}":"${'\\"{,['.repeat(20)}"`)},"k0":2}`],
    ] as const) {
      JSON.parse(text);
      let found: string | undefined;
      const ms = fastestMsSync(() => {
        found = findDuplicateKey(text);
      }, 2000);
      assert.ok(found !== undefined, name);
      assert.ok(ms < 2000, `${name}: ${ms.toFixed(0)} ms`);
    }
  });
});
