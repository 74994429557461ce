import { TesseraCardForm } from './card-form.js';
import { warnOnce } from './warn.js';

export * from './events.js';
export { TesseraCardForm };

declare global {
  interface HTMLElementTagNameMap {
    'tessera-card-form': TesseraCardForm;
  }
}

// Two script tags on one page must not throw: the second define warns once and returns.
if (customElements.get('tessera-card-form')) {
  warnOnce('TESSERA_ALREADY_DEFINED', 'load the <tessera-card-form> script once per page.');
} else {
  customElements.define('tessera-card-form', TesseraCardForm);
}
