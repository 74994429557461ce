import type {
  Address,
  AutoCapture,
  ChargeStatus,
  ParsedChargeRequest,
  Product,
} from '../../provider/schemas/legacy.js';
import type { StoreLimits, VaultCard } from '../core/context.js';

/** A `card_tok_`: the card behind it (never its CVV), and whether it was used. */
export interface CardTokenRecord {
  readonly id: string;
  readonly cardId: string;
  readonly card: VaultCard;
  readonly billingDetails: Address | null;
  readonly createdMs: number;
  readonly expiresMs: number;
  /** A CVV was presented and had the right form (the CVV itself is not kept). */
  readonly cvvPresented: boolean;
  used: boolean;
}

export interface PaymentTokenRecord {
  readonly id: string;
  readonly value: number;
  readonly currency: string;
  readonly chargeMode: number;
  readonly createdMs: number;
}

export interface CustomerRecord {
  readonly id: string;
  readonly email: string;
  readonly name: string | null;
}

/** Outcome fields a charge answers with. */
export interface ChargeOutcome {
  status: ChargeStatus;
  responseCode: string;
  responseMessage: string;
  responseAdvancedInfo: string;
  authCode: string;
}

export interface ChargeRecord extends ChargeOutcome {
  readonly id: string;
  /** `pay_tok_…` of a 3-D Secure charge: the reference the challenge and the redirect carry. */
  readonly reference: string | undefined;
  readonly createdMs: number;
  /** When the authorisation was given (3-D Secure: when the challenge passed). */
  authorisedMs: number | undefined;
  readonly request: Omit<ParsedChargeRequest, 'cardToken'>;
  /** As the request sent it (either case), for the answer; test it with `autoCaptureOn`. */
  readonly autoCapture: AutoCapture;
  readonly autoCapTime: number;
  readonly chargeMode: number;
  readonly transactionIndicator: number;
  readonly email: string;
  readonly customerId: string;
  readonly cardId: string;
  readonly card: VaultCard;
  readonly billingDetails: Address | null;
  readonly cvvPresented: boolean;
  readonly products: Product[];
}

/**
 * How much the legacy store keeps (docs/decisions/sandbox.md#sandbox-memory): beyond a cap the oldest record goes first;
 * a card token, used or not, is kept until `spentTokenRetentionMs` after it expired, so a retry still answers
 * "used" or "expired" rather than "unknown" while it matters.
 */
export type LegacyStoreLimits = Required<Omit<StoreLimits, 'maxEntities' | 'maxStoredInstruments'>>;

export const DEFAULT_LEGACY_LIMITS: LegacyStoreLimits = {
  maxCardTokens: 20_000,
  maxPaymentTokens: 20_000,
  maxCustomers: 20_000,
  maxCharges: 20_000,
  // The idempotency window (24 h): a retry within it still learns the token was used or expired.
  spentTokenRetentionMs: 24 * 60 * 60 * 1000,
};

/** Drops the first (oldest) entries of `map` beyond `max`, calling `dropped` for each. */
function capOldest<K, V>(map: Map<K, V>, max: number, dropped?: (key: K, value: V) => void): void {
  while (map.size > max) {
    const first = map.entries().next().value as [K, V];
    map.delete(first[0]);
    dropped?.(first[0], first[1]);
  }
}

/** Everything the legacy area holds; `clear()` on sandbox reset; every map bounded by {@link LegacyStoreLimits}. */
export class LegacyStore {
  readonly limits: LegacyStoreLimits;
  /** Customers from fixtures: never dropped by the cap. */
  readonly pinnedCustomers = new Set<string>();
  constructor(limits: StoreLimits = {}) {
    const given = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
    this.limits = { ...DEFAULT_LEGACY_LIMITS, ...given };
  }
  readonly cardTokens = new Map<string, CardTokenRecord>();
  readonly paymentTokens = new Map<string, PaymentTokenRecord>();
  readonly customers = new Map<string, CustomerRecord>();
  /** Lower-cased email → customer id. */
  readonly customersByEmail = new Map<string, string>();
  readonly charges = new Map<string, ChargeRecord>();
  /** `pay_tok_…` → charge id. */
  readonly chargesByReference = new Map<string, string>();
  /** trackId → charge id of the charge that holds it. */
  readonly trackIds = new Map<string, string>();

  clear(): void {
    this.cardTokens.clear();
    this.paymentTokens.clear();
    this.customers.clear();
    this.customersByEmail.clear();
    this.charges.clear();
    this.pinnedCustomers.clear();
    this.chargesByReference.clear();
    this.trackIds.clear();
  }

  /** Keeps a new card token; drops tokens past their retention (oldest first) and the oldest beyond the cap. */
  addCardToken(record: CardTokenRecord, nowMs: number): void {
    this.cardTokens.set(record.id, record);
    // Tokens are kept in creation order and live equally long, so the spent ones are at the front.
    for (const [id, t] of this.cardTokens) {
      if (t.expiresMs + this.limits.spentTokenRetentionMs > nowMs) break;
      this.cardTokens.delete(id);
    }
    capOldest(this.cardTokens, this.limits.maxCardTokens);
  }

  addPaymentToken(record: PaymentTokenRecord): void {
    this.paymentTokens.set(record.id, record);
    capOldest(this.paymentTokens, this.limits.maxPaymentTokens);
  }

  addCustomer(record: CustomerRecord): void {
    this.customers.set(record.id, record);
    this.customersByEmail.set(record.email.toLowerCase(), record.id);
    capOldest(this.customers, this.limits.maxCustomers + this.pinnedCustomers.size, (id, c) => {
      if (this.pinnedCustomers.has(id)) {
        this.customers.set(id, c);
        return;
      }
      if (this.customersByEmail.get(c.email.toLowerCase()) === c.id)
        this.customersByEmail.delete(c.email.toLowerCase());
    });
  }

  /** Keeps a charge (and its trackId and 3-D Secure reference); the oldest beyond the cap go with their indexes. */
  addCharge(charge: ChargeRecord, trackId: string | undefined): void {
    this.charges.set(charge.id, charge);
    if (trackId) this.trackIds.set(trackId, charge.id);
    if (charge.reference) this.chargesByReference.set(charge.reference, charge.id);
    capOldest(this.charges, this.limits.maxCharges, (id, c) => {
      if (c.reference) this.chargesByReference.delete(c.reference);
      const track = c.request.trackId;
      if (track && this.trackIds.get(track) === id) this.trackIds.delete(track);
    });
  }

  /** A charge by `charge_…` id or by its 3-D Secure `pay_tok_…` reference. */
  findCharge(id: string): ChargeRecord | undefined {
    const byRef = this.chargesByReference.get(id);
    return this.charges.get(byRef ?? id);
  }
}
