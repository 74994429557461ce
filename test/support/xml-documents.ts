/**
 * Large documents for the XML codec's linear-time test (test/node/provider/codec-xml.test.ts) and its benchmark
 * (bench/xml.bench.ts): a charge answer as the legacy client reads it, grown by products of long text.
 */

/** `n` characters of text a shopper may write, with characters XML escapes (`'`, `"`, `&`, `<`) and non-ASCII. */
export const shopperText = (n: number): string =>
  `Shopper's "fine" goods & more <b> ü € 日本 — `.repeat(Math.ceil(n / 40)).slice(0, n);

/** A charge answer with `products` products, every text field long (about 4.3 KiB of XML per product). */
export const chargeAnswer = (products: number) => ({
  id: 'charge_test_0123456789abcdef',
  value: 1999,
  currency: 'EUR',
  description: shopperText(200),
  metadata: { 'cart id': 'c-1', order: 'o-77' },
  products: Array.from({ length: products }, (_, i) => ({
    description: shopperText(500),
    name: shopperText(100),
    price: 1999 + i,
    quantity: 1,
    sku: shopperText(30),
    trackingUrl: shopperText(2048),
  })),
});
