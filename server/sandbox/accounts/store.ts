import type {
  Address,
  EntityStatus,
  PaymentInstrument,
  ReserveRuleRequest,
  SchemaVersion,
} from '../../provider/schemas/accounts/index.js';
import type { StoreLimits } from '../core/context.js';
import { SandboxError } from '../core/errors.js';

/** Legal form × profile of an onboarding request (docs/decisions/sandbox.md#entity-variants). */
export type EntityForm = 'individual' | 'company';
export type EntityLevel = 'full' | 'lite' | 'saas' | 'invitation';
export type Region = 'GB' | 'EEA' | 'US';

/** An entity as the sandbox keeps it: data in the 3.0 form (dates as `{day, month, year}`). */
export interface EntityRecord {
  readonly id: string;
  readonly reference: string;
  readonly form: EntityForm | undefined;
  readonly level: EntityLevel;
  readonly region: Region | undefined;
  readonly createdWith: SchemaVersion;
  status: EntityStatus;
  readonly data: {
    contact_details?: { phone?: { number: string; country_code: string }; invitee?: { email: string } };
    profile?: { urls: string[]; mccs: string[] };
    individual?: Record<string, unknown> & { registered_address?: Address };
    company?: Record<string, unknown> & { registered_address?: Address };
  };
}

/** The one hosted-onboarding member of an entity. */
export interface MemberRecord {
  readonly userId: string;
  readonly entityId: string;
  readonly email: string;
  invitationsSent: number;
  lastInvitedAt: string;
}

export interface PaymentInstrumentRecord extends Omit<PaymentInstrument, '_links' | 'default'> {
  readonly entityId: string;
  isDefault: boolean;
}

export interface ReserveRuleRecord {
  readonly id: string;
  readonly entityId: string;
  rule: ReserveRuleRequest;
  etag: string;
}

/** A stored card (`src_`): the sandbox is the provider's vault, so it holds the number. */
export interface StoredCardRecord {
  readonly id: string;
  readonly kind: 'card';
  number: string;
  expiryMonth: number;
  expiryYear: number;
  scheme: string;
  bin: string;
  last4: string;
  fingerprint: string;
  status: 'active' | 'closed';
}

/** A stored bank account (`src_`), the payout destination behind a bank_account payment instrument. */
export interface StoredBankRecord {
  readonly id: string;
  readonly kind: 'bank_account';
  readonly accountNumber: string;
  readonly bankCode: string | undefined;
}

export type StoredRecord = StoredCardRecord | StoredBankRecord;

/**
 * Caps on what Account Services keeps (docs/decisions/sandbox.md#accounts-memory): the store grew with every POST
 * and a list answered every record it held. Beyond a cap a create is 422 `<thing>_limit_reached`; nothing is dropped.
 */
export const ACCOUNT_LIMITS = {
  /** Reserve rules of one entity, and payment instruments of one entity (what one list answers). */
  perEntity: 100,
  entities: 20_000,
  storedInstruments: 20_000,
} as const;

/** Throws 422 `code` when `count` records already fill `max`. */
export function refuseBeyond(count: number, max: number, code: string, what: string): void {
  if (count < max) return;
  throw new SandboxError(422, code, `${what}: at most ${max} are kept; POST /_sandbox/reset clears them`, {
    field: 'body',
  });
}

/** Throws 422 `instrument_limit_reached` when the stored `src_` instruments already fill their cap. */
export function refuseStoredBeyond(store: AccountsStore, limits: StoreLimits): void {
  refuseBeyond(
    store.stored.size,
    accountCaps(limits).storedInstruments,
    'instrument_limit_reached',
    'stored instruments',
  );
}

/** The entity and stored-instrument caps of `limits`, else the defaults. */
export function accountCaps(limits: StoreLimits): { entities: number; storedInstruments: number } {
  return {
    entities: limits.maxEntities ?? ACCOUNT_LIMITS.entities,
    storedInstruments: limits.maxStoredInstruments ?? ACCOUNT_LIMITS.storedInstruments,
  };
}

/** All Account Services state of one sandbox; `clear()` empties it (reset, before fixtures load again). */
export class AccountsStore {
  readonly entities = new Map<string, EntityRecord>();
  readonly references = new Map<string, string>();
  readonly members = new Map<string, MemberRecord>();
  readonly paymentInstruments = new Map<string, PaymentInstrumentRecord>();
  readonly reserveRules = new Map<string, ReserveRuleRecord>();
  readonly stored = new Map<string, StoredRecord>();
  /** Whether the account has hosted onboarding (members endpoints answer 403 when off). */
  hostedOnboarding = true;

  addEntity(entity: EntityRecord): void {
    this.entities.set(entity.id, entity);
    this.references.set(entity.reference, entity.id);
  }

  membersOf(entityId: string): MemberRecord[] {
    return [...this.members.values()].filter((m) => m.entityId === entityId);
  }

  instrumentsOf(entityId: string): PaymentInstrumentRecord[] {
    return [...this.paymentInstruments.values()].filter((p) => p.entityId === entityId);
  }

  reserveRulesOf(entityId: string): ReserveRuleRecord[] {
    return [...this.reserveRules.values()].filter((r) => r.entityId === entityId);
  }

  /** Makes `id` the one default of its entity and currency (spec: default marks the payout destination). */
  makeDefault(target: PaymentInstrumentRecord): void {
    for (const p of this.instrumentsOf(target.entityId)) {
      if (p.currency === target.currency) p.isDefault = false;
    }
    target.isDefault = true;
  }

  clear(): void {
    this.entities.clear();
    this.references.clear();
    this.members.clear();
    this.paymentInstruments.clear();
    this.reserveRules.clear();
    this.stored.clear();
    this.hostedOnboarding = true;
  }
}
