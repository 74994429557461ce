import { randomBytes } from 'node:crypto';
import type { VirtualClock } from '../clock.js';
import type { SandboxCredentials, SandboxMode } from '../config.js';
import type { FaultTable } from './faults.js';
import type { RequestLog } from './request-log.js';

/** What every part of the sandbox shares: clock, credentials, mode, faults, log and the reset hook. */
export interface SandboxContext {
  readonly mode: SandboxMode;
  readonly clock: VirtualClock;
  readonly credentials: SandboxCredentials;
  readonly faults: FaultTable;
  readonly log: RequestLog;
  /** Parsed fixtures given at start (`--fixtures FILE`); each area reads its own part. */
  readonly fixtures: Readonly<Record<string, unknown>>;
  /** A new object id: `prefix` + 26 lowercase base32 characters (`charge_…`, `ent_…`). */
  newId(prefix: string): string;
  /** Registers a function that puts an area back to its start state (fixtures loaded) on reset. */
  onReset(fn: () => void): void;
  /** Clears all state, faults, the log and the clock offset, then runs every onReset function. */
  reset(): void;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

export function newId(prefix: string): string {
  const bytes = randomBytes(26);
  let out = prefix;
  for (const b of bytes) out += ALPHABET[b & 31];
  return out;
}
