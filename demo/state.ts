import { randomBytes } from 'node:crypto';
import type { CurrencyCode } from '../server/helper/index.js';
import { CHALLENGE_LAPSES_AFTER_MS, CURRENCY, MAX_QUANTITY, type Product, product } from './catalogue.js';

/** One line of a cart or an order. */
export interface Line {
  readonly product: Product;
  readonly quantity: number;
}

/** One final charge of an order (recorded by the helper's `onCharge`, see `recordCharge`). */
export interface Attempt {
  /** `charge_…` */
  readonly id: string;
  readonly atMs: number;
}

export interface Order {
  /** `ord_…`: unguessable, used as the helper's `orderReference` and the charge's `trackId`. */
  readonly id: string;
  /** The session that may see and pay it; follows the session to its new id on sign-in. */
  session: string;
  readonly lines: readonly Line[];
  readonly total: number;
  readonly currency: CurrencyCode;
  readonly preorder: boolean;
  readonly createdMs: number;
  readonly attempts: Attempt[];
  /** Set once a charge of this order was approved: it can no longer be paid. */
  paidBy?: string;
  /**
   * When the latest 3-D Secure challenge of this order started (sandbox clock; from `onChallenge`), until an outcome is
   * recorded: while it is open the provider refuses any other charge of the order (docs/decisions/demo.md#demo-capture).
   */
  challengeStartedMs?: number;
  /** The provider's charge id of that challenge (`charge_…`): only its own outcome ends it. */
  challengeId?: string;
}

/**
 * How long the order's 3-D Secure challenge stays open (ms), or undefined when none is: none started, an outcome was
 * recorded since, it lapsed, or it started "later" than now (the console's reset set the clock back and the sandbox
 * forgot it).
 */
export function challengeLeftMs(order: Order, nowMs: number): number | undefined {
  if (order.challengeStartedMs === undefined || order.paidBy !== undefined) return undefined;
  const age = nowMs - order.challengeStartedMs;
  return age < 0 || age >= CHALLENGE_LAPSES_AFTER_MS ? undefined : CHALLENGE_LAPSES_AFTER_MS - age;
}

const MAX_SESSIONS = 10_000;

/** How many orders the shop keeps, and what it may forget (docs/decisions/demo.md#demo-order-bounds). */
export interface OrderLimits {
  /** Most orders kept at once. */
  readonly maxOrders: number;
  /** Most open orders (not paid, not abandoned) one session may have. */
  readonly maxOpenPerSession: number;
  /** An order not paid this long after it was placed (sandbox clock) is abandoned: it may be forgotten. */
  readonly abandonedAfterMs: number;
}

export const ORDER_LIMITS: OrderLimits = Object.freeze({
  maxOrders: 10_000,
  maxOpenPerSession: 20,
  abandonedAfterMs: 3_600_000,
});

/** Why an order could not be placed: the session has too many open ones, or the shop is full of open ones. */
export class OrderRefused extends Error {
  override name = 'OrderRefused';
  constructor(readonly reason: 'session' | 'full') {
    super(reason === 'session' ? 'too many open orders in this session' : 'the order store is full');
  }
}

/**
 * The demo shop's state, in memory: carts by session and orders. A real shop keeps these in its database; the
 * sizes are bounded so a flood of sessions or checkouts cannot exhaust memory, and a flood cannot push out an
 * order someone is still paying: only paid and abandoned orders are forgotten to make room.
 */
export class ShopState {
  readonly #carts = new Map<string, Map<string, number>>();
  readonly #orders = new Map<string, Order>();
  readonly #limits: OrderLimits;
  #recordFaults = 0;

  constructor(limits: Partial<OrderLimits> = {}) {
    this.#limits = Object.freeze({ ...ORDER_LIMITS, ...limits });
  }

  get limits(): OrderLimits {
    return this.#limits;
  }

  /** How many of the next payments the shop will fail to record (the sandbox console's shop fault). */
  get recordFaults(): number {
    return this.#recordFaults;
  }

