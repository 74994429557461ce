/**
 * What stops one attempt: its timeout or the caller's signal. Given to undici's `request` as its `signal`, which
 * takes an `AbortSignal` or an EventEmitter-like object (`on`/`once`/`removeListener`, `aborted`, `reason`;
 * undici's `util.addAbortListener`). An `AbortController` per attempt costs an `EventTarget` with two `Map`s and a
 * listener record, each object with a map of its own; undici only ever adds one listener, which is all this holds
 * (docs/decisions/provider.md#client-timeouts).
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

  on(_event: 'abort', listener: () => void): this {
    this.#listener = listener;
    return this;
  }

  once(event: 'abort', listener: () => void): this {
    return this.on(event, listener);
  }

  removeListener(_event: 'abort', listener: () => void): this {
    if (this.#listener === listener) this.#listener = undefined;
    return this;
  }
}
