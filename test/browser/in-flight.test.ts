import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import type { CardErrorDetail } from '../../widget/card-form/events.js';
import { errorOf, fillCard, input, liveRegion, sandbox, sandboxForm, type TesseraCardForm, type } from './helpers.js';

/** Replaces `window.fetch` for one test; `restore` puts the browser's back. */
function stubFetch(stub: typeof fetch): { restore(): void } {
  const original = window.fetch;
  window.fetch = stub;
  return {
    restore() {
      window.fetch = original;
    },
  };
}

/**
 * Holds every request the widget sends until `release`, then sends it as it was, except the first when `firstAnswer`
 * is given: that one is answered with it. `bodies` are the bodies of the requests so far. `restore` puts the
 * browser's fetch back.
 */
function holdFetch(firstAnswer?: Response): { bodies: string[]; release(): void; restore(): void } {
  const browserFetch = window.fetch.bind(window);
  const bodies: string[] = [];
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const stub = stubFetch(async (url, init) => {
    const first = bodies.push(String(init?.body)) === 1;
    await held;
    return first && firstAnswer ? firstAnswer : browserFetch(url, init);
  });
  return { bodies, release, restore: stub.restore };
}

/**
 * A form with a card form (filled with a valid card) and a Pay button, against the sandbox; `submits` collects the
 * form data of each submission the page's own listener sees (it cancels them, as a page that posts by fetch does).
 */
async function filledPayForm() {
  const { publicKey, tokenUrl } = await sandbox();
  const form = await fixture<HTMLFormElement>(html`<form>
    <tessera-card-form public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form><button>Pay</button>
  </form>`);
  const el = form.querySelector('tessera-card-form')!;
  const submits: string[][][] = [];
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    submits.push([...new FormData(form)] as string[][]);
  });
  await fillCard(el);
  return { form, el, submits };
}

/** The provider's 402 decline. */
const decline = () =>
  new Response('{"errorCode":"card_declined"}', { status: 402, headers: { 'content-type': 'application/json' } });

/** A paste of `text` over the whole field. */
function paste(el: TesseraCardForm, field: 'number' | 'expiry', text: string): void {
  const i = input(el, field);
  i.focus();
  i.value = text;
  i.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste' }));
}

