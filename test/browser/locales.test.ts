import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import { TesseraCardForm } from '../../widget/card-form/card-form.js';
import type { CardChangeDetail, TesseraCardError } from '../../widget/card-form/events.js';
import { LAZY_LOCALES } from '../../widget/i18n/all.js';
import { fetchLocale } from '../../widget/i18n/load-fetch.js';
import { en } from '../../widget/i18n/strings.js';
import { errorOf, fillCard, input, leave, liveRegion, sandboxForm, type } from './helpers.js';

const root = (el: TesseraCardForm) => el.shadowRoot!.querySelector<HTMLElement>('[part~="form"]')!;

describe('<tessera-card-form> locales', () => {
  it('renders Arabic right to left, with digits still left to right', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form locale="ar"></tessera-card-form>`);
    expect(root(el).dir).to.equal('rtl');
    expect(root(el).lang).to.equal('ar');
    expect(input(el, 'number').labels![0]!.textContent).to.equal('رقم البطاقة');
    expect(input(el, 'number').dir).to.equal('ltr');
    expect(getComputedStyle(input(el, 'number')).textAlign).to.equal('right');
    await type(el, 'number', '4242');
    await leave(el, 'number');
    expect(el.shadowRoot!.querySelector('#number-error')!.textContent).to.equal('رقم بطاقتك غير مكتمل.');
    await expect(el).to.be.accessible();
  });

  it('keeps the brand icon inside the room the number input leaves for it, right to left too', async () => {
    for (const locale of ['en', 'ar']) {
      const el = await fixture<TesseraCardForm>(
        html`<tessera-card-form locale=${locale} style="width: 14rem"></tessera-card-form>`,
      );
      await type(el, 'number', '4242424242424242424');
      const box = input(el, 'number').getBoundingClientRect();
      const icon = el.shadowRoot!.querySelector('svg')!.getBoundingClientRect();
      const room = Number.parseFloat(getComputedStyle(input(el, 'number')).paddingRight);
      expect(icon.left, locale).to.be.at.least(box.right - room);
      expect(icon.right, locale).to.be.at.most(box.right);
    }
  });

  it('renders Hebrew (he-IL) right to left', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form locale="he-IL"></tessera-card-form>`);
    expect(root(el).dir).to.equal('rtl');
    expect(input(el, 'cvv').labels![0]!.textContent).to.equal('קוד אבטחה');
  });

  it('takes the document language when there is no locale attribute', async () => {
    const before = document.documentElement.lang;
    document.documentElement.lang = 'de-CH';
    try {
      const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
      expect(root(el).lang).to.equal('de');
      expect(input(el, 'number').labels![0]!.textContent).to.equal('Kartennummer');
      expect(input(el, 'expiry').placeholder).to.equal('MM / JJ');
    } finally {
      document.documentElement.lang = before;
    }
  });

  it('follows a change of the document language after rendering: labels and messages re-worded, nothing re-announced', async () => {
    const before = document.documentElement.lang;
    document.documentElement.lang = 'en';
    try {
      const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
      await type(el, 'number', '4242');
      await leave(el, 'number');
      expect(liveRegion(el).textContent).to.equal('Your card number is incomplete.');
      const said: string[] = [];
      const observer = new MutationObserver(() => said.push(liveRegion(el).textContent!));
      observer.observe(liveRegion(el), { childList: true, subtree: true, characterData: true });
      document.documentElement.lang = 'de';
      // Before, the form stayed English until something else updated it.
      await waitUntil(() => root(el).lang === 'de');
      observer.disconnect();
      expect(input(el, 'number').labels![0]!.textContent).to.equal('Kartennummer');
      expect(errorOf(el, 'number').textContent).to.equal('Ihre Kartennummer ist unvollständig.');
      expect(said.filter(Boolean)).to.deep.equal([]);
      // The element's own locale wins over the document's.
      el.locale = 'fr';
      await el.updateComplete;
      document.documentElement.lang = 'ja';
      await new Promise((resolve) => setTimeout(resolve, 50));
      await el.updateComplete;
      expect(input(el, 'number').labels![0]!.textContent).to.equal('Numéro de carte');
    } finally {
      document.documentElement.lang = before;
    }
  });

  it('tells the page in a tessera-change when the language changes, its errors in the new words; none at the first render', async () => {
    const changes: CardChangeDetail[] = [];
    // The language the form is rendered in when each event is told.
    const rendered: string[] = [];
    const el: TesseraCardForm = await fixture<TesseraCardForm>(
      html`<tessera-card-form locale="en" @tessera-change=${(e: CustomEvent<CardChangeDetail>) => {
        changes.push(e.detail);
        rendered.push(root(el).lang);
      }}></tessera-card-form>`,
    );
    expect(changes).to.deep.equal([]);
    await type(el, 'number', '4242');
    const typed = changes.length;
    expect(changes.at(-1)!.errors.number!.message).to.equal('Your card number is incomplete.');
    el.locale = 'de';
    await waitUntil(() => changes.length > typed);
    await el.updateComplete;
    expect(changes.length).to.equal(typed + 1);
    const last = changes.at(-1)!;
    expect(last.errors.number).to.deep.equal({ code: 'length', message: 'Ihre Kartennummer ist unvollständig.' });
    expect(last.brand).to.equal('visa');
    expect(last.valid).to.equal(false);
    expect(rendered.at(-1)).to.equal('de');
  });

  it('tells the page in the new words when an edit that names a brand comes while the new language loads', async () => {
    const changes: CardChangeDetail[] = [];
    const el = await fixture<TesseraCardForm>(
      html`<tessera-card-form locale="en" @tessera-change=${(e: CustomEvent<CardChangeDetail>) => changes.push(e.detail)}></tessera-card-form>`,
    );
    // Another language asked for, and before it is rendered (its file may still be on the network) the shopper types a
    // digit that names a brand: the edit's event is worded in the language of the moment.
    el.locale = 'de';
    const number = input(el, 'number');
    number.value = '4';
    number.dispatchEvent(
      new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText', data: '4' }),
    );
    expect(changes.at(-1)!.errors.number!.message).to.equal('Your card number is incomplete.');
    await waitUntil(() => root(el).lang === 'de');
    await el.updateComplete;
    // Before, that edit's event was the last: English errors while the form showed German.
    expect(changes.at(-1)!.brand).to.equal('visa');
    expect(changes.at(-1)!.errors.number!.message).to.equal('Ihre Kartennummer ist unvollständig.');
  });

  it('re-words a form message on show when the document language changes', async () => {
    const before = document.documentElement.lang;
    document.documentElement.lang = 'en';
    try {
      const el = await fixture<TesseraCardForm>(
        html`<tessera-card-form public-key="pk_sbox_x" token-url="http://127.0.0.1:9/tokens"></tessera-card-form>`,
      );
      await fillCard(el);
      await el.tokenize().catch(() => undefined);
      expect(errorOf(el, 'form').textContent).to.equal(
        'Could not reach the payment service. Check your connection and try again.',
      );
      document.documentElement.lang = 'de';
      await waitUntil(() => root(el).lang === 'de');
      expect(errorOf(el, 'form').textContent).to.equal(LAZY_LOCALES.de!.network);
      expect(liveRegion(el).textContent).to.equal('');
    } finally {
      document.documentElement.lang = before;
    }
  });

  it('words a failure in the language chosen while its request was in flight, and announces it so', async () => {
    const before = document.documentElement.lang;
    document.documentElement.lang = 'en';
    try {
      const el = await sandboxForm();
      await fillCard(el);
      await executeServerCommand('sandbox-fault', { status: 503, delayMs: 300 });
      const failed = el.tokenize().catch((e: TesseraCardError) => e);
      const event = oneEvent(el, 'tessera-error');
      document.documentElement.lang = 'de';
      await waitUntil(() => root(el).lang === 'de');
      const [error, { detail }] = await Promise.all([failed, event]);
      await el.updateComplete;
      // Before, the failure kept the language the request started in, under lang="de", in the live region too.
      expect(errorOf(el, 'form').textContent).to.equal(LAZY_LOCALES.de!.unavailable);
      expect(liveRegion(el).textContent).to.equal(LAZY_LOCALES.de!.unavailable);
      expect([detail.message, (error as TesseraCardError).message]).to.deep.equal([
        LAZY_LOCALES.de!.unavailable,
        LAZY_LOCALES.de!.unavailable,
      ]);
    } finally {
      document.documentElement.lang = before;
      await executeServerCommand('sandbox-reset');
    }
  });

  it('never words a message in a language asked for and replaced while it loaded', async () => {
    const before = document.documentElement.lang;
    document.documentElement.lang = 'en';
    try {
      const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
      const number = input(el, 'number');
      const edit = () => number.dispatchEvent(new InputEvent('input', { inputType: 'insertText' }));
      number.value = '4242';
      edit();
      // Each message tessera-change gives, beside the language the form is rendered in then.
      const said: [string, string][] = [];
      el.addEventListener('tessera-change', (e) => said.push([root(el).lang, e.detail.errors.number!.message]));
      document.documentElement.lang = 'sv';
      // A few microtasks: the observer has asked for Swedish, which is loading (a request, not a microtask away).
      for (let i = 0; i < 10; i++) await null;
      document.documentElement.lang = 'nl';
      // Every task edits the card until Dutch is on.
      while (root(el).lang !== 'nl') {
        edit();
        await new Promise((resolve) => setTimeout(resolve));
      }
      edit();
      // Before, the Swedish texts were taken while Dutch loaded, under the English form: tessera-change said
      // "Kortnumret är ofullständigt.", and a message shown then (a failure) stayed Swedish under lang="nl".
      const texts = { en, ...LAZY_LOCALES } as Record<string, typeof en>;
      expect(said.map(([lang, message]) => [lang, texts[lang]!.numberIncomplete === message])).to.deep.include([
        'nl',
        true,
      ]);
      for (const [lang, message] of said) expect(message, lang).to.equal(texts[lang]!.numberIncomplete);
    } finally {
      document.documentElement.lang = before;
    }
  });

  it('stops following the document language once removed from the page', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form></tessera-card-form>`);
    el.remove();
    const before = document.documentElement.lang;
    try {
      document.documentElement.lang = 'de';
      // A connected element's observer would have asked for an update by now (a mutation record is a microtask).
      await Promise.resolve();
      expect(el.isUpdatePending).to.equal(false);
    } finally {
      document.documentElement.lang = before;
    }
  });

  it('renders Chinese of Taiwan and Hong Kong in Traditional characters, of China in Simplified', async () => {
    for (const [locale, lang, label] of [
      ['zh-TW', 'zh-hant', '卡號'],
      ['zh-Hant-HK', 'zh-hant', '卡號'],
      ['zh-CN', 'zh', '卡号'],
    ] as const) {
      const el = await fixture<TesseraCardForm>(html`<tessera-card-form locale=${locale}></tessera-card-form>`);
      expect(root(el).lang, locale).to.equal(lang);
      expect(input(el, 'number').labels![0]!.textContent, locale).to.equal(label);
    }
  });

  it('renders Brazilian Portuguese for pt-BR, European for pt-PT', async () => {
    for (const [locale, lang, message] of [
      ['pt-BR', 'pt-br', 'Este cartão está vencido.'],
      ['pt-PT', 'pt', 'Este cartão expirou.'],
    ] as const) {
      const el = await fixture<TesseraCardForm>(html`<tessera-card-form locale=${locale}></tessera-card-form>`);
      await type(el, 'expiry', '0120');
      await leave(el, 'expiry');
      expect(root(el).lang, locale).to.equal(lang);
      expect(el.shadowRoot!.querySelector('#expiry-error')!.textContent, locale).to.equal(message);
    }
  });

  it('falls back to English for a language it does not ship', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form locale="xx-YY"></tessera-card-form>`);
    expect(root(el).lang).to.equal('en');
    expect(root(el).dir).to.equal('ltr');
    expect(input(el, 'number').labels![0]!.textContent).to.equal('Card number');
  });

  it('switches language when the locale property changes', async () => {
    const el = await fixture<TesseraCardForm>(html`<tessera-card-form locale="fr"></tessera-card-form>`);
    expect(input(el, 'number').labels![0]!.textContent).to.equal('Numéro de carte');
    el.locale = 'ja';
    await el.updateComplete;
    expect(input(el, 'number').labels![0]!.textContent).to.equal('カード番号');
  });

  it('takes a locale set as a property before the element was defined, without showing English first', async () => {
    // The lazy property pattern: a page (or a framework) sets properties on the tag before the script has run.
    const el = document.createElement('tessera-card-form-lazy') as TesseraCardForm;
    el.locale = 'de';
    el.hideName = true;
    document.body.append(el);
    const labels: string[] = [];
    const ready = new Promise<CustomEvent<{ locale: string }>>((resolve) => {
      el.addEventListener('tessera-ready', (e) => resolve(e as CustomEvent<{ locale: string }>), { once: true });
    });
    try {
      customElements.define('tessera-card-form-lazy', class extends TesseraCardForm {});
      const observer = new MutationObserver(() => {
        const label = el.shadowRoot!.querySelector('label')?.textContent;
        if (label) labels.push(label);
      });
      observer.observe(el.shadowRoot!, { childList: true, subtree: true, characterData: true });
      // Before, Lit restored the property only in the first update, after the locale had been chosen: English for good.
      expect((await ready).detail.locale).to.equal('de');
      observer.disconnect();
      expect(input(el, 'number').labels![0]!.textContent).to.equal('Kartennummer');
      expect(el.shadowRoot!.querySelector('#name')).to.equal(null);
      expect(labels.filter((l) => l !== 'Kartennummer')).to.deep.equal([]);
    } finally {
      el.remove();
    }
  });
});

