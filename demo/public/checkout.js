// The checkout page's script: the widget tokenizes the card when the form is submitted, then this handler
// sends only the token and the order reference to the helper (POST to the URL the page names: helper.page's chargesUrl) and follows its answer.
// No amount leaves the page: the server prices the order. Served with the page's CSP nonce.

const form = /** @type {HTMLFormElement} */ (document.getElementById('pay'));
const card = /** @type {HTMLElement & { reset(): void; focus(): void }} */ (form.querySelector('tessera-card-form'));
const button = /** @type {HTMLButtonElement} */ (document.getElementById('pay-button'));
const message = /** @type {HTMLElement} */ (document.getElementById('pay-message'));
const email = /** @type {HTMLInputElement} */ (document.getElementById('email'));
const order = form.dataset.order ?? '';
const chargesUrl = form.dataset.chargesUrl ?? '';
const resultUrl = `/orders/${order}`;
// How many final outcomes the shop has recorded for this order (its onCharge), as the server rendered the page.
const attempts = Number(form.dataset.attempts ?? '0');
const challengeKey = `tessera-demo:3ds:${order}`;
// Set just before the page reloads for a 409 that the reloaded page explains (TESSERA_ORDER_ALREADY_CHARGED,
// TESSERA_CHARGE_ALREADY_SENT): `{ code, attempts }`, read (and removed) by the reloaded page.
const refusedKey = `tessera-demo:held:${order}`;
// The shop's own figure for how long a challenge stays open (the provider gives none).
const lapsesAfterMs = Number(form.dataset.challengeLapsesMs ?? '900000');
// The server saw a 3-D Secure challenge of this order start and no outcome since, and it has not lapsed: the provider
// refuses any other card until then, and this notice says so and in how many minutes (data-left-ms at load).
const notice = document.getElementById('challenge-notice');

let busy = false;

/** @param {string} text @param {'info' | 'error'} kind */
function show(text, kind) {
  message.textContent = text;
  message.dataset.kind = kind;
}

/** @param {string} url @returns {HTMLAnchorElement} the offer to go on with the bank's check this tab left */
function continueLink(url) {
  const link = document.createElement('a');
  link.href = url;
  link.className = 'button';
  link.textContent = 'Continue to your bank';
  return link;
}

/** A new card is needed (declined, or the token can no longer be used): empty the card form for the next try. */
function askForAnotherCard() {
  card.reset();
  card.focus();
}

// Tokenizing failed for a reason other than the fields (the network, the provider): say so above the button.
card.addEventListener('tessera-error', (event) => {
  const detail = /** @type {CustomEvent<{ code: string; message: string }>} */ (event).detail;
  if (detail.code !== 'validation') show(detail.message, 'error');
});

/**
 * @param {Response} res
 * @param {{ code?: string; message?: string; outcomeKnown?: boolean; redirectUrl?: string }} answer
 * @returns {boolean} true when the page navigates away
 */
function follow(res, answer) {
  if (res.status === 201) {
    location.assign(resultUrl);
    return true;
  }
  if (res.status === 202 && answer.redirectUrl) {
    show('Taking you to your bank to confirm the payment…', 'info');
    // Kept for this tab only: a shopper who comes back without confirming can go on with the same challenge.
    sessionStorage.setItem(challengeKey, JSON.stringify({ url: answer.redirectUrl, attempts, at: Date.now() }));
    location.assign(answer.redirectUrl);
    return true;
  }
  switch (answer.code) {
    case 'TESSERA_CARD_DECLINED':
      show(answer.message ?? 'The payment was declined. Check the card details or use another card.', 'error');
      askForAnotherCard();
      return false;
    case 'TESSERA_CARD_TOKEN_EXPIRED':
    case 'TESSERA_CARD_TOKEN_USED':
      show('Your card details timed out before the payment was made. Please enter them again.', 'error');
      askForAnotherCard();
      return false;
    case 'TESSERA_ORDER_ALREADY_CHARGED':
    // A charge of this order holds it at the provider: approved (the checkout then sends the shopper to the
    // result) or a 3-D Secure challenge still open (the checkout then says so, and when another card can be used).
    // The shop may know of no challenge (its onChallenge failed): the reloaded page is told why it reloaded.
    case 'TESSERA_CHARGE_ALREADY_SENT':
      // This card was sent for this order before, by an attempt whose answer the helper no longer holds: it may have
      // been charged (`outcomeKnown: false`). Never "enter your card again": the reloaded page shows what the shop
      // recorded (a paid order goes to its result), else says the earlier attempt is being checked.
      sessionStorage.setItem(refusedKey, JSON.stringify({ code: answer.code, attempts }));
      location.reload();
      return true;
    case 'TESSERA_UNKNOWN_ORDER':
      location.assign(resultUrl);
      return true;
    case 'TESSERA_ON_CHARGE_FAILED':
      // The provider has answered (`outcomeKnown: true`), but the shop has not recorded it: never "nothing was charged".
      show(
        'The card provider has answered, but the shop could not record your payment yet. Press Pay again to see the result: you will not be charged twice.',
        'error',
      );
      return false;
  }
  if (res.status === 429) {
    show(answer.message ?? 'Too many payment attempts. Please wait a few minutes.', 'error');
  } else if (res.status >= 500 && answer.outcomeKnown === false) {
    // The charge may have happened: the same token asks again, and the helper never charges it twice.
    show(
      'We could not confirm your payment with the card provider. Press Pay again to check: you will not be charged twice.',
      'error',
    );
  } else if (res.status >= 500) {
    show('The payment service is not available right now. Nothing was charged. Please try again in a moment.', 'error');
  } else {
    show(answer.message ?? 'The payment could not be made.', 'error');
  }
  return false;
}