describe('<tessera-card-form> while a request is in flight', () => {
  // Before, when the first card's request failed, its decline was shown under the corrected card and the call
  // rejected with it.
  for (const [how, firstAnswer] of [
    ['answered', undefined],
    ['declined', decline],
  ] as const) {
    it(`a card edited while its token request is in flight (${how}) resolves with a token of the card as it is then`, async () => {
      const el = await sandboxForm();
      await fillCard(el);
      const errors: unknown[] = [];
      el.addEventListener('tessera-error', (e) => errors.push(e.detail));
      const fetches = holdFetch(firstAnswer?.());
      try {
        const pending = el.tokenize();
        await waitUntil(() => fetches.bodies.length === 1);
        // The shopper corrects the number while the first card is being tokenized.
        paste(el, 'number', '5555 5555 5555 4444');
        fetches.release();
        expect(await pending).to.include({ brand: 'mastercard', last4: '4444' });
        await el.updateComplete;
        expect(errorOf(el, 'form').textContent).to.equal('');
        expect(errors).to.deep.equal([]);
        expect(fetches.bodies.map((b) => JSON.parse(b).number)).to.deep.equal(['4242424242424242', '5555555555554444']);
      } finally {
        fetches.restore();
      }
    });
  }

  it('a reset while a failing token request is in flight leaves the form quiet: the failure is not shown', async () => {
    const el = await sandboxForm();
    await fillCard(el);
    const errors: unknown[] = [];
    el.addEventListener('tessera-error', (e) => errors.push(e.detail));
    const fetches = holdFetch(decline());
    try {
      const pending = el.tokenize().catch((e: CardErrorDetail) => e);
      await waitUntil(() => fetches.bodies.length === 1);
      el.reset();
      fetches.release();
      // Before, the decline of the card no longer there was shown and announced in the emptied form.
      expect(await pending).to.include({ code: 'validation' });
      await el.updateComplete;
      expect(errorOf(el, 'form').textContent).to.equal('');
      expect(liveRegion(el).textContent).to.equal('');
      expect(errors).to.deep.equal([]);
      expect(fetches.bodies).to.have.length(1);
    } finally {
      fetches.restore();
    }
  });

  it('a provider error whose field is not text is a provider error, not an exception', async () => {
    const el = await sandboxForm();
    await fillCard(el);
    const stub = stubFetch(
      async () =>
        new Response('{"errors":[{"field":{"toString":0}}]}', {
          status: 422,
          headers: { 'content-type': 'application/json' },
        }),
    );
    try {
      const error = oneEvent(el, 'tessera-error');
      const rejected = await el.tokenize().catch((e: unknown) => e);
      expect((rejected as Error).name).to.equal('TesseraCardError');
      expect((rejected as CardErrorDetail).code).to.equal('provider');
      expect((await error).detail.code).to.equal('provider');
    } finally {
      stub.restore();
    }
  });

  it('never follows a redirect with the card: a 307 from the token URL is a network failure', async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const redirecting = `${location.origin}/__redirect-307?to=${encodeURIComponent(tokenUrl)}`;
    const el = await fixture<TesseraCardForm>(
      html`<tessera-card-form public-key=${publicKey} token-url=${redirecting}></tessera-card-form>`,
    );
    await fillCard(el);
    const error = oneEvent(el, 'tessera-error');
    const rejected = await el.tokenize().catch((e: unknown) => e);
    expect((rejected as CardErrorDetail).code).to.equal('network');
    expect((await error).detail.code).to.equal('network');
  });

  it('bounds every request in time, so a stalled connection cannot hold the form', async () => {
    const el = await sandboxForm();
    await fillCard(el);
    const browserFetch = window.fetch.bind(window);
    const signals: (AbortSignal | null | undefined)[] = [];
    const stub = stubFetch(async (url, init) => {
      signals.push(init?.signal);
      return browserFetch(url, init);
    });
    try {
      await el.tokenize();
      // AbortSignal.timeout's signal: 30 s is too long for a test to wait out, so its presence is what is checked.
      expect(signals).to.have.length(1);
      expect(signals[0]).to.be.instanceOf(AbortSignal);
      expect(signals[0]!.aborted).to.equal(false);
    } finally {
      stub.restore();
    }
  });

  it('announces the same failure again when a retry meets it too', async () => {
    const el = await fixture<TesseraCardForm>(
      html`<tessera-card-form public-key="pk_sbox_x" token-url="http://127.0.0.1:9/tokens"></tessera-card-form>`,
    );
    await fillCard(el);
    const texts: string[] = [];
    const observer = new MutationObserver(() => texts.push(liveRegion(el).textContent ?? ''));
    observer.observe(liveRegion(el), { childList: true, characterData: true, subtree: true });
    try {
      await el.tokenize().catch(() => undefined);
      await el.updateComplete;
      const message = liveRegion(el).textContent;
      expect(message).to.match(/Could not reach/);
      texts.length = 0;
      await el.tokenize().catch(() => undefined);
      await el.updateComplete;
      await waitUntil(() => texts.length > 0);
      // Emptied and said again: a live region speaks when its text changes.
      expect(texts).to.include('');
      expect(liveRegion(el).textContent).to.equal(message);
    } finally {
      observer.disconnect();
    }
  });

  it('takes a pasted "MM / YYYY" expiry whole: the field is long enough for it', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
    // The browser cuts a paste at maxlength before the widget sees it: "12 / 2030" needs 9 characters.
    expect(input(el, 'expiry').maxLength).to.be.at.least(9);
    paste(el, 'expiry', '12 / 2030');
    await el.updateComplete;
    expect(input(el, 'expiry').value).to.equal('12 / 30');
  });

  for (const how of ['removed', 'moved to another form'] as const) {
    it(`a submission held while tokenizing is dropped when the element is ${how} meanwhile`, async () => {
      const { publicKey, tokenUrl } = await sandbox();
      const wrap = await fixture<HTMLDivElement>(html`<div>
        <form novalidate><tessera-card-form public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form><button>Pay</button></form>
        <form novalidate><button>Pay</button></form>
      </div>`);
      const [first, second] = [...wrap.querySelectorAll('form')] as [HTMLFormElement, HTMLFormElement];
      const el = first.querySelector('tessera-card-form')!;
      const submitted: string[] = [];
      for (const form of [first, second]) {
        form.addEventListener('submit', (e) => {
          e.preventDefault();
          submitted.push([...new FormData(form).keys()].join());
        });
      }
      await fillCard(el);
      const token = oneEvent(el, 'tessera-token');
      const fetches = holdFetch();
      try {
        first.requestSubmit();
        await waitUntil(() => fetches.bodies.length === 1);
        if (how === 'removed') el.remove();
        else second.prepend(el);
        fetches.release();
        await token;
        await new Promise((resolve) => setTimeout(resolve, 50));
        // Before, the first form was submitted again, without the card (its field went with the element).
        expect(submitted).to.deep.equal([]);
      } finally {
        fetches.restore();
      }
    });
  }

  it("a submit while the page's own tokenize() is in flight waits for that token and submits once", async () => {
    const { form, el, submits } = await filledPayForm();
    const fetches = holdFetch();
    try {
      const pending = el.tokenize();
      await waitUntil(() => fetches.bodies.length === 1);
      // The shopper presses Pay (twice, a double click) while the page's tokenize() is still waiting.
      form.querySelector('button')!.click();
      form.querySelector('button')!.click();
      fetches.release();
      const { token } = await pending;
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Before, both submits were dropped: the shopper pressed Pay and nothing happened.
      expect(submits).to.deep.equal([[['cardToken', token]]]);
      expect(fetches.bodies.length).to.equal(1);
    } finally {
      fetches.restore();
    }
  });

  it('a page that submits the form itself once its tokenize() settles, while the shopper pressed Pay, submits once', async () => {
    const { form, el, submits } = await filledPayForm();
    const fetches = holdFetch();
    try {
      // The page's own flow: tokenize, then submit the form.
      const paid = el.tokenize().then(() => form.requestSubmit());
      await waitUntil(() => fetches.bodies.length === 1);
      form.querySelector('button')!.click();
      fetches.release();
      await paid;
      await new Promise((resolve) => setTimeout(resolve, 50));
      // The shopper's submit was held for the same token; the page's submit made it, so it is not made again.
      expect(submits.length).to.equal(1);
      expect(submits[0]![0]![0]).to.equal('cardToken');
      expect(fetches.bodies.length).to.equal(1);
    } finally {
      fetches.restore();
    }
  });

  // Before, the held submission was made when the token came and the page's own submit, later, made a second one.
  for (const [first, wait] of [
    ['the page tokenizes, then the shopper presses Pay', 'a timer'],
    ['the page tokenizes, then the shopper presses Pay', 'a few microtasks'],
    ['the shopper presses Pay, then the page tokenizes', 'a timer'],
  ] as const) {
    it(`a page that submits the form itself after awaiting ${wait} past its tokenize(), while the shopper's submit was held and made meanwhile, submits once (${first})`, async () => {
      const { form, el, submits } = await filledPayForm();
      const fetches = holdFetch();
      const pay = () => form.querySelector('button')!.click();
      const later = () =>
        wait === 'a timer'
          ? new Promise((resolve) => setTimeout(resolve, 20))
          : Promise.resolve()
              .then(() => undefined)
              .then(() => undefined)
              .then(() => undefined);
      try {
        if (first.startsWith('the shopper')) pay();
        // The page's own flow: tokenize, then something of its own, then submit the form.
        const paid = el.tokenize().then(async ({ token }) => {
          await later();
          form.requestSubmit();
          return token;
        });
        await waitUntil(() => fetches.bodies.length === 1);
        if (!first.startsWith('the shopper')) pay();
        fetches.release();
        const token = await paid;
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(submits).to.deep.equal([[['cardToken', token]]]);
        expect(fetches.bodies.length).to.equal(1);
        // The next submit, the shopper's again (the page's post failed, say), goes through with the same token.
        pay();
        expect(submits).to.deep.equal([[['cardToken', token]], [['cardToken', token]]]);
      } finally {
        fetches.restore();
      }
    });
  }

  // Two payment methods in one form, the page's tokenize() asked for the first card's token only (to show it).
  for (const pageSubmits of [false, true]) {
    it(`two card forms, the page's tokenize() shared with the shopper's held submission of one of them: ${pageSubmits ? "the page's later submit is dropped once" : "the shopper's next submit, the other card edited, goes through"}`, async () => {
      const { publicKey, tokenUrl } = await sandbox();
      const form = await fixture<HTMLFormElement>(html`<form>
        <tessera-card-form name="a" public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form>
        <tessera-card-form name="b" public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form><button>Pay</button>
      </form>`);
      const [a, b] = [...form.querySelectorAll('tessera-card-form')] as [TesseraCardForm, TesseraCardForm];
      const submits: string[][][] = [];
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        submits.push([...new FormData(form)] as string[][]);
      });
      await fillCard(a);
      await fillCard(b, '5555555555554444');
      const pay = () => form.querySelector('button')!.click();
      const fetches = holdFetch();
      try {
        const shown = a.tokenize();
        await waitUntil(() => fetches.bodies.length === 1);
        pay();
        await waitUntil(() => fetches.bodies.length === 2);
        fetches.release();
        await shown;
        await waitUntil(() => submits.length === 1);
        const first = submits[0]!;
        if (pageSubmits) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          form.requestSubmit();
          expect(submits).to.deep.equal([first]);
          return;
        }
        // The shopper edits the second card (a new token) and presses Pay again. Before, the element held that submit,
        // tokenized the second card and then dropped its own submission (the first card's token was owed): nothing.
        await type(b, 'cvv', '123');
        pay();
        await waitUntil(() => submits.length === 2, 'the second press was not submitted');
        const second = submits[1]!;
        expect(second[0]).to.deep.equal(first[0]);
        expect(second[1]![1])
          .to.match(/^card_tok_/)
          .and.not.equal(first[1]![1]);
      } finally {
        fetches.restore();
      }
    });
  }

  it('a submit event a script dispatches itself is no submission: no token is asked for and nothing is submitted', async () => {
    const { form, el } = await filledPayForm();
    const seen: [boolean, string[][]][] = [];
    form.addEventListener('submit', (e) => seen.push([e.isTrusted, [...new FormData(form)] as string[][]]));
    const { tokenUrl } = await sandbox();
    const before = performance.getEntriesByName(tokenUrl).length;
    const tokens: unknown[] = [];
    el.addEventListener('tessera-token', (e) => tokens.push(e.detail));
    form.dispatchEvent(new Event('submit', { cancelable: true }));
    form.dispatchEvent(
      new SubmitEvent('submit', { bubbles: true, cancelable: true, submitter: form.querySelector('button') }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Each reaches the page's listeners as it was dispatched, as without the widget. Before, the first was stopped, the
    // card tokenized and the form really submitted (requestSubmit: a trusted submit with the token), which a synthetic
    // submit event never does; the second was dropped as a double click.
    expect(seen).to.deep.equal([
      [false, []],
      [false, []],
    ]);
    expect([performance.getEntriesByName(tokenUrl).length - before, tokens.length]).to.deep.equal([0, 0]);
  });

  it('a reset while the card is being tokenized leaves the form empty and quiet: no message, no focus, no submit', async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const form = await fixture<HTMLFormElement>(html`<form novalidate>
      <tessera-card-form public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form><button>Pay</button>
    </form>`);
    const el = form.querySelector('tessera-card-form')!;
    let submits = 0;
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      submits++;
    });
    const errors: unknown[] = [];
    el.addEventListener('tessera-error', (e) => errors.push(e.detail));
    await fillCard(el);
    const fetches = holdFetch();
    try {
      form.requestSubmit();
      const pending = el.tokenize().catch((e: CardErrorDetail) => e);
      await waitUntil(() => fetches.bodies.length === 1);
      (document.activeElement as HTMLElement | null)?.blur();
      form.reset();
      fetches.release();
      expect(await pending).to.include({ code: 'validation' });
      await el.updateComplete;
      // Before, the emptied card was tokenized again: every message shown and announced, focus in the number field.
      for (const f of ['number', 'expiry', 'cvv', 'form'] as const) {
        expect(el.shadowRoot!.querySelector(`#${f}-error`)!.textContent, f).to.equal('');
      }
      expect(liveRegion(el).textContent).to.equal('');
      expect(el.matches(':state(user-invalid)')).to.equal(false);
      expect(el.shadowRoot!.activeElement).to.equal(null);
      expect([errors.length, submits, fetches.bodies.length]).to.deep.equal([0, 0, 1]);
    } finally {
      fetches.restore();
    }
  });
});
