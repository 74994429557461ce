// The platform dashboard's script: it asks the demo back end for a short-lived host token for the signed-in
// user, then calls the helper's dashboard routes with it (payout instruments, account updater). Everything is
// built with DOM calls (no HTML strings), as Trusted Types require.

const root = /** @type {HTMLElement} */ (document.getElementById('dashboard'));
const user = root.dataset.user ?? '';
const entity = root.dataset.entity ?? '';
const otherEntity = root.dataset.otherEntity ?? '';
const helperUrl = root.dataset.helperUrl ?? '';
const list = /** @type {HTMLElement} */ (document.getElementById('instruments'));
const listMessage = /** @type {HTMLElement} */ (document.getElementById('instruments-message'));

/** @type {Promise<string> | undefined} */
let token;

/** @param {boolean} [fresh] */
function hostToken(fresh = false) {
  if (fresh || !token) {
    token = fetch('/platform/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ user }),
    }).then(async (res) => {
      const answer = await res.json().catch(() => ({}));
      // 403 DEMO_NOT_SIGNED_IN: this session signed in as someone else since the page was drawn (another tab).
      if (!res.ok) throw new Error(answer.message ?? 'The demo back end did not issue a host token.');
      return answer.token;
    });
    token.catch(() => {
      token = undefined;
    });
  }
  return token;
}

/**
 * A helper call with the host token; asks for a new token once when the helper says it expired.
 * @param {string} method @param {string} path @param {unknown} [body]
 * @returns {Promise<{ status: number; answer: any }>}
 */
