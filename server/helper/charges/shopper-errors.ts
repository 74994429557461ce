import type { ValidationError } from '../../provider/errors.js';
import { badRequest, HelperHttpError } from '../errors.js';

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
    return new HelperHttpError(
      409,
      'TESSERA_CARD_TOKEN_USED',
      'cardToken was already used for a charge with other details; ask for the card again',
      { field: 'cardToken', outcomeKnown: true },
    );
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
