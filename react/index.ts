// A client component for React Server Components (Next.js App Router): a server component may render it.
'use client';

/**
 * `tessera/react`: `<TesseraCardForm>`, the React component of `<tessera-card-form>` (made with `@lit/react`).
 * Properties go to the element as properties, each event of the element has an `on…` prop, and a `ref` is the
 * element itself (for `tokenize()`, `reset()`, `focus()`).
 *
 * Safe to import on the server (Node, no DOM): the element is defined only where there is a `document`, so a
 * server render writes a plain `<tessera-card-form>` tag that the browser upgrades. Needs `react` 19 and
 * `@lit/react` installed beside `tessera` (docs/decisions/widget.md#react-wrapper).
 *
 * @example
 * import { TesseraCardForm } from 'tessera/react';
 *
 * <TesseraCardForm
 *   publicKey="pk_…"
 *   tokenUrl="https://…/api2/v2/tokens/card"
 *   onTesseraToken={(e) => pay(e.detail.token)}
 *   onTesseraError={(e) => setError(e.detail.message)}
 * />
 */
import { createComponent, type EventName } from '@lit/react';
import React from 'react';
import { TesseraCardForm as TesseraCardFormElement } from '../widget/card-form/card-form.js';
import type {
  TesseraChangeEvent,
  TesseraErrorEvent,
  TesseraReadyEvent,
  TesseraTokenEvent,
} from '../widget/card-form/events.js';

export * from '../widget/card-form/events.js';
export type { TesseraCardFormAttributes } from './jsx.js';
export type { TesseraCardFormElement };

const TAG = 'tessera-card-form';

/** The element's properties a React prop sets (the same names, camelCase). */
export type TesseraCardFormElementProps = Partial<
  Pick<
    TesseraCardFormElement,
    'publicKey' | 'tokenUrl' | 'configUrl' | 'locale' | 'name' | 'acceptedBrands' | 'hideName' | 'disabled'
  >
>;

/** One prop per event of the element (custom-elements.json), each called with the event itself. */
export interface TesseraCardFormEventProps {
  /** `tessera-ready`: rendered in its locale (`e.detail.locale`) and ready for input. */
  onTesseraReady?: (event: TesseraReadyEvent) => void;
  /** `tessera-change`: a field changed, the form was reset or a setting the token depends on changed (`brand`, `complete`, `valid`, `empty`, `errors`). */
  onTesseraChange?: (event: TesseraChangeEvent) => void;
  /** `tessera-token`: a card token was created (`e.detail.token` is the `card_tok_…`). */
  onTesseraToken?: (event: TesseraTokenEvent) => void;
  /** `tessera-error`: tokenizing failed or the configuration is unusable (`code`, `message`, `field`, …). */
  onTesseraError?: (event: TesseraErrorEvent) => void;
  /** The native `change` of the inner inputs, re-dispatched by the element (not React's `onChange` semantics). */
  onChange?: (event: Event) => void;
}

/** Props of {@link TesseraCardForm}. */
export type TesseraCardFormProps = Omit<
  React.HTMLAttributes<TesseraCardFormElement>,
  keyof TesseraCardFormEventProps | keyof TesseraCardFormElementProps
> &
  TesseraCardFormElementProps &
  TesseraCardFormEventProps &
  React.RefAttributes<TesseraCardFormElement>;

const events = {
  onTesseraReady: 'tessera-ready' as EventName<TesseraReadyEvent>,
  onTesseraChange: 'tessera-change' as EventName<TesseraChangeEvent>,
  onTesseraToken: 'tessera-token' as EventName<TesseraTokenEvent>,
  onTesseraError: 'tessera-error' as EventName<TesseraErrorEvent>,
  onChange: 'change' as EventName<Event>,
} satisfies Record<keyof TesseraCardFormEventProps, string>;

// Lit creates the property accessors when the class is finalized (reading observedAttributes does it; define
// does it in a browser). @lit/react routes a prop to the element only if the prototype has it, so finalize here:
// a server render then writes no `publicKey="…"` attribute, and a page whose tag another copy defined still works.
void TesseraCardFormElement.observedAttributes;

// Defined in a browser only. On the server Lit's DOM shim gives Node a `customElements` registry, but nothing
// renders there; another copy of the element (the script-tag bundle) may have defined the tag first, which is fine.
if (typeof document !== 'undefined' && typeof customElements !== 'undefined' && !customElements.get(TAG)) {
  customElements.define(TAG, TesseraCardFormElement);
}

/**
 * `<tessera-card-form>` as a React component. Props set the element's properties (`publicKey`, `tokenUrl`,
 * `configUrl`, `locale`, `name`, `acceptedBrands`, `hideName`, `disabled`); `onTesseraReady`,
 * `onTesseraChange`, `onTesseraToken`, `onTesseraError` and `onChange` listen to its events; `ref` is the element.
 */
export const TesseraCardForm: React.ForwardRefExoticComponent<TesseraCardFormProps> = createComponent({
  react: React,
  tagName: TAG,
  elementClass: TesseraCardFormElement,
  events,
  displayName: 'TesseraCardForm',
});
