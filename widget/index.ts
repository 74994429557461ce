/**
 * `tessera-pay/widget`: importing this module defines `<tessera-card-form>`. It exports the element, its event
 * classes and error, the types of their details, and `BrandId` (the type of `acceptedBrands` and of a detail's
 * `brand`); the list is docs/widget.md#exports. The card logic the element runs (shared/card/) and its internal
 * types are no part of it: tests and our own code import them from their source (docs/decisions/tooling.md#entry-exports).
 * The script-tag bundle (`dist/widget/tessera-card-form.js`) is built from ./card-form/define.ts.
 */

export type { BrandId } from '../shared/card/brands.js';
export * from './card-form/define.js';
