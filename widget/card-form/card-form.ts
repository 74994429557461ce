import { html, nothing, type PropertyValues, ReactiveElement, render } from 'lit';
import type { Brand, BrandId } from '../../shared/card/brands.js';
import {
  applyEdit,
  type Formatted,
  formatExpiryEdit,
  formatNumberEdit,
  parseExpiryDigits,
} from '../../shared/card/format.js';
import { loadLocale } from '../i18n/load.js';
import { en, type Strings } from '../i18n/strings.js';
import { styles } from './card-form.styles.js';
import {
  type CardChangeDetail,
  type CardErrorDetail,
  type CardField,
  type CardToken,
  TesseraCardError,
  TesseraChangeEvent,
  TesseraErrorEvent,
  TesseraReadyEvent,
  TesseraTokenEvent,
} from './events.js';
import { brandIcon } from './icons.js';
import { cvvLength, FIELDS, fill, type Problems, problems } from './messages.js';
import {
  endpoint,
  type Failure,
  loadConfig,
  type RemoteConfig,
  requestToken,
  str,
  type TokenAnswer,
} from './transport.js';
import { type WidgetWarningCode, warnOnce } from './warn.js';

/**
 * Brand ids from the attribute or the property alike: a string or an array (an array's String() joins
 * it with commas), lower-cased, split on spaces and commas.
 */
const brandList = (value: unknown): BrandId[] =>
  String(value ?? '')
    .toLowerCase()
    .split(/[\s,]+/)
    .filter(Boolean) as BrandId[];

/** `text` worded in `now` when it is one of `was`'s texts (`{n}` filled with `n`); any other text as it is. */
const reword = (was: Strings, now: Strings, text: string, n: string | number) => {
  const key = (Object.keys(was) as (keyof Strings)[]).find((k) => fill(was[k]!, n) === text);
  return key ? fill(now[key]!, n) : text;
};

/** Forms whose submission a card form holds while it is tokenized (see #handleSubmit). */
const holding = new Set<HTMLFormElement>();

/**
 * Per form, the tokens (joined, in tree order) of a submission made for the shopper that the page's own `tokenize()`
 * was given too (see #handleSubmit).
 */
const owed = new WeakMap<HTMLFormElement, string>();

/** Locale files already loaded (or loading), shared by every instance on the page. */
const locales = new Map<string, Promise<readonly [string, Strings]>>();

