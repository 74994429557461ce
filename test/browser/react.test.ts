// tessera-pay/react in a real React 19 tree, paying against the real sandbox. Written with createElement (no JSX
// build step). The wrapper is the only module of ours this file runs, so it is what defines the element.

import { expect } from '@open-wc/testing';
import { executeServerCommand, sendKeys } from '@web/test-runner-commands';
import React from 'react';
import ReactDOM from 'react-dom';
import ReactDOMClient from 'react-dom/client';
import { TesseraCardForm, type TesseraCardFormElement } from '../../react/index.js';
import type { BrandId } from '../../shared/card/brands.js';
import type { CardErrorDetail, CardField, CardToken } from '../../widget/card-form/events.js';

const { createElement: h } = React;

interface Sandbox {
  readonly publicKey: string;
  readonly tokenUrl: string;
}
const sandbox = (): Promise<Sandbox> => fetch('/__sandbox.json').then((r) => r.json() as Promise<Sandbox>);

/** An expiry (MMYY digits) two years ahead. */
function futureExpiry(): string {
  const d = new Date();
  return `${String(d.getMonth() + 1).padStart(2, '0')}${String((d.getFullYear() + 2) % 100).padStart(2, '0')}`;
}

async function typeInto(el: TesseraCardFormElement, field: CardField, text: string): Promise<void> {
  const input = el.shadowRoot!.querySelector<HTMLInputElement>(`#${field}`);
  if (!input) throw new Error(`no ${field} input`);
  input.focus();
  await sendKeys({ type: text });
}

/** What the React props received. */
interface Received {
  tokens: CardToken[];
  errors: CardErrorDetail[];
  ready: string[];
  changes: number;
  submits: number;
}

interface Mounted {
  readonly el: TesseraCardFormElement;
  readonly ref: React.RefObject<TesseraCardFormElement | null>;
  readonly received: Received;
  readonly render: (props?: Partial<React.ComponentProps<typeof TesseraCardForm>>) => void;
  /** Resolves on the next call of the given prop. */
  readonly next: (prop: 'token' | 'error') => Promise<void>;
}

let root: ReactDOMClient.Root | undefined;
let host: HTMLElement | undefined;

/** Mounts `<form><TesseraCardForm …/><button/></form>` with react-dom/client and waits for the element. */
async function mount(props: Partial<React.ComponentProps<typeof TesseraCardForm>> = {}): Promise<Mounted> {
  const { publicKey, tokenUrl } = await sandbox();
  host = document.createElement('div');
  document.body.append(host);
  const mounted = ReactDOMClient.createRoot(host);
  root = mounted;
  const received: Received = { tokens: [], errors: [], ready: [], changes: 0, submits: 0 };
  const waiting: { token: (() => void)[]; error: (() => void)[] } = { token: [], error: [] };
  const ref = React.createRef<TesseraCardFormElement>();
  const render = (extra: Partial<React.ComponentProps<typeof TesseraCardForm>> = {}) => {
    ReactDOM.flushSync(() =>
      mounted.render(
        h(
          'form',
          {
            onSubmit: (e: React.FormEvent) => {
              e.preventDefault();
              received.submits++;
            },
          },
          h(TesseraCardForm, {
            ref,
            publicKey,
            tokenUrl,
            hideName: true,
            onTesseraReady: (e) => received.ready.push(e.detail.locale),
            onTesseraChange: () => received.changes++,
            onTesseraToken: (e) => {
              received.tokens.push(e.detail);
              for (const f of waiting.token.splice(0)) f();
            },
            onTesseraError: (e) => {
              received.errors.push(e.detail);
              for (const f of waiting.error.splice(0)) f();
            },
            ...props,
            ...extra,
          }),
          h('button', { type: 'submit' }, 'Pay'),
        ),
      ),
    );
  };
  render();
  const el = host.querySelector('tessera-card-form')!;
  await el.updateComplete;
  const next = (prop: 'token' | 'error') => new Promise<void>((resolve) => waiting[prop].push(resolve));
  return { el, ref, received, render, next };
}

