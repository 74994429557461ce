import { expect, fixture, html } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import {
  errorOf,
  fillCard,
  input,
  leave,
  liveRegion,
  press,
  sandbox,
  sandboxForm,
  type TesseraCardForm,
  type,
} from './helpers.js';

/** What a browser's autofill does: sets each field's whole value at once and fires `input` without typing. */
function autofill(el: TesseraCardForm, values: Partial<Record<'number' | 'expiry' | 'cvv' | 'name', string>>) {
  for (const [field, value] of Object.entries(values)) {
    const i = input(el, field as 'number');
    i.value = value;
    i.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertReplacementText' }));
  }
}

describe('<tessera-card-form> robustness', () => {
  for (const [exp, month, year] of [
    ['12/2030', 12, 2030],
    ['1230', 12, 2030],
    ['12/30', 12, 2030],
    ['7/2031', 7, 2031],
  ] as const) {
    it(`takes autofill of number, expiry “${exp}” and CVV at once, then tokenizes`, async () => {
      const el = await sandboxForm();
      autofill(el, { number: '4242 4242 4242 4242', expiry: exp, cvv: '123', name: 'Ada Lovelace' });
      await el.updateComplete;
      expect(input(el, 'number').value).to.equal('4242 4242 4242 4242');
      expect(input(el, 'expiry').value).to.equal(`${String(month).padStart(2, '0')} / ${year % 100}`);
      const token = await el.tokenize();
      expect(token).to.include({ brand: 'visa', last4: '4242', expiryMonth: month, expiryYear: year });
    });
  }

  it('takes the page’s color-scheme: light on a page that declares none, whatever the system; dark where the page allows it', async () => {
    const luminance = (c: string) => {
      const [r, g, b] = c.match(/[\d.]+/g)!.map(Number);
      return (0.2126 * r! + 0.7152 * g! + 0.0722 * b!) / 255;
    };
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
    await type(el, 'number', '4242');
    await leave(el, 'number');
    const look = () => ({
      background: luminance(getComputedStyle(input(el, 'number')).backgroundColor),
      text: luminance(getComputedStyle(input(el, 'number')).color),
      error: getComputedStyle(errorOf(el, 'number')).color,
    });
    // Only Chromium's automation emulates prefers-color-scheme (playwright over CDP); puppeteer over
    // WebDriver BiDi (Firefox) and WebDriver classic (WebKit) cannot. There the `color-scheme` command
    // answers false and the page declares the scheme itself (`color-scheme: dark`), which drives the same
    // light-dark() colours.
    const emulate = (colorScheme: 'dark' | 'light' | 'no-preference') =>
      executeServerCommand<boolean, unknown>('color-scheme', { colorScheme });
    const root = document.documentElement;
    try {
      const emulated = await emulate('dark');
      // A page that declares no color-scheme is light: the widget must not turn dark by itself (white labels on a
      // white page), even when the system is dark.
      const plain = look();
      expect(plain.background).to.be.above(0.8);
      expect(plain.text).to.be.below(0.2);
      root.style.colorScheme = emulated ? 'light dark' : 'dark';
      const dark = look();
      expect(dark.background).to.be.below(0.2);
      expect(dark.text).to.be.above(0.8);
      expect(dark.error).to.equal('rgb(242, 139, 130)');
      if (emulated) await emulate('light');
      else root.style.colorScheme = 'light';
      const light = look();
      expect(light.background).to.be.above(0.8);
      expect(light.text).to.be.below(0.2);
      expect(light.error).to.equal('rgb(197, 34, 31)');
    } finally {
      root.style.colorScheme = '';
      await emulate('no-preference');
    }
  });

  it('two widgets on one page keep their own state, ids and error wiring', async () => {
    const wrap = await fixture<HTMLDivElement>(
      html`<div><tessera-card-form></tessera-card-form><tessera-card-form></tessera-card-form></div>`,
    );
    const [a, b] = [...wrap.querySelectorAll('tessera-card-form')] as TesseraCardForm[];
    await a!.updateComplete;
    await b!.updateComplete;
    await type(a!, 'number', '4242');
    await leave(a!, 'number');
    expect(input(b!, 'number').value).to.equal('');
    expect(errorOf(b!, 'number').textContent).to.equal('');
    for (const el of [a!, b!]) {
      const ids = [...el.shadowRoot!.querySelectorAll('[id]')].map((n) => n.id);
      expect(new Set(ids).size).to.equal(ids.length);
      for (const i of el.shadowRoot!.querySelectorAll('[aria-describedby]')) {
        for (const id of i.getAttribute('aria-describedby')!.split(' '))
          expect(el.shadowRoot!.getElementById(id), id).to.not.equal(null);
      }
    }
    expect(input(a!, 'number').getAttribute('aria-describedby')).to.equal('number-error');
    expect(errorOf(a!, 'number').textContent).to.not.equal('');
  });

  it('announces an error again when it comes back after being fixed', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
    await type(el, 'number', '4242');
    await leave(el, 'number');
    expect(liveRegion(el).textContent).to.equal('Your card number is incomplete.');
    await type(el, 'number', '424242424242');
    await leave(el, 'number');
    await el.updateComplete;
    expect(liveRegion(el).textContent).to.equal('');
    input(el, 'number').select();
    await type(el, 'number', '4242');
    await leave(el, 'number');
    expect(liveRegion(el).textContent).to.equal('Your card number is incomplete.');
  });

  it('toggling the disabled attribute disables and re-enables the inputs and the form value', async () => {
    const form = await fixture<HTMLFormElement>(html`<form><tessera-card-form></tessera-card-form></form>`);
    const el = form.querySelector('tessera-card-form')!;
    await el.updateComplete;
    el.setAttribute('disabled', '');
    await el.updateComplete;
    for (const i of el.shadowRoot!.querySelectorAll('input')) expect(i.disabled).to.equal(true);
    expect(form.checkValidity()).to.equal(true);
    el.removeAttribute('disabled');
    await el.updateComplete;
    for (const i of el.shadowRoot!.querySelectorAll('input')) expect(i.disabled).to.equal(false);
    expect(form.checkValidity()).to.equal(false);
  });

  it('reads accepted-brands in any case, with spaces and commas', async () => {
    const el = await fixture<TesseraCardForm>(
      html`<tessera-card-form accepted-brands="  Visa ,MASTERCARD   amex "></tessera-card-form>`,
    );
    expect(el.acceptedBrands).to.deep.equal(['visa', 'mastercard', 'amex']);
    await type(el, 'number', '6011111111111117');
    await leave(el, 'number');
    expect(errorOf(el, 'number').textContent).to.contain('Discover');
  });

  it('switching locale while the previous one is still loading ends in the last one', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
    el.locale = 'pl';
    await new Promise((r) => setTimeout(r, 0));
    el.locale = 'it';
    await el.updateComplete;
    await el.updateComplete;
    expect(input(el, 'number').labels![0]!.textContent).to.equal('Numero della carta');
  });

  it('re-words the messages on show when the locale changes', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form locale="en"></tessera-card-form>`);
    await type(el, 'number', '4242');
    await leave(el, 'number');
    expect(errorOf(el, 'number').textContent).to.equal('Your card number is incomplete.');
    el.locale = 'de';
    await el.updateComplete;
    expect(input(el, 'number').labels![0]!.textContent).to.equal('Kartennummer');
    expect(errorOf(el, 'number').textContent).to.equal('Ihre Kartennummer ist unvollständig.');
  });

  it('refuses a config-url over plain http to the network with an error event', async () => {
    const el = await fixture<TesseraCardForm>(
      html`<tessera-card-form public-key="pk_x" config-url="http://example.com/config"></tessera-card-form>`,
    );
    await fillCard(el);
    const errors: string[] = [];
    el.addEventListener('tessera-error', (e) => errors.push(e.detail.code));
    const result = await el.tokenize().catch((e: Error) => e);
    expect(result).to.be.instanceOf(Error);
    expect(errors).to.deep.equal(['config']);
  });

  it('a name change after tokenizing moves the token to the new field name', async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const form = await fixture<HTMLFormElement>(
      html`<form><tessera-card-form public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form></form>`,
    );
    const el = form.querySelector('tessera-card-form')!;
    await fillCard(el);
    const { token } = await el.tokenize();
    el.name = 'payment';
    await el.updateComplete;
    const data = new FormData(form);
    expect(data.get('payment')).to.equal(token);
    expect(data.has('cardToken')).to.equal(false);
  });

  it('two concurrent tokenize() calls send one request and resolve with the same token', async () => {
    const el = await sandboxForm();
    await fillCard(el);
    const original = window.fetch;
    let calls = 0;
    window.fetch = (...args: Parameters<typeof fetch>) => {
      calls++;
      return original(...args);
    };
    try {
      const [a, b] = await Promise.all([el.tokenize(), el.tokenize()]);
      expect(a.token).to.equal(b.token);
      expect(calls).to.equal(1);
    } finally {
      window.fetch = original;
    }
  });

  it('a very long paste into the number keeps 19 digits at most, and the name keeps 100 characters', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
    const i = input(el, 'number');
    i.focus();
    i.value = '4'.repeat(5000);
    i.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste' }));
    await el.updateComplete;
    expect(i.value.replace(/\D/g, '')).to.have.length(19);
    expect(input(el, 'name').maxLength).to.equal(100);
  });

  it('takes Devanagari digits typed in every field, and tokenizes them as ASCII', async () => {
    const el = await sandboxForm();
    await type(el, 'number', '४२४२४२४२४२४२४२४२');
    await type(el, 'expiry', '१२३०');
    await type(el, 'cvv', '१२३');
    expect(input(el, 'number').value).to.equal('4242 4242 4242 4242');
    expect(input(el, 'expiry').value).to.equal('12 / 30');
    expect(input(el, 'cvv').value).to.equal('123');
    const token = await el.tokenize();
    expect(token).to.include({ brand: 'visa', last4: '4242', expiryMonth: 12, expiryYear: 2030 });
  });

  it('takes a pasted Devanagari card number with its spaces, and digits of other scripts', async () => {
    const el = await sandboxForm();
    input(el, 'number').focus();
    await executeServerCommand('paste', { text: '५५५५ ५५५५ ५५५५ ४४४४' });
    expect(input(el, 'number').value).to.equal('5555 5555 5555 4444');
    // Bengali, Thai and Tibetan digits: every \p{Nd} set is read.
    await type(el, 'cvv', '১๒༣');
    expect(input(el, 'cvv').value).to.equal('123');
  });

  it('takes full-width and Eastern Arabic-Indic digits in every field', async () => {
    const el = await sandboxForm();
    await type(el, 'number', '４２４２４２４２４２４２４２４２');
    await type(el, 'expiry', '۱۲۳۰');
    await type(el, 'cvv', '١٢٣');
    expect(input(el, 'number').value).to.equal('4242 4242 4242 4242');
    expect(input(el, 'expiry').value).to.equal('12 / 30');
    expect(input(el, 'cvv').value).to.equal('123');
    await el.tokenize();
  });

  it('keyboard alone: Tab moves number → expiry → CVV → name', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
    el.focus();
    await press('4');
    await press('Tab');
    expect(el.shadowRoot!.activeElement?.id).to.equal('expiry');
    await press('Tab');
    expect(el.shadowRoot!.activeElement?.id).to.equal('cvv');
    await press('Tab');
    expect(el.shadowRoot!.activeElement?.id).to.equal('name');
  });

  it('submitting a form that validates shows every message under the fields, not only the browser bubble', async () => {
    const form = await fixture<HTMLFormElement>(
      html`<form><tessera-card-form></tessera-card-form><button>Pay</button></form>`,
    );
    const el = form.querySelector('tessera-card-form')!;
    await el.updateComplete;
    await type(el, 'number', '4242');
    form.querySelector('button')!.click();
    await el.updateComplete;
    expect(errorOf(el, 'number').textContent).to.equal('Your card number is incomplete.');
    expect(errorOf(el, 'expiry').textContent).to.equal('Enter the expiry date.');
    expect(el.matches(':state(user-invalid)')).to.equal(true);
  });
});
