import { fixture, html, oneEvent } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import '../../widget/card-form/define.js';
import type { TesseraCardForm } from '../../widget/card-form/card-form.js';
import type { CardField } from '../../widget/card-form/events.js';

export type { TesseraCardForm };

/** The inner input of one field. */
export function input(el: TesseraCardForm, field: CardField): HTMLInputElement {
  const found = el.shadowRoot!.querySelector<HTMLInputElement>(`#${field}`);
  if (!found) throw new Error(`no ${field} input`);
  return found;
}

/** The error element of one field (`form` for the general one). */
export function errorOf(el: TesseraCardForm, field: CardField | 'form'): HTMLElement {
  return el.shadowRoot!.querySelector<HTMLElement>(`#${field}-error`)!;
}

/** The live region. */
export function liveRegion(el: TesseraCardForm): HTMLElement {
  return el.shadowRoot!.querySelector<HTMLElement>('[role="status"]')!;
}

/** Focuses the field and types with real key presses. */
export async function type(el: TesseraCardForm, field: CardField, text: string): Promise<void> {
  input(el, field).focus();
  await sendKeys({ type: text });
}

/** Presses one key (or a chord such as `Shift+Tab`) in the focused element. */
export async function press(key: string): Promise<void> {
  // puppeteer (Firefox) presses one key at a time: a chord is its modifiers held down around the key.
  // playwright (Chromium) and our WebDriver launcher (WebKit) take the chord whole.
  const keys = key.split('+');
  if (keys.length > 1 && navigator.userAgent.includes('Firefox/')) {
    const last = keys.pop()!;
    for (const k of keys) await sendKeys({ down: k });
    await sendKeys({ press: last });
    for (const k of keys.reverse()) await sendKeys({ up: k });
    return;
  }
  await sendKeys({ press: key });
}

/** Moves focus out of the widget with a real Tab from its last input, so blur fires. */
export async function leave(el: TesseraCardForm, field: CardField): Promise<void> {
  input(el, field).focus();
  input(el, field).blur();
  await el.updateComplete;
}

/** Card number, expiry and CVV typed with real keys. */
export async function fillCard(el: TesseraCardForm, number = '4242424242424242', expiry = futureExpiry(), cvv = '123') {
  await type(el, 'number', number);
  await type(el, 'expiry', expiry);
  await type(el, 'cvv', cvv);
  await el.updateComplete;
}

export interface SandboxInfo {
  readonly url: string;
  readonly publicKey: string;
  readonly tokenUrl: string;
}

let info: Promise<SandboxInfo> | undefined;
/** The real sandbox the test runner started (web-test-runner.config.js). */
export function sandbox(): Promise<SandboxInfo> {
  info ??= fetch('/__sandbox.json').then((r) => r.json() as Promise<SandboxInfo>);
  return info;
}

/** A ready widget configured against the sandbox. */
export async function sandboxForm(): Promise<TesseraCardForm> {
  const { publicKey, tokenUrl } = await sandbox();
  return fixture<TesseraCardForm>(
    html`<tessera-card-form public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form>`,
  );
}

export { oneEvent };

/** An expiry (MMYY digits) two years ahead, always valid. */
export function futureExpiry(): string {
  const d = new Date();
  return `${String(d.getMonth() + 1).padStart(2, '0')}${String((d.getFullYear() + 2) % 100).padStart(2, '0')}`;
}
