/**
 * Keystroke-to-formatted-value time of <tessera-card-form> in Chromium, against a plain <input>
 * measured in the same page and run. For each key: from the keydown (capture listener on window)
 * to the moment the `input` event reaches an ancestor, i.e. after the widget's own input handler
 * has reformatted the value and put the caret back. Real key events (CDP), the built bundle.
 */
import { readFileSync } from 'node:fs';
import { launchChromium } from '../test/support/browser.js';

const ORIGIN = 'https://tessera.bench';
const NUMBER = '4242424242424242';
const WARMUP_ROUNDS = 5;
const ROUNDS = 40;
const TARGET_MS = 1;

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<script type="module" src="/tessera-card-form.js"></script></head>
<body><label>Plain <input id="plain" autocomplete="off"></label><div id="host"><tessera-card-form></tessera-card-form></div>
<script>
  window.samples = { plain: [], widget: [] };
  window.unformatted = 0;
  let t0 = 0;
  addEventListener('keydown', () => { t0 = performance.now(); }, true);
  document.getElementById('plain').addEventListener('input', () => samples.plain.push(performance.now() - t0));
  document.getElementById('host').addEventListener('input', (e) => {
    const t = performance.now() - t0;
    const value = e.composedPath()[0].value;
    if (value.replace(/\\D/g, '').length > 4 && !value.includes(' ')) unformatted++;
    samples.widget.push(t);
  });
</script></body></html>`;

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const ms = (v: number) => `${v.toFixed(3)} ms`;

export async function run(): Promise<string> {
  const bundle = readFileSync('dist/widget/tessera-card-form.js');
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.route(`${ORIGIN}/**`, (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === '/tessera-card-form.js') return route.fulfill({ body: bundle, contentType: 'text/javascript' });
      return route.fulfill({ body: PAGE, contentType: 'text/html' });
    });
    await page.goto(`${ORIGIN}/`);
    await page.waitForFunction(() => customElements.get('tessera-card-form') !== undefined);
    const widget = page.locator('tessera-card-form').getByLabel('Card number');
    const plain = page.locator('#plain');

    const round = async () => {
      await plain.fill('');
      await plain.focus();
      await page.keyboard.type(NUMBER);
      await page.evaluate(() => document.querySelector('tessera-card-form')!.reset());
      await widget.focus();
      await page.keyboard.type(NUMBER);
    };
    for (let i = 0; i < WARMUP_ROUNDS; i++) await round();
    await page.evaluate(() => {
      const w = window as unknown as { samples: { plain: number[]; widget: number[] } };
      w.samples = { plain: [], widget: [] };
    });
    for (let i = 0; i < ROUNDS; i++) await round();
    const { samples, unformatted, shown } = await page.evaluate(() => {
      const w = window as unknown as { samples: { plain: number[]; widget: number[] }; unformatted: number };
      const input = document.querySelector('tessera-card-form')!.shadowRoot!.querySelector('input')!;
      return { samples: w.samples, unformatted: w.unformatted, shown: input.value };
    });
    if (shown !== '4242 4242 4242 4242' || unformatted > 0) {
      throw new Error(`the widget did not format while typing (last value ${JSON.stringify(shown.length)} chars)`);
    }
    const plainMedian = quantile(samples.plain, 0.5);
    const widgetMedian = quantile(samples.widget, 0.5);
    const overhead = widgetMedian - plainMedian;
    const verdict = widgetMedian < TARGET_MS ? 'met' : 'missed';
    return `## Widget: keystroke to formatted value

Chromium (headless), the built bundle, ${samples.widget.length} real key presses per input (${ROUNDS} × a 16-digit
card number, after ${WARMUP_ROUNDS} warm-up rounds). Time from \`keydown\` to the \`input\` event reaching an
ancestor, i.e. after the widget has regrouped the digits and restored the caret.

| input | median | p95 |
|---|---|---|
| plain \`<input>\` (baseline, no formatting) | ${ms(plainMedian)} | ${ms(quantile(samples.plain, 0.95))} |
| \`<tessera-card-form>\` card number | ${ms(widgetMedian)} | ${ms(quantile(samples.widget, 0.95))} |

Widget overhead over the baseline: ${ms(overhead)} at the median (${(widgetMedian / Math.max(plainMedian, 0.001)).toFixed(2)}× the baseline).
Target: median under ${TARGET_MS} ms: **${verdict}**.
`;
  } finally {
    await browser.close();
  }
}
