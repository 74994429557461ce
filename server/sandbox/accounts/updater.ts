import { accountUpdaterRequestSchema } from '../../provider/schemas/accounts/index.js';
import { SandboxError } from '../core/errors.js';
import type { Request, Response, Router } from '../core/http.js';
import { respond } from '../core/respond.js';
import { requireAuth } from '../oauth/auth.js';
import { encryptCardNumber, fingerprintOf, isUpdaterNetwork, networkOf } from './cards.js';
import { type AccountsDeps, AUTH } from './http.js';
import type { StoredCardRecord } from './store.js';
import { RENEWAL_YEARS, updaterTestCard } from './test-cards.js';
import { invalid, parse422 } from './validate.js';

interface Decision {
  status: 'CARD_UPDATED' | 'CARD_EXPIRY_UPDATED' | 'CARD_CLOSED' | 'UPDATE_FAILED';
  failureCode?: string;
  card?: { number: string; expiryMonth: number; expiryYear: number };
}

/** The outcome for a card by the test-card table (docs/decisions/sandbox.md#updater-test-cards). */
function decide(number: string, month: number, year: number, closed: boolean, now: Date): Decision {
  if (closed) return { status: 'CARD_CLOSED' };
  const row = updaterTestCard(number);
  const renewedYear = now.getUTCFullYear() + RENEWAL_YEARS;
  const upToDate: Decision = { status: 'UPDATE_FAILED', failureCode: 'UP_TO_DATE' };
  switch (row?.outcome) {
    case 'CARD_UPDATED':
      return { status: 'CARD_UPDATED', card: { number: row.newNumber!, expiryMonth: month, expiryYear: renewedYear } };
    case 'CARD_EXPIRY_UPDATED':
      // Already renewed (a stored card updated before): nothing newer to give.
      if (year >= renewedYear) return upToDate;
      return { status: 'CARD_EXPIRY_UPDATED', card: { number, expiryMonth: month, expiryYear: renewedYear } };
    case 'CARD_CLOSED':
      return { status: 'CARD_CLOSED' };
    case 'UPDATE_FAILED':
      return { status: 'UPDATE_FAILED', failureCode: row.failureCode! };
    default:
      return upToDate;
  }
}

/** Applies an outcome to a stored card: the updater keeps stored instruments current (stateful). */
function apply(stored: StoredCardRecord, d: Decision): void {
  if (d.status === 'CARD_CLOSED') stored.status = 'closed';
  if (!d.card) return;
  stored.number = d.card.number;
  stored.expiryMonth = d.card.expiryMonth;
  stored.expiryYear = d.card.expiryYear;
  stored.bin = d.card.number.slice(0, 6);
  stored.last4 = d.card.number.slice(-4);
  stored.fingerprint = fingerprintOf(d.card.number);
}

/**
 * `POST /account-updater/cards` (spec: Endpoints; scope vault:real-time-account-updater): the updated
 * credentials of a card given by number or by stored instrument (`src_`).
 */
export function updaterRoutes(router: Router, deps: AccountsDeps): void {
  const { ctx, store } = deps;
  router.post(
    '/account-updater/cards',
    requireAuth(ctx, AUTH.updater),
    ...deps.postBody,
    async (req: Request, res: Response) => {
      const { source_options: source } = parse422(accountUpdaterRequestSchema, req.body);
      let number: string;
      let month: number;
      let year: number;
      let stored: StoredCardRecord | undefined;
      if (source.card) {
        ({ number, expiry_month: month, expiry_year: year } = source.card);
        const network = networkOf(number);
        if (!network)
          throw invalid('source_options.card.number', 'source_options.card.number_invalid', 'not a valid card number');
        if (!isUpdaterNetwork(network)) {
          throw invalid(
            'source_options.card.number',
            'source_options.card.number_network_unsupported',
            `${network} cards are not supported`,
          );
        }
      } else {
        const id = source.instrument!.id;
        const record = store.stored.get(id);
        if (!record)
          throw new SandboxError(404, 'instrument_not_found', `no instrument ${id}`, {
            field: 'source_options.instrument.id',
          });
        if (record.kind !== 'card') {
          throw invalid(
            'source_options.instrument.id',
            'source_options.instrument.id_not_a_card',
            `${id} is not a card`,
          );
        }
        if (!isUpdaterNetwork(record.scheme)) {
          throw invalid(
            'source_options.instrument.id',
            'source_options.instrument.network_unsupported',
            `${record.scheme} cards are not supported`,
          );
        }
        stored = record;
        ({ number, expiryMonth: month, expiryYear: year } = record);
      }
      const d = decide(number, month, year, stored?.status === 'closed', ctx.clock.now());
      if (stored) apply(stored, d);
      const body: Record<string, unknown> = { account_update_status: d.status };
      if (d.failureCode) body.account_update_failure_code = d.failureCode;
      if (d.card) {
        body.card = {
          encrypted_card_number: await encryptCardNumber(ctx, d.card.number),
          bin: d.card.number.slice(0, 6),
          last4: d.card.number.slice(-4),
          expiry_month: d.card.expiryMonth,
          expiry_year: d.card.expiryYear,
          fingerprint: fingerprintOf(d.card.number),
        };
      }
      respond(res, 200, body);
    },
  );
}
