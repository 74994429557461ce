import { html } from 'lit';
import type { Brand, BrandId } from '../../shared/card/brands.js';

/**
 * Brand marks drawn as a card in the brand's colour with its short name, rather than
 * the networks' artwork, to keep the bundle small.
 */
const MARKS: Readonly<Record<BrandId, readonly [string, string]>> = {
  visa: ['#1a1f71', 'VISA'],
  mastercard: ['#eb001b', 'MC'],
  amex: ['#1f72cd', 'AMEX'],
  discover: ['#e65c00', 'DISC'],
  diners: ['#0079be', 'DC'],
  jcb: ['#0b4ea2', 'JCB'],
  unionpay: ['#d10429', 'UP'],
  maestro: ['#0099df', 'MAES'],
};

/** The brand's mark, or an outlined card while the brand is unknown. */
export function brandIcon(brand: Brand | undefined) {
  const [bg, label] = (brand && MARKS[brand.id]) ?? ['none', ''];
  return html`<svg part="brand-icon" viewBox="0 0 32 20" role="img" aria-label=${brand?.name ?? ''} aria-hidden=${!brand}>
    <rect x=".5" y=".5" width="31" height="19" rx="3" fill=${bg} stroke=${brand ? 'none' : 'currentColor'} />
    <text x="16" y="13.5">${label}</text>
  </svg>`;
}