/**
 * The bank page of a 3-D Secure challenge this tab left for and did not finish: none once the shop has recorded an
 * outcome since (the challenge passed, failed or lapsed and came back through the helper), nor once it has lapsed.
 * @returns {string | undefined}
 */
function unfinishedChallenge() {
  try {
    const left = JSON.parse(sessionStorage.getItem(challengeKey) ?? 'null');
    if (!left || typeof left.url !== 'string' || left.attempts !== attempts) return undefined;
    if (typeof left.at !== 'number' || !(Date.now() - left.at < lapsesAfterMs)) return undefined;
    const url = new URL(left.url, location.href);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Keeps the notice's "in N minutes" true without a reload, and when the challenge lapses takes the notice away and
 * says once, in the page's message (role="alert"), that another card can be used now. The minutes change in the
 * notice, which is no live region: a screen reader is not told every minute. Counted on this browser's clock from the
 * server's figure at load; a tab in the background has its timers slowed, so it counts again when shown.
 * @param {HTMLElement} held the server's notice
 */
function countDown(held) {
  const end = Date.now() + Number(held.dataset.leftMs);
  const minutes = held.querySelector('[data-minutes]');
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const tick = () => {
    clearTimeout(timer);
    if (!held.isConnected) return;
    const left = end - Date.now();
    if (!(left > 0)) {
      held.remove();
      sessionStorage.removeItem(challengeKey);
      // A payment on its way says its own outcome.
      if (!busy)
        show('Your bank’s check of the earlier payment has lapsed: you can pay with another card now.', 'info');
      return;
    }
    const n = Math.ceil(left / 60_000);
    const text = `${n} ${n === 1 ? 'minute' : 'minutes'}`;
    if (minutes && minutes.textContent !== text) minutes.textContent = text;
    // Again when the next whole minute is up.
    timer = setTimeout(tick, left - (n - 1) * 60_000);
  };
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') tick();
  });
  tick();
}

/**
 * The helper answered TESSERA_CHARGE_ALREADY_SENT, and the reloaded page shows no paid order and no outcome the shop
 * recorded since: an earlier attempt with this card reached the provider, and nobody here knows how it ended.
 */
function sayBeingChecked() {
  show(
    'An earlier payment attempt with this card reached the card provider, and its outcome is being checked. Please do not pay again yet: come back to this page in a few minutes, or contact the shop.',
    'info',
  );
}

/** The note left before the reload for a 409 ({@link refusedKey}), once: `{ code, attempts }`, or undefined. */
function takeRefusal() {
  const note = sessionStorage.getItem(refusedKey);
  sessionStorage.removeItem(refusedKey);
  try {
    const refused = JSON.parse(note ?? 'null');
    return refused && typeof refused.code === 'string' && typeof refused.attempts === 'number' ? refused : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The provider refused the payment because a charge holds the order, and the reloaded page shows no paid order and no
 * challenge the shop knows of: a challenge whose start the shop never heard (its onChallenge failed) is still open, or
 * a charge went through whose outcome the shop never recorded (its onCharge failed, or the answer was lost). The
 * provider's refusal does not say which, so neither is claimed (docs/decisions/demo.md#demo-capture).
 * @param {string | undefined} url the bank's page, when this tab left for it
 */
function sayHeld(url) {
  const text =
    'An earlier payment of this order is still held by the card provider, so another card cannot be used: your bank may still be checking it, or it went through and the shop has not recorded it yet.';
  message.replaceChildren(
    ...(url
      ? [
          `${text} If you did not confirm it with your bank, continue it there, or try again in a few minutes. `,
          continueLink(url),
        ]
      : [`${text} If your bank is still checking it, try again in a few minutes.`]),
  );
  message.dataset.kind = 'info';
}

// Back from the bank's page without confirming (the Back button, or the checkout again): the server's notice says the
// bank's check is still open and when another card can be used; this tab offers that same confirmation when it
// followed it. A page restored from the back-forward cache comes back as it was left (button disabled, "Taking you to
// your bank…", no notice): it is asked for again.
window.addEventListener('pageshow', (event) => {
  if (event.persisted) {
    location.reload();
    return;
  }
  const refused = takeRefusal();
  const url = unfinishedChallenge();
  if (!url) sessionStorage.removeItem(challengeKey);
  if (notice) {
    if (url) notice.querySelector('[data-continue]')?.replaceChildren(continueLink(url), ' ');
    countDown(notice);
  } else if (refused?.attempts === attempts) {
    // Reloaded for a 409 with no outcome recorded since: an earlier attempt with this card whose outcome nobody here
    // knows, or the provider holds the order for a charge the shop never heard of.
    if (refused.code === 'TESSERA_CHARGE_ALREADY_SENT') sayBeingChecked();
    else sayHeld(url);
  }
});

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (busy) return; // a second click while the first payment is on its way
  const token = new FormData(form, event.submitter).get('cardToken');
  if (typeof token !== 'string' || !token) return;
  if (!email.checkValidity()) {
    email.reportValidity();
    return;
  }
  busy = true;
  button.disabled = true;
  // A challenge left unfinished is kept: while it is open the provider refuses this payment (409), and the page then
  // offers it again; a new challenge replaces it.
  show('Paying…', 'info');
  let leaving = false;
  try {
    const res = await fetch(chargesUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({
        cardToken: token,
        orderReference: order,
        email: email.value,
        successUrl: resultUrl,
        failUrl: resultUrl,
      }),
    });
    const answer = await res.json().catch(() => ({}));
    leaving = follow(res, answer);
  } catch {
    show(
      'The connection was lost. Press Pay again to check whether the payment went through: you will not be charged twice.',
      'error',
    );
  } finally {
    if (!leaving) {
      busy = false;
      button.disabled = false;
    }
  }
});
