// A client component for React Server Components (Next.js App Router): a server component may render it.
'use client';

/**
 * `tessera-pay/react`: `<TesseraCardForm>`, the React component of `<tessera-card-form>` (made with `@lit/react`).
 * Properties go to the element as properties, each event of the element has an `on…` prop, and a `ref` is the
 * element itself (for `tokenize()`, `reset()`, `focus()`).
 *
 * Safe to import on the server (Node, no DOM): the element is defined only where there is a `document`, so a
 * server render writes a plain `<tessera-card-form>` tag that the browser upgrades. Needs `react` 19 and
 * `@lit/react` installed beside `tessera-pay` (docs/decisions/widget.md#react-wrapper).
 *
 * @example
 * import { TesseraCardForm } from 'tessera-pay/react';
 *
 * <TesseraCardForm
 *   publicKey="pk_…"
 *   tokenUrl="https://…/api2/v2/tokens/card"
 *   onTesseraToken={(e) => pay(e.detail.token)}
 *   onTesseraError={(e) => setError(e.detail.message)}
 * />
 */
import { createComponent } from '@lit/react';
import React, { type ForwardedRef } from 'react';
import type { BrandId } from '../shared/card/brands.js';
import { TesseraCardForm as TesseraCardFormElement } from '../widget/card-form/card-form.js';
import type {
  TesseraChangeEvent,
  TesseraErrorEvent,
  TesseraReadyEvent,
  TesseraTokenEvent,
} from '../widget/card-form/events.js';

export * from '../widget/card-form/events.js';
export type { TesseraCardFormAttributes } from './jsx.js';
// The entry's list is docs/frameworks.md (React, Exports): the component, its props types, the element's type, its
// events and their detail types, and `BrandId` (docs/decisions/tooling.md#entry-exports).
export type { BrandId, TesseraCardFormElement };

const TAG = 'tessera-card-form';

/**
 * The element's properties a React prop sets (the same names, camelCase). `acceptedBrands` takes what the
 * element's property takes: an array of brand ids (a `readonly` one too) or a string of them (`"visa mastercard"`).
 */
export type TesseraCardFormElementProps = Partial<
  Pick<TesseraCardFormElement, 'publicKey' | 'tokenUrl' | 'configUrl' | 'locale' | 'name' | 'hideName' | 'disabled'> & {
    acceptedBrands: string | readonly BrandId[];
  }
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
  onTesseraReady: 'tessera-ready',
  onTesseraChange: 'tessera-change',
  onTesseraToken: 'tessera-token',
  onTesseraError: 'tessera-error',
  onChange: 'change',
} as const satisfies Record<keyof TesseraCardFormEventProps, string>;

/**
 * What each property is on a new element: a prop given as `undefined` (or `null`), or no longer given, sets it
 * back to this, as React removes an attribute it no longer renders. (@lit/react alone would assign `undefined`:
 * `name` then became the field name "undefined".)
 */
const defaults: Required<{ [K in keyof TesseraCardFormElementProps]: NonNullable<TesseraCardFormElementProps[K]> }> = {
  publicKey: '',
  tokenUrl: '',
  configUrl: '',
  locale: '',
  name: 'cardToken',
  acceptedBrands: [],
  hideName: false,
  disabled: false,
};

// Lit creates the property accessors when the class is finalized (reading observedAttributes does it; define
// does it in a browser). @lit/react routes a prop to the element only if the prototype has it, so finalize here:
// a server render then writes no `publicKey="…"` attribute, and a page whose tag another copy defined still works.
void TesseraCardFormElement.observedAttributes;

// Defined in a browser only. On the server Lit's DOM shim gives Node a `customElements` registry, but nothing
// renders there; another copy of the element (the script-tag bundle) may have defined the tag first, which is fine.
if (typeof document !== 'undefined' && typeof customElements !== 'undefined' && !customElements.get(TAG)) {
  customElements.define(TAG, TesseraCardFormElement);
}

/** The element with its properties set by @lit/react; the event props are handled below. */
const Element = createComponent({
  react: React,
  tagName: TAG,
  elementClass: TesseraCardFormElement,
  displayName: 'TesseraCardForm',
});

type EventProp = keyof TesseraCardFormEventProps;
type Handlers = { [P in EventProp]?: (event: Event) => void };

/**
 * `<tessera-card-form>` as a React component. Props set the element's properties (`publicKey`, `tokenUrl`,
 * `configUrl`, `locale`, `name`, `acceptedBrands`, `hideName`, `disabled`); `onTesseraReady`,
 * `onTesseraChange`, `onTesseraToken`, `onTesseraError` and `onChange` listen to its events; `ref` is the element.
 *
 * The listeners are added when the component mounts and removed when it unmounts (@lit/react's never are: the
 * props of an unmounted checkout were still called, a token arriving after navigating away among them); each
 * calls the handler of the latest render, so a new function each render is no new listener and no stale closure.
 */
export const TesseraCardForm: React.ForwardRefExoticComponent<TesseraCardFormProps> = React.forwardRef(
  function TesseraCardForm(props: TesseraCardFormProps, ref: ForwardedRef<TesseraCardFormElement>) {
    const element = React.useRef<TesseraCardFormElement | null>(null);
    const handlers = React.useRef<Handlers>({});
    // Properties given by some render of this component: one given as undefined, or left out later, is reset.
    const given = React.useRef(new Set<string>()).current;
    const now: Handlers = {};
    const rest: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(props)) {
      if (Object.hasOwn(events, key)) now[key as EventProp] = value as Handlers[EventProp];
      else if (Object.hasOwn(defaults, key)) given.add(key);
      else if (key !== 'ref') rest[key] = value;
    }
    for (const key of given) rest[key] = props[key as keyof typeof defaults] ?? defaults[key as keyof typeof defaults];
    React.useLayoutEffect(() => {
      handlers.current = now;
    });
    React.useLayoutEffect(() => {
      const el = element.current;
      if (!el) return;
      const listeners = Object.entries(events).map(([prop, type]) => {
        const listener = (event: Event) => handlers.current[prop as EventProp]?.(event);
        el.addEventListener(type, listener);
        return () => el.removeEventListener(type, listener);
      });
      return () => {
        for (const remove of listeners) remove();
      };
    }, []);
    const setRef = React.useCallback(
      (node: TesseraCardFormElement | null) => {
        element.current = node;
        if (typeof ref === 'function') ref(node);
        else if (ref) ref.current = node;
      },
      [ref],
    );
    return React.createElement(Element, { ...rest, ref: setRef });
  },
);
TesseraCardForm.displayName = 'TesseraCardForm';
