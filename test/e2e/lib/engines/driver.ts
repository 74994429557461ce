/**
 * The little a shopper does in a browser, as one interface over three drivers: playwright-core (Chromium),
 * puppeteer-core over WebDriver BiDi (Firefox ESR) and webdriverio over classic WebDriver (WebKitGTK's MiniBrowser).
 * The purchase flows (../purchase-tests.ts) are written once against it and run in each engine.
 */

/** An input of `<tessera-card-form>`, by the id it has inside the element's shadow root. */
export type CardField = 'number' | 'expiry' | 'cvv';

/** One shopper: a browser page with its own cookies. Selectors are CSS in the page's light DOM. */
export interface ShopperPage {
  goto(url: string): Promise<void>;
  /** Clicks the element, as a mouse would. */
  click(selector: string): Promise<void>;
  /** Puts the caret in one of the card form's inputs (inside its shadow root) and types `text` with real key presses. */
  typeCard(field: CardField, text: string): Promise<void>;
  /** What one of the card form's inputs holds now. */
  cardValue(field: CardField): Promise<string>;
  /** How the card form's shadow root is styled (see {@link readCardStyles}). */
  cardStyles(): Promise<CardStyles>;
  /** Waits until the first element matching `selector` has text matching `text`; answers that text. */
  waitForText(selector: string, text: RegExp): Promise<string>;
  /** The page's URL now. */
  url(): Promise<string>;
}

/** What the engine's shoppers sent to the demo server and got back from it, and what their pages reported. */
export interface EngineTraffic {
  /** How the requests were observed (said in the test's output when a check fails). */
  readonly observedBy: string;
  /** Request bodies sent to the demo server, with method and URL. */
  readonly sent: { url: string; method: string; body: string }[];
  /** Status of every answer the demo server gave. */
  readonly answers: { url: string; status: number }[];
  /** Uncaught page errors and console errors; `undefined` when the driver cannot observe them. */
  readonly pageErrors: string[] | undefined;
  /** Body reads still under way; await before checking. */
  readonly pending: Promise<unknown>[];
}

/** One browser engine, launched once for its describe block. */
export interface Engine {
  /** `Chromium`, `Firefox` or `WebKit`. */
  readonly name: string;
  /** The engine's version as its driver reports it. */
  readonly version: string;
  readonly traffic: EngineTraffic;
  /** The shop's base URL as this engine's shoppers reach it (the demo's, or a recording relay in front of it). */
  readonly shopUrl: string;
  /** Whether the engine asks every page's origin for `/favicon.ico` (headless Chromium asks for no page icon). */
  readonly asksForFavicon: boolean;
  /** A new shopper (its own cookies) on a new page. */
  newPage(): Promise<ShopperPage>;
  close(): Promise<void>;
}

/** Where an engine's pages go and what they record. */
export interface EngineOptions {
  /** The demo's base URL. */
  readonly demoUrl: string;
}

/** How long one wait in a flow may take before the test fails with what it was waiting for. */
export const WAIT_MS = 15_000;

/**
 * Polls `probe` until it answers something other than `undefined`; a probe that throws (a page navigating away
 * while it was read) counts as not yet. Fails after {@link WAIT_MS} with `what` and the last error.
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const cause = last instanceof Error ? `; last error: ${last.message}` : '';
      throw new Error(`timed out waiting for ${what}${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The page-side reader of a card input's value (passed to each driver's evaluate). */
export function readCardValue(field: string): string {
  const input = document.querySelector('tessera-card-form')?.shadowRoot?.querySelector<HTMLInputElement>(`#${field}`);
  if (!input) throw new Error(`no #${field} input in <tessera-card-form>`);
  return input.value;
}

/** The card form's styles as the page applies them: the bundle's own CSS, adopted rather than in `<style>` elements. */
export interface CardStyles {
  readonly adoptedSheets: number;
  readonly styleElements: number;
  /** `display` of the fields' container (`grid` from the element's CSS, `block` without it). */
  readonly layout: string;
}

/** The page-side reader of {@link CardStyles} (passed to each driver's evaluate). */
export function readCardStyles(): CardStyles {
  const root = document.querySelector('tessera-card-form')?.shadowRoot;
  const container = root?.querySelector('.form');
  if (!root || !container) throw new Error('no rendered <tessera-card-form>');
  return {
    adoptedSheets: root.adoptedStyleSheets.length,
    styleElements: root.querySelectorAll('style').length,
    layout: getComputedStyle(container).display,
  };
}

/** The page-side reader of an element's text (passed to each driver's evaluate); `null` when there is none. */
export function readText(selector: string): string | null {
  return document.querySelector(selector)?.textContent ?? null;
}
