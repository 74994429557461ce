import { randomInt } from 'node:crypto';
import { autoCaptureOn } from '../../provider/schemas/legacy.js';
import type { VaultCard } from '../core/context.js';
import type { ChargeOutcome, ChargeRecord } from './store.js';
import { RESPONSE_CODES, testCard } from './test-cards.js';

/** Uncaptured authorisations lapse after 7 days (legacy-card-api.md, Limits). */
export const AUTHORISATION_LIFETIME_MS = 168 * 3600 * 1000;

/** How long a 3-D Secure challenge stays open before the charge is declined (docs/decisions/sandbox.md#legacy-3ds). */
export const CHALLENGE_LIFETIME_MS = 15 * 60 * 1000;

/** How 3-D Secure went for the charge being decided. */
export type ThreeDs = 'none' | 'passed';

function authCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

// Outcomes are built field by field, not by spreading RESPONSE_CODES: charges are the sandbox's hot path and an
// object spread costs far more than a literal (docs/benchmarks.md).
function outcome(
  status: ChargeOutcome['status'],
  codes: { readonly responseCode: string; readonly responseMessage: string },
  responseAdvancedInfo: string,
  code: string,
): ChargeOutcome {
  return {
    status,
    responseCode: codes.responseCode,
    responseMessage: codes.responseMessage,
    responseAdvancedInfo,
    authCode: code,
  };
}

/**
 * The issuer's answer for `card`, from the test-card table (test-cards.ts); any other valid card is approved.
 * The 3-D Secure card is declined with 20154 unless the charge went through a passed challenge.
 */
export function decide(card: VaultCard, threeDs: ThreeDs): ChargeOutcome {
  const test = testCard(card.number);
  const kind = test?.outcome ?? 'approved';
  if (kind === 'approved' || (kind === '3ds_required' && threeDs === 'passed')) {
    return outcome('Authorised', RESPONSE_CODES.approved, 'Approved', authCode());
  }
  if (kind === 'flagged') {
    const info = 'Approved by the issuer; flagged by the risk checks for review';
    return outcome('Flagged', RESPONSE_CODES.flagged, info, authCode());
  }
  const declined = kind === '3ds_required' ? RESPONSE_CODES.threeDsRequired : test!;
  return outcome('Declined', declined, test!.description, '000000');
}

/** The answer while the shopper has not finished the 3-D Secure challenge. */
export function pendingChallenge(): ChargeOutcome {
  const info = 'Waiting for the cardholder to complete the 3-D Secure challenge';
  return outcome('Pending', RESPONSE_CODES.pending3ds, info, '');
}

/** The answer when the shopper fails the 3-D Secure challenge. */
export function failedChallenge(): ChargeOutcome {
  const info = 'The cardholder did not pass the 3-D Secure challenge';
  return outcome('Declined', RESPONSE_CODES.threeDsFailed, info, '000000');
}

/** The answer when the shopper never finishes the challenge. */
export function abandonedChallenge(): ChargeOutcome {
  const info = 'The 3-D Secure challenge was not completed within 15 minutes';
  return outcome('Declined', RESPONSE_CODES.threeDsFailed, info, '000000');
}

/** Sets an approved charge's status at authorisation: Captured at once when autoCapTime is 0 and autoCapture on. */
export function authorise(charge: ChargeRecord, nowMs: number): void {
  charge.authorisedMs = nowMs;
  if (charge.status === 'Authorised' && autoCaptureOn(charge.autoCapture) && charge.autoCapTime === 0) {
    charge.status = 'Captured';
  }
}

/**
 * Applies the time-driven transitions up to `nowMs` (legacy-card-api.md, States and transitions): Authorised →
 * Captured once autoCapTime has elapsed with autoCapture on; Authorised → Expired after 168 hours uncaptured;
 * Pending → Declined when the 3-D Secure challenge stays open 15 minutes.
 * Runs whenever a charge is read, so its state is right at any clock time (docs/decisions/sandbox.md#legacy-states).
 */
export function settle(charge: ChargeRecord, nowMs: number): ChargeRecord {
  if (charge.status === 'Pending' && nowMs >= charge.createdMs + CHALLENGE_LIFETIME_MS) {
    Object.assign(charge, abandonedChallenge());
    return charge;
  }
  if (charge.status !== 'Authorised' || charge.authorisedMs === undefined) return charge;
  const captureAt = autoCaptureOn(charge.autoCapture) ? charge.authorisedMs + charge.autoCapTime * 3600_000 : Infinity;
  const expireAt = charge.authorisedMs + AUTHORISATION_LIFETIME_MS;
  // autoCapTime is at most 168 hours, so a capture due at the very end of the lifetime still happens.
  if (nowMs >= captureAt) charge.status = 'Captured';
  else if (nowMs >= expireAt) {
    charge.status = 'Expired';
    charge.responseAdvancedInfo = 'The authorisation lapsed: not captured within 168 hours';
  }
  return charge;
}