/**
 * A card form that collects number, expiry, security code and (optionally) the
 * cardholder's name in the shopper's browser and exchanges them for a single-use
 * `card_tok_…` token with the provider's public key. Inside a `<form>` it takes part
 * in submission: submitting tokenizes first, then the form data carries the token
 * under `name`. A submit the page has already cancelled (a capture listener on the window or
 * the document called `preventDefault()`) is left alone: nothing is tokenized or submitted; so is a `submit` event a
 * script dispatches itself (it submits nothing, as without the element). A
 * submit while `tokenize()` is in flight waits for that token, then submits once: not at all
 * when the page submits the form itself meanwhile, and when the page submits it later (after awaiting something
 * else), that submit is dropped once; a second submit while one waits (a double click) is dropped. Enter in a field submits as in a native input: through the form's default
 * button (nothing while it is disabled). Like a native control it takes the standard `form` attribute (the id of
 * a form elsewhere on the page), and it matches `:state(user-invalid)` once the shopper
 * has left a field with a problem or tried to submit.
 *
 * `tessera-change`'s `errors` maps each field at fault (`number`, `expiry`, `cvv`,
 * `name`) to `{ code, message }`, the message in the form's locale. Codes: `required`,
 * `invalid_characters`, `unknown_brand`, `length`, `luhn`, `brand_not_accepted` (number);
 * `required`, `incomplete`, `month`, `past`, `too_far` (expiry); `required`, `length`
 * (cvv); `invalid_characters` (name). `tokenize()` rejects with a `TesseraCardError`
 * whose fields are those of `tessera-error`'s detail.
 *
 * @summary Card number, expiry and security code inputs, tokenized with the provider's public key.
 *
 * @fires {TesseraReadyEvent} tessera-ready - Rendered in its locale and ready for input. `detail: { locale }`.
 * @fires {TesseraChangeEvent} tessera-change - A field changed, the form was reset, a setting the token depends on changed (see `tokenize()`), or the language changed (`errors` in its words). `detail: { brand, complete, valid, empty, errors }`; never the number or CVV.
 * @fires {TesseraTokenEvent} tessera-token - A token was created. `detail: { token, brand, last4, bin, expiryMonth, expiryYear }`.
 * @fires {TesseraErrorEvent} tessera-error - Tokenizing failed or the configuration is unusable. `detail: { code, message, field?, status?, providerCode?, requestId?, reason?, url? }`; a `config` error's `reason` says what is wrong and `url` names the URL at fault.
 * @fires change - Re-dispatched from the inner inputs (a native `change` does not leave the shadow root).
 *
 * @csspart form - The grid that holds the fields.
 * @csspart field - Each field's wrapper (label, input, error); also `number-field`, `expiry-field`, `cvv-field`, `name-field`.
 * @csspart label - Every label; also `number-label`, `expiry-label`, `cvv-label`, `name-label`.
 * @csspart input - Every input; also `number-input`, `expiry-input`, `cvv-input`, `name-input`.
 * @csspart error - Every error message; also `number-error`, `expiry-error`, `cvv-error`, `name-error`, `form-error`.
 * @csspart number-input - The card number input.
 * @csspart expiry-input - The expiry (MM / YY) input.
 * @csspart cvv-input - The security code input.
 * @csspart name-input - The cardholder name input.
 * @csspart brand-icon - The card brand mark inside the number field.
 *
 * @cssprop [--tessera-font=inherit] - Font shorthand of the whole form.
 * @cssprop [--tessera-color=CanvasText] - Text colour (the system colour follows the page's `color-scheme`, light or dark).
 * @cssprop [--tessera-background=Canvas] - Input background.
 * @cssprop [--tessera-border-color=GrayText] - Input border colour.
 * @cssprop [--tessera-error-color=light-dark(#c5221f, #f28b82)] - Error text and invalid-input border colour.
 * @cssprop [--tessera-focus-ring=2px solid light-dark(#1a73e8, #8ab4f8)] - Outline of the focused input.
 * @cssprop [--tessera-radius=0.375rem] - Input corner radius.
 * @cssprop [--tessera-spacing=0.75rem] - Gap between fields.
 */
export class TesseraCardForm extends ReactiveElement {
  static override styles = styles;
  static override shadowRootOptions: ShadowRootInit = { mode: 'open', delegatesFocus: true };
  /** Takes part in forms through ElementInternals. */
  static formAssociated = true;

  static override properties = {
    publicKey: { attribute: 'public-key' },
    tokenUrl: { attribute: 'token-url' },
    configUrl: { attribute: 'config-url' },
    locale: {},
    name: {},
    // A string from the attribute, or whatever a script assigns: normalised in willUpdate either way.
    acceptedBrands: { attribute: 'accepted-brands' },
    hideName: { type: Boolean, attribute: 'hide-name' },
    disabled: { type: Boolean, reflect: true },
  };

  /** The provider's public key (`pk_…`), sent as the token request's `Authorization`. */
  declare publicKey: string;
  /** Full URL of the provider's card-token endpoint (`…/api2/v2/tokens/card`). `https:` only, except to loopback. */
  declare tokenUrl: string;
  /** URL of the helper's `/config` (`{ publicKey, cardTokenUrl }`), used for whichever of the two is not set. */
  declare configUrl: string;
  /** BCP 47 locale of the texts; empty means the document's `lang` (followed when it changes), else English. */
  declare locale: string;
  /** Name of the form field that carries the token. */
  declare name: string;
  /** Brand ids accepted (`visa mastercard amex discover diners jcb unionpay maestro`); empty accepts every brand. */
  declare acceptedBrands: BrandId[];
  /** Hides the optional cardholder name field; hiding or showing it empties it. */
  declare hideName: boolean;
  /** Disables every input; a disabled form is not submitted with the form and not validated. */
  declare disabled: boolean;

