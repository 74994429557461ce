/**
 * How much memory a client spends on the answers it reads (docs/decisions/provider.md#answer-budget): each answer is
 * read whole, up to {@link MAX_RESPONSE_BYTES}, and all the answers one client is reading at once together hold at
 * most its `responseBudgetBytes`.
 */

/**
 * Largest response body the clients read: 4 MiB. The largest answer a provider gives for a request the clients'
 * types allow is about 1.7 MB (a charge with 100 products, every text field at its longest and every character one
 * that XML escapes); the sandbox's largest is about 70 KB (its 64 KiB request limit).
 */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** Default `responseBudgetBytes`: 64 MiB, about 30 KiB for each of 2,000 charges in flight (a charge answer is ~1 KB). */
export const DEFAULT_RESPONSE_BUDGET_BYTES = 64 * 1024 * 1024;

/** Largest `responseBudgetBytes` the option takes: 4 GiB. */
export const MAX_RESPONSE_BUDGET_BYTES = 4 * 1024 * 1024 * 1024;

/**
 * The answer bytes one client holds at once, all its calls together: what {@link roundTrip} counts as an answer
 * streams in (or, announced by `Content-Length`, before it does) and gives back when the exchange ends, however it
 * ends.
 */
export class AnswerBudget {
  /** Bytes held now by answers still being read. */
  held = 0;
  constructor(
    /** The most that may be held at once (`responseBudgetBytes`). */
    readonly limit: number,
  ) {}
}
