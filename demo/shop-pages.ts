import type { Charge } from '../server/provider/index.js';
import { CAPTURE_AFTER_HOURS, CHALLENGE_LAPSES_AFTER_MS, PRODUCTS, THREE_DS_FROM } from './catalogue.js';
import { html, money, type Safe } from './html.js';
import type { Line, Order } from './state.js';

/** A test card as `GET /_sandbox/test-cards` lists it. */
export interface TestCardRow {
  readonly number: string;
  readonly brand: string;
  readonly outcome: string;
  readonly responseCode: string;
  readonly description: string;
}

const grouped = (number: string) => number.replace(/(\d{4})(?=\d)/g, '$1 ');

function lineTable(lines: readonly Line[], total: number, caption: string, actions = false): Safe {
  return html`<table class="lines">
<caption>${caption}</caption>
<thead><tr><th scope="col">Item</th><th scope="col" class="num">Qty</th><th scope="col" class="num">Price</th>${actions ? html`<th scope="col"><span class="sr-only">Actions</span></th>` : ''}</tr></thead>
<tbody>${lines.map(
    (l) =>
      html`<tr><th scope="row">${l.product.name}</th><td class="num">${l.quantity}</td><td class="num">${money(l.product.price * l.quantity)}</td>${
        actions
          ? html`<td><form method="post" action="/cart"><input type="hidden" name="product" value="${l.product.id}"><input type="hidden" name="action" value="remove"><button type="submit" class="link">Remove<span class="sr-only"> ${l.product.name}</span></button></form></td>`
          : ''
      }</tr>`,
  )}</tbody>
<tfoot><tr><th scope="row">Total</th><td></td><td class="num" data-total>${money(total)}</td>${actions ? html`<td></td>` : ''}</tr></tfoot>
</table>`;
}

/** The test cards to try, from the sandbox (sandbox mode only). */
export function testCardList(cards: readonly TestCardRow[]): Safe {
  if (cards.length === 0) return html``;
  const pick = cards.filter((c) => c.outcome !== 'approved' || c.number === '4242424242424242');
  return html`<section class="card-list" aria-labelledby="test-cards">
<h2 id="test-cards">Test cards</h2>
<p>Sandbox mode: use any future expiry (e.g. 12/34) and any CVV of the right length (4 digits for American Express, 3 for the others). Orders from ${money(THREE_DS_FROM)} ask for 3-D Secure.</p>
<table><thead><tr><th scope="col">Number</th><th scope="col">Outcome</th></tr></thead>
<tbody>${pick.map((c) => html`<tr><td><code>${grouped(c.number)}</code></td><td>${c.description}</td></tr>`)}</tbody></table>
<p>Any other valid card number is approved.</p>
</section>`;
}

export function shopBody(cart: readonly Line[], cards: readonly TestCardRow[]): Safe {
  const total = cart.reduce((s, l) => s + l.product.price * l.quantity, 0);
  return html`<h1>Mosaic supplies</h1>
<div class="shop">
<section aria-labelledby="catalogue-title"><h2 id="catalogue-title">Catalogue</h2>
<ul class="products">${PRODUCTS.map(
    (p) => html`<li class="product"><h3>${p.name}</h3><p>${p.description}</p><p class="price">${money(p.price)}</p>
<form method="post" action="/cart"><input type="hidden" name="product" value="${p.id}"><input type="hidden" name="action" value="add"><button type="submit">Add<span class="sr-only"> ${p.name}</span> to cart</button></form></li>`,
  )}</ul></section>
<section id="cart" aria-labelledby="cart-title" class="cart"><h2 id="cart-title">Your cart</h2>
${
  cart.length === 0
    ? html`<p>Your cart is empty.</p>`
    : html`${lineTable(cart, total, 'Items in your cart', true)}
<form method="post" action="/checkout"><button type="submit" class="primary">Check out</button></form>`
}
</section>
</div>
${testCardList(cards)}`;
}

