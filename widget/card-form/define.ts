import { TesseraCardForm } from './card-form.js';

export * from './events.js';
export { TesseraCardForm };

const TAG = 'tessera-card-form';

declare global {
  interface HTMLElementTagNameMap {
    'tessera-card-form': TesseraCardForm;
  }
}

// Two script tags on one page must not throw: the second define warns once and returns.
if (customElements.get(TAG)) {
  console.warn(`[tessera] TESSERA_ALREADY_DEFINED: load the <${TAG}> script once per page.`);
} else {
  customElements.define(TAG, TesseraCardForm);
}
