import { expect, fixture, html } from '@open-wc/testing';
import '../../widget/card-form/define.js';
import type { TesseraCardForm } from '../../widget/card-form/card-form.js';

describe('<tessera-card-form>', () => {
  it('upgrades to the TesseraCardForm class', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
    expect(el.constructor.name).to.equal('TesseraCardForm');
  });

  it('renders a labelled card-number input with card-number autofill', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
    const input = el.shadowRoot!.querySelector<HTMLInputElement>('[part~="number-input"]')!;
    expect(input).to.exist;
    expect(input.labels?.[0]?.textContent?.trim()).to.equal('Card number');
    expect(input.autocomplete).to.equal('cc-number');
    expect(input.inputMode).to.equal('numeric');
  });

  it('reflects the public-key attribute into the publicKey property', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form public-key="pk_sbox_abc"></tessera-card-form>`);
    expect(el.publicKey).to.equal('pk_sbox_abc');
  });

  it('is accessible', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
    await expect(el).to.be.accessible();
  });
});
