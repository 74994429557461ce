import { decodeXml, encodeXml } from '../server/provider/codec/xml.js';
import { chargeAnswer } from '../test/support/xml-documents.js';

/**
 * The XML codec's decoding of large documents against `JSON.parse` of the same data, in one process, interleaved
 * (docs/decisions/sandbox.md#xml-decoding-speed). The provider client in `format: 'xml'` decodes answers of up to
 * 4 MiB (server/provider/http/answer-budget.ts), and a decode holds the event loop. Target: a 4 MiB charge answer,
 * 4 MiB of one text run and 4 MiB made of references decode within 80 times `JSON.parse` of the same data
 * (fast-xml-parser's parser took about 200 times). The other rows are informative.
 */

const ROUNDS = 9;
const TARGET = 80;
const KiB = 1024;

interface Case {
  readonly name: string;
  readonly xml: string;
  readonly json: string;
  readonly target: boolean;
  /** Whether the XML decodes to exactly the JSON's data (checked before timing). */
  readonly same?: boolean;
}

function cases(): Case[] {
  const chargeCase = (name: string, products: number, target = false): Case => {
    const value = chargeAnswer(products);
    return { name, xml: encodeXml(value), json: JSON.stringify(value), target };
  };
  const run = 'abcdefgh'.repeat((4096 * KiB) / 8 - 3);
  const amps = '&'.repeat((4096 * KiB) / 5 - 4);
  // References of every kind, nothing else, in the text and the `key` of 64 elements (as a hostile or broken provider
  // could answer): each reference is read by the scan and expanded once.
  const refs = '&#x41;&amp;&#65;&lt;&#x20AC;&quot;&#233;&apos;&#x1F9FE;&gt;';
  const chars = 'A&A<€"é\'🧾>';
  const keyRefs = Math.floor((2 * KiB) / refs.length);
  const textRefs = Math.floor((64 * KiB - 2 * KiB - 40) / refs.length);
  const dense = Array.from({ length: 64 }, (_, i) => i);
  return [
    chargeCase('charge answer, 1 product', 1),
    chargeCase('charge answer, 40 products', 40),
    chargeCase('charge answer, 400 products', 400),
    chargeCase('charge answer, 950 products (about 4 MiB)', 950, true),
    {
      name: 'one text run of 4 MiB',
      xml: `<data><a>${run}</a></data>`,
      json: JSON.stringify({ a: run }),
      target: true,
      same: true,
    },
    {
      name: '4 MiB of `&amp;`',
      xml: `<data><a>${amps.replaceAll('&', '&amp;')}</a></data>`,
      json: JSON.stringify({ a: amps }),
      target: false,
      same: true,
    },
    {
      name: '4 MiB of references (`&#x41;&amp;&#65;…`, text and `key` values)',
      xml: `<data>${dense.map((i) => `<item key="k${i}${refs.repeat(keyRefs)}">${refs.repeat(textRefs)}</item>`).join('')}</data>`,
      json: JSON.stringify(
        Object.fromEntries(dense.map((i) => [`k${i}${chars.repeat(keyRefs)}`, chars.repeat(textRefs)])),
      ),
      target: true,
      same: true,
    },
  ];
}

function ms(fn: () => unknown): number {
  const started = performance.now();
  fn();
  return performance.now() - started;
}

export async function run(): Promise<string> {
  const rows: string[] = [];
  for (const c of cases()) {
    // Warm-up, and a check that both decode to the same data.
    const decoded = JSON.stringify(decodeXml(c.xml));
    JSON.parse(c.json);
    if (!decoded.startsWith('{')) throw new Error(`${c.name}: decoded to ${decoded.slice(0, 80)}`);
    if (c.same && decoded !== c.json) throw new Error(`${c.name}: decoded to other data than the JSON's`);
    const xmls: number[] = [];
    const jsons: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate which goes first, so neither always meets the other's garbage.
      let jsonMs = 0;
      if (r % 2) jsonMs = ms(() => JSON.parse(c.json));
      const xmlMs = ms(() => decodeXml(c.xml));
      if (!(r % 2)) jsonMs = ms(() => JSON.parse(c.json));
      xmls.push(xmlMs);
      jsons.push(jsonMs);
    }
    // The fastest of the rounds: what decoding costs, without another round's garbage collection in it.
    const ratio = Math.min(...xmls) / Math.min(...jsons);
    const verdict = c.target ? (ratio <= TARGET ? 'met' : '**missed**') : '';
    rows.push(
      `| ${c.name} | ${(c.xml.length / KiB).toFixed(0)} KiB | ${Math.min(...xmls).toFixed(1)} ms | ${Math.min(...jsons).toFixed(1)} ms | **${ratio.toFixed(0)}x** | ${c.target ? `≤ ${TARGET}x` : ''} | ${verdict} |`,
    );
  }
  return `## XML codec: decoding large documents

\`decodeXml\` (the provider client's reading of answers in \`format: 'xml'\`, and the sandbox's of XML requests)
against \`JSON.parse\` of the same data, in one process, ${ROUNDS} alternating rounds; the figures are the fastest round of each, and their ratio. A
decode holds the event loop, and a client reads answers up to 4 MiB. Target: the 4 MiB charge answer, the 4 MiB
text run and the 4 MiB of references within ${TARGET} times \`JSON.parse\` (fast-xml-parser's parser, used until
2026-11-26, took about 200 times; docs/decisions/sandbox.md#xml-decoding-speed).

| document | size | decodeXml | JSON.parse | XML / JSON | target | |
| --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}`;
}
