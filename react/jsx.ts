/**
 * JSX typings for `<tessera-card-form>` used directly in React 19 (without the wrapper). React 19 passes a
 * custom element's props as attributes (or properties the element has) and an `on<event-name>` function prop
 * as a listener of `<event-name>`. Importing `tessera-pay/react` anywhere in a project (even `import type {} from
 * 'tessera-pay/react'`) brings these typings in.
 *
 * @example
 * <tessera-card-form public-key="pk_…" token-url="https://…/api2/v2/tokens/card"
 *   ontessera-token={(e) => pay(e.detail.token)} />
 */
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { BrandId } from '../shared/card/brands.js';
import type { TesseraCardForm } from '../widget/card-form/card-form.js';
import type {
  TesseraChangeEvent,
  TesseraErrorEvent,
  TesseraReadyEvent,
  TesseraTokenEvent,
} from '../widget/card-form/events.js';

/** The attributes and event listeners of `<tessera-card-form>` in React JSX. */
export interface TesseraCardFormAttributes extends DetailedHTMLProps<HTMLAttributes<TesseraCardForm>, TesseraCardForm> {
  /** The provider's public key (`pk_…`). */
  'public-key'?: string;
  /** Full URL of the provider's card-token endpoint; `https:` except to loopback. */
  'token-url'?: string;
  /** URL of the helper's `/config`, used for whichever of `public-key` and `token-url` is not set. */
  'config-url'?: string;
  /** BCP 47 locale of the texts; empty means the document's `lang`. */
  locale?: string;
  /** Name of the form field that carries the token (default `cardToken`). */
  name?: string;
  /** Accepted brand ids separated by spaces or commas (`"visa mastercard"`); absent accepts every brand. */
  'accepted-brands'?: string | readonly BrandId[];
  /** Hides the optional cardholder name field. */
  'hide-name'?: boolean;
  /** Disables every input. */
  disabled?: boolean;
  'ontessera-ready'?: (event: TesseraReadyEvent) => void;
  'ontessera-change'?: (event: TesseraChangeEvent) => void;
  'ontessera-token'?: (event: TesseraTokenEvent) => void;
  'ontessera-error'?: (event: TesseraErrorEvent) => void;
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'tessera-card-form': TesseraCardFormAttributes;
    }
  }
}
