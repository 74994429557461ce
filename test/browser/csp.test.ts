import { expect } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import type { TesseraCardForm } from '../../widget/card-form/card-form.js';
import { futureExpiry, sandbox } from './helpers.js';

interface CspWindow extends Window {
  violations: string[];
}

/** Loads /__csp.html (web-test-runner.config.js): strict CSP, Trusted Types required, the widget's sources. */
async function cspPage(): Promise<HTMLIFrameElement> {
  const frame = document.createElement('iframe');
  frame.src = '/__csp.html';
  const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  document.body.append(frame);
  await loaded;
  await (frame.contentWindow as Window & typeof globalThis).customElements.whenDefined('tessera-card-form');
  return frame;
}

describe('<tessera-card-form> under a strict Content Security Policy with Trusted Types', () => {
  let frame: HTMLIFrameElement;
  afterEach(() => frame?.remove());

  it('renders, formats, validates and tokenizes without a single violation', async () => {
    frame = await cspPage();
    const win = frame.contentWindow as CspWindow;
    const el = frame.contentDocument!.querySelector('tessera-card-form') as TesseraCardForm;
    await el.updateComplete;
    const { publicKey, tokenUrl } = await sandbox();
    el.publicKey = publicKey;
    el.tokenUrl = tokenUrl;
    const number = el.shadowRoot!.querySelector<HTMLInputElement>('#number')!;
    expect(getComputedStyle(number).borderStyle).to.equal('solid'); // the adopted stylesheet applies
    frame.focus();
    for (const [field, text] of [
      ['number', '4242424242424242'],
      ['expiry', futureExpiry()],
      ['cvv', '123'],
    ]) {
      el.shadowRoot!.querySelector<HTMLInputElement>(`#${field}`)!.focus();
      await sendKeys({ type: text! });
    }
    expect(number.value).to.equal('4242 4242 4242 4242');
    const { token } = await el.tokenize();
    expect(token).to.match(/^card_tok_/);
    expect(win.violations).to.deep.equal([]);
    expect(el.shadowRoot!.querySelector('[style]')).to.equal(null);
  });

  it('really enforces the policy (a string assigned to innerHTML is refused and reported)', async () => {
    frame = await cspPage();
    const win = frame.contentWindow as CspWindow;
    const reported = new Promise((resolve) =>
      frame.contentDocument!.addEventListener('securitypolicyviolation', resolve, { once: true }),
    );
    const div = frame.contentDocument!.createElement('div');
    frame.contentDocument!.body.append(div);
    expect(() => {
      div.innerHTML = '<b>x</b>';
    })
      .to.throw(/TrustedHTML|Sink type mismatch/)
      .with.property('name', 'TypeError');
    await reported;
    expect(win.violations.join()).to.contain('require-trusted-types-for');
  });
});
