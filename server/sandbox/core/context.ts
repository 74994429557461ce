import { randomBytes } from 'node:crypto';
import type { VirtualClock } from '../clock.js';
import type { SandboxCredentials, SandboxMode } from '../config.js';
import type { FaultTable } from './faults.js';
import type { RequestLog } from './request-log.js';

/** A card held by the sandbox behind a token. The sandbox is the provider: it may hold the number in memory. */
export interface VaultCard {
  readonly number: string;
  readonly expiryMonth: number;
  readonly expiryYear: number;
  readonly name?: string;
  /** Brand id from shared/card/brands.ts (`visa`, `amex`, …). */
  readonly brand: string;
  readonly bin: string;
  readonly last4: string;
  readonly fingerprint: string;
}

/** Card tokens, offered by the legacy area to the other areas (e.g. to store a card as a `src_` instrument). */
export interface CardTokenService {
  /**
   * Uses up a `card_tok_` for a non-charge purpose and returns its card. Throws a SandboxError
   * (field `cardToken`/`token`) when the token is unknown, used or expired, exactly as a charge would.
   */
  consume(tokenId: string, field?: string): VaultCard;
}

/** Services one area offers the others, registered by the offering area's factory. */
export interface SandboxServices {
  cardTokens?: CardTokenService;
}

/** What every part of the sandbox shares: clock, credentials, mode, faults, log and the reset hook. */
export interface SandboxContext {
  readonly mode: SandboxMode;
  readonly clock: VirtualClock;
  readonly credentials: SandboxCredentials;
  readonly faults: FaultTable;
  readonly log: RequestLog;
  /** Parsed fixtures given at start (`--fixtures FILE`); each area reads its own part. */
  readonly fixtures: Readonly<Record<string, unknown>>;
  /** Caps on what the stores keep (docs/decisions/sandbox.md#sandbox-memory); each unset one has its default. */
  readonly storeLimits: StoreLimits;
  /** Cross-area services; read them at request time, not in a factory (areas start in any order). */
  readonly services: SandboxServices;
  /** A new object id: `prefix` + 26 lowercase base32 characters (`charge_…`, `ent_…`). */
  newId(prefix: string): string;
  /** Registers a function that puts an area back to its start state (fixtures loaded) on reset. */
  onReset(fn: () => void): void;
  /** Clears all state, faults, the log and the clock offset, then runs every onReset function. */
  reset(): void;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

// Random bytes drawn from a pool: one randomBytes call per 157 ids instead of one per id (it is a syscall).
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

export function newId(prefix: string): string {
  if (offset + 26 > pool.length) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  let out = prefix;
  for (let i = offset; i < offset + 26; i++) out += ALPHABET[pool[i]! & 31];
  offset += 26;
  return out;
}

/** Caps on what the sandbox keeps (docs/decisions/sandbox.md#sandbox-memory); beyond a cap the oldest record is dropped. */
export interface StoreLimits {
  readonly maxCardTokens?: number;
  readonly maxPaymentTokens?: number;
  readonly maxCustomers?: number;
  readonly maxCharges?: number;
  /** Account Services entities (default 20,000); beyond it onboarding is 422 `entity_limit_reached`. */
  readonly maxEntities?: number;
  /** Stored `src_` instruments (default 20,000); beyond it storing one is 422 `instrument_limit_reached`. */
  readonly maxStoredInstruments?: number;
  /** How long a card token is kept after it expired, used or not (default 24 h, the idempotency window). */
  readonly spentTokenRetentionMs?: number;
}