describe('tessera-pay/react <TesseraCardForm>', () => {
  afterEach(async () => {
    ReactDOM.flushSync(() => root?.unmount());
    host?.remove();
    await executeServerCommand('sandbox-reset');
  });

  it('is the element, defined by the wrapper module, with props set as properties and the ref on it', async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const { el, ref, received } = await mount({ className: 'pay', locale: 'en' });
    expect(customElements.get('tessera-card-form')).to.be.a('function');
    expect(el).to.be.instanceOf(customElements.get('tessera-card-form')!);
    expect(ref.current).to.equal(el);
    expect(el.publicKey).to.equal(publicKey);
    expect(el.tokenUrl).to.equal(tokenUrl);
    expect(el.hideName).to.equal(true);
    expect(el.className).to.equal('pay');
    // Properties, not stray attributes: the element's own attributes are not written by the wrapper.
    expect(el.hasAttribute('publicKey')).to.equal(false);
    expect(el.shadowRoot!.querySelector('#name')).to.equal(null);
    await new Promise((resolve) => setTimeout(resolve));
    expect(received.ready).to.deep.equal(['en']);
  });

  it('typing a test card and submitting the form gives onTesseraToken the card_tok_ token', async () => {
    const { el, received, next } = await mount();
    await typeInto(el, 'number', '4242424242424242');
    await typeInto(el, 'expiry', futureExpiry());
    await typeInto(el, 'cvv', '123');
    expect(received.changes).to.be.greaterThan(0);
    const token = next('token');
    el.closest('form')!.querySelector('button')!.click();
    await token;
    expect(received.tokens).to.have.length(1);
    const [detail] = received.tokens;
    expect(detail!.token).to.match(/^card_tok_/);
    expect(detail).to.include({ brand: 'visa', last4: '4242', bin: '424242' });
    expect(received.errors).to.deep.equal([]);
    // The element submits the form again once it holds the token; React's onSubmit sees that submission.
    await new Promise((resolve) => requestAnimationFrame(resolve));
    expect(received.submits).to.equal(1);
  });

  it('a card the provider refuses (expired on the sandbox clock) reaches onTesseraError', async () => {
    const { el, received, next } = await mount();
    await typeInto(el, 'number', '4242424242424242');
    await typeInto(el, 'expiry', futureExpiry());
    await typeInto(el, 'cvv', '123');
    await executeServerCommand('sandbox-advance', { seconds: 30 * 366 * 24 * 3600 });
    const error = next('error');
    el.closest('form')!.querySelector('button')!.click();
    await error;
    expect(received.errors[0]).to.include({
      code: 'provider',
      field: 'expiry',
      status: 400,
      providerCode: 'card_expired',
    });
    expect(received.tokens).to.deep.equal([]);
    expect(received.submits).to.equal(0);
  });

  it('an invalid card reaches onTesseraError as a validation error through the ref’s tokenize()', async () => {
    const { el, ref, received, next } = await mount();
    await typeInto(el, 'number', '4242424242424241');
    await typeInto(el, 'expiry', futureExpiry());
    await typeInto(el, 'cvv', '123');
    const error = next('error');
    const rejected = await ref.current!.tokenize().catch((e: unknown) => e);
    await error;
    expect(received.errors[0]).to.include({ code: 'validation', field: 'number' });
    expect((rejected as CardErrorDetail).code).to.equal('validation');
    expect(received.tokens).to.deep.equal([]);
  });

  it('every event of the element in custom-elements.json reaches its on… prop', async () => {
    const manifest = (await (await fetch('/custom-elements.json')).json()) as {
      modules: { declarations?: { tagName?: string; events?: { name: string }[] }[] }[];
    };
    const names = manifest.modules
      .flatMap((m) => m.declarations ?? [])
      .filter((d) => d.tagName === 'tessera-card-form')
      .flatMap((d) => d.events ?? [])
      .map((e) => e.name);
    expect(names).to.include.members(['tessera-token', 'tessera-error', 'change']);
    const calls: string[] = [];
    const props: Record<string, (e: Event) => void> = {};
    for (const name of names) {
      // tessera-token → onTesseraToken, change → onChange
      const prop = `on${name.replace(/(?:^|-)([a-z])/g, (_, c: string) => c.toUpperCase())}`;
      // Only the probes below count (the element's own tessera-ready may arrive at any time).
      props[prop] = (e) => {
        if ((e as CustomEvent).detail?.probe === true) calls.push(`${prop}:${e.type}`);
      };
    }
    const { el } = await mount(props);
    for (const name of names) el.dispatchEvent(new CustomEvent(name, { detail: { probe: true } }));
    expect(calls).to.deep.equal(
      names.map((name) => `on${name.replace(/(?:^|-)([a-z])/g, (_, c: string) => c.toUpperCase())}:${name}`),
    );
  });

  it('every attribute-backed property in custom-elements.json is set through its prop', async () => {
    const manifest = (await (await fetch('/custom-elements.json')).json()) as {
      modules: {
        declarations?: { tagName?: string; attributes?: { fieldName: string; type?: { text: string } }[] }[];
      }[];
    };
    const fields = manifest.modules
      .flatMap((m) => m.declarations ?? [])
      .filter((d) => d.tagName === 'tessera-card-form')
      .flatMap((d) => d.attributes ?? []);
    expect(fields.map((f) => f.fieldName)).to.include.members(['publicKey', 'tokenUrl', 'configUrl', 'hideName']);
    const sample = (type = 'string'): unknown =>
      type === 'boolean' ? true : type === 'BrandId[]' ? ['visa', 'amex'] : `value-of-${type}`;
    const props = Object.fromEntries(fields.map((f) => [f.fieldName, sample(f.type?.text)]));
    const { el } = await mount(props);
    for (const f of fields) {
      expect((el as unknown as Record<string, unknown>)[f.fieldName], f.fieldName).to.deep.equal(sample(f.type?.text));
    }
  });

  it('hydrates the server render of tessera-pay/react (the plain tag) and pays', async () => {
    const { publicKey, tokenUrl } = await sandbox();
    // What renderToString writes on the server for this tree (test/node/react/ssr.test.ts proves the tag).
    host = document.createElement('div');
    host.innerHTML =
      '<form><tessera-card-form id="card" class="pay"></tessera-card-form><button type="submit">Pay</button></form>';
    document.body.append(host);
    const el = host.querySelector('tessera-card-form')!;
    const tokens: string[] = [];
    const recoverable: unknown[] = [];
    let resolveToken: () => void = () => {};
    const token = new Promise<void>((resolve) => {
      resolveToken = resolve;
    });
    const app = h(
      'form',
      { onSubmit: (e: React.FormEvent) => e.preventDefault() },
      h(TesseraCardForm, {
        id: 'card',
        className: 'pay',
        publicKey,
        tokenUrl,
        onTesseraToken: (e) => {
          tokens.push(e.detail.token);
          resolveToken();
        },
      }),
      h('button', { type: 'submit' }, 'Pay'),
    );
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
    try {
      await React.act(async () => {
        root = ReactDOMClient.hydrateRoot(host!, app, { onRecoverableError: (error) => recoverable.push(error) });
      });
    } finally {
      (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = false;
    }
    expect(recoverable).to.deep.equal([]);
    // Hydrated in place: the server's element is kept and now has its properties.
    expect(host.querySelector('tessera-card-form')).to.equal(el);
    expect(el.publicKey).to.equal(publicKey);
    expect(el.tokenUrl).to.equal(tokenUrl);
    await el.updateComplete;
    await typeInto(el, 'number', '4242424242424242');
    await typeInto(el, 'expiry', futureExpiry());
    await typeInto(el, 'cvv', '123');
    host.querySelector('button')!.click();
    await token;
    expect(tokens).to.have.length(1);
    expect(tokens[0]).to.match(/^card_tok_/);
  });

  it('a re-render updates the properties and swaps the listeners', async () => {
    const { el, received, render } = await mount();
    render({ disabled: true, acceptedBrands: ['mastercard'] });
    await el.updateComplete;
    expect(el.disabled).to.equal(true);
    expect(el.acceptedBrands).to.deep.equal(['mastercard']);
    const later: CardToken[] = [];
    render({ onTesseraToken: (e) => later.push(e.detail), disabled: false, acceptedBrands: [] });
    await el.updateComplete;
    expect(el.disabled).to.equal(false);
    await typeInto(el, 'number', '4242424242424242');
    await typeInto(el, 'expiry', futureExpiry());
    await typeInto(el, 'cvv', '123');
    const token = await el.tokenize();
    expect(later.map((t) => t.token)).to.deep.equal([token.token]);
    expect(received.tokens).to.deep.equal([]);
  });
});