  /** Makes the next `count` records of a payment fail (0 clears the fault). */
  failRecords(count: number): void {
    this.#recordFaults = count;
  }

  /** Spends one pending record fault: true when this record must fail. */
  takeRecordFault(): boolean {
    if (this.#recordFaults === 0) return false;
    this.#recordFaults--;
    return true;
  }

  static newId(prefix: string): string {
    return `${prefix}${randomBytes(12).toString('base64url').replace(/[-_]/g, '0')}`;
  }

  /** The session's cart (empty for a visitor without a session). */
  cart(session: string | undefined): Line[] {
    const cart = session === undefined ? undefined : this.#carts.get(session);
    if (!cart) return [];
    return [...cart].map(([id, quantity]) => ({ product: product(id)!, quantity }));
  }

  /** Adds one of `productId` (up to {@link MAX_QUANTITY}) or removes the line. */
  change(session: string, productId: string, action: 'add' | 'remove'): void {
    let cart = this.#carts.get(session);
    if (!cart) {
      if (this.#carts.size >= MAX_SESSIONS) this.#carts.delete(this.#carts.keys().next().value as string);
      cart = new Map();
      this.#carts.set(session, cart);
    }
    if (action === 'remove') cart.delete(productId);
    else cart.set(productId, Math.min(MAX_QUANTITY, (cart.get(productId) ?? 0) + 1));
  }

  /**
   * An order that may be forgotten to make room: paid, or not paid long after it was placed, or placed later than now
   * by the clock: the console's reset set the sandbox clock back, and the sandbox forgot every card token and
   * challenge started for it (else an order placed after the clock was moved on a year stayed open a year).
   */
  #finished(order: Order, nowMs: number): boolean {
    const age = nowMs - order.createdMs;
    return order.paidBy !== undefined || age < 0 || age >= this.#limits.abandonedAfterMs;
  }

  /**
   * Turns the session's cart into an order (the cart is emptied); undefined when the cart is empty. Throws
   * {@link OrderRefused} (the cart is kept) when the session already has `maxOpenPerSession` open orders, or when
   * the shop holds `maxOrders` and none of them is paid or abandoned; otherwise the oldest of those makes room.
   */
  placeOrder(session: string, nowMs: number): Order | undefined {
    const lines = this.cart(session);
    if (lines.length === 0) return undefined;
    let open = 0;
    let room: string | undefined;
    for (const order of this.#orders.values()) {
      const finished = this.#finished(order, nowMs);
      if (!finished && order.session === session) open++;
      if (finished && room === undefined) room = order.id;
    }
    if (open >= this.#limits.maxOpenPerSession) throw new OrderRefused('session');
    if (this.#orders.size >= this.#limits.maxOrders) {
      if (room === undefined) throw new OrderRefused('full');
      this.#orders.delete(room);
    }
    this.#carts.delete(session);
    const order: Order = {
      id: ShopState.newId('ord_'),
      session,
      lines,
      total: lines.reduce((sum, l) => sum + l.product.price * l.quantity, 0),
      currency: CURRENCY,
      preorder: lines.some((l) => l.product.preorder),
      createdMs: nowMs,
      attempts: [],
    };
    this.#orders.set(order.id, order);
    return order;
  }

  /** Gives what session `from` owns (its cart, its orders) to session `to`: the session's id changed at sign-in. */
  moveSession(from: string, to: string): void {
    const cart = this.#carts.get(from);
    if (cart) {
      this.#carts.delete(from);
      this.#carts.set(to, cart);
    }
    for (const order of this.#orders.values()) if (order.session === from) order.session = to;
  }

  order(id: string): Order | undefined {
    return this.#orders.get(id);
  }

  /** Every order's attempts, newest first. */
  recentAttempts(limit: number): { order: Order; attempt: Attempt }[] {
    const all = [...this.#orders.values()].flatMap((order) => order.attempts.map((attempt) => ({ order, attempt })));
    return all.sort((a, b) => b.attempt.atMs - a.attempt.atMs).slice(0, limit);
  }
}
