/**
 * The sandbox's test cards: the card number decides the outcome of a charge. Every number here is valid for its
 * brand (Luhn, length), so it also passes the widget's checks; any other valid number is approved with 10000.
 * Response codes follow the provider's published 1xxxx (approved) / 2xxxx (declined) scheme; the legacy spec lists
 * only 10000 and 10100 (docs/decisions/sandbox.md#legacy-test-cards). Served at `GET /_sandbox/test-cards` and printed in
 * docs/sandbox.md (docs-reference.test.ts holds the two together).
 */

/** What a charge with the card does. */
export type TestCardOutcome = 'approved' | 'flagged' | 'declined' | '3ds_required';

export interface TestCard {
  readonly number: string;
  /** Brand name, as the API's `paymentMethod` shows it. */
  readonly brand: string;
  readonly outcome: TestCardOutcome;
  /** The charge's `responseCode` (for `3ds_required`: the code of a charge sent without 3-D Secure). */
  readonly responseCode: string;
  /** The charge's `responseMessage`. */
  readonly responseMessage: string;
  readonly description: string;
}

/** Response codes the sandbox can answer and their messages (approved, flagged, and each decline). */
export const RESPONSE_CODES = {
  approved: { responseCode: '10000', responseMessage: 'Approved' },
  flagged: { responseCode: '10100', responseMessage: 'Approved - flagged for review' },
  pending3ds: { responseCode: '10200', responseMessage: 'Pending - 3-D Secure authentication in progress' },
  threeDsFailed: { responseCode: '20151', responseMessage: 'Cardholder failed 3-D Secure authentication' },
  threeDsRequired: { responseCode: '20154', responseMessage: '3-D Secure authentication required' },
} as const;

function approved(number: string, brand: string): TestCard {
  return {
    number,
    brand,
    outcome: 'approved',
    ...RESPONSE_CODES.approved,
    description: `Approved (${brand})`,
  };
}

function declined(number: string, responseCode: string, responseMessage: string, description: string): TestCard {
  return { number, brand: 'Visa', outcome: 'declined', responseCode, responseMessage, description };
}

export const TEST_CARDS: readonly TestCard[] = Object.freeze([
  approved('4242424242424242', 'Visa'),
  approved('5555555555554444', 'Mastercard'),
  approved('2223003122003222', 'Mastercard'),
  approved('378282246310005', 'American Express'),
  approved('6011111111111117', 'Discover'),
  approved('36227206271667', 'Diners Club'),
  approved('3566002020360505', 'JCB'),
  approved('6200000000000005', 'UnionPay'),
  approved('6759649826438453', 'Maestro'),
  {
    number: '4000000000004954',
    brand: 'Visa',
    outcome: 'flagged',
    ...RESPONSE_CODES.flagged,
    description: 'Approved but flagged by the risk checks: status Flagged, not captured automatically',
  },
  declined('4000000000000002', '20005', 'Declined - Do not honour', 'Declined by the issuer without a reason'),
  declined('4000000000009995', '20051', 'Insufficient funds', 'Declined: not enough funds on the account'),
  declined('4000000000000069', '20054', 'Expired card', 'Declined: the issuer reports the card expired'),
  declined('4000000000000119', '20014', 'Invalid card number', 'Declined: the issuer does not know the card'),
  declined('4000000000009987', '20062', 'Restricted card', 'Declined: the card may not be used (lost or blocked)'),
  declined('4000000000009979', '20059', 'Suspected fraud', 'Declined: the issuer suspects fraud'),
  {
    number: '4000000000003220',
    brand: 'Visa',
    outcome: '3ds_required',
    ...RESPONSE_CODES.threeDsRequired,
    description:
      'Requires 3-D Secure: declined with 20154 when charged with chargeMode 1; approved after a passed challenge with chargeMode 2',
  },
]);

const byNumber = new Map(TEST_CARDS.map((c) => [c.number, c]));

/** The test card with this number, or undefined (an ordinary card: approved). */
export function testCard(number: string): TestCard | undefined {
  return byNumber.get(number);
}
