import { isIP } from 'node:net';
import type { ChargeRequest } from '../../provider/legacy/client.js';
import type { ChargeBody, ParsedChargeDetails } from './schema.js';

/** chargeMode 2 with the helper's return endpoint as both URLs (docs/decisions/helper.md#helper-3ds). */
const threeDsUrls = (returnUrl: string) => ({ chargeMode: 2 as const, successUrl: returnUrl, failUrl: returnUrl });

/**
 * The shopper's address as the provider takes it (`customerIp`, an IPv4 or IPv6 address), or undefined: an IPv4
 * address mapped into IPv6 as itself, and an IPv6 address without its zone id (`fe80::1%eth0`, which Node's `isIP`
 * accepts and a link-local client's `remoteAddress` or a forwarded address may hold): the zone names an interface of
 * this server, means nothing to the provider, and its schema refuses it, which failed the charge.
 */
function providerIp(ip: string): string | undefined {
  const zone = ip.indexOf('%');
  const bare = (zone === -1 ? ip : ip.slice(0, zone)).replace(/^::ffff:(?=\d+\.)/i, '');
  return isIP(bare) ? bare : undefined;
}

/**
 * What the provider is asked to charge: the shopper's card and details from the request, the amount and the rest from
 * `resolveCharge`, and for 3-D Secure the helper's return URL (`mount`, read only then).
 */
export function chargeRequest(
  body: ChargeBody,
  details: ParsedChargeDetails,
  ip: string,
  mount: () => string,
): ChargeRequest {
  // Built field by field, not by spreading a dozen optional parts: this runs once per charge.
  const request: ChargeRequest = {
    cardToken: body.cardToken,
    value: details.amount,
    currency: details.currency,
  };
  if (body.email !== undefined) request.email = body.email;
  if (body.customerId !== undefined) request.customerId = body.customerId;
  if (details.trackId !== undefined) request.trackId = details.trackId;
  if (details.description !== undefined) request.description = details.description;
  if (details.metadata !== undefined) request.metadata = details.metadata;
  if (details.autoCapture === false) request.autoCapture = 'n';
  else if (details.autoCapTime !== undefined) {
    request.autoCapture = 'y';
    request.autoCapTime = details.autoCapTime;
  }
  if (body.billingDetails !== undefined) request.billingDetails = body.billingDetails;
  if (body.shippingDetails !== undefined) request.shippingDetails = body.shippingDetails;
  const customerIp = providerIp(ip);
  if (customerIp !== undefined) request.customerIp = customerIp;
  if (details.threeDSecure) Object.assign(request, threeDsUrls(`${mount()}/charges/3ds-return`));
  return request;
}
