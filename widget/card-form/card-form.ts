import { html, LitElement } from 'lit';
import { styles } from './card-form.styles.js';

/**
 * A card field that collects number, expiry and CVV in the shopper's browser.
 *
 * @summary Card number, expiry and CVV inputs, tokenized with the provider's public key.
 * @csspart number-input - The card number input.
 * @csspart expiry-input - The expiry (MM / YY) input.
 * @csspart cvv-input - The CVV input.
 */
export class TesseraCardForm extends LitElement {
  static override styles = styles;

  static override properties = {
    publicKey: { type: String, attribute: 'public-key' },
  };

  /** The provider's public key (`pk_…`) used to create card tokens. */
  declare publicKey: string;

  constructor() {
    super();
    this.publicKey = '';
  }

  override render() {
    return html`
      <div class="field">
        <label for="number">Card number</label>
        <input id="number" part="number-input" inputmode="numeric" autocomplete="cc-number" />
      </div>
      <div class="field">
        <label for="expiry">Expiry (MM / YY)</label>
        <input id="expiry" part="expiry-input" inputmode="numeric" autocomplete="cc-exp" />
      </div>
      <div class="field">
        <label for="cvv">Security code</label>
        <input id="cvv" part="cvv-input" inputmode="numeric" autocomplete="cc-csc" />
      </div>
    `;
  }
}
