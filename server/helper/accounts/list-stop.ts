import type { Response } from 'express';
import { providerTimeout } from '../upstream.js';

/** How long the payout-instrument list waits for its provider reads, all together, by default (`instrumentListTimeoutMs`). */
export const DEFAULT_INSTRUMENT_LIST_TIMEOUT_MS = 15_000;

/**
 * Why the list's reads were stopped: `instrumentListTimeoutMs` ran out. The reason the reads are aborted with, and,
 * with what was read, the cause of the 504 that the `tessera.error` line writes (docs/decisions/helper.md#helper-instrument-list-deadline).
 */
export class InstrumentListTimeout extends Error {
  override name = 'InstrumentListTimeout';
  readonly timeoutMs: number;
  readonly entityId: string | undefined;
  /** Instruments read (found or gone) before the budget ran out, of `listed`. */
  readonly read: number | undefined;
  readonly listed: number | undefined;

  constructor(timeoutMs: number, detail?: ListDetail) {
    super(
      detail === undefined
        ? `instrumentListTimeoutMs (${timeoutMs} ms) ran out`
        : detail.listed === undefined
          ? `instrumentListTimeoutMs (${timeoutMs} ms) ran out before the payout instruments of ${detail.entityId} were listed: the read was cancelled`
          : `instrumentListTimeoutMs (${timeoutMs} ms) ran out with ${detail.read} of the ${detail.listed} payout instruments of ${detail.entityId} read: the reads in flight were cancelled, the others not sent`,
    );
    this.timeoutMs = timeoutMs;
    this.entityId = detail?.entityId;
    this.read = detail?.read;
    this.listed = detail?.listed;
  }
}

/** What the list was doing when it was stopped: its entity, and with `paymentInstrumentIds` how far it got. */
export interface ListDetail {
  readonly entityId: string;
  readonly read?: number;
  readonly listed?: number;
}

/** Why the list's reads were stopped: the page's connection closed before its answer. Nothing is answered. */
export class ClientGone extends Error {
  override name = 'ClientGone';
}

/** What stops the list's provider reads: its budget, or the page going away. */
export interface ListStop {
  /** Passed to every provider call of the list; aborted with an {@link InstrumentListTimeout} or a {@link ClientGone}. */
  readonly signal: AbortSignal;
  /** Starts the budget: from now on the reads have `timeoutMs` in all. */
  start(timeoutMs: number): void;
  /** The list is answered (or failed): drops the timer and the listener. */
  end(): void;
}

/**
 * A stop for one list request, listening from now for the page going away (`res` `close` before the answer was
 * written: `req`'s own `close` also follows a whole answer, so it tells nothing), which aborts at once; the budget
 * starts with {@link ListStop.start}, once the ids are known, so the merchant's hook keeps its own `hookTimeoutMs`.
 */
export function listStop(res: Response): ListStop {
  const stop = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const gone = () => {
    if (!res.writableFinished) stop.abort(new ClientGone('the page went away before the list was answered'));
  };
  if (res.closed) gone();
  else res.once('close', gone);
  return {
    signal: stop.signal,
    start(timeoutMs) {
      timer = setTimeout(() => stop.abort(new InstrumentListTimeout(timeoutMs)), timeoutMs);
    },
    end() {
      clearTimeout(timer);
      res.off('close', gone);
    },
  };
}

/**
 * What a list stopped by `reason` answers: 504 `TESSERA_PROVIDER_TIMEOUT` (nothing was changed, never a partial list)
 * when its budget ran out; a {@link ClientGone} is thrown on for the route to answer no one.
 */
export function stoppedList(reason: unknown, detail: ListDetail): never {
  if (!(reason instanceof InstrumentListTimeout)) throw reason;
  throw providerTimeout(true, new InstrumentListTimeout(reason.timeoutMs, detail));
}
