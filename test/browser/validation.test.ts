import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import {
  errorOf,
  fillCard,
  futureExpiry,
  input,
  leave,
  liveRegion,
  oneEvent,
  press,
  type TesseraCardForm,
  type,
} from './helpers.js';

const year2 = (offset: number) => String((new Date().getFullYear() + offset) % 100).padStart(2, '0');

/** Types into a field, leaves it, and returns the message shown under it. */
async function messageAfter(el: TesseraCardForm, field: 'number' | 'expiry' | 'cvv' | 'name', text: string) {
  await type(el, field, text);
  await leave(el, field);
  return errorOf(el, field).textContent;
}

describe('<tessera-card-form> validation', () => {
  let el: TesseraCardForm;
  beforeEach(async () => {
    el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
  });

  const cases: [string, 'number' | 'expiry' | 'cvv' | 'name', string, string][] = [
    ['an incomplete number', 'number', '424242', 'Your card number is incomplete.'],
    ['a number failing the Luhn check', 'number', '4242424242424241', 'Enter a valid card number.'],
    ['a number of no known brand', 'number', '9999999999999999', 'Enter a valid card number.'],
    ['an incomplete expiry', 'expiry', '1', 'Enter the expiry date as MM / YY.'],
    ['month 13', 'expiry', `13${year2(1)}`, 'Enter the expiry date as MM / YY.'],
    ['an expiry in the past', 'expiry', `01${year2(-1)}`, 'This card has expired.'],
    ['an expiry more than 20 years ahead', 'expiry', `01${year2(21)}`, 'The expiry year is too far ahead.'],
    // No brand yet: both lengths are taken, so the message names both.
    ['a short CVV before the number', 'cvv', '12', 'The security code must be 3–4 digits.'],
    ['digits in the name', 'name', 'Ada 4242', 'Check the name on the card.'],
  ];
  for (const [what, field, text, message] of cases) {
    it(`shows “${message}” for ${what} once the field is left, tied to the input`, async () => {
      await type(el, field, text);
      await el.updateComplete;
      expect(errorOf(el, field).textContent, 'not while typing').to.equal('');
      expect(input(el, field).getAttribute('aria-invalid')).to.equal('false');
      await leave(el, field);
      expect(errorOf(el, field).textContent).to.equal(message);
      const i = input(el, field);
      expect(i.getAttribute('aria-invalid')).to.equal('true');
      expect(i.getAttribute('aria-describedby')).to.equal(`${field}-error`);
      expect(el.shadowRoot!.getElementById(i.getAttribute('aria-describedby')!)!.textContent).to.equal(message);
      expect(liveRegion(el).textContent).to.equal(message);
      expect(el.matches(':state(user-invalid)')).to.equal(true);
    });
  }

  it('asks for a 3-digit security code on Visa', async () => {
    await type(el, 'number', '4242424242424242');
    expect(await messageAfter(el, 'cvv', '12')).to.equal('The security code must be 3 digits.');
  });

  it('asks for a 4-digit security code on American Express', async () => {
    await type(el, 'number', '378282246310005');
    expect(await messageAfter(el, 'cvv', '123')).to.equal('The security code must be 4 digits.');
  });

  it('rejects a brand that accepted-brands leaves out, naming it', async () => {
    el.acceptedBrands = ['visa', 'mastercard'];
    expect(await messageAfter(el, 'number', '378282246310005')).to.equal('American Express cards are not accepted.');
  });

  it('normalises accepted brands set as a property like the attribute (case, spaces, one string)', async () => {
    el.acceptedBrands = ['Visa', ' MasterCard '] as never;
    await el.updateComplete;
    expect(el.acceptedBrands).to.deep.equal(['visa', 'mastercard']);
    expect(await messageAfter(el, 'number', '5555555555554444')).to.equal('');
    el.acceptedBrands = 'VISA, Amex' as never;
    await el.updateComplete;
    expect(el.acceptedBrands).to.deep.equal(['visa', 'amex']);
    expect(el.getAttribute('accepted-brands')).to.equal(null);
  });

  it('refuses a brand left out of accepted brands set as a mixed-case property, naming it', async () => {
    el.acceptedBrands = ['VISA'] as never;
    expect(await messageAfter(el, 'number', '378282246310005')).to.equal('American Express cards are not accepted.');
  });

  it('moves focus to the first invalid field after a failed submit in a novalidate form', async () => {
    const form = await fixture<HTMLFormElement>(
      html`<form novalidate><tessera-card-form></tessera-card-form><button>Pay</button></form>`,
    );
    const card = form.querySelector('tessera-card-form')!;
    // Never navigate the test page away, whatever happens (the widget holds the submit itself).
    form.addEventListener('submit', (e) => e.preventDefault());
    await type(card, 'number', '4242424242424242');
    form.querySelector('button')!.focus();
    const failed = oneEvent(card, 'tessera-error');
    form.requestSubmit();
    expect((await failed).detail).to.include({ code: 'validation', field: 'expiry' });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(card.shadowRoot!.activeElement).to.equal(input(card, 'expiry'));
    expect(document.activeElement).to.equal(card);
  });

  for (const novalidate of [true, false]) {
    it(`after a failed submit the live region says what failed, once, as focus leaves a field at fault (${novalidate ? 'novalidate' : "the browser's validation"})`, async () => {
      const form = await fixture<HTMLFormElement>(
        html`<form ?novalidate=${novalidate}><tessera-card-form></tessera-card-form><button>Pay</button></form>`,
      );
      const card = form.querySelector('tessera-card-form')!;
      form.addEventListener('submit', (e) => e.preventDefault());
      await type(card, 'number', '4242424242424242');
      await type(card, 'cvv', '12');
      await card.updateComplete;
      const said: string[] = [];
      const observer = new MutationObserver(() => said.push(liveRegion(card).textContent!));
      observer.observe(liveRegion(card), { childList: true, characterData: true, subtree: true });
      try {
        // Enter in the security code: the expiry (empty) is the first field at fault and gets focus.
        await press('Enter');
        await waitUntil(() => card.shadowRoot!.activeElement === input(card, 'expiry'));
        await new Promise((resolve) => setTimeout(resolve, 50));
        await card.updateComplete;
        expect(errorOf(card, 'cvv').textContent).to.equal('The security code must be 3 digits.');
        // Before, leaving the security code put its own message in the region over the submit's summary.
        expect(said).to.deep.equal(['Enter the expiry date.']);
        expect(liveRegion(card).textContent).to.equal('Enter the expiry date.');
      } finally {
        observer.disconnect();
      }
    });
  }

  for (const novalidate of [true, false]) {
    it(`a failed submit that repeats the last one is announced again: the live region is emptied, then filled (${novalidate ? 'novalidate' : "the browser's validation"})`, async () => {
      const form = await fixture<HTMLFormElement>(
        html`<form ?novalidate=${novalidate}><tessera-card-form></tessera-card-form><button>Pay</button></form>`,
      );
      const card = form.querySelector('tessera-card-form')!;
      form.addEventListener('submit', (e) => e.preventDefault());
      await type(card, 'number', '4242424242424242');
      await press('Enter');
      await waitUntil(() => liveRegion(card).textContent === 'Enter the expiry date.');
      const said: string[] = [];
      const observer = new MutationObserver(() => said.push(liveRegion(card).textContent!));
      observer.observe(liveRegion(card), { childList: true, characterData: true, subtree: true });
      try {
        // The same problems again (focus is in the expiry now): the same summary.
        await press('Enter');
        // The observer reads the region once per task that changed it: emptied in one task, filled in a later one.
        // (Read after `press`, the region may already be filled again on a loaded machine: the round trip of the
        // key press can outlast the re-announcement's delay, so the observer's record is what is asserted.)
        await waitUntil(() => said.length >= 2, 'emptied, then filled in a later task');
        await waitUntil(() => liveRegion(card).textContent === 'Enter the expiry date.', 'filled in a later one');
        // Before, it was emptied and set again in one step: the DOM never changed, and a screen reader said nothing.
        expect(said).to.deep.equal(['', 'Enter the expiry date.']);
        expect(card.shadowRoot!.activeElement).to.equal(input(card, 'expiry'));
      } finally {
        observer.disconnect();
      }
    });
  }

  it('a repeated summary is not filled in again over a card reset meanwhile', async () => {
    await type(el, 'number', '4242');
    await el.tokenize().catch(() => undefined);
    await el.updateComplete;
    expect(liveRegion(el).textContent).to.equal('Your card number is incomplete.');
    await el.tokenize().catch(() => undefined);
    el.reset();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await el.updateComplete;
    expect(liveRegion(el).textContent).to.equal('');
    expect(errorOf(el, 'number').textContent).to.equal('');
  });

  it('two card forms in one novalidate form each show their own messages on submit, focus on the first', async () => {
    const form = await fixture<HTMLFormElement>(html`<form novalidate>
      <tessera-card-form name="first"></tessera-card-form><tessera-card-form name="second"></tessera-card-form>
      <button>Pay</button>
    </form>`);
    const [first, second] = [...form.querySelectorAll('tessera-card-form')] as [TesseraCardForm, TesseraCardForm];
    let submits = 0;
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      submits++;
    });
    const errors: string[] = [];
    for (const card of [first, second])
      card.addEventListener('tessera-error', (e) => errors.push(card.name + e.detail.field));
    await type(second, 'number', '4242424242424242');
    form.querySelector('button')!.focus();
    form.requestSubmit();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await Promise.all([first.updateComplete, second.updateComplete]);
    // Before, the first form stopped the submit event before the second one's listener: the second showed nothing.
    expect(errorOf(first, 'number').textContent).to.equal('Enter your card number.');
    expect(errorOf(second, 'number').textContent).to.equal('');
    expect(errorOf(second, 'expiry').textContent).to.equal('Enter the expiry date.');
    expect(errorOf(second, 'cvv').textContent).to.equal('Enter the security code.');
    expect(liveRegion(second).textContent).to.equal('Enter the expiry date.');
    expect([first, second].map((card) => card.matches(':state(user-invalid)'))).to.deep.equal([true, true]);
    expect(errors).to.deep.equal(['firstnumber', 'secondexpiry']);
    expect(document.activeElement).to.equal(first);
    expect(first.shadowRoot!.activeElement).to.equal(input(first, 'number'));
    expect(submits).to.equal(0);
  });

  it('a message on show follows accepted-brands: gone once the brand is accepted, announced again when refused again', async () => {
    el.acceptedBrands = ['mastercard'];
    expect(await messageAfter(el, 'number', '4242424242424242')).to.equal('Visa cards are not accepted.');
    expect(liveRegion(el).textContent).to.equal('Visa cards are not accepted.');
    el.setAttribute('accepted-brands', 'visa mastercard');
    await el.updateComplete;
    // Before, the refusal stayed on show (aria-invalid, user-invalid) over a card the form now took as valid.
    expect(errorOf(el, 'number').textContent).to.equal('');
    expect(input(el, 'number').getAttribute('aria-invalid')).to.equal('false');
    expect(el.matches(':state(user-invalid)')).to.equal(false);
    expect(liveRegion(el).textContent).to.equal('');
    el.setAttribute('accepted-brands', 'mastercard');
    await el.updateComplete;
    await leave(el, 'number');
    expect(errorOf(el, 'number').textContent).to.equal('Visa cards are not accepted.');
    expect(liveRegion(el).textContent).to.equal('Visa cards are not accepted.');
  });

  it('accepts a brand that accepted-brands lists', async () => {
    el.acceptedBrands = ['visa', 'mastercard'];
    expect(await messageAfter(el, 'number', '5555555555554444')).to.equal('');
  });

  it('shows nothing when a field is only passed through without typing', async () => {
    input(el, 'number').focus();
    await leave(el, 'number');
    expect(errorOf(el, 'number').textContent).to.equal('');
  });

  it('clears a shown message as soon as the field becomes valid, without adding new ones while typing', async () => {
    expect(await messageAfter(el, 'number', '4242')).to.equal('Your card number is incomplete.');
    await type(el, 'number', '424242424242');
    await el.updateComplete;
    expect(errorOf(el, 'number').textContent).to.equal('');
    expect(input(el, 'number').getAttribute('aria-invalid')).to.equal('false');
    expect(input(el, 'number').hasAttribute('aria-describedby')).to.equal(false);
  });

  it('keeps the live region in the DOM whether or not there is a message', async () => {
    const region = liveRegion(el);
    expect(region.isConnected).to.equal(true);
    await messageAfter(el, 'number', '4242');
    await type(el, 'number', '424242424242');
    await leave(el, 'number');
    expect(liveRegion(el)).to.equal(region);
  });

  it('shows every message and sets user-invalid when a form is submitted with an empty card', async () => {
    const form = await fixture<HTMLFormElement>(html`<form novalidate><tessera-card-form></tessera-card-form></form>`);
    const card = form.querySelector('tessera-card-form')!;
    await card.updateComplete;
    expect(card.matches(':state(user-invalid)')).to.equal(false);
    form.requestSubmit();
    await card.updateComplete;
    expect(errorOf(card, 'number').textContent).to.equal('Enter your card number.');
    expect(errorOf(card, 'expiry').textContent).to.equal('Enter the expiry date.');
    expect(errorOf(card, 'cvv').textContent).to.equal('Enter the security code.');
    expect(errorOf(card, 'name').textContent).to.equal('');
    expect(card.matches(':state(user-invalid)')).to.equal(true);
  });

  it('mirrors the card’s validity into the form, anchored on the first invalid input', async () => {
    const form = await fixture<HTMLFormElement>(html`<form><tessera-card-form></tessera-card-form></form>`);
    const card = form.querySelector('tessera-card-form')!;
    await card.updateComplete;
    expect(form.checkValidity()).to.equal(false);
    expect(form.matches(':invalid')).to.equal(true);
    await type(card, 'number', '4242424242424242');
    await type(card, 'expiry', futureExpiry());
    expect(form.checkValidity()).to.equal(false);
    // The browser focuses the validation anchor: the first invalid inner input.
    form.reportValidity();
    expect(card.shadowRoot!.activeElement).to.equal(input(card, 'cvv'));
    await type(card, 'cvv', '123');
    expect(form.checkValidity()).to.equal(true);
  });

  it('reports a valid, complete card in tessera-change', async () => {
    const details: { valid: boolean; complete: boolean }[] = [];
    el.addEventListener('tessera-change', (e) => details.push(e.detail));
    await fillCard(el);
    expect(details.at(-1)).to.include({ valid: true, complete: true });
    expect(details[0]).to.include({ valid: false, complete: false });
  });

  // Every message on show follows the brand the number names now (docs/decisions/widget.md#widget-validation-timing).
  describe('when the card number changes brand', () => {
    /** Types a new card number over the whole old one, with real keys. */
    async function retype(digits: string) {
      input(el, 'number').focus();
      input(el, 'number').select();
      await sendKeys({ type: digits });
      await el.updateComplete;
    }

    it('re-words a security code message on show for the new brand, without announcing it', async () => {
      await type(el, 'number', '4242424242424242');
      expect(await messageAfter(el, 'cvv', '12')).to.equal('The security code must be 3 digits.');
      await retype('378282246310005');
      // Before, it stayed "3 digits" over a card whose code has 4, until the code was edited.
      expect(errorOf(el, 'cvv').textContent).to.equal('The security code must be 4 digits.');
      expect(input(el, 'cvv').getAttribute('aria-invalid')).to.equal('true');
      expect(liveRegion(el).textContent, 'the old wording is not left in the live region').to.equal('');
      await retype('9');
      expect(errorOf(el, 'cvv').textContent, 'no brand: either length').to.equal(
        'The security code must be 3–4 digits.',
      );
      await leave(el, 'cvv');
      expect(liveRegion(el).textContent).to.equal('The security code must be 3–4 digits.');
    });

    it('re-words a security code message shown before the number named a brand', async () => {
      expect(await messageAfter(el, 'cvv', '12')).to.equal('The security code must be 3–4 digits.');
      await type(el, 'number', '4242');
      expect(errorOf(el, 'cvv').textContent).to.equal('The security code must be 3 digits.');
    });

    it('takes a security code message away once the code fits the new brand', async () => {
      await type(el, 'number', '378282246310005');
      expect(await messageAfter(el, 'cvv', '123')).to.equal('The security code must be 4 digits.');
      await retype('4242424242424242');
      // Before, "4 digits" stayed on show (aria-invalid, user-invalid) over a valid 3-digit code.
      expect(errorOf(el, 'cvv').textContent).to.equal('');
      expect(input(el, 'cvv').getAttribute('aria-invalid')).to.equal('false');
      expect(el.matches(':state(user-invalid)')).to.equal(false);
      expect(liveRegion(el).textContent).to.equal('');
    });

    it('re-words the number’s own message: a brand refused, then another brand still incomplete', async () => {
      el.acceptedBrands = ['visa'];
      expect(await messageAfter(el, 'number', '378282246310005')).to.equal('American Express cards are not accepted.');
      await retype('4242');
      // Before, "American Express cards are not accepted." stayed on show over a Visa number being typed.
      expect(errorOf(el, 'number').textContent).to.equal('Your card number is incomplete.');
      expect(liveRegion(el).textContent).to.equal('');
      await retype('5555');
      expect(errorOf(el, 'number').textContent).to.equal('Mastercard cards are not accepted.');
      await retype('4242424242424242');
      expect(errorOf(el, 'number').textContent).to.equal('');
    });

    it('shows no new message while the number is typed: a code valid before is too long only on submit', async () => {
      const details: { valid: boolean; complete: boolean; errors: object }[] = [];
      el.addEventListener('tessera-change', (e) => details.push(e.detail));
      await type(el, 'expiry', futureExpiry());
      await type(el, 'cvv', '1234');
      await leave(el, 'cvv');
      expect(errorOf(el, 'cvv').textContent).to.equal('');
      await type(el, 'number', '4242424242424242');
      await leave(el, 'number');
      // The 4 digits typed are kept (not cut to a code the shopper did not type), and count as wrong for Visa.
      expect(input(el, 'cvv').value).to.equal('1234');
      expect(errorOf(el, 'cvv').textContent, 'not before the code is left or the form submitted').to.equal('');
      expect(details.at(-1)).to.deep.include({
        valid: false,
        complete: false,
        errors: { cvv: { code: 'length', message: 'The security code must be 3 digits.' } },
      });
      await el.tokenize().catch(() => undefined);
      await el.updateComplete;
      expect(errorOf(el, 'cvv').textContent).to.equal('The security code must be 3 digits.');
      input(el, 'cvv').focus();
      await sendKeys({ press: 'Backspace' });
      await el.updateComplete;
      expect(input(el, 'cvv').value).to.equal('123');
      expect(errorOf(el, 'cvv').textContent).to.equal('');
      expect(details.at(-1)).to.deep.include({ valid: true, complete: true, errors: {} });
    });
  });
});
