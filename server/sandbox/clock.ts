/**
 * The sandbox's virtual clock. It starts at the wall-clock time and only moves
 * forward, either with real time or when a test advances it; state that depends
 * on time (token expiry, auto-capture, authorisation expiry) reads `now()` and
 * listeners run on every advance so time-driven transitions happen as the clock
 * passes them.
 */
export class VirtualClock {
  #offsetMs = 0;
  readonly #listeners = new Set<(now: Date) => void>();

  /** The sandbox's current time. */
  now(): Date {
    return new Date(Date.now() + this.#offsetMs);
  }

  /** Milliseconds since the epoch on the sandbox clock. */
  nowMs(): number {
    return Date.now() + this.#offsetMs;
  }

  /** Moves the clock forward by `seconds` (fractions allowed) and runs the listeners. */
  advance(seconds: number): Date {
    if (!Number.isFinite(seconds) || seconds < 0) {
      throw new RangeError(`seconds must be a finite number >= 0, got ${JSON.stringify(seconds)}`);
    }
    this.#offsetMs += seconds * 1000;
    const now = this.now();
    for (const listener of this.#listeners) listener(now);
    return now;
  }

  /** Runs `listener` after every advance; returns a function that removes it. */
  onAdvance(listener: (now: Date) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Back to wall-clock time (used by the sandbox reset). */
  reset(): void {
    this.#offsetMs = 0;
  }
}