  readonly #internals = this.attachInternals();
  #digits = '';
  #expiry = '';
  #cvv = '';
  #holder = '';
  #brand: Brand | undefined;
  /** Messages currently shown under the fields (after blur or submit). */
  #shown: Partial<Record<CardField | 'form', string>> = {};
  /** The live region's text (undefined says nothing, like ''). */
  #announce: string | undefined = '';
  /** The live region's text as last rendered (see #say). */
  #said: string | undefined;
  /** The live region holds a failed submit's summary (set by #showAll, until the next edit). */
  #summary: boolean | undefined;
  #edited = new Set<CardField>();
  /** Edits and resets so far: a token request compares it before and after, so a token is only ever the card's. */
  #edits = 0;
  #token: CardToken | undefined;
  #pending: Promise<CardToken> | undefined;
  /** The tokenization in flight has two callers (the page's `tokenize()` and a held submission, see #handleSubmit). */
  #shared: unknown;
  #strings: Strings = en;
  /** The texts the messages on show are worded in (the previous update's). */
  #worded: Strings = en;
  /** The brand the messages on show are worded for (the previous update's). */
  #wordedBrand: Brand | undefined;
  #code = 'en';
  #ready = false;
  /** The locale tag whose texts are loaded. */
  #loaded = '';
  #config: Promise<RemoteConfig> | undefined;
  #form: HTMLFormElement | null = null;
  /** What the token depends on besides the card, as of the last update (see willUpdate). */
  #key: string | undefined;
  /** Follows `<html lang>` while connected: a change re-renders in the language it names (unless `locale` is set). */
  #lang = new MutationObserver(() => this.requestUpdate());