async function api(method, path, body) {
  for (let attempt = 0; ; attempt++) {
    // The helper answers on this page's origin: the session cookie goes with the call, and the helper holds the token
    // to it (hostAuth.isBound), so a copy of the token is refused without it.
    const res = await fetch(`${helperUrl}${path}`, {
      method,
      credentials: 'same-origin',
      headers: {
        Authorization: `Bearer ${await hostToken(attempt > 0)}`,
        Accept: 'application/json',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = await res.json().catch(() => ({}));
    if (res.status === 401 && attempt === 0) continue;
    return { status: res.status, answer };
  }
}

/** @param {string} tag @param {Record<string, string>} [attrs] @param {(Node | string)[]} [children] */
function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

/** @param {HTMLElement} where @param {string} text @param {'info' | 'error' | 'ok'} kind */
function say(where, text, kind) {
  where.textContent = text;
  where.dataset.kind = kind;
}

/** @param {{ status: number; answer: any }} r */
function refusal(r) {
  return `${r.answer.message ?? 'The request was refused.'} (${r.status} ${r.answer.code ?? ''})`.replace(' )', ')');
}

/**
 * @typedef {{ id: string; label: string; type: string; currency: string; country: string; status: string;
 *   default: boolean }} Instrument
 */

/** @param {Instrument} p */
function row(p) {
  const input = el('input', { id: `label-${p.id}`, name: 'label', value: p.label, maxlength: '50', required: '' });
  const rename = el('form', { class: 'rename', 'data-rename': p.id }, [
    el('label', { for: `label-${p.id}`, class: 'sr-only' }, [`Label of ${p.label}`]),
    input,
    el('button', { type: 'submit' }, ['Rename', el('span', { class: 'sr-only' }, [` ${p.label}`])]),
  ]);
  rename.addEventListener('submit', (event) => {
    event.preventDefault();
    void change(p, { label: /** @type {HTMLInputElement} */ (input).value.trim() });
  });
  let defaultCell;
  if (p.default) defaultCell = el('span', { class: 'badge' }, ['Default']);
  else {
    defaultCell = el('button', { type: 'button', 'data-make-default': p.id }, [
      'Make default',
      el('span', { class: 'sr-only' }, [` ${p.label}`]),
    ]);
    defaultCell.addEventListener('click', () => void change(p, { default: true }));
  }
  // data-label names each cell when a narrow screen shows the rows as stacked cards (demo.css).
  return el('tr', { 'data-instrument': p.id }, [
    el('td', {}, [rename]),
    el('td', { 'data-label': 'Type' }, [
      `${p.type === 'bank_account' ? 'Bank account' : 'Card'}, ${p.currency} (${p.country})`,
    ]),
    el('td', { class: `status ${p.status}`, 'data-label': 'Status' }, [p.status]),
    el('td', { 'data-label': 'Default' }, [defaultCell]),
  ]);
}

async function load() {
  list.setAttribute('aria-busy', 'true');
  const r = await api('GET', `/entities/${encodeURIComponent(entity)}/payment-instruments`);
  list.setAttribute('aria-busy', 'false');
  if (r.status !== 200) {
    list.replaceChildren(el('p', {}, [refusal(r)]));
    return;
  }
  /** @type {Instrument[]} */
  const items = r.answer.data;
  const head = el('thead', {}, [
    el(
      'tr',
      {},
      ['Label', 'Type', 'Status', 'Default'].map((h) => el('th', { scope: 'col' }, [h])),
    ),
  ]);
  const table = el('table', { class: 'instruments reflow' }, [head, el('tbody', {}, items.map(row))]);
  list.replaceChildren(el('div', { class: 'scroll' }, [table]));
}

/** @param {Instrument} p @param {{ label?: string; default?: boolean }} patch */
async function change(p, patch) {
  say(listMessage, 'Saving…', 'info');
  const r = await api(
    'PATCH',
    `/entities/${encodeURIComponent(entity)}/payment-instruments/${encodeURIComponent(p.id)}`,
    patch,
  );
  if (r.status === 200) {
    say(
      listMessage,
      patch.label !== undefined ? `Renamed to “${r.answer.label}”.` : `“${r.answer.label}” is now the default.`,
      'ok',
    );
    // The table is drawn again: give focus back to the same row (its Rename button, which stays), not to <body>.
    const hadFocus = list.contains(document.activeElement);
    await load();
    if (hadFocus) {
      /** @type {HTMLElement | null} */ (
        list.querySelector(`tr[data-instrument="${CSS.escape(p.id)}"] button[type="submit"]`)
      )?.focus();
    }
  } else if (r.answer.code === 'TESSERA_INSTRUMENT_NOT_VERIFIED') {
    say(
      listMessage,
      `Refused: “${p.label}” is ${p.status}, and only a verified account can be the default payout destination. ` +
        `The provider answered 428 Precondition Required; the helper passes it on as ${r.status} ${r.answer.code}.`,
      'error',
    );
  } else {
    say(listMessage, `Refused: ${refusal(r)}`, 'error');
  }
}

/** @param {any} a */
function updaterOutcome(a) {
  const card = a.card
    ? `•••• ${a.card.last4}, expires ${String(a.card.expiryMonth).padStart(2, '0')}/${a.card.expiryYear}`
    : '';
  switch (a.status) {
    case 'CARD_UPDATED':
      return `Card updated: the network gave a new card, ${card}.`;
    case 'CARD_EXPIRY_UPDATED':
      return `Expiry updated: ${card}.`;
    case 'CARD_CLOSED':
      return 'Card closed: the issuer closed this account; ask the customer for another card.';
    default:
      return `No update (${a.failureCode ?? a.status}): ${a.failureCode === 'UP_TO_DATE' ? 'the card is up to date.' : 'the issuer does not take part.'}`;
  }
}

for (const button of document.querySelectorAll('button[data-refresh]')) {
  button.addEventListener('click', async () => {
    const id = /** @type {HTMLElement} */ (button).dataset.refresh ?? '';
    const item = /** @type {HTMLElement} */ (button.closest('li'));
    const outcome = /** @type {HTMLElement} */ (item.querySelector('.outcome'));
    say(outcome, 'Asking the card networks…', 'info');
    const r = await api('POST', '/account-updater', { instrumentId: id });
    if (r.status !== 200) {
      say(outcome, `Refused: ${refusal(r)}`, 'error');
      return;
    }
    item.dataset.outcome = r.answer.status;
    say(outcome, updaterOutcome(r.answer), r.answer.status === 'UPDATE_FAILED' ? 'info' : 'ok');
    const summary = item.querySelector('.card-summary');
    if (summary && r.answer.card) {
      const c = r.answer.card;
      summary.textContent = `${item.dataset.scheme ?? ''} •••• ${c.last4}, expires ${String(c.expiryMonth).padStart(2, '0')}/${c.expiryYear}`;
    } else if (summary && r.answer.status === 'CARD_CLOSED') summary.textContent += ' (closed)';
  });
}

const other = /** @type {HTMLElement} */ (document.getElementById('other-result'));
document.getElementById('try-other')?.addEventListener('click', async () => {
  const r = await api('GET', `/entities/${encodeURIComponent(otherEntity)}/payment-instruments`);
  if (r.status === 200) say(other, `Unexpectedly allowed: ${r.answer.data.length} instruments.`, 'error');
  else say(other, `Refused by the helper: ${refusal(r)}`, 'ok');
});

load().catch((/** @type {Error} */ err) =>
  list.replaceChildren(el('p', {}, [`The payout instruments could not be loaded. ${err.message}`])),
);
