/**
 * The widget's user-facing text. English is built into the bundle; every other
 * locale is a file of the same shape loaded on demand (see ./load.ts).
 * `{brand}` and `{n}` are replaced at run time.
 */
export interface Strings {
  /** `rtl` for right-to-left scripts; omitted for left-to-right. */
  readonly dir?: 'rtl';
  readonly numberLabel: string;
  readonly expiryLabel: string;
  readonly expiryPlaceholder: string;
  readonly cvvLabel: string;
  readonly nameLabel: string;
  readonly numberRequired: string;
  readonly numberInvalid: string;
  readonly numberIncomplete: string;
  /** `{brand}` is the brand's name, e.g. "American Express". */
  readonly brandNotAccepted: string;
  readonly expiryRequired: string;
  readonly expiryInvalid: string;
  readonly expiryPast: string;
  readonly expiryTooFar: string;
  readonly cvvRequired: string;
  /**
   * `{n}` is the number of digits the brand's security code has, or `3–4` before a brand is known (either is taken);
   * a translation must read right with both.
   */
  readonly cvvInvalid: string;
  readonly nameInvalid: string;
  readonly network: string;
  readonly declined: string;
  readonly unavailable: string;
}

export const en: Strings = {
  numberLabel: 'Card number',
  expiryLabel: 'Expiry date',
  expiryPlaceholder: 'MM / YY',
  cvvLabel: 'Security code',
  nameLabel: 'Name on card',
  numberRequired: 'Enter your card number.',
  numberInvalid: 'Enter a valid card number.',
  numberIncomplete: 'Your card number is incomplete.',
  brandNotAccepted: '{brand} cards are not accepted.',
  expiryRequired: 'Enter the expiry date.',
  expiryInvalid: 'Enter the expiry date as MM / YY.',
  expiryPast: 'This card has expired.',
  expiryTooFar: 'The expiry year is too far ahead.',
  cvvRequired: 'Enter the security code.',
  cvvInvalid: 'The security code must be {n} digits.',
  nameInvalid: 'Check the name on the card.',
  network: 'Could not reach the payment service. Check your connection and try again.',
  declined: 'The card was not accepted. Check the details and try again.',
  unavailable: 'Card payments are unavailable right now.',
};
