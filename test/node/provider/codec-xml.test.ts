import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeXml, encodeXml, XML_MAX_DEPTH, XmlCodecError } from '../../../server/provider/codec/xml.js';
import { fastestMsSync } from '../../support/timing.js';
import { chargeAnswer } from '../../support/xml-documents.js';

const refuses = (text: string, code: XmlCodecError['code'], field?: string) =>
  assert.throws(
    () => decodeXml(text),
    (e: unknown) => e instanceof XmlCodecError && e.code === code && e.field === field,
    `${code} ${field}: ${text.slice(0, 60)}`,
  );

describe('XML codec: encodeXml / decodeXml', () => {
  it('round-trips strings, nested objects, arrays of objects and of strings', () => {
    const value = {
      a: 'text',
      nested: { b: 'x', deeper: { c: 'y' } },
      list: [{ name: 'one' }, { name: 'two', tags: ['p', 'q'] }],
      words: ['alpha', 'beta', 'gamma'],
    };
    assert.deepEqual(decodeXml(encodeXml(value)), value);
  });

  it('writes numbers and booleans as text, null as nil, and leaves undefined out', () => {
    const xml = encodeXml({ n: 12.5, b: false, z: null, u: undefined });
    assert.match(xml, /<n>12\.5<\/n><b>false<\/b><z nil="true"\/>/);
    assert.doesNotMatch(xml, /<u/);
    assert.deepEqual(decodeXml(xml), { n: '12.5', b: 'false', z: null });
  });

  it('escapes markup characters and keeps unicode intact', () => {
    const value = { s: `<b>"Tom" & 'Jerry'</b>`, rtl: 'مرحبا\u200f', emoji: '🧾✓', cjk: '日本語' };
    const xml = encodeXml(value);
    assert.doesNotMatch(xml, /<b>"Tom"/);
    assert.deepEqual(decodeXml(xml), value);
  });

  it('maps keys that are not XML names to <item key="…">, and back', () => {
    const metadata = {
      'cart id': 'c-1',
      '1st': 'first',
      'a/b': 'slash',
      ключ: 'unicode key',
      item: 'a key named item',
      xmlish: 'reserved prefix',
      ok_name: 'plain',
    };
    const xml = encodeXml({ metadata });
    assert.match(xml, /<item key="cart id">c-1<\/item>/);
    assert.match(xml, /<ok_name>plain<\/ok_name>/);
    assert.deepEqual(decodeXml(xml), { metadata });
  });

  it('round-trips keys holding markup characters, and decodes entities in a key attribute it reads', () => {
    const metadata = { '<&">': 'x]]>', "it's": 'apostrophe', 'a&amp;b': 'an entity spelled out' };
    const xml = encodeXml({ metadata });
    assert.match(xml, /<item key="&lt;&amp;&quot;&gt;">x\]\]&gt;<\/item>/);
    assert.deepEqual(decodeXml(xml), { metadata });
    assert.deepEqual(decodeXml('<data><item key="a&amp;b&#33;">1</item></data>'), { 'a&b!': '1' });
    refuses('<data><item key="&#95;_proto__">1</item></data>', 'forbidden_key', '__proto__');
  });

  it('writes well-formed XML 1.0 whatever the strings hold: characters it cannot carry become U+FFFD', () => {
    const xml = encodeXml({ a: 'x\u0001y', b: '\uffff', c: '\ud800z', d: 'tab\tok\n', e: '🧾', [`k\u0002`]: 'v' });
    const notXml = [...xml].filter((c) => {
      const n = c.codePointAt(0)!;
      return (
        (n < 0x20 && n !== 0x09 && n !== 0x0a && n !== 0x0d) ||
        (n >= 0xd800 && n <= 0xdfff) ||
        n === 0xfffe ||
        n === 0xffff
      );
    });
    assert.deepEqual(notXml, []);
    assert.deepEqual(decodeXml(xml), {
      a: 'x\ufffdy',
      b: '\ufffd',
      c: '\ufffdz',
      d: 'tab\tok',
      e: '🧾',
      'k\ufffd': 'v',
    });
  });

  it('keeps text exactly as written with trim: false, white space between elements aside', () => {
    const doc =
      '<?xml version="1.0"?>\n<data>\n  <a> x </a>\n  <b>\n 1\n</b>\n  <c><d>1</d>\n</c>\n  <item key=" k "> v </item>\n</data>\n';
    assert.deepEqual(decodeXml(doc, { trim: false }), { a: ' x ', b: '\n 1\n', c: { d: '1' }, ' k ': ' v ' });
    assert.deepEqual(decodeXml(doc), { a: 'x', b: '1', c: { d: '1' }, k: 'v' });
    assert.deepEqual(decodeXml('<data>\n</data>', { trim: false }), {});
  });

  it('reads an empty element as an empty string and an empty document as {}', () => {
    assert.deepEqual(decodeXml('<data><a/><b></b></data>'), { a: '', b: '' });
    assert.deepEqual(decodeXml('<data/>'), {});
    assert.deepEqual(decodeXml('<?xml version="1.0" encoding="UTF-8"?><data></data>'), {});
  });

  it('returns plain objects (no prototype tricks) and refuses __proto__ / constructor names by their path', () => {
    const d = decodeXml('<data><a><b>1</b></a></data>');
    assert.equal(Object.getPrototypeOf(d.a), Object.prototype);
    // forbidden_key naming the field, as the same key in a JSON body is refused.
    refuses('<data><__proto__><x>1</x></__proto__></data>', 'forbidden_key', '__proto__');
    refuses('<data><constructor>1</constructor></data>', 'forbidden_key', 'constructor');
    refuses('<data><a><constructor>1</constructor></a></data>', 'forbidden_key', 'a.constructor');
    refuses('<data><metadata><prototype>x</prototype></metadata></data>', 'forbidden_key', 'metadata.prototype');
    refuses('<data><products><__proto__>1</__proto__></products></data>', 'forbidden_key', 'products.__proto__');
    refuses(
      '<data><products><a>1</a></products><products><constructor/></products></data>',
      'forbidden_key',
      'products.1.constructor',
    );
    refuses('<data><metadata><item key="prototype">x</item></metadata></data>', 'forbidden_key', 'metadata.prototype');
    refuses(
      '<data><metadata><item key="a&#x202E;"><constructor/></item></metadata></data>',
      'forbidden_key',
      'metadata.a\\u202E.constructor',
    );
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });

  it('writes an own __proto__ key as its element, which reading refuses by its path as JSON does', () => {
    // Assigned (`out[k] = …`), the key became the node's prototype and the field vanished from the document.
    const body = JSON.parse('{"value":1,"metadata":{"__proto__":{"polluted":"yes"},"a":"b"}}');
    const xml = encodeXml(body);
    assert.match(xml, /<metadata><__proto__><polluted>yes<\/polluted><\/__proto__><a>b<\/a><\/metadata>/);
    refuses(xml, 'forbidden_key', 'metadata.__proto__');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('reads element names the XML parser would rename (toString, hasOwnProperty) as they are written', () => {
    const d = decodeXml('<data><metadata><toString>x</toString><hasOwnProperty>y</hasOwnProperty></metadata></data>');
    assert.deepEqual(d, { metadata: { toString: 'x', hasOwnProperty: 'y' } });
    assert.deepEqual(decodeXml('<data><__toString>1</__toString></data>'), { __toString: '1' });
  });

  it('refuses DOCTYPE and ENTITY declarations in any case (no XXE, no entity expansion)', () => {
    refuses('<!DOCTYPE data><data/>', 'xml_doctype');
    refuses('<!doctype data><data/>', 'xml_doctype');
    refuses(
      '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY e SYSTEM "file:///etc/passwd">]><data>&e;</data>',
      'xml_doctype',
    );
    refuses('<data><!ENTITY e "x"></data>', 'xml_doctype');
  });

  it('refuses malformed documents, other roots and several roots', () => {
    refuses('<data><a>1</data>', 'xml_malformed');
    refuses('<data><a>1</b></data>', 'xml_malformed');
    refuses('not xml at all', 'xml_malformed');
    refuses('<charge><a>1</a></charge>', 'xml_root');
    refuses('<data/><data/>', 'xml_root');
    refuses('<data>text only</data>', 'xml_root');
  });

  it(`refuses nesting deeper than ${XML_MAX_DEPTH} and more than 10,000 elements`, () => {
    const deep = (n: number) => `<data>${'<a>'.repeat(n)}1${'</a>'.repeat(n)}</data>`;
    assert.doesNotThrow(() => decodeXml(deep(XML_MAX_DEPTH - 2)));
    refuses(deep(XML_MAX_DEPTH + 1), 'xml_too_deep');
    refuses(`<data>${'<a/>'.repeat(10_001)}</data>`, 'xml_too_many_elements');
  });

  it('counts elements whose names are not ASCII (or carry a prefix) toward the same limits', () => {
    const deep = (name: string, n: number) => `<data>${`<${name}>`.repeat(n)}1${`</${name}>`.repeat(n)}</data>`;
    assert.doesNotThrow(() => decodeXml(deep('é', XML_MAX_DEPTH - 2)));
    refuses(deep('é', XML_MAX_DEPTH + 1), 'xml_too_deep');
    refuses(deep('ä', 3000), 'xml_too_deep');
    refuses(deep(':a', 3000), 'xml_too_deep');
    refuses(`<data>${'<é/>'.repeat(10_001)}</data>`, 'xml_too_many_elements');
    // Comments and processing instructions are not elements.
    assert.deepEqual(decodeXml(`<data>${'<!-- c -->'.repeat(40)}<?pi x?><a>1</a></data>`), { a: '1' });
  });

  it('decodes the five predefined entities and character references to XML Chars, leading zeros included', () => {
    assert.deepEqual(
      decodeXml('<data><a>&#x1F9FE;&#65;&#x0000041;&#0009;</a><b>&lt;&gt;&amp;&quot;&apos;</b></data>'),
      {
        a: '🧾AA\t',
        b: '<>&"\'',
      },
    );
    assert.deepEqual(decodeXml('<data><item key="a&#x20;&amp;">1</item></data>'), { 'a &': '1' });
    // CDATA is literal text, comments are skipped: neither is read for references.
    assert.deepEqual(decodeXml('<data><a><![CDATA[a&foo;b]]></a><b>x<!-- &foo; -->y</b></data>'), {
      a: 'a&foo;b',
      b: 'xy',
    });
  });

  it('keeps CDATA literal: a reference in it, or begun in it and ended after it, is text as written', () => {
    // The tree's text (CDATA joined to the text around it) was expanded as a whole: `<![CDATA[AT&amp;T]]>` read as
    // `AT&T`, and `<![CDATA[&]]>#65;` (an `&` in CDATA, then the text `#65;`) as `A`.
    assert.deepEqual(
      decodeXml('<data><a><![CDATA[AT&amp;T &#65;]]></a><b><![CDATA[&]]>#65;</b><c>x<![CDATA[&am]]>p;</c></data>'),
      { a: 'AT&amp;T &#65;', b: '&#65;', c: 'x&amp;' },
    );
    assert.deepEqual(decodeXml('<data><a> &lt;<![CDATA[ &lt; ]]>&lt; </a></data>'), { a: '< &lt; <' });
  });

  it('trims text as written, never the characters references stand for, across comments and line ends', () => {
    const doc =
      '<data><a>\r\n &#x20;x&#xD;<!-- c --> \r\n&#xA0; </a><item key=" &#32;k&#9; ">\u00a0&#xa0;</item></data>';
    assert.deepEqual(decodeXml(doc), { a: ' x\r \n\u00a0', ' k\t': '\u00a0' });
    assert.deepEqual(decodeXml(doc, { trim: false }), {
      a: '\n  x\r \n\u00a0 ',
      '  k\t ': '\u00a0\u00a0',
    });
    // A U+FEFF in text is text (the expanded text is built from UTF-16 code units: no byte order mark is dropped).
    assert.deepEqual(decodeXml('<data><a>\ufeff&#65;\ufeff</a></data>', { trim: false }), { a: '\ufeffA\ufeff' });
    assert.deepEqual(decodeXml('<data><a>x\ufeff&#65;&#xfeff;</a></data>'), { a: 'x\ufeffA\ufeff' });
  });

  it('refuses what a conforming parser refuses: undeclared entities, references to non-Chars, raw non-Chars', () => {
    for (const bad of [
      'a&foo;b',
      'a&nbsp;b',
      'a&#x110000;b',
      'a&#1114112;b',
      'a&#99999999999;b',
      'a&#xFFFF;b',
      'a&#xFFFE;b',
      'a&#xD800;b',
      'a&#0;b',
      'a&#x1;b',
      'a&#;b',
      'a&#x;b',
      'a&#12b',
      'a&amp b',
      'a&AMP;b',
      'a\u0001b',
      'a\uffffb',
      'a\ud800b',
      'a\udc00b',
      'a\udfff\ud83e',
    ]) {
      refuses(`<data><description>${bad}</description></data>`, 'xml_malformed');
      refuses(`<data><item key="${bad}">1</item></data>`, 'xml_malformed');
    }
    assert.deepEqual(decodeXml('<data><item key="\ud83e\uddfe">\u0085\ud83e\uddfe</item></data>'), {
      '\ud83e\uddfe': '\u0085\ud83e\uddfe',
    });
    refuses('&foo;<data/>', 'xml_malformed');
    refuses('<data><a>1</a>&#xFFFF;</data>', 'xml_malformed');
  });

  it('refuses a declared encoding other than UTF-8 or US-ASCII instead of reading the text as UTF-8', () => {
    for (const name of ['UTF-16', 'utf-16le', 'ISO-8859-1', 'latin1', 'windows-1252', 'Shift_JIS', 'UTF-32']) {
      for (const decl of [
        `<?xml version="1.0" encoding="${name}"?>`,
        `<?xml version='1.0' encoding='${name}' standalone='yes'?>`,
        `<?xml\tversion = "1.0"\r\n encoding = "${name}" ?>`,
        `\ufeff<?xml version="1.0" encoding="${name}"?>`,
      ]) {
        assert.throws(
          () => decodeXml(`${decl}<data><a>1</a></data>`),
          (e: unknown) => e instanceof XmlCodecError && e.code === 'xml_encoding' && e.message.includes(name),
          decl,
        );
      }
    }
    for (const decl of [
      '<?xml version="1.0" encoding="UTF-8"?>',
      "<?xml version='1.0' encoding='utf-8'?>",
      '<?xml version="1.0" encoding="US-ASCII" standalone="no"?>',
      '<?xml version="1.0" standalone="yes"?>',
      '<?xml version="1.0"?>',
      '<?xml version="1.1" encoding="utf8" ?>',
      '<?xml-stylesheet href="a.xsl" type="text/xsl"?>',
    ]) {
      assert.deepEqual(decodeXml(`${decl}<data><a>1</a></data>`), { a: '1' }, decl);
    }
  });

  it('refuses an XML declaration that does not follow XML 1.0 §2.8, so no encoding can hide in it', () => {
    for (const decl of [
      '<?xml?>',
      '<?xml ?>',
      '<?xml foo?>',
      '<?xml encoding="UTF-16"?>',
      '<?xml version="1.0" standalone="yes" encoding="UTF-16"?>',
      '<?xml version="1.0"encoding="UTF-16"?>',
      '<?xml version="1.0" encoding=UTF-16?>',
      '<?xml version="1.0" encoding="UTF-16\'?>',
      '<?xml version="1.0" encoding=""?>',
      '<?xml version="2.0"?>',
      '<?xml version="1.0" standalone="maybe"?>',
      '<?xml version="1.0" other="x"?>',
      '<?xml version="1.0"',
    ]) {
      refuses(`${decl}<data><a>1</a></data>`, 'xml_malformed');
    }
  });

  it('decodes in linear time: 1 MB of each hostile shape is refused in well under a second', () => {
    const MB = 1 << 20;
    const fill = (head: string, unit: string) => head + unit.repeat(Math.ceil((MB - head.length) / unit.length));
    // Each shape once cost the pre-scan's regular expression cubic or quadratic time (`<a` ×3,000 took 15 s).
    const shapes: [string, string, XmlCodecError['code']][] = [
      ['`<a` flood', fill('<data>', '<a'), 'xml_malformed'],
      ['`<` flood', fill('<data>', '<'), 'xml_malformed'],
      ['`</a` flood', fill('<data>', '</a'), 'xml_malformed'],
      ['unclosed attribute value', fill('<data><a b="', 'x'), 'xml_malformed'],
      ['unclosed attribute values', fill('<data>', '<a b="<'), 'xml_malformed'],
      // Refused by count before the missing `>` is reached.
      ['attributes without an end', fill('<data><a ', 'b="x" '), 'xml_too_many_attributes'],
      ['`/` and `=` inside a tag', fill('<data><a b', '=/'), 'xml_malformed'],
      ['unclosed comment', fill('<data><!--', '-'), 'xml_malformed'],
      ['comment openers', fill('<data>', '<!--'), 'xml_malformed'],
      ['CDATA openers', fill('<data>', '<![CDATA['), 'xml_malformed'],
      ['processing-instruction openers', fill('<data>', '<?x'), 'xml_malformed'],
      ['deep nesting', fill('<data>', '<a>'), 'xml_too_deep'],
      ['deep nesting hidden in quoted `/>`', fill('<data>', '<a b="/>">'), 'xml_too_deep'],
      ['many elements', fill('<data>', '<a/>'), 'xml_too_many_elements'],
      // fast-xml-parser spent 3 s on 1 MB of attributes in one tag, more than linear (a minute for 8 MiB).
      [
        'many attributes in one tag',
        `<data><a ${Array.from({ length: MB / 10 }, (_, i) => `b${i}="x"`).join(' ')}/></data>`,
        'xml_too_many_attributes',
      ],
      [
        'many attributes over many tags',
        `<data>${`<a ${Array.from({ length: 8 }, (_, i) => `b${i}='x'`).join(' ')}/>`.repeat(9000)}</data>`,
        'xml_too_many_attributes',
      ],
      ['attributes without values', fill('<data><a ', 'b '), 'xml_malformed'],
      ['attributes without quotes', fill('<data><a ', 'b=x '), 'xml_malformed'],
      ['entity-like text', `<data><a>${'&#x'.repeat(MB / 3)}</a></data>`, 'xml_malformed'],
      ['one long decimal reference', `<data><a>&#${'9'.repeat(MB)}</a></data>`, 'xml_malformed'],
      [
        'long references that end',
        `<data><a>${`&#${'0'.repeat(999)}65;`.repeat(MB / 1004)}&foo;</a></data>`,
        'xml_malformed',
      ],
      ['ampersands', `<data><a b="${'&'.repeat(MB)}"/></data>`, 'xml_malformed'],
      ['CDATA of references', `<data><a><![CDATA[${'&#1'.repeat(MB / 3)}]]></a>&#0;</data>`, 'xml_malformed'],
      [
        '`<` in many attribute values',
        `<data>${'<a b="x" c="y"/>'.repeat(4000)}<a b="${'x'.repeat(MB)}<"/></data>`,
        'xml_malformed',
      ],
      ['a comment of dashes', fill('<data><!--', '-a'), 'xml_malformed'],
      ['`]` then `]]>`', `<data><a>${']'.repeat(MB)}></a></data>`, 'xml_malformed'],
      // The XML declaration is read by hand, its two patterns anchored over one class each.
      ['an XML declaration that never ends', fill('<?xml version="1.0" ', ' '), 'xml_malformed'],
      ['white space in an XML declaration', `${fill('<?xml ', ' ')}?><data/>`, 'xml_malformed'],
      ['a long version, then junk', `${fill('<?xml version="1.', '0')}x"?><data/>`, 'xml_malformed'],
      ['a long encoding name', `${fill('<?xml version="1.0" encoding="a', 'a')}"?><data/>`, 'xml_encoding'],
      ['a long bad encoding name', `${fill('<?xml version="1.0" encoding="a', 'a')}!"?><data/>`, 'xml_malformed'],
      ['an unclosed encoding', fill('<?xml version="1.0" encoding="', 'a'), 'xml_malformed'],
    ];
    for (const [name, text, code] of shapes) {
      const ms = fastestMsSync(
        () =>
          assert.throws(
            () => decodeXml(text),
            (e: unknown) => e instanceof XmlCodecError && e.code === code,
            name,
          ),
        500,
      );
      assert.ok(ms < 500, `${name}: ${ms.toFixed(0)} ms for 1 MB`);
    }
  });

  it('refuses processing instructions whose target is no name, and `xml` as a target anywhere but the declaration', () => {
    // The validator reads only the skeleton (each instruction as `<?x?>`), so these were accepted.
    for (const text of [
      "<data/><?;ML'?>",
      '<data><?  "?></data>',
      '<data><?> x?></data>',
      '<??><data/>',
      '<? p?><data/>',
      '<data><?xml version="1.0"?></data>',
      '<data><a><?xml\tx?>1</a></data>',
      '<data/><?xml?>',
      '<?XML version="1.0"?><data/>',
      '<?xml version="1.0"?><?xml version="1.0"?><data/>',
    ]) {
      refuses(text, 'xml_malformed');
    }
    assert.deepEqual(decodeXml('<?xml version="1.0"?><?xml-stylesheet href="a"?><data><?p\tx?><a>1<?q?></a></data>'), {
      a: '1',
    });
  });

  it('ends names at XML white space only, and refuses a name with a character XML names cannot hold', () => {
    // fast-xml-parser cut names at JavaScript's `\s`: `<a\u00a0>` was `<a>`, `</\u00a0a>` closed it, and `<a\u1680b>`
    // (U+1680 is a name character) was `<a>`, so two different elements became one array and `a\u1680key` was `key`.
    for (const text of [
      '<data><a\u00a0>1</a></data>',
      '<data><a>1</a\u00a0></data>',
      '<data><a>1</\u00a0a></data>',
      '<data><\u00a0a>1</a></data>',
      '<data><a\u2028>1</a\u2028></data>',
      '<data><a>1</a \u3000></data>',
      '<data><a\ufeff>1</a></data>',
    ]) {
      refuses(text, 'xml_malformed');
    }
    assert.deepEqual(decodeXml('<data><a\u1680b>1</a\u1680b><a\u1680c>2</a\u1680c></data>'), {
      'a\u1680b': '1',
      'a\u1680c': '2',
    });
    assert.deepEqual(decodeXml('<data><item a\u1680key="x">1</item><b>2</b \t\r\n></data>'), { item: '1', b: '2' });
  });

  it('refuses markup XML forbids where the validator does not look: `<` in values, `]]>` in text, `--` in comments', () => {
    for (const text of [
      '<data><a b="<">1</a></data>',
      '<data><a b="</a>">1</a></data>',
      '<data><item key="x<y">1</item></data>',
      '<data><a>]]></a></data>',
      '<data><a>x<![CDATA[y]]>]]></a></data>',
      '<data><!-- a -- b --><a>1</a></data>',
      '<data><!-- a ---><a>1</a></data>',
      '<data><!---><a>1</a></data>',
      '<![CDATA[x]]><data/>',
      '<data/><![CDATA[]]>',
    ]) {
      refuses(text, 'xml_malformed');
    }
    assert.deepEqual(
      decodeXml('<!-- - --><data><item key="]]>">a]]b&gt;</item><!---x-->]]&gt;<c>]</c></data><!---->'),
      {
        ']]>': 'a]]b>',
        c: ']',
      },
    );
  });

  it('reads a quoted `>` or `/>` in an attribute as part of the value, not as the end of the tag', () => {
    assert.deepEqual(decodeXml('<data><item key="a/>b">1</item><item key=\'x>y\'>2</item></data>'), {
      'a/>b': '1',
      'x>y': '2',
    });
  });

  describe('decoding speed on large documents (docs/decisions/sandbox.md#xml-decoding-speed)', () => {
    const KiB = 1024;
    /** `unit` repeated to about `bytes` between `head` and `tail`. */
    const fill = (head: string, unit: string, tail: string, bytes: number) =>
      head + unit.repeat(Math.floor((bytes - head.length - tail.length) / unit.length)) + tail;
    // Each at n and 4n (n ≈ 512 KiB; 4n is about the clients' largest answer, 4 MiB, within every limit).
    const shapes: [string, (bytes: number) => string][] = [
      ['a charge answer of many products', (bytes) => encodeXml(chargeAnswer(Math.round(bytes / 5000)))],
      ['one long text run', (bytes) => fill('<data><a>', 'abcdefgh', '</a></data>', bytes)],
      ['predefined entities', (bytes) => fill('<data><a>', '&amp;', '</a></data>', bytes)],
      ['character references', (bytes) => fill('<data><a>', '&#x41;', '</a></data>', bytes)],
      [
        'references of every kind, in text and `key` values',
        (bytes) => {
          const refs = (n: number) => fill('', '&#x41;&amp;&#65;&lt;&#x1F9FE;&quot;&#0233;&apos;&gt;a', '', n);
          const per = Math.floor(bytes / 64);
          return `<data>${Array.from({ length: 64 }, (_, i) => `<item key="k${i}${refs(per / 8)}">${refs(per - per / 8 - 40)}</item>`).join('')}</data>`;
        },
      ],
      [
        'the most attributes, long keys',
        (bytes) =>
          `<data>${Array.from({ length: 9_999 }, (_, i) => `<item key="k${i}${'v'.repeat(Math.floor(bytes / 10_000) - 30)}">1</item>`).join('')}</data>`,
      ],
      [
        'the most elements, white space between',
        (bytes) =>
          `<data>${Array.from({ length: 9_999 }, (_, i) => `<e${i}>1</e${i}>${' '.repeat(Math.floor(bytes / 10_000) - 12)}`).join('')}</data>`,
      ],
      [
        'the deepest nesting, text inside',
        (bytes) => {
          const chain = (t: string) => `${'<a>'.repeat(XML_MAX_DEPTH - 2)}${t}${'</a>'.repeat(XML_MAX_DEPTH - 2)}`;
          const per = Math.floor(bytes / 300) - 7 * XML_MAX_DEPTH;
          return `<data>${Array.from({ length: 300 }, (_, i) => `<c${i}>${chain('x'.repeat(per))}</c${i}>`).join('')}</data>`;
        },
      ],
      ['comments', (bytes) => fill('<data>', '<!-- c -->', '<a>1</a></data>', bytes)],
      ['processing instructions', (bytes) => fill('<data>', '<?p x?>', '<a>1</a></data>', bytes)],
      ['text of `]]`', (bytes) => fill('<data><a>', ']]', '</a></data>', bytes)],
    ];

    // Absolute bounds far above what a linear pass takes (about 30–300 ms for 2 MiB on a 2-core VM) and far below what
    // a quadratic one would (minutes), with the fastest of three runs counting, as the project's other worst-case
    // tests do (test/support/timing.ts): a ratio of two timings flaked under load. How fast decoding is, against
    // JSON.parse, is measured by `npm run bench -- xml` (docs/benchmarks.md), not here.
    it('is linear: 2 MiB of every worst shape decodes within 3 s', () => {
      for (const [name, make] of shapes) {
        const doc = make(2048 * KiB);
        assert.ok(doc.length > 1.5 * 1024 * KiB, `${name}: ${doc.length}`);
        decodeXml(doc); // warm up (and check it decodes)
        const ms = fastestMsSync(() => decodeXml(doc), 3000);
        assert.ok(ms < 3000, `${name}: ${ms.toFixed(0)} ms`);
      }
    });
  });
});