export function checkoutBody(
  order: Order,
  cards: readonly TestCardRow[],
  helper: { configUrl: string; chargesUrl: string },
  challengeLeftMs?: number,
): Safe {
  const threeDs = order.total >= THREE_DS_FROM;
  // A 3-D Secure challenge left open holds the order at the provider: no other card can pay it until it lapses.
  // checkout.js puts "Continue to your bank" in the slot when this tab knows the bank's page, and keeps the minutes
  // true without a reload (from data-left-ms). The notice is no live region, so a screen reader is not told every
  // minute; the page's message (role="alert") says once when another card can be used.
  const minutes = challengeLeftMs === undefined ? 0 : Math.ceil(challengeLeftMs / 60_000);
  const held =
    challengeLeftMs === undefined
      ? ''
      : html`<p id="challenge-notice" class="message" data-kind="info" data-left-ms="${String(challengeLeftMs)}">Your bank is still checking this order’s payment. <span data-continue></span>If you do not confirm it there, you can pay with another card in <span data-minutes>${String(minutes)} ${minutes === 1 ? 'minute' : 'minutes'}</span>, when it lapses.</p>`;
  return html`<h1>Checkout</h1>
<div class="checkout">
<section aria-labelledby="summary-title"><h2 id="summary-title">Order summary</h2>
${lineTable(order.lines, order.total, `Order ${order.id}`)}
${threeDs ? html`<p>Your bank will ask you to confirm this payment (3-D Secure).</p>` : ''}
</section>
<section aria-labelledby="pay-title"><h2 id="pay-title">Payment</h2>
<form id="pay" class="pay" novalidate data-order="${order.id}" data-charges-url="${helper.chargesUrl}" data-attempts="${String(order.attempts.length)}" data-challenge-lapses-ms="${String(CHALLENGE_LAPSES_AFTER_MS)}">
<label for="email">Email for the receipt</label>
<input id="email" name="email" type="email" autocomplete="email" required value="shopper@example.com">
<fieldset><legend>Card</legend>
<tessera-card-form config-url="${helper.configUrl}" hide-name></tessera-card-form>
</fieldset>
${held}
<div id="pay-message" class="message" role="alert" aria-atomic="true"></div>
<button type="submit" class="primary" id="pay-button">Pay ${money(order.total)}</button>
</form>
<p class="fineprint">Card details go straight from this page to the payment provider; this shop only ever sees a single-use token.</p>
</section>
</div>
${testCardList(cards)}`;
}

const HEADINGS: Record<string, [string, string]> = {
  Authorised: [
    'Thank you: payment authorised',
    `Your card was authorised. The shop captures the payment ${CAPTURE_AFTER_HOURS} hours later, when your order ships.`,
  ],
  Captured: ['Thank you: payment captured', 'Your payment is complete.'],
  Flagged: ['Thank you: payment received', 'Your payment was approved and is being reviewed.'],
  Declined: ['Payment declined', 'The payment was declined. Check the card details or use another card.'],
  Expired: ['Authorisation expired', 'The authorisation lapsed before the shop captured it.'],
};

export function resultBody(order: Order, charge: Charge): Safe {
  const [title, text] = HEADINGS[charge.status] ?? [`Payment ${charge.status}`, ''];
  const declined = charge.status === 'Declined';
  const card = charge.card;
  const pre = order.preorder && charge.status === 'Authorised';
  return html`<h1>${title}</h1>
<div class="result ${declined ? 'bad' : 'good'}" data-status="${charge.status}">
<p>${pre ? 'Your card was authorised. The shop captures the payment when the pre-order ships; an uncaptured authorisation lapses after 7 days.' : text}</p>
<dl class="facts">
<dt>Order</dt><dd><code>${order.id}</code></dd>
<dt>Amount</dt><dd>${money(order.total, order.currency)}</dd>
<dt>Charge</dt><dd><code data-charge-id>${charge.id}</code></dd>
<dt>Status</dt><dd data-charge-status>${charge.status}</dd>
<dt>Response code</dt><dd>${charge.responseCode}</dd>
<dt>Card</dt><dd data-card>${card.paymentMethod} •••• ${card.last4}, expires ${String(card.expiryMonth).padStart(2, '0')}/${card.expiryYear}</dd>
</dl>
${declined ? html`<p><a class="button primary" href="/checkout/${order.id}">Try another card</a></p>` : ''}
${declined ? '' : html`<p><a href="/">Back to the shop</a> · <a href="/sandbox">Watch this charge on the sandbox console</a></p>`}
</div>`;
}
