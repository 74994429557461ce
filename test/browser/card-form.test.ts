import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import { TesseraCardForm } from '../../widget/card-form/card-form.js';
import { errorOf, fillCard, input, leave, type } from './helpers.js';

describe('<tessera-card-form>', () => {
  it('upgrades to the TesseraCardForm class', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
    expect(el).to.be.instanceOf(TesseraCardForm);
  });

  it('has these defaults', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
    expect(el.publicKey).to.equal('');
    expect(el.tokenUrl).to.equal('');
    expect(el.configUrl).to.equal('');
    expect(el.locale).to.equal('');
    expect(el.name).to.equal('cardToken');
    expect(el.acceptedBrands).to.deep.equal([]);
    expect(el.hideName).to.equal(false);
    expect(el.disabled).to.equal(false);
    expect(el.hasAttribute('disabled')).to.equal(false);
    expect(el.form).to.equal(null);
    expect((el.constructor as typeof TesseraCardForm).formAssociated).to.equal(true);
    expect(el.shadowRoot!.querySelector('[part~="form"]')!.getAttribute('lang')).to.equal('en');
    expect(el.shadowRoot!.querySelectorAll('input')).to.have.length(4);
  });

  it('maps every attribute to its property', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form
      public-key="pk_sbox_abc"
      token-url="https://provider.example/api2/v2/tokens/card"
      config-url="/tessera/config"
      locale="de"
      name="token"
      accepted-brands="Visa, mastercard amex"
      hide-name
      disabled
    ></tessera-card-form>`);
    expect(el.publicKey).to.equal('pk_sbox_abc');
    expect(el.tokenUrl).to.equal('https://provider.example/api2/v2/tokens/card');
    expect(el.configUrl).to.equal('/tessera/config');
    expect(el.locale).to.equal('de');
    expect(el.name).to.equal('token');
    expect(el.acceptedBrands).to.deep.equal(['visa', 'mastercard', 'amex']);
    expect(el.hideName).to.equal(true);
    expect(el.disabled).to.equal(true);
  });

  it('renders labelled inputs with card autofill tokens and a numeric keypad', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
    const expected = [
      ['number', 'Card number', 'cc-number', 'numeric'],
      ['expiry', 'Expiry date', 'cc-exp', 'numeric'],
      ['cvv', 'Security code', 'cc-csc', 'numeric'],
      ['name', 'Name on card', 'cc-name', 'text'],
    ] as const;
    for (const [field, label, autocomplete, mode] of expected) {
      const i = input(el, field);
      expect(i.labels?.[0]?.textContent?.trim(), field).to.equal(label);
      // The attribute, not the IDL property: Firefox's `autocomplete` property reads '' for tokens its
      // own autofill does not use (cc-csc), though the attribute is what password managers read.
      expect(i.getAttribute('autocomplete'), field).to.equal(autocomplete);
      expect(i.inputMode, field).to.equal(mode);
      expect(i.getAttribute('part'), field).to.equal(`input ${field}-input`);
      expect(i.labels?.[0]?.getAttribute('part'), field).to.equal(`label ${field}-label`);
      expect(errorOf(el, field).getAttribute('part'), field).to.equal(`error ${field}-error`);
    }
    expect(input(el, 'expiry').placeholder).to.equal('MM / YY');
  });

  it('hides the cardholder name field with hide-name', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form hide-name></tessera-card-form>`);
    expect(el.shadowRoot!.querySelector('#name')).to.equal(null);
  });

  it('focus() focuses the card number input', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
    el.focus();
    expect(el.shadowRoot!.activeElement).to.equal(input(el, 'number'));
  });

  it('focus() called before the first render (the locale still loading) focuses the number input once rendered', async () => {
    const el = document.createElement('tessera-card-form');
    el.locale = 'de';
    document.body.append(el);
    try {
      // Before, nothing happened: there was no input yet.
      el.focus();
      await oneEvent(el, 'tessera-ready');
      await el.updateComplete;
      expect(el.shadowRoot!.activeElement?.id).to.equal('number');
      expect(document.activeElement).to.equal(el);
    } finally {
      el.remove();
    }
  });

  it('disables every input when disabled', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form disabled></tessera-card-form>`);
    for (const i of el.shadowRoot!.querySelectorAll('input')) expect(i.disabled).to.equal(true);
    el.disabled = false;
    await el.updateComplete;
    for (const i of el.shadowRoot!.querySelectorAll('input')) expect(i.disabled).to.equal(false);
  });

  it('is accessible when empty', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
    await expect(el).to.be.accessible();
  });

  it('is accessible with errors shown', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
    await type(el, 'number', '4242');
    await leave(el, 'number');
    await type(el, 'expiry', '01');
    await leave(el, 'expiry');
    expect(errorOf(el, 'number').textContent).to.not.equal('');
    await expect(el).to.be.accessible();
  });

  it('is accessible when filled', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
    await fillCard(el);
    await type(el, 'name', 'Ada Lovelace');
    await expect(el).to.be.accessible();
  });

  it('works inside another component’s shadow root', async () => {
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    const root = host.attachShadow({ mode: 'open' });
    const form = document.createElement('form');
    const el = document.createElement('tessera-card-form');
    form.append(el);
    root.append(form);
    await el.updateComplete;
    expect(el.form).to.equal(form);
    await fillCard(el);
    expect(input(el, 'number').value).to.equal('4242 4242 4242 4242');
    const changes: string[] = [];
    host.addEventListener('tessera-change', (e) => changes.push(String(e.detail.brand)));
    await type(el, 'name', 'A');
    expect(changes).to.deep.equal(['visa']);
  });

  it('warns once and keeps the first definition when defined twice', async () => {
    const warnings: unknown[] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => warnings.push(args.join(' '));
    try {
      await import(`../../widget/card-form/define.ts?second=${Date.now()}`);
    } finally {
      console.warn = original;
    }
    expect(customElements.get('tessera-card-form')).to.equal(TesseraCardForm);
    expect(warnings).to.have.length(1);
    expect(String(warnings[0])).to.contain('TESSERA_ALREADY_DEFINED');
  });
});
