import { secureUrl } from '../../shared/url.js';
import type {
  AccountUpdaterResult,
  PaymentInstrument,
  PaymentInstrumentWriteResult,
} from '../provider/accounts/types.js';
import { InvalidResponseError } from '../provider/errors.js';
import type { ProviderResult } from '../provider/http/result.js';
import type { Charge, ThreeDSecureRedirect } from '../provider/legacy/client.js';
import { ACCOUNT_UPDATE_STATUSES, CARD_CARRYING_STATUSES } from '../provider/schemas/accounts/index.js';
import { chargeStatusSchema } from '../provider/schemas/legacy.js';
import { containsPan } from './pan-guard.js';

/**
 * The fields of the provider's answers that the helper reads, checked before it reads them
 * (docs/decisions/helper.md#helper-provider-answers). The clients hand back the decoded body as the provider sent
 * it (their full-schema check, `validateResponses`, is off: a field the helper never reads must not fail a charge),
 * so a 2xx without these fields would otherwise be a 500, or a 200 with holes passed on to the page and to
 * `onCardUpdated`. Each check throws `InvalidResponseError`, which the routes answer as a 502 saying whether the
 * outcome is known.
 */

const CHARGE_STATUSES: ReadonlySet<string> = new Set(chargeStatusSchema.options);
const UPDATE_STATUSES: ReadonlySet<string> = new Set(ACCOUNT_UPDATE_STATUSES);

type Fields = Record<string, unknown>;

const isObject = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v !== '';
/**
 * The last four digits of a card, and a BIN (the first six or eight): what the helper passes on of a card. Anything
 * longer may be the card number itself, which must not reach the page, the store, `onCharge` or `onCardUpdated`.
 */
const isLast4 = (v: unknown) => typeof v === 'string' && /^[0-9]{4}$/.test(v);
const isBin = (v: unknown) => typeof v === 'string' && /^[0-9]{6,8}$/.test(v);
/**
 * A charge's id as the spec has it (`charge_…`), of letters, digits, `_` and `-` (the sandbox's and the samples'),
 * at most 100 after the prefix: it goes into the shopper's `Location` (`?chargeId=`), the page, the store and
 * `onCharge`. A 3-D Secure charge read back by its payment token that answered that token (or anything else) as its
 * id handed the token to the merchant's success page and its scripts; a megabyte of id made a `Location` no browser
 * takes, answered again from the store on every reload (docs/decisions/helper.md#helper-charge-id). One class: linear.
 * Nor may it hold what the card-number guard takes for a card number (`charge_4242424242424242`,
 * `charge_4242-4242-4242-4242`): the page, its scripts, the store and `onCharge` would get the card number.
 */
const isChargeId = (v: unknown) => typeof v === 'string' && /^charge_[A-Za-z0-9_-]{1,100}$/.test(v) && !containsPan(v);
/** `"06"` or `6`: the charge event reads both with `Number()`. */
const isWholeNumber = (v: unknown) =>
  (typeof v === 'number' || (typeof v === 'string' && v !== '')) && Number.isSafeInteger(Number(v));

/**
 * The shopper's browser is sent to a 3-D Secure challenge URL, and the shopper types a bank password there: it must be
 * an absolute https URL, or http to loopback (the local sandbox), by the one secure-URL rule, and carry no user or
 * password: `https://acs.bank.example@evil.example/` names the bank and opens another site, and a challenge page has
 * no use for credentials in its URL. Its origin is not pinned to the provider's: a real challenge is the card issuer's
 * page, on the issuer's (or its access control server's) domain (docs/decisions/helper.md#helper-provider-answers).
 */
const isChallengeUrl = (v: string): boolean => {
  const url = secureUrl(v);
  return url !== undefined && url.username === '' && url.password === '';
};

