/**
 * The shop's products. Prices live here, on the server, and only here: the
 * browser sends product ids and quantities, the helper's `resolveCharge` reads
 * the amount from the order (DESIGN.md: amount and currency are decided by the server).
 */
export interface Product {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** Price in minor units (cents). */
  readonly price: number;
  /**
   * A pre-order is only authorised at checkout (`autoCapture: "n"`): the shop would capture it when the item
   * is released; uncaptured, the authorisation lapses after 7 days (legacy-card-api.md, Limits).
   */
  readonly preorder?: boolean;
}

export const CURRENCY = 'EUR';

/** Orders from this total (minor units) ask the card's issuer for 3-D Secure (`chargeMode: 2`). */
export const THREE_DS_FROM = 5000;

/**
 * How long the provider keeps a 3-D Secure challenge open before it declines the charge (the sandbox's
 * docs/decisions/sandbox.md#legacy-3ds). Until then the charge holds the order's `trackId`, so no other card can pay
 * the order (docs/decisions/demo.md#demo-capture). The shop keeps its own figure: neither the provider's answer nor
 * `onChallenge` gives a challenge's end (docs/decisions/helper.md#helper-on-challenge).
 */
export const CHALLENGE_LAPSES_AFTER_MS = 15 * 60 * 1000;

/** Hours after authorisation at which an ordinary order is captured (when the parcel ships). */
export const CAPTURE_AFTER_HOURS = 24;

/** Most of one product in a cart. */
export const MAX_QUANTITY = 9;

export const PRODUCTS: readonly Product[] = Object.freeze([
  { id: 'mug', name: 'Tessera mug', description: 'Stoneware, with a mosaic glaze.', price: 1200 },
  { id: 'tiles', name: 'Glass tile set', description: '200 tiles in twelve colours.', price: 2450 },
  { id: 'print', name: 'Framed mosaic print', description: 'A3, oak frame.', price: 6900 },
  {
    id: 'kit',
    name: 'Starter kit (pre-order)',
    description: 'Ships in spring; the card is only authorised today.',
    price: 3900,
    preorder: true,
  },
]);

const byId = new Map(PRODUCTS.map((p) => [p.id, p]));

/** The product with this id, or undefined. */
export function product(id: string): Product | undefined {
  return byId.get(id);
}
