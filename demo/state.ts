import { randomBytes } from 'node:crypto';
import type { CurrencyCode } from '../server/helper/index.js';
import { CURRENCY, MAX_QUANTITY, type Product, product } from './catalogue.js';

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
  readonly session: string;
  readonly lines: readonly Line[];
  readonly total: number;
  readonly currency: CurrencyCode;
  readonly preorder: boolean;
  readonly createdMs: number;
  readonly attempts: Attempt[];
  /** Set once a charge of this order was approved: it can no longer be paid. */
  paidBy?: string;
}

const MAX_SESSIONS = 10_000;
const MAX_ORDERS = 10_000;

/**
 * The demo shop's state, in memory: carts by session and orders. A real shop keeps these in its database; the
 * sizes are bounded so a flood of sessions cannot exhaust memory.
 */
export class ShopState {
  readonly #carts = new Map<string, Map<string, number>>();
  readonly #orders = new Map<string, Order>();
  #recordFaults = 0;

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

  cart(session: string): Line[] {
    const cart = this.#carts.get(session);
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

  /** Turns the session's cart into an order (the cart is emptied); undefined when the cart is empty. */
  placeOrder(session: string, nowMs: number): Order | undefined {
    const lines = this.cart(session);
    if (lines.length === 0) return undefined;
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
    if (this.#orders.size >= MAX_ORDERS) this.#orders.delete(this.#orders.keys().next().value as string);
    this.#orders.set(order.id, order);
    return order;
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