describe('tessera-pay/react <TesseraCardForm> as an app uses it', () => {
  let roots: ReactDOMClient.Root[] = [];
  const hosts: HTMLElement[] = [];
  afterEach(async () => {
    for (const r of roots.splice(0)) ReactDOM.flushSync(() => r.unmount());
    for (const h of hosts.splice(0)) h.remove();
    await executeServerCommand('sandbox-reset');
  });

  /** A root of its own in a new host element. */
  function newRoot(): { root: ReactDOMClient.Root; host: HTMLElement } {
    const host = document.createElement('div');
    document.body.append(host);
    const root = ReactDOMClient.createRoot(host);
    roots.push(root);
    hosts.push(host);
    return { root, host };
  }

  async function typeCard(el: TesseraCardFormElement): Promise<void> {
    await typeInto(el, 'number', '4242424242424242');
    await typeInto(el, 'expiry', futureExpiry());
    await typeInto(el, 'cvv', '123');
  }

  it('an unmounted wrapper calls none of its props: its listeners leave with it', async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const { root, host } = newRoot();
    const calls: string[] = [];
    ReactDOM.flushSync(() =>
      root.render(
        h(TesseraCardForm, {
          publicKey,
          tokenUrl,
          hideName: true,
          onTesseraToken: () => calls.push('token'),
          onTesseraChange: () => calls.push('change'),
          onTesseraError: () => calls.push('error'),
          onChange: () => calls.push('native change'),
        }),
      ),
    );
    const el = host.querySelector('tessera-card-form')!;
    await el.updateComplete;
    await typeCard(el);
    // The checkout unmounts (the shopper navigates away) while the card is being tokenized.
    const pending = el.tokenize();
    calls.length = 0;
    ReactDOM.flushSync(() => root.unmount());
    roots = roots.filter((r) => r !== root);
    const token = await pending;
    expect(token.token).to.match(/^card_tok_/);
    el.dispatchEvent(new Event('change'));
    el.dispatchEvent(new CustomEvent('tessera-error', { detail: {} }));
    expect(calls).to.deep.equal([]);
  });

  it('a name prop that is undefined, or no longer given, leaves the default field name cardToken', async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const { root, host } = newRoot();
    const app = (props: Partial<React.ComponentProps<typeof TesseraCardForm>>) =>
      h('form', null, h(TesseraCardForm, { publicKey, tokenUrl, hideName: true, ...props }));
    ReactDOM.flushSync(() => root.render(app({ name: undefined })));
    const el = host.querySelector('tessera-card-form')!;
    expect(el.name).to.equal('cardToken');
    await el.updateComplete;
    await typeCard(el);
    const { token } = await el.tokenize();
    expect([...new FormData(el.closest('form')!).entries()]).to.deep.equal([['cardToken', token]]);
    ReactDOM.flushSync(() => root.render(app({ name: 'payToken' })));
    await el.updateComplete;
    expect([...new FormData(el.closest('form')!).entries()]).to.deep.equal([['payToken', token]]);
    // Props no longer given go back to the element's defaults, as an attribute React no longer renders would.
    ReactDOM.flushSync(() => root.render(app({ publicKey: undefined, tokenUrl: undefined, hideName: undefined })));
    await el.updateComplete;
    expect(el.name).to.equal('cardToken');
    expect(el.publicKey).to.equal('');
    expect(el.hideName).to.equal(false);
  });

  it('re-renders with equal acceptedBrands (a new array, or a string) while tokenizing keep the token', async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const { root, host } = newRoot();
    const tokens: string[] = [];
    const app = (acceptedBrands: string | readonly BrandId[]) =>
      h(TesseraCardForm, {
        publicKey,
        tokenUrl,
        hideName: true,
        acceptedBrands,
        onTesseraToken: (e) => tokens.push(e.detail.token),
      });
    ReactDOM.flushSync(() => root.render(app(['visa', 'mastercard'])));
    const el = host.querySelector('tessera-card-form')!;
    await el.updateComplete;
    await typeCard(el);
    const pending = el.tokenize();
    for (const brands of [['visa', 'mastercard'], 'visa mastercard', ['visa', 'mastercard']] as const) {
      ReactDOM.flushSync(() => root.render(app(brands)));
      await el.updateComplete;
    }
    const { token } = await pending;
    expect(tokens).to.deep.equal([token]);
    // Held: the same token again, no second request.
    ReactDOM.flushSync(() => root.render(app(['visa', 'mastercard'])));
    await el.updateComplete;
    expect((await el.tokenize()).token).to.equal(token);
    expect(tokens).to.deep.equal([token]);
  });

  it('under StrictMode: one listener per event, one token per submit, nothing logged', async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const logged: unknown[][] = [];
    const { error, warn } = console;
    console.error = (...args: unknown[]) => logged.push(args);
    console.warn = (...args: unknown[]) => logged.push(args);
    try {
      const { root, host } = newRoot();
      const tokens: string[] = [];
      let probes = 0;
      let resolveToken: () => void = () => {};
      const got = new Promise<void>((resolve) => {
        resolveToken = resolve;
      });
      const app = (n: number) =>
        h(
          React.StrictMode,
          null,
          h(
            'form',
            { onSubmit: (e: React.FormEvent) => e.preventDefault() },
            h(TesseraCardForm, {
              publicKey,
              tokenUrl,
              hideName: true,
              locale: 'en',
              acceptedBrands: ['visa'],
              onTesseraChange: (e) => {
                if ((e.detail as unknown as { probe?: number }).probe === n) probes++;
              },
              onTesseraToken: (e) => {
                tokens.push(e.detail.token);
                resolveToken();
              },
            }),
            h('button', { type: 'submit' }, 'Pay'),
          ),
        );
      ReactDOM.flushSync(() => root.render(app(1)));
      const el = host.querySelector('tessera-card-form')!;
      await el.updateComplete;
      el.dispatchEvent(new CustomEvent('tessera-change', { detail: { probe: 1 } }));
      ReactDOM.flushSync(() => root.render(app(2)));
      el.dispatchEvent(new CustomEvent('tessera-change', { detail: { probe: 2 } }));
      expect(probes).to.equal(2);
      await typeCard(el);
      host.querySelector('button')!.click();
      await got;
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(tokens).to.have.length(1);
    } finally {
      console.error = error;
      console.warn = warn;
    }
    expect(logged).to.deep.equal([]);
  });

  it('two wrappers on a page: each has its own element, props and events', async () => {
    const { publicKey, tokenUrl } = await sandbox();
    const { root, host } = newRoot();
    const got: string[] = [];
    ReactDOM.flushSync(() =>
      root.render(
        h(
          React.Fragment,
          null,
          h(TesseraCardForm, { publicKey, tokenUrl, hideName: true, onTesseraToken: () => got.push('a') }),
          h(TesseraCardForm, { publicKey, tokenUrl, name: 'second', onTesseraToken: () => got.push('b') }),
        ),
      ),
    );
    const [a, b] = [...host.querySelectorAll('tessera-card-form')];
    await Promise.all([a!.updateComplete, b!.updateComplete]);
    expect(a!.hideName).to.equal(true);
    expect(b!.hideName).to.equal(false);
    expect(b!.name).to.equal('second');
    await typeCard(b!);
    await b!.tokenize();
    expect(got).to.deep.equal(['b']);
  });
});