/** The first field of a charge the helper reads that is missing or malformed. A pending charge is read for its status. */
function chargeFault(data: unknown, pendingAllowed: boolean): string | undefined {
  if (!isObject(data)) return '(body)';
  if (!isChargeId(data.id)) return 'id';
  if (typeof data.status !== 'string' || !CHARGE_STATUSES.has(data.status)) return 'status';
  if (data.status === 'Pending') return pendingAllowed ? undefined : 'status';
  if (typeof data.responseCode !== 'string') return 'responseCode';
  if (typeof data.value !== 'number' || !Number.isSafeInteger(data.value)) return 'value';
  if (!isText(data.currency)) return 'currency';
  if (data.trackId !== undefined && data.trackId !== null && typeof data.trackId !== 'string') return 'trackId';
  const card = data.card;
  if (!isObject(card)) return 'card';
  if (typeof card.paymentMethod !== 'string') return 'card.paymentMethod';
  if (!isLast4(card.last4)) return 'card.last4';
  if (!isWholeNumber(card.expiryMonth)) return 'card.expiryMonth';
  if (!isWholeNumber(card.expiryYear)) return 'card.expiryYear';
  return undefined;
}

function instrumentFault(data: unknown): string | undefined {
  if (!isObject(data)) return '(body)';
  if (!isText(data.id)) return 'id';
  if (!isText(data.status)) return 'status';
  // Write-only in the spec (shown on read by the sandbox): absent is fine, anything but a boolean is not.
  if (data.default !== undefined && typeof data.default !== 'boolean') return 'default';
  for (const name of ['label', 'type', 'currency', 'country', 'instrument_id']) {
    if (data[name] !== undefined && typeof data[name] !== 'string') return name;
  }
  return undefined;
}

function updaterFault(data: unknown): string | undefined {
  if (!isObject(data)) return '(body)';
  if (typeof data.account_update_status !== 'string' || !UPDATE_STATUSES.has(data.account_update_status)) {
    return 'account_update_status';
  }
  const code = data.account_update_failure_code;
  if (code !== undefined && typeof code !== 'string') return 'account_update_failure_code';
  const card = data.card;
  // Spec: the card is present for CARD_UPDATED and CARD_EXPIRY_UPDATED; without it, `onCardUpdated` would tell the
  // merchant a card changed and not what it changed to.
  if (card === undefined) return CARD_CARRYING_STATUSES.includes(data.account_update_status) ? 'card' : undefined;
  if (!isObject(card)) return 'card';
  if (!isBin(card.bin)) return 'card.bin';
  if (!isLast4(card.last4)) return 'card.last4';
  if (!Number.isSafeInteger(card.expiry_month)) return 'card.expiry_month';
  if (!Number.isSafeInteger(card.expiry_year)) return 'card.expiry_year';
  return undefined;
}

/**
 * The error for an answer missing `field`. No body: it is the provider's, and the message names what was wrong.
 * `outcomeKnown` is false after a write (it may have taken effect), true after a read.
 */
function invalid(result: ProviderResult<unknown>, operation: string, field: string, outcomeKnown: boolean) {
  return new InvalidResponseError(`${operation} answered without a valid \`${field}\``, {
    status: result.status,
    requestId: result.requestId,
    outcomeKnown,
    operation,
    ...(result.idempotencyKey ? { idempotencyKey: result.idempotencyKey } : {}),
  });
}

/**
 * The answer to a new charge: a charge, or the 3-D Secure redirect (a `pay_tok_…` id and an http(s) challenge URL).
 * A charge still `Pending` without a redirect is refused too: the shopper could not finish it.
 */
export function checkChargeCreated(result: ProviderResult<Charge | ThreeDSecureRedirect>): void {
  const data: unknown = result.data;
  let fault: string | undefined;
  if (isObject(data) && typeof data.redirectUrl === 'string') {
    fault = !isText(data.id) ? 'id' : isChallengeUrl(data.redirectUrl) ? undefined : 'redirectUrl';
  } else {
    fault = chargeFault(data, false);
  }
  if (fault) throw invalid(result, 'POST charges/token', fault, false);
}

/** A charge read back by its id or payment token (`Pending` while its 3-D Secure challenge is open). */
export function chargeRead(result: ProviderResult<Charge>): Charge {
  const fault = chargeFault(result.data, true);
  if (fault) throw invalid(result, 'GET charges', fault, true);
  return result.data;
}

