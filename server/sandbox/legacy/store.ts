import type { Address, ChargeStatus, ParsedChargeRequest, Product } from '../../provider/schemas/legacy.js';
import type { VaultCard } from '../core/context.js';

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
  readonly autoCapture: 'y' | 'n';
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

/** Everything the legacy area holds; `clear()` on sandbox reset. */
export class LegacyStore {
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
    this.chargesByReference.clear();
    this.trackIds.clear();
  }

  /** A charge by `charge_…` id or by its 3-D Secure `pay_tok_…` reference. */
  findCharge(id: string): ChargeRecord | undefined {
    const byRef = this.chargesByReference.get(id);
    return this.charges.get(byRef ?? id);
  }
}
