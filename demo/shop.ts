import { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import type { ChargeDetails, HelperPage } from '../server/helper/index.js';
import type { LegacyClient } from '../server/provider/index.js';
import { NotFoundError } from '../server/provider/index.js';
import { demoBody } from './body.js';
import { CAPTURE_AFTER_HOURS, PRODUCTS, THREE_DS_FROM } from './catalogue.js';
import { DemoError, invalid } from './errors.js';
import { layout, pageScript, Safe } from './html.js';
import { onlyMethods } from './methods.js';
import type { DemoSessions } from './session.js';
import { checkoutBody, resultBody, shopBody, type TestCardRow } from './shop-pages.js';
import { challengeLeftMs, type Order, OrderRefused, type ShopState } from './state.js';

const ORDER_ID = /^ord_[A-Za-z0-9]{16}$/;

const cartSchema = z.object({
  product: z.enum(
    PRODUCTS.map((p) => p.id),
    { error: 'must be a product of the catalogue' },
  ),
  action: z.enum(['add', 'remove'], { error: 'must be "add" or "remove"' }),
});

export interface ShopDeps {
  readonly state: ShopState;
  /** The demo's sessions: a cart is the first thing a visitor stores, so adding to it issues the session. */
  readonly sessions: DemoSessions;
  readonly legacy: LegacyClient;
  readonly testCards: () => Promise<readonly TestCardRow[]>;
  readonly now: () => number;
  /** The helper's `page(req, res)`: the widget's script tag (SRI, nonce), config and charge URLs. */
  readonly helperPage: (req: Request, res: Response) => HelperPage;
}

/**
 * The helper's `resolveCharge` for the shop: the order reference names an order of this session that is not
 * paid yet; amount and currency come from it, never from the page. Orders from {@link THREE_DS_FROM} ask for
 * 3-D Secure. The order id is the charge's `trackId`, so the provider refuses a second approved charge for it, and
 * any other charge while a 3-D Secure challenge of it is open (the shop hears of one from `onChallenge`,
 * demo/provider.ts `recordChallenge`; docs/decisions/demo.md#demo-capture).
 */
export function resolveCharge(state: ShopState, sessionOf: (req: Request) => string | undefined) {
  return (req: Request, { orderReference }: { orderReference: string }): ChargeDetails | undefined => {
    const order = state.order(orderReference);
    if (!order || order.paidBy || order.session !== sessionOf(req)) return undefined;
    const threeDSecure = order.total >= THREE_DS_FROM;
    return {
      amount: order.total,
      currency: order.currency,
      trackId: order.id,
      description: `Tessera demo shop order ${order.id}`,
      metadata: { order: order.id },
      threeDSecure,
      // The capture policy: ordinary orders are captured when the parcel ships, a pre-order is only authorised
      // (it lapses after 7 days unless captured), so the sandbox console can show the clock do either.
      ...(order.preorder ? { autoCapture: false } : { autoCapture: true, autoCapTime: CAPTURE_AFTER_HOURS }),
    };
  };
}

function ownOrder(deps: ShopDeps, req: Request, res: Response): Order {
  const id = String(req.params.id);
  const order = ORDER_ID.test(id) ? deps.state.order(id) : undefined;
  if (!order || order.session !== res.locals.session) throw new DemoError(404, 'DEMO_NOT_FOUND', 'No such order.');
  return order;
}

/** The shop: catalogue and cart (`/`, `POST /cart`), checkout (`/checkout/:id`) and the result (`/orders/:id`). */
export function shopRoutes(deps: ShopDeps): Router {
  const router = Router();
  const form = demoBody('form', { limit: 2048, parameterLimit: 10 });
  const page = (res: Response, title: string, body: Safe, script?: { name: string; helper: HelperPage }) => {
    const nonce = String(res.locals.cspNonce);
    const head = script ? `${script.helper.scriptTag}\n${pageScript(script.name, nonce)}` : '';
    res
      .type('html')
      .set('Cache-Control', 'no-store')
      .send(layout({ title, nonce, current: 'shop', head: new Safe(head), body }));
  };

  router
    .route('/')
    .get(async (_req, res) => {
      page(res, 'Shop', shopBody(deps.state.cart(res.locals.session), await deps.testCards()));
    })
    .all(onlyMethods('GET'));

  router
    .route('/cart')
    .post(form, (req, res) => {
      const parsed = cartSchema.safeParse(req.body ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const field = String(issue.path[0] ?? 'product');
        throw invalid(field, `${field} ${issue.message}`);
      }
      deps.state.change(deps.sessions.ensure(req, res), parsed.data.product, parsed.data.action);
      res.redirect(303, '/#cart');
    })
    .all(onlyMethods('POST'));

  router
    .route('/checkout')
    .post((_req, res) => {
      const { maxOpenPerSession, abandonedAfterMs } = deps.state.limits;
      const session: string | undefined = res.locals.session;
      let order: Order | undefined;
      try {
        // Without a session there is no cart to order.
        order = session === undefined ? undefined : deps.state.placeOrder(session, deps.now());
      } catch (err) {
        if (!(err instanceof OrderRefused)) throw err;
        // The cart is kept: paying one of the open orders, or waiting, lets the shopper check out again.
        throw err.reason === 'session'
          ? new DemoError(
              429,
              'DEMO_TOO_MANY_ORDERS',
              `This session has ${maxOpenPerSession} unpaid orders: pay one of them, or check out again later.`,
              'session',
              { 'Retry-After': String(Math.ceil(abandonedAfterMs / 1000)) },
            )
          : new DemoError(
              503,
              'DEMO_BUSY',
              'The shop cannot take more orders just now; try again in a few minutes.',
              undefined,
              { 'Retry-After': '300' },
            );
      }
      res.redirect(303, order ? `/checkout/${order.id}` : '/');
    })
    .all(onlyMethods('POST'));

  router
    .route('/checkout/:id')
    .get(async (req, res) => {
      const order = ownOrder(deps, req, res);
      if (order.paidBy) {
        res.redirect(303, `/orders/${order.id}`);
        return;
      }
      const helper = deps.helperPage(req, res);
      const body = checkoutBody(order, await deps.testCards(), helper, challengeLeftMs(order, deps.now()));
      page(res, 'Checkout', body, { name: 'checkout.js', helper });
    })
    .all(onlyMethods('GET'));

  router
    .route('/orders/:id')
    .get(async (req, res) => {
      const order = ownOrder(deps, req, res);
      const attempt = order.attempts.find((a) => a.id === order.paidBy) ?? order.attempts.at(-1);
      if (!attempt) {
        res.redirect(303, `/checkout/${order.id}`);
        return;
      }
      let charge: Awaited<ReturnType<LegacyClient['charges']['retrieve']>>['data'];
      try {
        charge = (await deps.legacy.charges.retrieve(attempt.id)).data;
      } catch (err) {
        if (err instanceof NotFoundError) {
          throw new DemoError(404, 'DEMO_NOT_FOUND', 'The sandbox no longer knows this payment (was it reset?).');
        }
        throw new DemoError(502, 'DEMO_PROVIDER', 'The payment provider could not be reached; reload in a moment.');
      }
      page(res, 'Your order', resultBody(order, charge));
    })
    .all(onlyMethods('GET'));

  return router;
}
