/**
 * What stops one attempt: its timeout or the caller's signal. The core aborts it; {@link roundTrip} listens to it
 * and cancels the exchange. An `AbortController` per attempt would cost an `EventTarget` with two `Map`s and a
 * listener record, each object with a map of its own; an attempt only ever has one listener, which is all this
 * holds (docs/decisions/provider.md#client-timeouts).
 */
export class AttemptAbort {
  aborted = false;
  reason: unknown = undefined;
  #listener: (() => void) | undefined = undefined;

  /** Stops the attempt with `reason`; later calls do nothing. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listener = this.#listener;
    this.#listener = undefined;
    listener?.();
  }

  /** Calls `listener` once on abort (the attempt's one listener: a second call replaces the first). */
  onAbort(listener: () => void): void {
    this.#listener = listener;
  }

  /** Drops the listener: the attempt is over. */
  clear(): void {
    this.#listener = undefined;
  }
}
