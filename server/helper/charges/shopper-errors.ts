import type { ValidationError } from '../../provider/errors.js';
import { badRequest, HelperHttpError } from '../errors.js';

/** The answer to a card token the provider refuses as sent before for this order with other details. */
const CHARGE_ALREADY_SENT =
  'cardToken was already sent to the payment provider for this order, and this server no longer holds its answer: the card may have been charged. The order is as onCharge recorded it (or as the provider’s dashboard shows it): check it before asking for another card.';

/** The provider's refusals that concern what the shopper sent, answered as 4xx instead of an upstream fault. */
export function shopperError(err: ValidationError): HelperHttpError | undefined {
  const codes = new Set(err.fieldErrors.map((f) => f.code));
  const top = (err.body as { errorCode?: unknown } | undefined)?.errorCode;
  if (typeof top === 'string') codes.add(top);
  if (codes.has('card_token_used')) {
    return new HelperHttpError(409, 'TESSERA_CARD_TOKEN_USED', 'cardToken was already used; ask for the card again', {
      field: 'cardToken',
      outcomeKnown: true,
    });
  }
  if (codes.has('card_token_expired')) {
    return new HelperHttpError(409, 'TESSERA_CARD_TOKEN_EXPIRED', 'cardToken has expired; ask for the card again', {
      field: 'cardToken',
      outcomeKnown: true,
    });
  }
  if (codes.has('card_token_unknown')) return badRequest('cardToken', 'cardToken is not a known card token');
  if (codes.has('idempotency_key_reused')) {
    // The same token and order (the idempotency key) with another body: sent before, by a request whose answer the
    // store no longer holds, so that charge may have been made; nothing here can read it back
    // (docs/decisions/helper.md#helper-charge-already-sent).
    return new HelperHttpError(409, 'TESSERA_CHARGE_ALREADY_SENT', CHARGE_ALREADY_SENT, {
      field: 'cardToken',
      outcomeKnown: false,
    });
  }
  if (codes.has('track_id_duplicate')) {
    return new HelperHttpError(409, 'TESSERA_ORDER_ALREADY_CHARGED', 'orderReference was already charged', {
      field: 'orderReference',
      outcomeKnown: true,
    });
  }
  const shopperField = err.fieldErrors.find((f) =>
    /^(email|customerId|billingDetails|shippingDetails)\b/.test(f.field),
  );
  if (shopperField) return badRequest(shopperField.field, `${shopperField.field} was refused by the payment provider`);
  return undefined;
}
