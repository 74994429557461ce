import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Script } from 'node:vm';
import { packageRoot } from '../../../server/common/package-root.js';

// demo/public/checkout.js run in a context of its own with the few parts of a page it uses, so that what it does with
// each answer of the helper is checked without a browser (the e2e suite drives the real page in three engines).

const source = readFileSync(join(packageRoot(), 'demo', 'public', 'checkout.js'), 'utf8');
const script = new Script(source, { filename: 'checkout.js' });

type Listener = (event: Record<string, unknown>) => unknown;

/** What one load of the checkout page did: its message, its navigations, and whether it emptied the card form. */
interface Page {
  readonly message: { textContent: string; dataset: Record<string, string> };
  readonly navigations: string[];
  readonly cardResets: number;
  /** Shows the page as a browser does on load (`pageshow`, not from the back-forward cache). */
  show(): void;
  /** Presses Pay; the helper answers `status` and `body`. */
  pay(status: number, body: Record<string, unknown>): Promise<void>;
}

/**
 * Loads checkout.js for order `ord_1`, as the server rendered it with `attempts` outcomes recorded; `session` is the
 * tab's sessionStorage, shared by the loads of one tab.
 */
function load(session: Map<string, string>, attempts = 0): Page {
  const listeners = new Map<string, Listener>();
  const on = (prefix: string) => (type: string, fn: Listener) => listeners.set(`${prefix}:${type}`, fn);
  const navigations: string[] = [];
  let cardResets = 0;
  let answer: { status: number; body: Record<string, unknown> } = { status: 500, body: {} };
  const message = {
    textContent: '',
    dataset: {} as Record<string, string>,
    replaceChildren: (...nodes: unknown[]) => {
      message.textContent = nodes
        .map((n) => (typeof n === 'string' ? n : String((n as { textContent: string }).textContent)))
        .join('');
    },
  };
  const card = { addEventListener: on('card'), reset: () => void cardResets++, focus: () => undefined };
  const form = {
    dataset: { order: 'ord_1', chargesUrl: '/payments/charges', attempts: String(attempts) },
    querySelector: () => card,
    addEventListener: on('form'),
  };
  const elements: Record<string, unknown> = {
    pay: form,
    'pay-button': { disabled: false },
    'pay-message': message,
    email: { value: 'a@shop.example', checkValidity: () => true, reportValidity: () => undefined },
  };
  const context = {
    document: {
      getElementById: (id: string) => elements[id] ?? null,
      createElement: () => ({ textContent: '' }),
      addEventListener: on('document'),
      visibilityState: 'visible',
    },
    window: { addEventListener: on('window') },
    location: {
      href: 'http://127.0.0.1:3000/checkout/ord_1',
      assign: (url: string) => void navigations.push(url),
      reload: () => void navigations.push('reload'),
    },
    sessionStorage: {
      getItem: (k: string) => session.get(k) ?? null,
      setItem: (k: string, v: string) => void session.set(k, String(v)),
      removeItem: (k: string) => void session.delete(k),
    },
    FormData: class {
      get = (name: string) => (name === 'cardToken' ? 'card_tok_1' : null);
    },
    fetch: async () => ({ status: answer.status, json: async () => answer.body }),
    URL,
    JSON,
    Date,
    Number,
    String,
    setTimeout,
    clearTimeout,
  };
  script.runInNewContext(context);
  return {
    message,
    navigations,
    get cardResets() {
      return cardResets;
    },
    show: () => void listeners.get('window:pageshow')!({ persisted: false }),
    async pay(status, body) {
      answer = { status, body };
      await listeners.get('form:submit')!({ preventDefault: () => undefined, submitter: null });
    },
  };
}

const ALREADY_SENT = {
  code: 'TESSERA_CHARGE_ALREADY_SENT',
  field: 'cardToken',
  outcomeKnown: false,
  message: 'cardToken was already sent to the payment provider for this order …',
};

describe('the demo checkout script (demo/public/checkout.js)', () => {
  it('on TESSERA_CHARGE_ALREADY_SENT reloads the order, never asks for the card again, and the reloaded page says not to pay again yet', async () => {
    const tab = new Map<string, string>();
    const page = load(tab);
    page.show();
    await page.pay(409, ALREADY_SENT);
    assert.deepEqual(page.navigations, ['reload'], 'the shop’s page for the order: a paid one goes to its result');
    assert.equal(page.cardResets, 0, 'the card form is not emptied for another card');
    assert.doesNotMatch(page.message.textContent, /enter them again|another card/i);
    // The shop recorded no outcome since: the reloaded checkout says why it reloaded, once.
    const reloaded = load(tab);
    reloaded.show();
    assert.match(reloaded.message.textContent, /earlier payment attempt with this card/);
    assert.match(reloaded.message.textContent, /being checked/);
    assert.match(reloaded.message.textContent, /do not pay again yet/);
    assert.doesNotMatch(reloaded.message.textContent, /enter|another card/i);
    const later = load(tab);
    later.show();
    assert.equal(later.message.textContent, '', 'a later reload says nothing');
  });

  it('says nothing after the reload when the shop recorded an outcome since (its page shows it)', async () => {
    const tab = new Map<string, string>();
    const page = load(tab);
    page.show();
    await page.pay(409, ALREADY_SENT);
    const reloaded = load(tab, 1);
    reloaded.show();
    assert.equal(reloaded.message.textContent, '');
  });

  it('keeps the other 409s as they were: a used token asks for the card again, a held order is explained after the reload', async () => {
    const tab = new Map<string, string>();
    const used = load(tab);
    used.show();
    await used.pay(409, { code: 'TESSERA_CARD_TOKEN_USED', field: 'cardToken', outcomeKnown: true });
    assert.deepEqual(used.navigations, []);
    assert.equal(used.cardResets, 1);
    assert.match(used.message.textContent, /enter them again/);
    await used.pay(409, { code: 'TESSERA_ORDER_ALREADY_CHARGED', field: 'orderReference', outcomeKnown: true });
    assert.deepEqual(used.navigations, ['reload']);
    const reloaded = load(tab);
    reloaded.show();
    assert.match(reloaded.message.textContent, /still held by the card provider/);
  });
});