describe('the script-tag bundle’s locale loader', () => {
  const manifestSri = () => fetch('/__locales/manifest.sri').then((r) => r.text());

  it('fetches a locale file checked against the manifest, itself checked against the compiled-in hash', async () => {
    const [code, strings] = await fetchLocale(new URL('/__locales/', location.href), await manifestSri(), 'ar-EG');
    expect(code).to.equal('ar');
    expect(strings.dir).to.equal('rtl');
    expect(strings.numberLabel).to.equal('رقم البطاقة');
  });

  it('fetches Traditional Chinese for a zh-Hant or zh-TW tag', async () => {
    for (const tag of ['zh-Hant-TW', 'zh_TW']) {
      const [code, strings] = await fetchLocale(new URL('/__locales/', location.href), await manifestSri(), tag);
      expect(code, tag).to.equal('zh-hant');
      expect(strings.numberLabel, tag).to.equal('卡號');
    }
  });

  it('does not fetch anything for English', async () => {
    const sri = await manifestSri();
    const fetched: string[] = [];
    const realFetch = window.fetch;
    window.fetch = (url, init) => {
      fetched.push(String(url));
      return realFetch(url, init);
    };
    try {
      // A folder that serves nothing: an English page (the default) needs no locale files at all.
      for (const tag of ['en-GB', 'en', 'EN_us']) {
        const [code, strings] = await fetchLocale(new URL('/__no-locales/', location.href), sri, tag);
        expect(code, tag).to.equal('en');
        expect(strings.numberLabel, tag).to.equal('Card number');
      }
    } finally {
      window.fetch = realFetch;
    }
    expect(fetched).to.deep.equal([]);
  });

  it('refuses a locale file that does not match its hash', async () => {
    const base = new URL('/__locales-tampered/', location.href);
    const error = await fetchLocale(base, await manifestSri(), 'fr').catch((e: unknown) => e);
    expect(error).to.be.instanceOf(TypeError);
  });

  it('refuses a manifest that does not match the compiled-in hash', async () => {
    const wrong = `sha384-${'A'.repeat(64)}`;
    const error = await fetchLocale(new URL('/__locales/', location.href), wrong, 'de').catch((e: unknown) => e);
    expect(error).to.be.instanceOf(TypeError);
  });
});
