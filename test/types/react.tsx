/**
 * Consumer type test of `tessera-pay/react` (compiled by `npm run check`; never run): the wrapper's props, event
 * props and ref, and `<tessera-card-form>` used directly in JSX. Each `@ts-expect-error` is misuse that must
 * not compile; test/node/project/consumer.test.ts checks the same against the packed package.
 */
import { useRef } from 'react';
import {
  type CardToken,
  TesseraCardForm,
  type TesseraCardFormElement,
  type TesseraErrorEvent,
} from '../../react/index.js';

export function Checkout({ pay }: { pay: (token: string) => void }) {
  const ref = useRef<TesseraCardFormElement>(null);
  const onError = (e: TesseraErrorEvent) => console.warn(e.detail.code, e.detail.message);
  return (
    <form onSubmit={() => ref.current?.tokenize().then((t: CardToken) => pay(t.token))}>
      <TesseraCardForm
        ref={ref}
        publicKey="pk_test_123"
        tokenUrl="https://sandbox.example/api2/v2/tokens/card"
        acceptedBrands={['visa', 'mastercard']}
        hideName
        className="card"
        onTesseraReady={(e) => e.detail.locale.toUpperCase()}
        onTesseraChange={(e) => e.detail.valid && e.detail.brand}
        onTesseraToken={(e) => pay(e.detail.token)}
        onTesseraError={onError}
      />
      <tessera-card-form
        public-key="pk_test_123"
        token-url="https://sandbox.example/api2/v2/tokens/card"
        accepted-brands="visa mastercard"
        hide-name
        ontessera-token={(e) => pay(e.detail.token)}
        ontessera-error={(e) => e.detail.requestId}
      />
      {/* @ts-expect-error publicKey is a string */}
      <TesseraCardForm publicKey={42} />
      {/* @ts-expect-error not a brand id */}
      <TesseraCardForm acceptedBrands={['visa', 'bitcoin']} />
      {/* @ts-expect-error the token event's detail has no card number */}
      <TesseraCardForm onTesseraToken={(e) => e.detail.number} />
      {/* @ts-expect-error form is read-only on the element, not a prop */}
      <TesseraCardForm form={null} />
      {/* @ts-expect-error public-key is a string */}
      <tessera-card-form public-key={42} />
      {/* @ts-expect-error hide-name is a boolean */}
      <tessera-card-form hide-name="yes" />
    </form>
  );
}
