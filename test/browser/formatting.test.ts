import { expect, fixture, html } from '@open-wc/testing';
import { executeServerCommand, sendKeys } from '@web/test-runner-commands';
import { input, press, type TesseraCardForm, type } from './helpers.js';

const caret = (i: HTMLInputElement) => i.selectionStart;

describe('<tessera-card-form> formatting', () => {
  let el: TesseraCardForm;
  beforeEach(async () => {
    el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
  });

  const grouping: [string, string, string, string][] = [
    ['Visa', '4242424242424242', '4242 4242 4242 4242', 'visa'],
    ['Visa 19 digits', '4000000000000000006', '4000 0000 0000 0000 006', 'visa'],
    ['Mastercard', '5555555555554444', '5555 5555 5555 4444', 'mastercard'],
    ['Mastercard 2-series', '2223003122003222', '2223 0031 2200 3222', 'mastercard'],
    ['American Express', '378282246310005', '3782 822463 10005', 'amex'],
    ['Discover', '6011111111111117', '6011 1111 1111 1117', 'discover'],
    ['Diners Club', '36227206271667', '3622 720627 1667', 'diners'],
    ['JCB', '3566002020360505', '3566 0020 2036 0505', 'jcb'],
    ['UnionPay', '6200000000000005', '6200 0000 0000 0005', 'unionpay'],
    ['Maestro', '6759649826438453', '6759 6498 2643 8453', 'maestro'],
  ];
  for (const [label, digits, shown, brand] of grouping) {
    it(`groups a ${label} number as it is typed and shows its brand`, async () => {
      const changes: (string | null)[] = [];
      el.addEventListener('tessera-change', (e) => changes.push(e.detail.brand));
      await type(el, 'number', digits);
      await el.updateComplete;
      expect(input(el, 'number').value).to.equal(shown);
      expect(caret(input(el, 'number'))).to.equal(shown.length);
      expect(changes.at(-1)).to.equal(brand);
      const icon = el.shadowRoot!.querySelector('[part="brand-icon"]')!;
      expect(icon.getAttribute('aria-label')).to.equal(label.replace(/ (19 digits|2-series)$/, ''));
    });
  }

  it('stops at the brand’s longest length (Amex 15)', async () => {
    await type(el, 'number', '3782822463100059');
    expect(input(el, 'number').value).to.equal('3782 822463 10005');
  });

  it('ignores letters and punctuation typed into the number', async () => {
    await type(el, 'number', '42a4-2');
    expect(input(el, 'number').value).to.equal('4242');
  });

  it('keeps the caret after the digit typed in the middle', async () => {
    await type(el, 'number', '42424242');
    const i = input(el, 'number');
    i.setSelectionRange(2, 2); // 42|42 4242
    await type(el, 'number', '9');
    expect(i.value).to.equal('4294 2424 2');
    expect(caret(i)).to.equal(3);
    await press('ArrowRight');
    await type(el, 'number', '1');
    // caret was after "4294", the space is skipped: "4294 1|2424 2"
    expect(i.value).to.equal('4294 1242 42');
    expect(caret(i)).to.equal(6);
  });

  it('deletes the digit before a space on Backspace and keeps the caret there', async () => {
    await type(el, 'number', '42424242');
    const i = input(el, 'number');
    i.setSelectionRange(5, 5); // "4242 |4242"
    await press('Backspace');
    expect(i.value).to.equal('4244 242');
    expect(caret(i)).to.equal(3);
  });

  it('deletes the digit after a space on Delete', async () => {
    await type(el, 'number', '42424242');
    const i = input(el, 'number');
    i.setSelectionRange(4, 4); // "4242| 4242"
    await press('Delete');
    expect(i.value).to.equal('4242 242');
    expect(caret(i)).to.equal(4);
  });

  it('deletes a selected range across groups', async () => {
    await type(el, 'number', '4242424242424242');
    const i = input(el, 'number');
    i.setSelectionRange(3, 7); // "424[2 42]42 ..."
    await press('Backspace');
    expect(i.value).to.equal('4244 2424 2424 2');
    expect(caret(i)).to.equal(3);
  });

  it('strips spaces and dashes from a pasted number and puts the caret after it', async () => {
    input(el, 'number').focus();
    await executeServerCommand('paste', { text: '3782-822463 10005' });
    const i = input(el, 'number');
    expect(i.value).to.equal('3782 822463 10005');
    expect(caret(i)).to.equal(i.value.length);
  });

  it('takes the number out of a longer pasted text (a label before it, a trailing note)', async () => {
    input(el, 'number').focus();
    await executeServerCommand('paste', { text: 'Card number: 4242 4242 4242 4242 (work card)' });
    expect(input(el, 'number').value).to.equal('4242 4242 4242 4242');
  });

  it('pastes into the middle of a number', async () => {
    await type(el, 'number', '42424242');
    const i = input(el, 'number');
    i.setSelectionRange(4, 4);
    await executeServerCommand('paste', { text: ' 11-11 ' });
    expect(i.value).to.equal('4242 1111 4242');
    expect(caret(i)).to.equal(9);
  });

  it('takes full-width digits composed with an IME (formatted once the composition ends)', async () => {
    // Only Chromium lets automation compose with an IME (CDP); Firefox and WebKit have no composition
    // actions in WebDriver, so there the `ime` command answers false and the same full-width digits
    // arrive as committed text, which is what an IME's commit inserts.
    input(el, 'number').focus();
    const composed = await executeServerCommand<boolean, unknown>('ime', { text: '４２４２４２' });
    if (!composed) await sendKeys({ type: '４２４２４２' });
    if (!(await executeServerCommand<boolean, unknown>('ime', { text: '４２' }))) await sendKeys({ type: '４２' });
    expect(input(el, 'number').value).to.equal('4242 4242');
    input(el, 'expiry').focus();
    if (!(await executeServerCommand<boolean, unknown>('ime', { text: '１２３０' })))
      await sendKeys({ type: '１２３０' });
    expect(input(el, 'expiry').value).to.equal('12 / 30');
  });

  it('takes Arabic-Indic digits', async () => {
    await type(el, 'number', '٤٢٤٢');
    expect(input(el, 'number').value).to.equal('4242');
  });

  it('adds the slash to the expiry after the month', async () => {
    await type(el, 'expiry', '12');
    expect(input(el, 'expiry').value).to.equal('12 / ');
    await type(el, 'expiry', '30');
    expect(input(el, 'expiry').value).to.equal('12 / 30');
    expect(caret(input(el, 'expiry'))).to.equal(7);
  });

  it('pads a month that can only be one digit', async () => {
    await type(el, 'expiry', '4');
    expect(input(el, 'expiry').value).to.equal('04 / ');
  });

  it('pads the month when a slash is typed after one digit', async () => {
    await type(el, 'expiry', '1/');
    expect(input(el, 'expiry').value).to.equal('01 / ');
  });

  it('removes the slash and the digit before it on Backspace', async () => {
    await type(el, 'expiry', '12');
    await press('Backspace');
    expect(input(el, 'expiry').value).to.equal('1');
  });

  it('limits the expiry to four digits', async () => {
    await type(el, 'expiry', '123456');
    expect(input(el, 'expiry').value).to.equal('12 / 34');
  });

  it('limits the CVV to 3 digits for Visa and 4 for Amex', async () => {
    await type(el, 'number', '4242');
    await type(el, 'cvv', '12345');
    expect(input(el, 'cvv').value).to.equal('123');
    expect(input(el, 'cvv').maxLength).to.equal(3);
    input(el, 'number').value = '';
    await type(el, 'number', '3782');
    await el.updateComplete;
    input(el, 'cvv').value = '';
    await type(el, 'cvv', '12345');
    expect(input(el, 'cvv').value).to.equal('1234');
  });

  it('shows the brand’s icon and name', async () => {
    const icon = () => el.shadowRoot!.querySelector('[part="brand-icon"]')!;
    expect(icon().getAttribute('aria-hidden')).to.equal('true');
    await type(el, 'number', '37');
    await el.updateComplete;
    expect(icon().getAttribute('aria-label')).to.equal('American Express');
    expect(icon().getAttribute('aria-hidden')).to.equal('false');
  });
});
