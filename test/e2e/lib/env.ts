import { mkdirSync } from 'node:fs';
import pino from 'pino';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type RunningDemo, startDemo } from '../../../demo/server.js';
import { launchChromium } from '../../support/browser.js';

/** What the browser sent to the demo origin and everything it received, from every page of the run. */
export interface Traffic {
  /** Request bodies the browser sent to the demo server, with their URL. */
  readonly sent: { url: string; method: string; body: string }[];
  /** Every response body the browser received (any origin), with its URL. */
  readonly received: { url: string; body: string }[];
  /** Pending body reads; await before checking. */
  readonly pending: Promise<unknown>[];
  /** Uncaught page errors and console errors about CSP, Trusted Types or integrity, with the page's URL. */
  readonly pageErrors: string[];
}

/** A JSON line the demo server logged (helper, clients, demo routes). */
export type LogLine = Record<string, unknown>;

export interface Env {
  readonly demo: RunningDemo;
  readonly browser: Browser;
  /** Raw log lines of the demo server, in order. */
  readonly logs: string[];
  readonly traffic: Traffic;
  /** A fresh browser context (its own cookies: a new shopper) and page, with its traffic recorded. */
  page(options?: { width?: number; bypassCSP?: boolean }): Promise<Page>;
  readonly sandbox: SandboxReader;
  close(): Promise<void>;
}

export const SCREENSHOTS = 'test-results/screenshots';

/** The fields of a sandbox charge the tests read. */
export interface SandboxCharge {
  readonly id: string;
  readonly status: string;
  readonly value: number;
  readonly currency: string;
  readonly trackId: string | null;
  readonly responseCode: string;
  readonly chargeMode: number;
  readonly autoCapture: string;
  readonly card: { readonly last4: string };
}

/** One entry of the sandbox's request log. */
export interface LoggedRequest {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly fault?: string;
  readonly requestBody?: { readonly trackId?: string };
  readonly responseBody?: { readonly id?: string };
}

/** Reads sandbox state over its HTTP API, as a test should (never through the demo). */
export class SandboxReader {
  constructor(
    readonly url: string,
    readonly secretKey: string,
    readonly clientId: string,
    readonly clientSecret: string,
  ) {}

  async json<T>(path: string, init: RequestInit = {}): Promise<T> {
    const res = await fetch(`${this.url}${path}`, init);
    const text = await res.text();
    if (!res.ok) throw new Error(`sandbox ${init.method ?? 'GET'} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** `GET /api2/v2/charges/{id}` with the secret key. */
  charge(id: string): Promise<SandboxCharge> {
    return this.json(`/api2/v2/charges/${id}`, { headers: { Authorization: this.secretKey } });
  }

  advanceClock(seconds: number): Promise<{ now: string }> {
    return this.json<{ now: string }>('/_sandbox/clock/advance', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ seconds }),
    });
  }

  /** The sandbox's request log, newest first (masked by the sandbox). */
  async requests(): Promise<LoggedRequest[]> {
    return (await this.json<{ data: LoggedRequest[] }>('/_sandbox/requests?limit=200')).data;
  }

  /** Distinct charges the sandbox made for one order (charge requests whose trackId is the order id). */
  async chargesFor(orderId: string): Promise<SandboxCharge[]> {
    const ids = new Set<string>();
    for (const r of await this.requests()) {
      if (r.method !== 'POST' || r.path !== '/api2/v2/charges/token' || r.status !== 200) continue;
      if (r.requestBody?.trackId !== orderId) continue;
      if (r.responseBody?.id) ids.add(r.responseBody.id);
    }
    return Promise.all([...ids].map((id) => this.charge(id)));
  }

  async accessToken(): Promise<string> {
    const res = await fetch(`${this.url}/connect/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: this.clientId,
        client_secret: this.clientSecret,
      }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  }

  /** A payout instrument of a sub-entity, read with an OAuth access token. */
  async paymentInstrument(entity: string, id: string): Promise<{ label: string; default: boolean; status: string }> {
    return this.json(`/accounts/entities/${entity}/payment-instruments/${id}`, {
      headers: { Authorization: `Bearer ${await this.accessToken()}` },
    });
  }
}

/** Starts the demo (ephemeral ports, logs captured) and one Chromium for the whole run. */
export async function startEnv(): Promise<Env> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const logs: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) });
  const demo = await startDemo({ port: 0, sandboxPort: 0, logger });
  const browser = await launchChromium();
  const traffic: Traffic = { sent: [], received: [], pending: [], pageErrors: [] };
  const contexts: BrowserContext[] = [];
  const c = demo.sandbox.credentials;
  return {
    demo,
    browser,
    logs,
    traffic,
    sandbox: new SandboxReader(demo.sandbox.url, c.secretKey, c.clientId, c.clientSecret),
    async page(options = {}) {
      const context = await browser.newContext({
        viewport: { width: options.width ?? 1100, height: 900 },
        bypassCSP: options.bypassCSP ?? false,
      });
      contexts.push(context);
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      page.on('request', (req) => {
        if (!req.url().startsWith(demo.url)) return;
        traffic.sent.push({ url: req.url(), method: req.method(), body: req.postData() ?? '' });
      });
      page.on('pageerror', (err) => traffic.pageErrors.push(`${page.url()}: ${err.message}`));
      page.on('console', (msg) => {
        if (msg.type() === 'error' && /Content Security Policy|Trusted|integrity/i.test(msg.text())) {
          traffic.pageErrors.push(`${page.url()}: ${msg.text()}`);
        }
      });
      page.on('response', (res) => {
        if (res.status() >= 300 && res.status() < 400) return; // redirects have no body to read
        traffic.pending.push(
          res.text().then(
            (body) => traffic.received.push({ url: res.url(), body }),
            () => undefined,
          ),
        );
      });
      return page;
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
      await demo.close();
    },
  };
}
