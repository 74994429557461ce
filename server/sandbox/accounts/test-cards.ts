/**
 * The account updater's test cards (docs/decisions/sandbox.md#updater-test-cards): the card number decides the
 * outcome. Any other valid card of a supported network is up to date (UPDATE_FAILED / UP_TO_DATE).
 * Served at `GET /_sandbox/account-updater/test-cards` and listed in docs/sandbox.md (docs-reference.test.ts holds the two together).
 */

export type UpdaterOutcome = 'CARD_UPDATED' | 'CARD_EXPIRY_UPDATED' | 'CARD_CLOSED' | 'UPDATE_FAILED';

export interface UpdaterTestCard {
  readonly number: string;
  readonly network: 'visa' | 'mastercard' | 'amex';
  readonly outcome: UpdaterOutcome;
  /** With UPDATE_FAILED. */
  readonly failureCode?: string;
  /** With CARD_UPDATED: the number the issuer replaced it with. */
  readonly newNumber?: string;
}

/** Years added to the sandbox's current year for a renewed expiry (month kept). */
export const RENEWAL_YEARS = 3;

export const UPDATER_TEST_CARDS: readonly UpdaterTestCard[] = [
  { number: '4000000000001000', network: 'visa', outcome: 'CARD_UPDATED', newNumber: '4000000000009003' },
  { number: '4000000000002008', network: 'visa', outcome: 'CARD_EXPIRY_UPDATED' },
  { number: '4000000000003006', network: 'visa', outcome: 'CARD_CLOSED' },
  { number: '4000000000004004', network: 'visa', outcome: 'UPDATE_FAILED', failureCode: 'UP_TO_DATE' },
  { number: '4000000000005001', network: 'visa', outcome: 'UPDATE_FAILED', failureCode: 'ISSUER_NOT_PARTICIPATING' },
  { number: '5100000000001006', network: 'mastercard', outcome: 'CARD_UPDATED', newNumber: '5100000000009009' },
  { number: '5100000000002004', network: 'mastercard', outcome: 'CARD_EXPIRY_UPDATED' },
  { number: '5100000000003002', network: 'mastercard', outcome: 'CARD_CLOSED' },
  { number: '5100000000004000', network: 'mastercard', outcome: 'UPDATE_FAILED', failureCode: 'UP_TO_DATE' },
  { number: '340000000000108', network: 'amex', outcome: 'CARD_UPDATED', newNumber: '340000000000900' },
  { number: '340000000000207', network: 'amex', outcome: 'CARD_EXPIRY_UPDATED' },
  { number: '340000000000306', network: 'amex', outcome: 'CARD_CLOSED' },
  { number: '340000000000405', network: 'amex', outcome: 'UPDATE_FAILED', failureCode: 'UP_TO_DATE' },
];

const byNumber = new Map(UPDATER_TEST_CARDS.map((c) => [c.number, c]));

/** The test-card row of a number, if any. */
export function updaterTestCard(number: string): UpdaterTestCard | undefined {
  return byNumber.get(number);
}

/** The table as the sandbox endpoint answers it. */
export function testCardsView() {
  return {
    renewal: `expiry becomes the same month, ${RENEWAL_YEARS} years after the sandbox's current year`,
    default: { account_update_status: 'UPDATE_FAILED', account_update_failure_code: 'UP_TO_DATE' },
    data: UPDATER_TEST_CARDS.map((c) => ({
      number: c.number,
      network: c.network,
      account_update_status: c.outcome,
      ...(c.failureCode ? { account_update_failure_code: c.failureCode } : {}),
      ...(c.newNumber ? { new_number: c.newNumber } : {}),
    })),
  };
}
