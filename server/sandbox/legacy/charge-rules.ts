import { randomInt } from 'node:crypto';
import type { VaultCard } from '../core/context.js';
import type { ChargeOutcome, ChargeRecord } from './store.js';
import { RESPONSE_CODES, testCard } from './test-cards.js';

/** Uncaptured authorisations lapse after 7 days (legacy-card-api.md, Limits). */
export const AUTHORISATION_LIFETIME_MS = 168 * 3600 * 1000;

/** How long a 3-D Secure challenge stays open before the charge is declined (docs/DECISIONS.md#legacy-3ds). */
export const CHALLENGE_LIFETIME_MS = 15 * 60 * 1000;

/** How 3-D Secure went for the charge being decided. */
export type ThreeDs = 'none' | 'passed';

function authCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/**
 * The issuer's answer for `card`, from the test-card table (test-cards.ts); any other valid card is approved.
 * The 3-D Secure card is declined with 20154 unless the charge went through a passed challenge.
 */
export function decide(card: VaultCard, threeDs: ThreeDs): ChargeOutcome {
  const test = testCard(card.number);
  const outcome = test?.outcome ?? 'approved';
  if (outcome === 'approved' || (outcome === '3ds_required' && threeDs === 'passed')) {
    return {
      status: 'Authorised',
      ...RESPONSE_CODES.approved,
      responseAdvancedInfo: 'Approved',
      authCode: authCode(),
    };
  }
  if (outcome === 'flagged') {
    return {
      status: 'Flagged',
      ...RESPONSE_CODES.flagged,
      responseAdvancedInfo: 'Approved by the issuer; flagged by the risk checks for review',
      authCode: authCode(),
    };
  }
  const declined = outcome === '3ds_required' ? RESPONSE_CODES.threeDsRequired : test!;
  return {
    status: 'Declined',
    responseCode: declined.responseCode,
    responseMessage: declined.responseMessage,
    responseAdvancedInfo: test!.description,
    authCode: '000000',
  };
}

/** The answer when the shopper fails the 3-D Secure challenge. */
export function failedChallenge(): ChargeOutcome {
  return {
    status: 'Declined',
    ...RESPONSE_CODES.threeDsFailed,
    responseAdvancedInfo: 'The cardholder did not pass the 3-D Secure challenge',
    authCode: '000000',
  };
}

/** The answer when the shopper never finishes the challenge. */
export function abandonedChallenge(): ChargeOutcome {
  return {
    ...failedChallenge(),
    responseAdvancedInfo: 'The 3-D Secure challenge was not completed within 15 minutes',
  };
}

/** Sets an approved charge's status at authorisation: Captured at once when autoCapTime is 0 and autoCapture on. */
export function authorise(charge: ChargeRecord, nowMs: number): void {
  charge.authorisedMs = nowMs;
  if (charge.status === 'Authorised' && charge.autoCapture === 'y' && charge.autoCapTime === 0) {
    charge.status = 'Captured';
  }
}

/**
 * Applies the time-driven transitions up to `nowMs` (legacy-card-api.md, States and transitions): Authorised →
 * Captured once autoCapTime has elapsed with autoCapture on; Authorised → Expired after 168 hours uncaptured;
 * Pending → Declined when the 3-D Secure challenge stays open 15 minutes.
 * Runs whenever a charge is read, so its state is right at any clock time (docs/DECISIONS.md#legacy-states).
 */
export function settle(charge: ChargeRecord, nowMs: number): ChargeRecord {
  if (charge.status === 'Pending' && nowMs >= charge.createdMs + CHALLENGE_LIFETIME_MS) {
    Object.assign(charge, abandonedChallenge());
    return charge;
  }
  if (charge.status !== 'Authorised' || charge.authorisedMs === undefined) return charge;
  const captureAt = charge.autoCapture === 'y' ? charge.authorisedMs + charge.autoCapTime * 3600_000 : Infinity;
  const expireAt = charge.authorisedMs + AUTHORISATION_LIFETIME_MS;
  // autoCapTime is at most 168 hours, so a capture due at the very end of the lifetime still happens.
  if (nowMs >= captureAt) charge.status = 'Captured';
  else if (nowMs >= expireAt) {
    charge.status = 'Expired';
    charge.responseAdvancedInfo = 'The authorisation lapsed: not captured within 168 hours';
  }
  return charge;
}
