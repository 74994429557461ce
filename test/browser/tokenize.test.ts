import { expect, fixture, html } from '@open-wc/testing';
import { executeServerCommand, sendKeys } from '@web/test-runner-commands';
import type { CardChangeDetail, CardErrorDetail } from '../../widget/card-form/events.js';
import {
  errorOf,
  fillCard,
  futureExpiry,
  input,
  leave,
  oneEvent,
  press,
  sandbox,
  sandboxForm,
  type TesseraCardForm,
  type,
} from './helpers.js';

const NUMBER = '4242424242424242';
const CVV = '123';

/** Fails if any card data appears anywhere in `value` (as digits, grouped or not). */
/** A form holding two card forms, `first` and `second`, and a Pay button, against the sandbox. */
async function twoCardForms() {
  const { publicKey, tokenUrl } = await sandbox();
  const form = await fixture<HTMLFormElement>(html`<form>
    <tessera-card-form name="first" public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form>
    <tessera-card-form name="second" public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form>
    <button>Pay</button>
  </form>`);
  const [first, second] = [...form.querySelectorAll('tessera-card-form')] as [TesseraCardForm, TesseraCardForm];
  return { form, first, second };
}

function expectNoCardData(value: unknown) {
  const text = JSON.stringify(value);
  expect(text).to.not.contain(NUMBER);
  expect(text).to.not.contain('4242 4242');
  expect(text).to.not.match(/"cvv":"\d/);
  expect(text).to.not.contain(`"${CVV}"`);
}

/**
 * Records the submitter of every submit the page sees, in the capture phase on window (before the widget's own
 * listener holds the first one), until `stop`.
 */
function watchSubmits(): { submitters: (HTMLElement | null)[]; stop: () => void } {
  const submitters: (HTMLElement | null)[] = [];
  const seen = (e: Event) => submitters.push((e as SubmitEvent).submitter);
  window.addEventListener('submit', seen, true);
  return { submitters, stop: () => window.removeEventListener('submit', seen, true) };
}

/**
 * Enter in the number field of a filled card while the form's default button `button` is disabled submits nothing;
 * the same key once it is enabled submits (so the first press reached the widget and was refused).
 */
async function expectEnterWaitsFor(el: TesseraCardForm, button: HTMLButtonElement | HTMLInputElement) {
  const watch = watchSubmits();
  el.form!.addEventListener('submit', (e) => e.preventDefault());
  try {
    await fillCard(el, NUMBER, futureExpiry(), CVV);
    input(el, 'number').focus();
    await press('Enter');
    await new Promise((resolve) => setTimeout(resolve));
    expect(watch.submitters, 'a disabled default button stops Enter').to.deep.equal([]);
    button.disabled = false;
    const token = oneEvent(el, 'tessera-token');
    await press('Enter');
    await token;
    expect(watch.submitters.length).to.be.greaterThan(0);
    expect(watch.submitters.every((s) => s === button)).to.equal(true);
  } finally {
    watch.stop();
  }
}

describe('<tessera-card-form> tokenizing with the sandbox', () => {
  afterEach(async () => {
    await executeServerCommand('sandbox-reset');
  });

  it('tokenize() resolves with the token and safe card facts, fires tessera-token and clears the CVV', async () => {
    const el = await sandboxForm();
    await fillCard(el, NUMBER, futureExpiry(), CVV);
    const event = oneEvent(el, 'tessera-token');
    const result = await el.tokenize();
    expect(result.token).to.match(/^card_tok_/);
    expect(result).to.include({ brand: 'visa', last4: '4242', bin: '424242' });
    expect(result.expiryMonth).to.equal(Number(futureExpiry().slice(0, 2)));
    expect(result.expiryYear).to.equal(2000 + Number(futureExpiry().slice(2)));
    expect((await event).detail).to.deep.equal(result);
    expect(input(el, 'cvv').value).to.equal('');
    // Leaving the cleared security code shows nothing while the token stands for the card.
    await leave(el, 'cvv');
    expect(errorOf(el, 'cvv').textContent).to.equal('');
    expect(el.matches(':state(user-invalid)')).to.equal(false);
    // Until the card changes, the same token is returned (no second request).
    expect(await el.tokenize()).to.equal(result);
  });

  it('submitting the form tokenizes first; the FormData then carries the token under cardToken', async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const form = await fixture<HTMLFormElement>(html`<form>
      <tessera-card-form public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form><button>Pay</button>
    </form>`);
    const el = form.querySelector('tessera-card-form')!;
    const submits: FormData[] = [];
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      submits.push(new FormData(form));
    });
    await fillCard(el, NUMBER, futureExpiry(), CVV);
    const token = oneEvent(el, 'tessera-token');
    form.querySelector('button')!.click();
    expect(submits).to.have.length(0);
    const { detail } = await token;
    await new Promise((resolve) => requestAnimationFrame(resolve));
    expect(submits).to.have.length(1);
    const data = submits[0]!;
    expect(data.get('cardToken')).to.equal(detail.token);
    expect([...data.keys()]).to.deep.equal(['cardToken']);
    expectNoCardData([...data.values()]);
  });

  it('two card forms in one form are both tokenized before the one submission that carries both tokens', async () => {
    const { form, first, second } = await twoCardForms();
    const submits: FormData[] = [];
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      submits.push(new FormData(form));
    });
    await fillCard(first, NUMBER, futureExpiry(), CVV);
    await fillCard(second, '5555555555554444', futureExpiry(), '321');
    const tokens = Promise.all([oneEvent(first, 'tessera-token'), oneEvent(second, 'tessera-token')]);
    form.querySelector('button')!.click();
    const [a, b] = await tokens;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(submits).to.have.length(1);
    expect([...submits[0]!]).to.deep.equal([
      ['first', a.detail.token],
      ['second', b.detail.token],
    ]);
  });

  it('two card forms: a disabled one and one already tokenized are left out; the submitter goes with the one submission', async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const form = await fixture<HTMLFormElement>(html`<form>
      <tessera-card-form name="off" disabled public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form>
      <tessera-card-form name="first" public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form>
      <tessera-card-form name="second" public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form>
      <button name="pay" value="now">Pay</button>
    </form>`);
    const [, first, second] = [...form.querySelectorAll('tessera-card-form')] as TesseraCardForm[];
    const seen: [boolean, string[][]][] = [];
    form.addEventListener('submit', (e) => {
      seen.push([e.defaultPrevented, [...new FormData(form, e.submitter)] as string[][]]);
      e.preventDefault();
    });
    await fillCard(first!, NUMBER, futureExpiry(), CVV);
    const { token } = await first!.tokenize();
    await fillCard(second!, '5555555555554444', futureExpiry(), '321');
    const event = oneEvent(second!, 'tessera-token');
    form.requestSubmit(form.querySelector('button'));
    const { detail } = await event;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).to.deep.equal([
      [
        false,
        [
          ['first', token],
          ['second', detail.token],
          ['pay', 'now'],
        ],
      ],
    ]);
  });

  it('two card forms: one removed while the other is tokenized submits nothing; the next submit sends the one left', async () => {
    const { form, first, second } = await twoCardForms();
    const submits: string[][][] = [];
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      submits.push([...new FormData(form)] as string[][]);
    });
    await fillCard(first, NUMBER, futureExpiry(), CVV);
    await fillCard(second, '5555555555554444', futureExpiry(), '321');
    await executeServerCommand('sandbox-fault', { delayMs: 300, count: 2 });
    const tokens = Promise.all([oneEvent(first, 'tessera-token'), oneEvent(second, 'tessera-token')]);
    form.requestSubmit();
    second.remove();
    const [a] = await tokens;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(submits).to.deep.equal([]);
    form.requestSubmit();
    expect(submits).to.deep.equal([[['first', a.detail.token]]]);
  });

  for (const where of ['window', 'document'] as const) {
    it(`leaves alone a submit the page cancelled first (a capture listener on the ${where}): no token, no submission`, async () => {
      const { publicKey, tokenUrl } = await sandbox();
      const form = await fixture<HTMLFormElement>(html`<form>
        <tessera-card-form public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form>
        <button name="via" value="cancelled">Pay</button><button name="via" value="next">Pay now</button>
      </form>`);
      const el = form.querySelector('tessera-card-form')!;
      const [cancelled, next] = [...form.querySelectorAll('button')] as [HTMLButtonElement, HTMLButtonElement];
      const submits: string[][][] = [];
      form.addEventListener('submit', (e) => {
        // The cancelled submit still reaches the page's listeners, as any cancelled event does.
        if (!e.defaultPrevented) submits.push([...new FormData(form, e.submitter)] as string[][]);
        e.preventDefault();
      });
      await fillCard(el, NUMBER, futureExpiry(), CVV);
      const before = performance.getEntriesByName(tokenUrl).length;
      // The page's own check (terms not accepted, a consent layer) says no to the first submit only.
      (where === 'window' ? window : document).addEventListener('submit', (e) => e.preventDefault(), {
        capture: true,
        once: true,
      });
      cancelled.click();
      const token = oneEvent(el, 'tessera-token');
      next.click();
      const { detail } = await token;
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Before, the cancelled submit was tokenized and submitted again (through the button the page said no to), and
      // the next one was dropped as a double click.
      expect(submits).to.deep.equal([
        [
          ['cardToken', detail.token],
          ['via', 'next'],
        ],
      ]);
      expect(performance.getEntriesByName(tokenUrl).length - before).to.equal(1);
    });
  }

  it('a cancelled submit of an empty card shows nothing and moves no focus', async () => {
    const form = await fixture<HTMLFormElement>(
      html`<form novalidate><tessera-card-form></tessera-card-form><button>Pay</button></form>`,
    );
    const el = form.querySelector('tessera-card-form')!;
    const errors: unknown[] = [];
    el.addEventListener('tessera-error', (e) => errors.push(e.detail));
    const cancel = (e: Event) => e.preventDefault();
    window.addEventListener('submit', cancel, true);
    try {
      form.requestSubmit();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await el.updateComplete;
      expect(errors).to.deep.equal([]);
      expect(errorOf(el, 'number').textContent).to.equal('');
      expect(el.matches(':state(user-invalid)')).to.equal(false);
      expect(el.shadowRoot!.activeElement).to.equal(null);
    } finally {
      window.removeEventListener('submit', cancel, true);
    }
  });

  it('uses the name attribute as the form field name', async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const form = await fixture<HTMLFormElement>(html`<form>
      <tessera-card-form name="payment_token" public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form>
    </form>`);
    const el = form.querySelector('tessera-card-form')!;
    await fillCard(el);
    const { token } = await el.tokenize();
    expect(new FormData(form).get('payment_token')).to.equal(token);
    expect(new FormData(form).has('cardToken')).to.equal(false);
  });

  it('can be completed and submitted with the keyboard alone', async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const form = await fixture<HTMLFormElement>(html`<form>
      <input aria-label="Email" name="email" />
      <tessera-card-form public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form>
      <button type="button">Back</button>
    </form>`);
    const el = form.querySelector('tessera-card-form')!;
    let submitted: FormData | undefined;
    const done = new Promise<void>((resolve) => {
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        submitted = new FormData(form);
        resolve();
      });
    });
    form.querySelector('input')!.focus();
    await press('Tab');
    expect(el.shadowRoot!.activeElement).to.equal(input(el, 'number'));
    for (const text of [NUMBER, futureExpiry(), CVV, 'Ada Lovelace']) {
      await sendKeys({ type: text });
      await press('Tab');
    }
    await press('Shift+Tab');
    expect(el.shadowRoot!.activeElement).to.equal(input(el, 'name'));
    await press('Enter');
    await done;
    expect(submitted!.get('cardToken')).to.match(/^card_tok_/);
  });

  it("Enter in a card field submits through the form's default button, as Enter in a native input does", async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const form = await fixture<HTMLFormElement>(html`<form>
      <button type="button">Back</button>
      <tessera-card-form public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form>
      <button name="action" value="pay">Pay</button>
      <button name="action" value="save">Save for later</button>
    </form>`);
    const el = form.querySelector('tessera-card-form')!;
    const pay = form.querySelector<HTMLButtonElement>('[value="pay"]')!;
    const watch = watchSubmits();
    let data: FormData | undefined;
    const done = new Promise<void>((resolve) => {
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        data = new FormData(form, e.submitter);
        resolve();
      });
    });
    try {
      await fillCard(el, NUMBER, futureExpiry(), CVV);
      input(el, 'cvv').focus();
      await press('Enter');
      await done;
    } finally {
      watch.stop();
    }
    // The first submit is held while the card becomes a token; the second carries it. Both name the default button.
    expect(watch.submitters).to.deep.equal([pay, pay]);
    expect(data!.get('action')).to.equal('pay');
    expect(data!.get('cardToken')).to.match(/^card_tok_/);
  });

  it("Enter in a card field does not submit while the form's default button is disabled", async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const form = await fixture<HTMLFormElement>(html`<form>
      <tessera-card-form public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form>
      <button disabled>Pay</button>
      <button>Other</button>
    </form>`);
    const el = form.querySelector('tessera-card-form')!;
    expect(el.form).to.equal(form);
    await expectEnterWaitsFor(el, form.querySelector('button')!);
  });

  it("Enter in a card field treats an image button as the form's default button, as a native input does", async () => {
    // `form.elements` leaves out `<input type="image">`, which can still be the default button.
    const { publicKey, tokenUrl } = await sandbox();
    const form = await fixture<HTMLFormElement>(html`<form>
      <tessera-card-form public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form>
      <input type="image" name="pay" alt="Pay" disabled />
      <button>Other</button>
    </form>`);
    const el = form.querySelector('tessera-card-form')!;
    await expectEnterWaitsFor(el, form.querySelector<HTMLInputElement>('input[type="image"]')!);
  });

  it('form.reset() empties the fields and forgets the token', async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const form = await fixture<HTMLFormElement>(html`<form>
      <tessera-card-form public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form>
    </form>`);
    const el = form.querySelector('tessera-card-form')!;
    await fillCard(el);
    await el.tokenize();
    expect(new FormData(form).get('cardToken')).to.match(/^card_tok_/);
    const change = oneEvent(el, 'tessera-change');
    form.reset();
    expect((await change).detail).to.include({ empty: true, valid: false, brand: null });
    for (const f of ['number', 'expiry', 'cvv', 'name'] as const) expect(input(el, f).value).to.equal('');
    await el.updateComplete;
    const icon = el.shadowRoot!.querySelector('[part~="brand-icon"]')!;
    expect([icon.getAttribute('aria-label'), icon.getAttribute('aria-hidden')]).to.deep.equal(['', 'true']);
    expect(new FormData(form).has('cardToken')).to.equal(false);
    expect(form.checkValidity()).to.equal(false);
  });

  it('a disabled fieldset disables the inputs and leaves the card out of the form', async () => {
    const form = await fixture<HTMLFormElement>(html`<form>
      <fieldset disabled><tessera-card-form></tessera-card-form></fieldset>
    </form>`);
    const el = form.querySelector('tessera-card-form')!;
    await el.updateComplete;
    expect(input(el, 'number').disabled).to.equal(true);
    expect(form.checkValidity()).to.equal(true);
    form.querySelector('fieldset')!.disabled = false;
    await el.updateComplete;
    expect(input(el, 'number').disabled).to.equal(false);
    expect(form.checkValidity()).to.equal(false);
  });

  it('editing the card after tokenizing drops the token', async () => {
    const form = await fixture<HTMLFormElement>(html`<form><tessera-card-form></tessera-card-form></form>`);
    const el = form.querySelector('tessera-card-form')!;
    const { publicKey, tokenUrl } = await sandbox();
    el.publicKey = publicKey;
    el.tokenUrl = tokenUrl;
    await fillCard(el);
    await el.tokenize();
    await type(el, 'cvv', '9');
    expect(new FormData(form).has('cardToken')).to.equal(false);
  });

  it('never puts the number or CVV in an event detail, attribute or text', async () => {
    const el = await sandboxForm();
    const details: unknown[] = [];
    for (const name of ['tessera-change', 'tessera-token', 'tessera-error', 'tessera-ready'] as const) {
      el.addEventListener(name, (e) => details.push(e.detail));
    }
    await fillCard(el, NUMBER, futureExpiry(), CVV);
    await el.tokenize();
    await type(el, 'cvv', CVV);
    await executeServerCommand('sandbox-fault', { status: 400 });
    await el.tokenize().catch(() => undefined);
    expect(details.length).to.be.greaterThan(20);
    for (const d of details) expectNoCardData(d);
    expectNoCardData(el.shadowRoot!.textContent);
    expectNoCardData([...el.attributes].map((a) => a.value));
    for (const i of el.shadowRoot!.querySelectorAll('input')) expectNoCardData([...i.attributes].map((a) => a.value));
    // Every string property reachable on the element, own or inherited (private # fields are not reachable).
    const strings: string[] = [];
    for (const key in el) {
      const value = (el as unknown as Record<string, unknown>)[key];
      if (typeof value === 'string') strings.push(value);
    }
    expect(strings.length).to.be.greaterThan(10);
    expectNoCardData(strings);
  });

  it('a network failure surfaces as tessera-error { code: "network" } and a message', async () => {
    const el = await sandboxForm();
    await fillCard(el);
    // Chromium retries a request whose reused connection was reset, so reset a few in a row.
    await executeServerCommand('sandbox-fault', { reset: true, count: 5 });
    const error = oneEvent(el, 'tessera-error');
    const rejected = await el.tokenize().catch((e: unknown) => e);
    const { detail } = await error;
    expect(detail).to.deep.equal({
      code: 'network',
      message: 'Could not reach the payment service. Check your connection and try again.',
    });
    expect(rejected).to.be.instanceOf(Error);
    expect((rejected as CardErrorDetail).code).to.equal('network');
    await el.updateComplete;
    expect(errorOf(el, 'form').textContent).to.equal(detail.message);
    // A retry works once the network is back.
    await executeServerCommand('sandbox-reset');
    expect((await el.tokenize()).token).to.match(/^card_tok_/);
    await el.updateComplete;
    expect(errorOf(el, 'form').textContent).to.equal('');
  });

  it('an unreachable token URL surfaces as a network error', async () => {
    const el = await fixture<TesseraCardForm>(
      html`<tessera-card-form public-key="pk_sbox_x" token-url="http://127.0.0.1:9/tokens"></tessera-card-form>`,
    );
    await fillCard(el);
    const error = oneEvent(el, 'tessera-error');
    await el.tokenize().catch(() => undefined);
    expect((await error).detail.code).to.equal('network');
  });

  it('a provider 4xx on a field is shown on that field (card expired on the sandbox clock)', async () => {
    const el = await sandboxForm();
    await fillCard(el);
    await executeServerCommand('sandbox-advance', { seconds: 30 * 366 * 24 * 3600 });
    const error = oneEvent(el, 'tessera-error');
    await el.tokenize().catch(() => undefined);
    const { detail } = await error;
    expect(detail).to.include({ code: 'provider', field: 'expiry', status: 400, providerCode: 'card_expired' });
    expect(detail.requestId).to.be.a('string');
    await el.updateComplete;
    expect(errorOf(el, 'expiry').textContent).to.equal('Enter the expiry date as MM / YY.');
    expect(input(el, 'expiry').getAttribute('aria-invalid')).to.equal('true');
  });

  it('a wrong public key surfaces as a provider error without a field', async () => {
    const { tokenUrl } = await sandbox();
    const el = await fixture<TesseraCardForm>(
      html`<tessera-card-form public-key="pk_sbox_wrong" token-url=${tokenUrl}></tessera-card-form>`,
    );
    await fillCard(el);
    const error = oneEvent(el, 'tessera-error');
    await el.tokenize().catch(() => undefined);
    const { detail } = await error;
    expect(detail.code).to.equal('provider');
    expect(detail.status).to.equal(401);
    expect(detail.field).to.equal(undefined);
    expect(detail.message).to.equal('Card payments are unavailable right now.');
  });

  it('a provider 5xx surfaces as a provider error', async () => {
    const el = await sandboxForm();
    await fillCard(el);
    await executeServerCommand('sandbox-fault', { status: 503 });
    const error = oneEvent(el, 'tessera-error');
    await el.tokenize().catch(() => undefined);
    expect((await error).detail).to.include({ code: 'provider', status: 503 });
  });

  it('an invalid card is not sent: tokenize() rejects with a validation error and shows every message', async () => {
    const el = await sandboxForm();
    await type(el, 'number', '4242');
    const error = oneEvent(el, 'tessera-error');
    const rejected = await el.tokenize().catch((e: unknown) => e);
    expect((await error).detail).to.deep.equal({
      code: 'validation',
      field: 'number',
      message: 'Your card number is incomplete.',
    });
    expect((rejected as CardErrorDetail).field).to.equal('number');
    await el.updateComplete;
    expect(errorOf(el, 'cvv').textContent).to.equal('Enter the security code.');
  });

  it('refuses a plain-http token URL that is not loopback, with a config error and a console warning', async () => {
    const el = await fixture<TesseraCardForm>(
      html`<tessera-card-form public-key="pk_sbox_x" token-url="http://provider.example/tokens"></tessera-card-form>`,
    );
    await fillCard(el);
    const warnings: string[] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => warnings.push(args.join(' '));
    const requests = performance.getEntriesByType('resource').length;
    try {
      const error = oneEvent(el, 'tessera-error');
      await el.tokenize().catch(() => undefined);
      expect((await error).detail).to.deep.equal({
        code: 'config',
        reason: 'insecure_url',
        url: 'http://provider.example/tokens',
        message: 'Card payments are unavailable right now.',
      });
    } finally {
      console.warn = original;
    }
    expect(performance.getEntriesByType('resource').length).to.equal(requests);
    expect(warnings.join('\n')).to.contain('TESSERA_INSECURE_URL');
    expectNoCardData(warnings);
  });

  it('needs a public key', async () => {
    const el = await fixture<TesseraCardForm>(
      html`<tessera-card-form token-url="https://provider.example/tokens"></tessera-card-form>`,
    );
    await fillCard(el);
    const warnings: string[] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => warnings.push(args.join(' '));
    try {
      const error = oneEvent(el, 'tessera-error');
      await el.tokenize().catch(() => undefined);
      expect((await error).detail.code).to.equal('config');
    } finally {
      console.warn = original;
    }
    expect(warnings.join('\n')).to.contain('TESSERA_NO_PUBLIC_KEY');
  });

  /** Runs `fn` with console.warn recorded. */
  async function recordWarnings(fn: () => Promise<unknown>): Promise<string> {
    const warnings: string[] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => warnings.push(args.join(' '));
    try {
      await fn();
    } finally {
      console.warn = original;
    }
    return warnings.join('\n');
  }

  /** Tokenizes once, expecting it to fail: the `tessera-error` detail and the console warnings it gave. */
  async function failedTokenize(el: TesseraCardForm): Promise<{ detail: CardErrorDetail; warnings: string }> {
    let detail: CardErrorDetail | undefined;
    const warnings = await recordWarnings(async () => {
      const error = oneEvent(el, 'tessera-error');
      await el.tokenize().catch(() => undefined);
      detail = (await error).detail;
    });
    return { detail: detail as CardErrorDetail, warnings };
  }

  for (const [status, what] of [
    [404, 'a 404 page'],
    [200, "the site's HTML with 200"],
  ] as const) {
    it(`a config URL that answers ${what} is a config error naming the URL, warned once; the form stays usable`, async () => {
      const configUrl = new URL(`/__page-${status}/payments/config`, location.href).href;
      const el = await fixture<TesseraCardForm>(html`<tessera-card-form config-url=${configUrl}></tessera-card-form>`);
      await fillCard(el);
      let detail: CardErrorDetail | undefined;
      let rejected: unknown;
      const warnings = await recordWarnings(async () => {
        const error = oneEvent(el, 'tessera-error');
        rejected = await el.tokenize().catch((e: unknown) => e);
        detail = (await error).detail;
        // A second attempt fails the same way but does not warn again.
        await el.tokenize().catch(() => undefined);
      });
      expect(detail).to.deep.equal({
        code: 'config',
        reason: 'config_unavailable',
        url: configUrl,
        status,
        message: 'Card payments are unavailable right now.',
      });
      expect((rejected as CardErrorDetail).reason).to.equal('config_unavailable');
      expect(warnings.match(/TESSERA_CONFIG_UNAVAILABLE/g)).to.have.length(1);
      expect(warnings).to.contain(`${configUrl} answered ${status} text/html`);
      expect(warnings).not.to.contain('Unexpected token');
      expectNoCardData(warnings);
      await el.updateComplete;
      expect(errorOf(el, 'form').textContent).to.equal('Card payments are unavailable right now.');
      // Still usable: the card stays, and with the right config URL the same element tokenizes.
      expect(input(el, 'number').disabled).to.equal(false);
      expect(input(el, 'number').value).to.equal('4242 4242 4242 4242');
      el.configUrl = '/__sandbox-config.json';
      await el.updateComplete;
      expect((await el.tokenize()).token).to.match(/^card_tok_/);
      expect(errorOf(el, 'form').textContent).to.equal('');
    });
  }

  it('the console hint of a token URL answering without a Content-Type says so (not "null")', async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const el = await fixture<TesseraCardForm>(
      html`<tessera-card-form public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form>`,
    );
    await fillCard(el);
    const original = window.fetch;
    window.fetch = async () => new Response(null, { status: 404 });
    try {
      const { detail, warnings } = await failedTokenize(el);
      expect(detail.reason).to.equal('token_endpoint_invalid');
      expect(warnings).to.contain(`${tokenUrl} answered 404 with no Content-Type`);
      expect(warnings).not.to.contain('null');
    } finally {
      window.fetch = original;
    }
  });

  it('a token URL that answers 404 is a config error naming the URL, warned in sandbox mode; the form stays usable', async () => {
    const { publicKey } = await sandbox();
    const tokenUrl = new URL('/__page-404/api2/v2/tokens/card', location.href).href;
    const el = await fixture<TesseraCardForm>(
      html`<tessera-card-form public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form>`,
    );
    await fillCard(el);
    const { detail, warnings } = await failedTokenize(el);
    expect(detail).to.deep.equal({
      code: 'config',
      reason: 'token_endpoint_invalid',
      url: tokenUrl,
      status: 404,
      message: 'Card payments are unavailable right now.',
    });
    expect(warnings).to.contain(`TESSERA_TOKEN_ENDPOINT_INVALID: ${tokenUrl} answered 404 text/html`);
    expectNoCardData(warnings);
    // Fixed, the same element tokenizes the card still in it.
    el.tokenUrl = (await sandbox()).tokenUrl;
    await el.updateComplete;
    expect((await el.tokenize()).token).to.match(/^card_tok_/);
  });

  it('a live key warns nothing on the console; the event still names the URL', async () => {
    const tokenUrl = new URL('/__page-404/tokens', location.href).href;
    const el = await fixture<TesseraCardForm>(
      html`<tessera-card-form public-key="pk_live_x" token-url=${tokenUrl}></tessera-card-form>`,
    );
    await fillCard(el);
    const { detail, warnings } = await failedTokenize(el);
    expect(detail).to.include({ code: 'config', reason: 'token_endpoint_invalid', url: tokenUrl, status: 404 });
    expect(warnings).to.equal('');
  });

  it('reads the public key and token URL from config-url', async () => {
    // Served by web-test-runner.config.js in the helper's /config shape: { publicKey, cardTokenUrl, environment }.
    const el = await fixture<TesseraCardForm>(
      html`<tessera-card-form config-url="/__sandbox-config.json"></tessera-card-form>`,
    );
    await fillCard(el);
    const { token } = await el.tokenize();
    expect(token).to.match(/^card_tok_/);
  });

  it('sends one token request however often the form is submitted while it is in flight', async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const form = await fixture<HTMLFormElement>(html`<form>
      <tessera-card-form public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form>
    </form>`);
    const el = form.querySelector('tessera-card-form')!;
    let submits = 0;
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      submits++;
    });
    await fillCard(el);
    await executeServerCommand('sandbox-fault', { delayMs: 300 });
    const before = performance.getEntriesByName(tokenUrl).length;
    const token = oneEvent(el, 'tessera-token');
    form.requestSubmit();
    form.requestSubmit();
    form.requestSubmit();
    await token;
    await new Promise((resolve) => requestAnimationFrame(resolve));
    expect(performance.getEntriesByName(tokenUrl).length - before).to.equal(1);
    expect(submits).to.equal(1);
  });

  it('reports change details without card data', async () => {
    const el = await sandboxForm();
    const changes: CardChangeDetail[] = [];
    el.addEventListener('tessera-change', (e) => changes.push(e.detail));
    await type(el, 'number', '37');
    expect(changes.at(-1)).to.deep.include({ brand: 'amex', complete: false, valid: false, empty: false });
    expect(changes.at(-1)!.errors.number).to.deep.equal({ code: 'length', message: 'Your card number is incomplete.' });
  });

  it('fires tessera-ready once, with the locale', async () => {
    const ready = new Promise<CustomEvent<{ locale: string }>>((resolve) => {
      document.addEventListener('tessera-ready', (e) => resolve(e), { once: true });
    });
    const el = document.createElement('tessera-card-form');
    document.body.append(el);
    try {
      const event = await ready;
      expect(event.target).to.equal(el);
      expect(event.detail).to.deep.equal({ locale: 'en' });
      expect(event.bubbles && event.composed).to.equal(true);
    } finally {
      el.remove();
    }
  });

  it('a changed public key, token URL, config URL or accepted-brands drops the token held, as an edit does', async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const form = await fixture<HTMLFormElement>(html`<form>
      <tessera-card-form public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form>
    </form>`);
    const el = form.querySelector('tessera-card-form')!;
    const tokenizeAfter = async (change: () => void) => {
      el.reset();
      await fillCard(el);
      const held = await el.tokenize();
      const changes = oneEvent(el, 'tessera-change');
      change();
      await changes;
      expect(new FormData(form).has('cardToken')).to.equal(false);
      // Before, tokenize() resolved with the token of the old key or URL, or of a brand no longer accepted.
      const next = await el.tokenize().catch((e: CardErrorDetail) => e);
      expect(next).to.not.equal(held);
      return next as CardErrorDetail;
    };
    expect(await tokenizeAfter(() => el.setAttribute('public-key', 'pk_sbox_another'))).to.include({
      code: 'validation',
      field: 'cvv',
    });
    el.publicKey = publicKey;
    expect(await tokenizeAfter(() => (el.tokenUrl = `${tokenUrl}?v=2`))).to.include({ code: 'validation' });
    expect(await tokenizeAfter(() => (el.configUrl = '/__sandbox-config.json'))).to.include({ code: 'validation' });
    const refused = await tokenizeAfter(() => el.setAttribute('accepted-brands', 'mastercard'));
    expect(refused).to.include({ code: 'validation', field: 'number' });
    expect(form.checkValidity()).to.equal(false);
  });

  it('the same settings set again (a new array of the same brands on a re-render) keep the token', async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const form = await fixture<HTMLFormElement>(html`<form>
      <tessera-card-form public-key=${publicKey} token-url=${tokenUrl} accepted-brands="visa"></tessera-card-form>
    </form>`);
    const el = form.querySelector('tessera-card-form')!;
    await fillCard(el);
    const held = await el.tokenize();
    const changes: unknown[] = [];
    el.addEventListener('tessera-change', (e) => changes.push(e));
    el.acceptedBrands = ['visa'];
    el.publicKey = publicKey;
    await el.updateComplete;
    el.acceptedBrands = 'VISA' as never;
    await el.updateComplete;
    expect(changes).to.deep.equal([]);
    expect(await el.tokenize()).to.equal(held);
    expect(new FormData(form).get('cardToken')).to.equal(held.token);
  });

  it('a public key changed while its token request is in flight: that token is dropped and the card asked for again with the new key', async () => {
    const el = await sandboxForm();
    await fillCard(el);
    await executeServerCommand('sandbox-fault', { delayMs: 300 });
    const pending = el.tokenize().catch((e: CardErrorDetail) => e);
    el.publicKey = 'pk_sbox_another';
    // Before, the token the old key got was returned; now the card is sent again with the key set.
    expect(await pending).to.include({ code: 'provider', status: 401 });
  });

  it('a name typed, hidden with hide-name and shown again is neither checked nor sent: the field is empty', async () => {
    const el = await sandboxForm();
    await fillCard(el);
    await type(el, 'name', 'Ada 1');
    el.hideName = true;
    await el.updateComplete;
    el.hideName = false;
    await el.updateComplete;
    expect(input(el, 'name').value).to.equal('');
    // Before, the hidden name's digits failed the card on a field that shows nothing.
    const result = await el.tokenize().catch((e: CardErrorDetail) => e);
    expect(result)
      .to.have.property('token')
      .that.matches(/^card_tok_/);
  });
});