/**
 * What `onChallenge` is given of a charge still `Pending`, of which {@link chargeFault} checks only `id` (a `charge_…`
 * id, so never the payment token, which opens the challenge and never reaches the hook) and `status`: an integer
 * `value`, `currency`, `trackId` when present, `created`, and `metadata` as the spec has it (at most 10 pairs of
 * strings of at most 100 characters), so that the hook gets the types it is promised and no more than the spec allows
 * (docs/decisions/helper.md#helper-provider-answers).
 */
function challengeFault(data: Fields): string | undefined {
  if (typeof data.value !== 'number' || !Number.isSafeInteger(data.value)) return 'value';
  if (!isText(data.currency)) return 'currency';
  if (data.trackId !== undefined && data.trackId !== null && typeof data.trackId !== 'string') return 'trackId';
  if (!isText(data.created)) return 'created';
  const metadata = data.metadata;
  if (metadata === undefined || metadata === null) return undefined;
  // Every own key, `__proto__` included (the request's schema drops that one without a word).
  if (!isObject(metadata)) return 'metadata';
  const pairs = Object.entries(metadata);
  const spec = ([key, value]: [string, unknown]) =>
    key !== '' && key.length <= 100 && typeof value === 'string' && value.length <= 100;
  return pairs.length <= 10 && pairs.every(spec) ? undefined : 'metadata';
}

/** A charge read back by its payment token for `onChallenge`: {@link chargeRead}, and {@link challengeFault} while `Pending`. */
export function challengeRead(result: ProviderResult<Charge>): Charge {
  const charge = chargeRead(result);
  const fault = charge.status === 'Pending' ? challengeFault(charge as unknown as Fields) : undefined;
  if (fault) throw invalid(result, 'GET charges', fault, true);
  return charge;
}

/**
 * One payout instrument, read by its id `id`; `afterWrite` when it is read back after a change (whose outcome is then
 * unknown). An answer for another instrument is refused like a malformed one: the page would be shown, and a list
 * would carry, an instrument it did not ask for (the spec's instrument has no entity field to check; its id is the
 * one thing of the answer that can be matched to the request, docs/decisions/helper.md#helper-instrument-owner).
 */
export function instrumentRead(
  result: ProviderResult<PaymentInstrument>,
  id: string,
  afterWrite = false,
): PaymentInstrument {
  const data: unknown = result.data;
  const fault = instrumentFault(data) ?? ((data as { id: unknown }).id === id ? undefined : 'id');
  if (fault) throw invalid(result, 'GET payment-instruments', fault, !afterWrite);
  return result.data;
}

/**
 * The answer to a change of the payout instrument `id`: the spec's "object with id plus links", for that id. An answer
 * naming another instrument (or none) is refused with the outcome unknown: the provider may have changed another
 * instrument than the one asked (another entity's, its payout default), and the read-back of the asked one would show
 * the page an unchanged instrument as if the change were its own (docs/decisions/helper.md#helper-instrument-owner).
 */
export function instrumentChanged(result: ProviderResult<PaymentInstrumentWriteResult>, id: string): void {
  const data: unknown = result.data;
  if (!isObject(data) || data.id !== id) throw invalid(result, 'PATCH payment-instruments', 'id', false);
}

/** The sandbox's list of an entity's payout instruments (`{ data: [...] }`). */
export function instrumentsListed(result: ProviderResult<{ data: PaymentInstrument[] }>): PaymentInstrument[] {
  const list: unknown = result.data;
  if (!isObject(list) || !Array.isArray(list.data)) throw invalid(result, 'GET payment-instruments', 'data', true);
  for (const [i, item] of list.data.entries()) {
    const fault = instrumentFault(item);
    if (fault) throw invalid(result, 'GET payment-instruments', `data.${i}.${fault}`, true);
  }
  return list.data as PaymentInstrument[];
}

/** The account updater's answer: a known status, and the card's safe fields when it carries one. */
export function updaterAnswered(result: ProviderResult<AccountUpdaterResult>): AccountUpdaterResult {
  const fault = updaterFault(result.data);
  // A write: the provider may have updated the stored card before its answer went wrong.
  if (fault) throw invalid(result, 'POST account-updater/cards', fault, false);
  return result.data;
}
