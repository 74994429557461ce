import type { ReserveRule, StoredInstrument } from '../server/provider/index.js';
import { DEMO_USERS, type DemoUser } from './host-tokens.js';
import { html, Safe } from './html.js';

export function pickUserBody(): Safe {
  return html`<h1>Platform dashboard</h1>
<p>This is the dashboard a platform gives its sub-merchants. Sign in as a demo user: the demo server (standing in
for your back end) issues a short-lived host token for that user, and the page calls the helper with it.</p>
<form method="post" action="/platform/sign-in" class="pick">
<fieldset><legend>Demo user</legend>
${DEMO_USERS.map(
  (u, i) =>
    html`<div class="choice"><input type="radio" id="user-${u.id}" name="user" value="${u.id}"${i === 0 ? new Safe(' checked') : ''}><label for="user-${u.id}">${u.name}: ${u.entityLabel}</label></div>`,
)}
</fieldset>
<button type="submit" class="primary">Sign in</button>
</form>`;
}

function holding(rule: ReserveRule): string {
  const d = (rule as { rolling?: { percentage?: number; holding_duration?: Record<string, number> } }).rolling;
  if (!d) return rule.type;
  const span = Object.entries(d.holding_duration ?? {})
    .map(([unit, n]) => `${n} ${n === 1 ? unit.replace(/s$/, '') : unit}`)
    .join(' ');
  return `${d.percentage}% of each payout held for ${span}`;
}

function reserveSection(rules: readonly ReserveRule[] | undefined, nowMs: number): Safe {
  if (!rules) return html`<p>The reserve rules could not be read from the provider just now.</p>`;
  if (rules.length === 0) return html`<p>No reserve rule.</p>`;
  return html`${rules.map((r) => {
    // The spec says only "ISO 8601 UTC timestamp": a spelling Date.parse cannot read (the basic format,
    // `20270101T000000Z`) is shown as the provider wrote it; `new Date(NaN).toISOString()` threw, a 500.
    const from = Date.parse(r.valid_from);
    const known = Number.isFinite(from);
    const active = known && from <= nowMs;
    return html`<dl class="facts" data-rule="${r.id}">
<dt>Rule</dt><dd><code>${r.id}</code> (${r.type})</dd>
<dt>Reserve</dt><dd>${holding(r)}</dd>
<dt>${!known ? 'Valid from' : active ? 'Active since' : 'Starts on'}</dt><dd>${known ? new Date(from).toISOString().slice(0, 10) : String(r.valid_from)}${known && !active ? ' (not active yet: it can still be changed)' : ''}</dd>
</dl>`;
  })}`;
}

const SCHEMES: Record<string, string> = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express' };

function cardRow(id: string, card: StoredInstrument | undefined): Safe {
  const scheme = card ? (SCHEMES[card.scheme] ?? card.scheme) : '';
  const summary = card
    ? `${scheme} •••• ${card.last4}, expires ${String(card.expiry_month).padStart(2, '0')}/${card.expiry_year}${card.status === 'closed' ? ' (closed)' : ''}`
    : 'Not available';
  return html`<li class="saved-card" data-instrument="${id}" data-scheme="${scheme}">
<div><span class="card-summary">${summary}</span> <code class="muted">${id}</code></div>
<button type="button" data-refresh="${id}">Refresh<span class="sr-only"> ${summary}</span> with the account updater</button>
<p class="outcome" role="status"></p>
</li>`;
}

export interface DashboardData {
  readonly user: DemoUser;
  readonly other: DemoUser;
  readonly rules: readonly ReserveRule[] | undefined;
  readonly cards: ReadonlyMap<string, StoredInstrument | undefined>;
  readonly nowMs: number;
  /** Where the helper answers (`helper.page(req).baseUrl`). */
  readonly helperUrl: string;
}

export function dashboardBody(d: DashboardData): Safe {
  return html`<h1>Platform dashboard</h1>
<p class="whoami">Signed in as <strong>${d.user.name}</strong> (<code>${d.user.id}</code>), managing ${d.user.entityLabel} (<code>${d.user.entity}</code>). <a href="/platform/sign-in">Switch user</a></p>
<form method="post" action="/platform/sign-out" class="sign-out"><button type="submit">Sign out</button></form>
<div id="dashboard" class="dashboard" data-user="${d.user.id}" data-entity="${d.user.entity}" data-other-entity="${d.other.entity}" data-helper-url="${d.helperUrl}">
<section aria-labelledby="instruments-title" class="wide"><h2 id="instruments-title">Payout instruments</h2>
<p>Read and changed through the helper (<code>${d.helperUrl}/entities/${d.user.entity}/payment-instruments</code>) with this user's host token.</p>
<div id="instruments-message" class="message" role="status" aria-atomic="true"></div>
<div id="instruments" aria-busy="true"><p>Loading…</p></div>
</section>
<section aria-labelledby="reserve-title"><h2 id="reserve-title">Reserve rule</h2>
${reserveSection(d.rules, d.nowMs)}
</section>
<section aria-labelledby="cards-title"><h2 id="cards-title">Saved cards</h2>
<p>Ask the card networks whether a stored card changed (account updater).</p>
<ul class="saved-cards">${[...d.cards].map(([id, card]) => cardRow(id, card))}</ul>
</section>
<section aria-labelledby="other-title"><h2 id="other-title">Another sub-entity</h2>
<p>This user's token names only <code>${d.user.entity}</code>. Ask the helper for <code>${d.other.entity}</code>'s payout instruments anyway:</p>
<button type="button" id="try-other">Show ${d.other.entityLabel.replace(/:.*/, '')}'s payout instruments</button>
<p id="other-result" class="message" role="status"></p>
</section>
</div>`;
}