  constructor() {
    super();
    this.publicKey = '';
    this.tokenUrl = '';
    this.configUrl = '';
    this.locale = '';
    this.name = 'cardToken';
    this.acceptedBrands = [];
    this.hideName = false;
    this.disabled = false;
    // The browser's own validation (a submit without `novalidate`, reportValidity()) shows every message too.
    this.addEventListener('invalid', () => this.#showAll(this.#problems()));
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#lang.observe(document.documentElement, { attributeFilter: ['lang'] });
    // Changed while the element was out of the page.
    this.requestUpdate();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#lang.disconnect();
  }

  /** The form this element belongs to. */
  get form(): HTMLFormElement | null {
    return this.#internals.form;
  }

  /** Focuses the card number input; called before the first render (the locale is loading), once it is rendered. */
  override focus(options?: FocusOptions): void {
    const number = this.#input('number');
    number ? number.focus(options) : this.updateComplete.then(() => this.focus(options));
  }

  /**
   * Exchanges the card for a single-use token at the token URL. Resolves with the
   * token and safe card facts; rejects with a {@link TesseraCardError} (and fires
   * `tessera-error`) when the card is invalid, the network fails or the provider
   * refuses. The security code is cleared afterwards; until the card is edited,
   * further calls resolve with the same token. A card edited while its request is
   * in flight is tokenized again as it is then, whether that request succeeded or
   * failed: the token, or the failure shown, is always the card's.
   * Changing `public-key`, `token-url`, `config-url`, `accepted-brands` or `hide-name`
   * counts as an edit: the token held or in flight is dropped. A reset while the
   * request is in flight rejects the call with a `validation` error (no field, no
   * event), even when that request failed: the emptied form shows nothing.
   */
  async tokenize(): Promise<CardToken> {
    if (this.#token) return this.#token;
    this.#shared = this.#pending;
    this.#pending ??= this.#tokenize().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /** Empties every field, forgets the token and hides the messages. */
  reset(): void {
    for (const f of FIELDS) {
      const input = this.#input(f);
      if (input) input.value = '';
    }
    this.#digits = this.#expiry = this.#cvv = this.#holder = this.#announce = '';
    this.#brand = this.#token = undefined;
    this.#shown = {};
    this.#edited.clear();
    this.#changed();
    // The brand mark and messages live in the template: render the empty state now, not on the next edit.
    this.requestUpdate();
  }

  /** @internal */
  formResetCallback(): void {
    this.reset();
  }

  /** @internal */
  formDisabledCallback(): void {
    this.requestUpdate();
  }

  /** @internal */
  formAssociatedCallback(form: HTMLFormElement | null): void {
    this.#form?.removeEventListener('submit', this.#handleSubmit, true);
    this.#form = form;
    form?.addEventListener('submit', this.#handleSubmit, true);
  }

  // The first render waits for the locale, so the shopper never sees English flash by. A locale set while
  // the previous one was loading is loaded too before rendering (no stale language wins the race). A locale that
  // failed (offline for a moment, a file refused) shows English, and is asked for again by the next form that
  // wants it, not by every update of this one.
  protected override async scheduleUpdate(): Promise<void> {
    const want = this.#want();
    if (want !== this.#loaded) {
      const load =
        locales.get(want) ??
        loadLocale(want).catch(() => {
          locales.delete(want);
          return ['en', en] as const;
        });
      locales.set(want, load);
      const loaded = await load;
      // Another language asked for meanwhile: this one is never used (its messages would outlive it).
      if (want !== this.#want()) return this.scheduleUpdate();
      [this.#code, this.#strings] = loaded;
      this.#loaded = want;
    }
    super.scheduleUpdate();
  }

  /** The locale tag wanted now: the `locale` property, else the document's language, else English. */
  #want(): string {
    return this.locale || document.documentElement.lang || 'en';
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('acceptedBrands')) this.acceptedBrands = brandList(this.acceptedBrands);
    // What a token depends on changed since the first render (another key, token URL or config, other accepted
    // brands, the name shown or not): a token held or in flight is no longer this card's, as after an edit. Compared
    // as text, so the same brands in a new array (a framework's re-render) are no change.
    const key = String([this.publicKey, this.tokenUrl, this.configUrl, this.acceptedBrands, this.hideName]);
    const moved = this.hasUpdated && key !== this.#key;
    this.#key = key;
    if (moved) {
      // A name field shown again is a new, empty input: nothing unseen is checked or sent (hidden, it is '').
      if (changed.has('hideName')) this.#holder = '';
      // The config is asked for again (config-url changed).
      this.#config = undefined;
      this.#changed();
    }
    // Another language (the `locale` property, or `<html lang>` without it): messages on show are re-worded in it, as
    // the field's problem now or, for a provider's verdict or a form message, as the same text of the new locale. After
    // a settings change they are checked again: re-worded, or gone when the field has no problem any more (a brand
    // accepted now; a provider's verdict on a card that will be sent again). Either way the live region is emptied,
    // not re-worded: nothing already said is announced again, and a message coming back is.
    // The number names another brand (or none) since the last update: its messages, the security code's length and
    // an accepted brand may differ, so every message on show is checked again, as after a settings change.
    const was = this.#worded;
    const s = this.#strings;
    const recheck = moved || this.#brand !== this.#wordedBrand;
    this.#worded = s;
    this.#wordedBrand = this.#brand;
    if (was !== s || recheck) {
      this.#announce = '';
      const problems: Problems = this.#problems();
      const n = cvvLength(this.#brand);
      const shown = this.#shown as Record<string, string>;
      for (const f in shown)
        shown[f] = problems[f as CardField]?.message ?? (recheck ? '' : reword(was, s, shown[f]!, n));
      // Another language: `errors` in its words, told once the form is rendered in it. Not after a settings change,
      // which told the page in willUpdate in the new words; an edit told it in the words of its moment, the old ones
      // when it came while the new language loaded (a brand it named is a recheck too).
      if (was && was !== s && !moved)
        this.updateComplete.then(() => this.dispatchEvent(new TesseraChangeEvent(this.#detail(problems))));
    }
  }

  // The form value (its name too), validity and states follow every update.
  protected override updated(): void {
    this.#sync();
    if (!this.#ready && this.#input('number')) {
      this.#ready = true;
      this.dispatchEvent(new TesseraReadyEvent(this.#code));
    }
  }

  // LitElement's rendering in two lines (after reflecting attributes, so `:disabled` is current);
  // see docs/decisions/widget.md#widget-reactive-element.
  protected override update(changed: PropertyValues<this>): void {
    super.update(changed);
    // A locale set before the element was defined arrives only now (Lit restores such properties in the first
    // update): it is loaded first, and nothing is shown in the language loaded for the default meanwhile.
    if (this.#loaded !== this.#want()) this.requestUpdate();
    else render(this.#render(), this.renderRoot, { host: this });
  }

  #render() {
    const s = this.#strings;
    const cvvLength = this.#brand?.cvvLength ?? 4;
    this.#said = this.#announce;
    return html`<div class="form" part="form" dir=${s.dir ?? 'ltr'} lang=${this.#code}>
      ${this.#field('number', s.numberLabel, 'cc-number', 99, brandIcon(this.#brand))}
      ${this.#field('expiry', s.expiryLabel, 'cc-exp', 12, nothing, s.expiryPlaceholder)}
      ${this.#field('cvv', s.cvvLabel, 'cc-csc', cvvLength)}
      ${this.hideName ? nothing : this.#field('name', s.nameLabel, 'cc-name', 100)}
      <p id="form-error" class="error" part="error form-error">${this.#shown.form ?? ''}</p>
      <div class="sr" role="status">${this.#said}</div>
    </div>`;
  }

  // The number's and the expiry's maxlength are generous: the browser cuts a paste at maxlength before the widget
  // sees it, which would lose digits of "Card number: 4242 …" or turn "12 / 2030" into "12 / 20"; the formatter
  // keeps the brand's length and `MM / YY` itself (docs/decisions/widget.md#widget-input-edge-cases).
  #field(f: CardField, label: string, autocomplete: string, max: number, icon: unknown = nothing, placeholder = '') {
    const error = this.#shown[f];
    const text = f === 'name';
    return html`<div class="field ${f}" part="field ${f}-field">
      <label for=${f} part="label ${f}-label">${label}</label>
      <div class="control">
        <input
          id=${f}
          part="input ${f}-input"
          autocomplete=${autocomplete}
          inputmode=${text ? 'text' : 'numeric'}
          dir=${text ? 'auto' : 'ltr'}
          maxlength=${max}
          placeholder=${placeholder || nothing}
          spellcheck="false"
          autocapitalize=${text ? 'words' : 'off'}
          aria-invalid=${!!error}
          aria-describedby=${error ? `${f}-error` : nothing}
          ?disabled=${this.matches(':disabled')}
          @input=${this.#handleInput}
          @compositionend=${this.#handleInput}
          @blur=${this.#handleBlur}
          @keydown=${this.#handleKeydown}
          @change=${this.#handleChange}
        />${icon}
      </div>
      <p id="${f}-error" class="error" part="error ${f}-error">${error ?? ''}</p>
    </div>`;
  }

  #input(f?: CardField): HTMLInputElement | null | undefined {
    return this.shadowRoot?.getElementById(f!) as HTMLInputElement | null | undefined;
  }

  // While an IME composes (full-width digits on a Japanese keyboard) the value is left alone: rewriting it
  // mid-composition garbled the digits. The composition's end formats the result as one edit
  // (docs/decisions/widget.md#widget-input-edge-cases).
  #handleInput = (e: Event) => {
    if ((e as InputEvent).isComposing) return;
    const input = e.target as HTMLInputElement;
    const f = input.id as CardField;
    const type = (e as InputEvent).inputType ?? '';
    const caret = input.selectionStart ?? input.value.length;
    let out: Pick<Formatted, 'value' | 'caret' | 'digits'>;
    if (f === 'number') {
      const r = formatNumberEdit(this.#digits, input.value, caret, type);
      this.#digits = r.digits;
      if (r.brand !== this.#brand) {
        this.#brand = r.brand;
        this.requestUpdate();
      }
      out = r;
    } else if (f === 'expiry') {
      out = formatExpiryEdit(this.#expiry, input.value, caret, type);
      this.#expiry = out.digits;
    } else if (f === 'cvv') {
      const r = applyEdit(this.#cvv, input.value, caret, type);
      const digits = r.digits.slice(0, this.#brand?.cvvLength ?? 4);
      out = { value: digits, caret: Math.min(r.caret, digits.length), digits };
      this.#cvv = digits;
    } else {
      this.#holder = input.value;
      out = { value: input.value, caret, digits: '' };
    }
    if (input.value !== out.value) {
      input.value = out.value;
      input.setSelectionRange(out.caret, out.caret);
    }
    this.#edited.add(f);
    this.#changed(f);
  };

  #handleBlur = (e: Event) => {
    const f = (e.target as HTMLInputElement).id as CardField;
    // While a token is held it stands for the card: the security code it cleared is no problem to show.
    if (!this.#edited.has(f) || this.#token) return;
    const message = this.#problems()[f]?.message;
    this.#show(f, message);
    // Not over a failed submit's summary: focus moved out of this field to the first one at fault (see #showAll).
    if (message && !this.#summary) this.#announce = message;
    this.#sync();
  };

  #handleKeydown = (e: KeyboardEvent) => {
    // Inputs in a shadow root are not the form's fields, so Enter would not submit it. Implicit submission as the
    // browser does it for its own inputs: a click on the form's default button (its name and value, formaction
    // and formmethod go with it; nothing when it is disabled), or a plain submit when the form has none.
    const form = this.#internals.form;
    if (e.key === 'Enter' && !e.isComposing && form) {
      e.preventDefault();
      // Not `form.elements`, which leaves out `<input type="image">`: the form's buttons in tree order, wherever
      // they are (a `form` attribute may put one outside it).
      const button = [...(form.getRootNode() as ParentNode).querySelectorAll<HTMLInputElement>('button,input')].find(
        (b) => b.form === form && /^(submit|image)$/.test(b.type),
      );
      button ? button.click() : form.requestSubmit();
    }
  };

  #handleChange = () => {
    this.dispatchEvent(new Event('change', { bubbles: true }));
  };

  // Every card form of the form that has no token yet holds the submission (two payment methods in one form, say):
  // the first of their listeners speaks for all of them, since it stops the event before the others' listeners. Each
  // is checked and tokenized as it would be alone, showing its own messages; the form is submitted again once all
  // of them hold a token (docs/decisions/widget.md#widget-submit).
  #handleSubmit = async (e: SubmitEvent) => {
    const form = e.target as HTMLFormElement;
    const cards = [...form.elements].filter(
      (el): el is TesseraCardForm => el instanceof TesseraCardForm && !el.matches(':disabled'),
    );
    const held = cards.filter((el) => !el.#token);
    // A submit the page cancelled before this listener (a capture listener on the window or the document, its own
    // validation, a consent layer) is left alone: no token is asked for and nothing is submitted. So is a submit event
    // a script dispatched itself (untrusted): it submits nothing in any browser, and the element does not make it a
    // submission (`requestSubmit()` fires a trusted one).
    if (!e.isTrusted || e.defaultPrevented || form !== this.#internals.form) return;
    // Every card is a token already (the page's own requestSubmit() once its tokenize() settled): it goes through, and
    // a submission held meanwhile is not made again. Unless that submission was made already, with a token the page's
    // own tokenize() was given too: a submit of this form with those very tokens is the page's submit of it, dropped
    // once (one token, one submission). A card with a new token since (an edit) makes it a new submission.
    const tokens = `${cards.map((el) => el.#token?.token)}`;
    if (!held[0]) {
      holding.delete(form);
      if (owed.get(form) !== tokens) return;
      owed.delete(form);
    }
    // Hold the submission until the cards are tokens; the page's own submit listeners see only the second one.
    e.preventDefault();
    e.stopImmediatePropagation();
    // A second submit while one is held (double click) is dropped: one token, one submission. A submit while only a
    // `tokenize()` of the page's is in flight is held: it waits for that token and then submits.
    if (!held[0] || holding.has(form)) return;
    holding.add(form);
    // Each failure is already reported (messages under the fields, a tessera-error event); the browser moves focus to
    // the first invalid field only when it validates the form itself, so a `novalidate` form gets it here.
    const failed = await Promise.all(
      held.map((el) =>
        el.tokenize().then(
          () => undefined,
          (error: TesseraCardError) => el.#input(error?.field),
        ),
      ),
    );
    // Not submitted when a card failed (focus goes to it), when the page submitted the form meanwhile, or when a card
    // was taken out of this form meanwhile (removed, moved to another): never without the card.
    if (!holding.delete(form) || failed.some((f) => f !== undefined)) failed.find(Boolean)?.focus();
    else if (held.every((el) => el.#form === form)) {
      try {
        form.requestSubmit(e.submitter);
      } catch {
        form.requestSubmit();
      }
      // The page's own tokenize() was given these tokens: its submit of them, when it comes, is this one again. (A page's
      // submit listener may have reset a card meanwhile: then no submit has these tokens.)
      if (held.some((el) => el.#shared)) owed.set(form, `${cards.map((el) => el.#token?.token)}`);
    }
  };

  /**
   * Shows every field's message (a submit attempt, the browser's validation), from now on after each blur too, and
   * announces the first: what failed, said once. Until the next edit, leaving a field does not replace it: the submit
   * (or the browser) moves focus to the first field at fault, and the field left would otherwise be announced instead.
   */
  #showAll(problems: Problems): void {
    let first: string | undefined;
    this.#summary = true;
    for (const f of FIELDS) {
      const message = problems[f]?.message;
      this.#show(f, message);
      first ||= message;
    }
    this.#say(first);
    this.#edited = new Set(FIELDS);
    this.#sync(problems);
  }

  /**
   * Puts a failure in the live region. One that says it already (a failed submit like the last one) is emptied now and
   * filled 100 ms later, after the empty region was rendered: a live region speaks on a change, and emptying and
   * filling it in one step changed nothing. Not filled after an edit or a reset meanwhile.
   */
  #say(message: string | undefined): void {
    const edits = this.#edits;
    this.#announce = message;
    if (message === this.#said) {
      this.#announce = '';
      setTimeout(() => {
        if (edits === this.#edits) {
          this.#announce = message;
          this.requestUpdate();
        }
      }, 100);
    }
  }

  #show(f: CardField | 'form', message: string | undefined): void {
    if (message) this.#shown[f] = message;
    else delete this.#shown[f];
    this.requestUpdate();
  }

  /** Every current problem, in field order. */
  #problems(): Problems {
    return problems(
      this.#strings,
      this.#digits,
      this.#expiry,
      this.#cvv,
      this.#holder,
      this.#brand,
      this.acceptedBrands,
    );
  }

  /** After any edit: the token no longer matches the card; re-check, update the form and tell the page. */
  #changed(f?: CardField): void {
    this.#token = this.#summary = undefined;
    this.#edits++;
    const problems = this.#problems();
    if (f && this.#shown[f] && !problems[f]) {
      // Cleared with the message, so that the same error coming back is announced again.
      this.#announce = '';
      this.#show(f, undefined);
    }
    if (this.#shown.form) this.#show('form', undefined);
    this.#sync(problems);
    this.dispatchEvent(new TesseraChangeEvent(this.#detail(problems)));
  }

  #detail(errors: Problems): CardChangeDetail {
    const brand = this.#brand;
    const complete =
      !!brand &&
      brand.lengths.includes(this.#digits.length) &&
      this.#expiry.length === 4 &&
      this.#cvv.length === brand.cvvLength;
    return {
      brand: brand?.id ?? null,
      complete,
      valid: Object.keys(errors).length === 0,
      empty: !(this.#digits || this.#expiry || this.#cvv || this.#holder),
      errors,
    };
  }

  /** Mirrors the card into the form: its value (the token or nothing), its validity and the user-invalid state. */
  #sync(problems = this.#problems()): void {
    const internals = this.#internals;
    let value: FormData | null = null;
    if (this.#token) {
      value = new FormData();
      value.append(this.name, this.#token.token);
    }
    internals.setFormValue(value);
    const first = this.#token ? undefined : FIELDS.find((f) => problems[f]);
    if (first) {
      const { code, message } = problems[first]!;
      const anchor = this.#input(first);
      internals.setValidity(
        code === 'required' ? { valueMissing: true } : { customError: true },
        message,
        anchor ?? undefined,
      );
    } else {
      internals.setValidity({});
    }
    const states = internals.states;
    if (FIELDS.some((f) => this.#shown[f])) states.add('user-invalid');
    else states.delete('user-invalid');
  }

  /** Shows a failure and dispatches it; in sandbox mode a misconfiguration is also warned on the console. */
  #fail(failure: Failure): TesseraCardError {
    // Plain data without undefined entries: what the event and the error carry.
    const { hint, ...detail } = JSON.parse(JSON.stringify(failure)) as CardErrorDetail & { hint?: string };
    // A hint comes with a config reason only (transport.ts), so the code is one of WidgetWarningCode.
    if (hint) warnOnce(`TESSERA_${detail.reason?.toUpperCase()}` as WidgetWarningCode, hint);
    this.#show(detail.field ?? 'form', detail.message);
    this.#say(detail.message);
    this.#sync();
    this.dispatchEvent(new TesseraErrorEvent(detail));
    return new TesseraCardError(detail);
  }

  async #tokenize(): Promise<CardToken> {
    // Emptied first, so a failure like the previous one is announced again (a live region speaks on a change).
    this.#announce = '';
    this.requestUpdate();
    const problems = this.#problems();
    const first = FIELDS.find((f) => problems[f]);
    if (first) {
      this.#showAll(problems);
      throw this.#fail({ code: 'validation', field: first, message: problems[first]!.message });
    }
    // The card checked just now is the one sent, whatever is typed while the config loads (compared below).
    const s = this.#strings;
    const typed = this.#edits;
    const digits = this.#digits;
    const brand = this.#brand!;
    const { month, year } = parseExpiryDigits(this.#expiry);
    const body = JSON.stringify({
      number: digits,
      expiryMonth: month,
      expiryYear: year,
      cvv: this.#cvv,
      name: this.#holder.trim() || undefined,
    });
    let answer: TokenAnswer | undefined;
    let failed: Failure | undefined;
    try {
      let config: RemoteConfig | undefined;
      if ((!this.publicKey || !this.tokenUrl) && this.configUrl) {
        this.#config ??= loadConfig(this.configUrl, this.publicKey, s);
        config = await this.#config;
      }
      answer = await requestToken(endpoint(this.publicKey, this.tokenUrl, config, s), body, s, brand);
    } catch (failure) {
      // Asked again next time: the helper may have been fixed or mounted meanwhile.
      this.#config = undefined;
      // Failures are plain objects with a code (transport.ts); anything else is a bug, thrown as it is.
      if (!(failure as Failure).code) throw failure;
      failed = failure as Failure;
    }
    // Edited while the config loaded or the request was in flight (any field): that token, or that failure, is not
    // the card's, so the card as it is now is checked and asked for instead; nothing resolves with the token of a
    // changed card, nor shows a failure of the card it was. A reset meanwhile (nothing typed since) leaves no card:
    // rejected as one, without showing it any message.
    if (this.#edits !== typed) {
      if (!this.#edited.size) throw new TesseraCardError({ code: 'validation', message: s.numberRequired });
      return this.#tokenize();
    }
    // Worded in the language of the request's start: in the one chosen meanwhile (`<html lang>` changed), if any.
    if (failed) throw this.#fail({ ...failed, message: reword(s, this.#strings, failed.message, brand.cvvLength) });
    const { id, card } = answer!;
    const result: CardToken = {
      token: id,
      brand: brand.id,
      last4: str(card.last4) ?? digits.slice(-4),
      bin: str(card.bin) ?? digits.slice(0, 6),
      expiryMonth: month,
      expiryYear: year,
    };
    const cvv = this.#input('cvv');
    if (cvv) cvv.value = '';
    this.#cvv = '';
    this.#token = result;
    this.#shown = {};
    this.requestUpdate();
    this.#sync();
    this.dispatchEvent(new TesseraTokenEvent(result));
    return result;
  }
}
