import { html, money, type Safe } from './html.js';

export interface ChargeRow {
  readonly id: string;
  readonly order: string;
  readonly amount: number;
  readonly currency: string;
  readonly capture: string;
  readonly status: string;
  readonly created: string;
}

export interface LoggedRow {
  readonly requestId: string;
  readonly at: string;
  readonly method: string;
  readonly path: string;
  readonly auth: string;
  readonly status: number;
  readonly fault?: string;
  readonly requestBody?: unknown;
  readonly responseBody?: unknown;
}

export interface FaultRow {
  readonly id: number;
  readonly method?: string;
  readonly path: string;
  readonly status?: number;
  readonly delayMs?: number;
  readonly phase: string;
  readonly remaining: number;
}

export interface ConsoleData {
  readonly now: string | undefined;
  readonly charges: readonly ChargeRow[];
  readonly faults: readonly FaultRow[] | undefined;
  /** How many of the next payments the shop will fail to record. */
  readonly shopFaults: number;
  readonly requests: readonly LoggedRow[] | undefined;
  /** Reads (GET) are listed too. */
  readonly allRequests: boolean;
  readonly presets: readonly { readonly id: string; readonly label: string }[];
  readonly steps: readonly { readonly seconds: number; readonly label: string }[];
}

const time = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');

function chargeTable(rows: readonly ChargeRow[]): Safe {
  if (rows.length === 0) return html`<p>No charges yet: buy something in the <a href="/">shop</a>.</p>`;
  return html`<div class="scroll"><table class="charges reflow"><caption class="sr-only">Recent charges of the shop</caption>
<thead><tr><th scope="col">Charge</th><th scope="col">Amount</th><th scope="col">Capture</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead>
<tbody>${rows.map(
    (c) =>
      html`<tr data-charge="${c.id}"><td><code>${c.id}</code><br><span class="muted">${c.order}</span></td><td data-label="Amount">${money(c.amount, c.currency)}</td><td data-label="Capture">${c.capture}</td><td class="status" data-status="${c.status}" data-label="Status">${c.status}</td><td data-label="Created">${time(c.created)}</td></tr>`,
  )}</tbody></table></div>`;
}

function requestTable(rows: readonly LoggedRow[]): Safe {
  return html`<div class="scroll"><table class="requests reflow"><caption class="sr-only">Recent requests to the sandbox, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Request</th><th scope="col">Status</th><th scope="col">Credential</th></tr></thead>
<tbody>${rows.map(
    (r) =>
      html`<tr><td>${time(r.at)}</td><td data-label="Request"><code>${r.method} ${r.path}</code>${
        r.requestBody === undefined && r.responseBody === undefined
          ? ''
          : html`<details><summary>Bodies (masked)</summary><pre>${JSON.stringify({ request: r.requestBody, response: r.responseBody }, null, 1)}</pre></details>`
      }</td><td data-label="Status">${r.status}${r.fault ? html` <span class="badge">fault: ${r.fault}</span>` : ''}</td><td data-label="Credential">${r.auth}</td></tr>`,
  )}</tbody></table></div>`;
}

export function consoleBody(d: ConsoleData): Safe {
  return html`<h1>Sandbox console</h1>
<p>The embedded sandbox plays the payment provider. Move its clock, make it fail, and see what the shop sent it.</p>
<div class="console">
<section id="clock" aria-labelledby="clock-title"><h2 id="clock-title">Clock</h2>
<p>Sandbox time: <time data-now>${d.now ? time(d.now) : 'unavailable'}</time></p>
<form method="post" action="/sandbox/clock" class="buttons">
${d.steps.map((s) => html`<button type="submit" name="seconds" value="${s.seconds}">Advance ${s.label}</button>`)}
</form>
<p class="fineprint">Card tokens expire after 15 minutes. Shop orders are captured 24 hours after authorisation;
pre-orders are only authorised, and the authorisation lapses after 7 days.</p>
</section>
<section id="charges" aria-labelledby="charges-title" class="wide"><h2 id="charges-title">Recent charges</h2>
${chargeTable(d.charges)}
</section>
<section id="faults" aria-labelledby="faults-title"><h2 id="faults-title">Faults</h2>
<p>Make the provider or the shop fail, then try the shop.</p>
<form method="post" action="/sandbox/faults" class="stack">
${d.presets.map((p) => html`<button type="submit" name="preset" value="${p.id}">${p.label}</button>`)}
</form>
${
  d.faults === undefined
    ? html`<p>The faults could not be read.</p>`
    : d.faults.length === 0 && d.shopFaults === 0
      ? html`<p data-faults="0">No fault is pending.</p>`
      : html`<ul data-faults="${d.faults.length + (d.shopFaults > 0 ? 1 : 0)}">${d.faults.map(
          (f) =>
            html`<li>${f.method ?? 'any'} <code>${f.path}</code>: ${f.status ?? `${f.delayMs} ms delay`} (${f.phase}), ${f.remaining} left</li>`,
        )}${d.shopFaults > 0 ? html`<li>The shop: the next payment's record fails (<code>onCharge</code> throws), ${d.shopFaults} left</li>` : ''}</ul>
<form method="post" action="/sandbox/faults/clear"><button type="submit">Clear faults</button></form>`
}
</section>
<section id="requests" aria-labelledby="requests-title" class="wide"><h2 id="requests-title">Request log</h2>
<p>The last ${d.allRequests ? 'requests' : 'writes'} the sandbox received, newest first. Card numbers, CVVs and secrets are masked by the sandbox.
${d.allRequests ? html`<a href="/sandbox#requests">Show writes only</a>` : html`<a href="/sandbox?requests=all#requests">Show reads too</a>`}</p>
${d.requests === undefined ? html`<p>The request log could not be read.</p>` : requestTable(d.requests)}
</section>
<section id="reset" aria-labelledby="reset-title"><h2 id="reset-title">Start over</h2>
<form method="post" action="/sandbox/reset"><button type="submit">Reset the sandbox</button></form>
<p class="fineprint">Clears charges, tokens, faults and the log, sets the clock back and reloads the platform fixtures.</p>
</section>
</div>`;
}
