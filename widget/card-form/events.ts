/**
 * The events `<tessera-card-form>` dispatches. Each bubbles and is composed,
 * so a listener outside any number of shadow roots receives it. No detail ever
 * holds the card number or the security code.
 */
import type { BrandId } from '../../shared/card/brands.js';

/** The inputs of the card form. */
export type CardField = 'number' | 'expiry' | 'cvv' | 'name';

/** A problem with one field: a stable code and the localized message shown to the shopper. */
export interface FieldError {
  /**
   * `required`, `invalid_characters`, `unknown_brand`, `length`, `luhn`, `brand_not_accepted` (number);
   * `required`, `incomplete`, `month`, `past`, `too_far` (expiry); `required`, `length` (cvv);
   * `invalid_characters` (name); `provider` when the provider refused the field.
   */
  readonly code: string;
  readonly message: string;
}

/** Detail of {@link TesseraChangeEvent}. */
export interface CardChangeDetail {
  /** The brand detected from the leading digits, or null while unknown. */
  readonly brand: BrandId | null;
  /** Whether every required field holds as many characters as it can (they may still be invalid). */
  readonly complete: boolean;
  /** Whether the card can be tokenized as entered. */
  readonly valid: boolean;
  /** Whether every field is empty. */
  readonly empty: boolean;
  /** The current problem of each field that has one, whether or not it is shown yet. */
  readonly errors: Readonly<Partial<Record<CardField, FieldError>>>;
}

/** What {@link TesseraCardForm.tokenize} resolves with, and the detail of {@link TesseraTokenEvent}. */
export interface CardToken {
  /** The single-use `card_tok_…` token (valid 15 minutes). */
  readonly token: string;
  readonly brand: BrandId;
  readonly last4: string;
  /** The issuer identification number (first six digits). */
  readonly bin: string;
  readonly expiryMonth: number;
  /** Four-digit year. */
  readonly expiryYear: number;
}

/** The kind of failure: see {@link CardErrorDetail}. */
export type CardErrorCode = 'validation' | 'network' | 'provider' | 'config';

/**
 * What is misconfigured, with a `config` error: no public key, no token URL, a token or config URL that is not
 * `https:` (or `http:` to loopback), a config URL that answers anything but the helper's JSON (a 404 page, the
 * site's HTML), a token URL that answers anything but a card token or a provider error (a 404, a page).
 */
export type ConfigReason =
  | 'no_public_key'
  | 'no_token_url'
  | 'insecure_url'
  | 'config_unavailable'
  | 'token_endpoint_invalid';

/** Detail of {@link TesseraErrorEvent}, and the shape of {@link TesseraCardError}. */
export interface CardErrorDetail {
  /**
   * `validation`: the card is incomplete or invalid; `network`: the token endpoint could not be reached;
   * `provider`: the provider answered with an error; `config`: the element is misconfigured
   * (see `reason`).
   */
  readonly code: CardErrorCode;
  /** With `config`: what is misconfigured. */
  readonly reason?: ConfigReason;
  /** With `config`: the URL at fault (the config URL or the token URL), as set or resolved. */
  readonly url?: string;
  /** The localized message shown to the shopper. */
  readonly message: string;
  /** The field the failure belongs to, when known. */
  readonly field?: CardField;
  /** HTTP status of the provider's answer (or, with `config`, of the URL at fault). */
  readonly status?: number;
  /** The provider's `errorCode`. */
  readonly providerCode?: string;
  /** The provider's `requestId`, for support. */
  readonly requestId?: string;
}

/** The error `tokenize()` rejects with. Carries no card data. */
export class TesseraCardError extends Error implements CardErrorDetail {
  declare readonly code: CardErrorCode;
  declare readonly reason?: ConfigReason;
  declare readonly url?: string;
  declare readonly field?: CardField;
  declare readonly status?: number;
  declare readonly providerCode?: string;
  declare readonly requestId?: string;

  constructor(detail: CardErrorDetail) {
    super(detail.message);
    this.name = 'TesseraCardError';
    Object.assign(this, detail);
  }
}

const init = <T>(detail: T) => ({ bubbles: true, composed: true, detail });

/** Fired once the element has rendered in its locale and can take input. `detail.locale` is the locale shown. */
export class TesseraReadyEvent extends CustomEvent<{ readonly locale: string }> {
  constructor(locale: string) {
    super('tessera-ready', init({ locale }));
  }
}

/** Fired on every edit of a field, on reset, and when a setting the token depends on changes. */
export class TesseraChangeEvent extends CustomEvent<CardChangeDetail> {
  constructor(detail: CardChangeDetail) {
    super('tessera-change', init(detail));
  }
}

/** Fired when a card token has been created. */
export class TesseraTokenEvent extends CustomEvent<CardToken> {
  constructor(detail: CardToken) {
    super('tessera-token', init(detail));
  }
}

/** Fired when tokenizing fails or the configuration is unusable. */
export class TesseraErrorEvent extends CustomEvent<CardErrorDetail> {
  constructor(detail: CardErrorDetail) {
    super('tessera-error', init(detail));
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'tessera-ready': TesseraReadyEvent;
    'tessera-change': TesseraChangeEvent;
    'tessera-token': TesseraTokenEvent;
    'tessera-error': TesseraErrorEvent;
  }
}
