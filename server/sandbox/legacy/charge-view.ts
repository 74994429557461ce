import type { ChargeResponse } from '../../provider/schemas/legacy.js';
import { cardSummary, fullAddress } from './card-tokens.js';
import type { ChargeRecord } from './store.js';

/** The charge as the API answers it: every field of the spec's charge-response table. */
export function chargeView(charge: ChargeRecord, liveMode: boolean): ChargeResponse {
  const r = charge.request;
  // Field by field, not by spreading the card summary: a spread costs far more than a literal on this hot path.
  const card = cardSummary(charge.cardId, charge.card);
  return {
    id: charge.id,
    liveMode,
    created: new Date(charge.createdMs).toISOString(),
    value: r.value,
    currency: r.currency,
    trackId: r.trackId ?? null,
    description: r.description ?? null,
    email: charge.email,
    customerIp: r.customerIp ?? null,
    chargeMode: charge.chargeMode,
    transactionIndicator: charge.transactionIndicator,
    autoCapture: charge.autoCapture,
    autoCapTime: charge.autoCapTime,
    responseMessage: charge.responseMessage,
    responseAdvancedInfo: charge.responseAdvancedInfo,
    responseCode: charge.responseCode,
    status: charge.status,
    authCode: charge.authCode,
    isCascaded: false,
    card: {
      id: card.id,
      last4: card.last4,
      bin: card.bin,
      paymentMethod: card.paymentMethod,
      expiryMonth: card.expiryMonth,
      expiryYear: card.expiryYear,
      fingerprint: card.fingerprint,
      name: card.name,
      customerId: charge.customerId,
      billingDetails: charge.billingDetails,
      cvvCheck: charge.cvvPresented ? 'Y' : 'U',
      avsCheck: charge.billingDetails?.addressLine1 && charge.billingDetails.postcode ? 'Y' : 'S',
    },
    riskCheck: r.riskCheck ?? true,
    customerPaymentPlans: null,
    metadata: r.metadata ?? {},
    shippingDetails: fullAddress(r.shippingDetails),
    products: charge.products,
    udf1: r.udf1 ?? null,
    udf2: r.udf2 ?? null,
    udf3: r.udf3 ?? null,
    udf4: r.udf4 ?? null,
    udf5: r.udf5 ?? null,
  };
}
