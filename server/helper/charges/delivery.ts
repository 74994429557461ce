import { randomUUID } from 'node:crypto';
import type { TesseraStore } from '../store.js';
import { claimAndGet, setAndRelease } from '../store.js';
import { RESULT_TTL_MS } from './records.js';

// A hook delivered once across retries, double submits and instances sharing the store: `onCharge` for a final charge
// (docs/decisions/helper.md#helper-on-charge) and `onChallenge` for a 3-D Secure challenge
// (docs/decisions/helper.md#helper-on-challenge). `<doneKey>` is set to `delivered` only once the hook resolved; a claim
// on `<doneKey>:claim`, kept alive while the hook runs (keepClaim, started by the caller with its own log event),
// keeps two instances from calling it at once.

/**
 * How long a delivery stays claimed after its instance stopped keeping the claim alive (a crashed process); a live
 * instance keeps it for as long as the hook runs (keepClaim).
 */
export const DELIVERY_CLAIM_MS = 10_000;

/** One request's try at delivering one hook call: the record's key, its claim's key, and this try's owner. */
export interface Delivery {
  readonly doneKey: string;
  readonly claimKey: string;
  readonly owner: string;
}

/** A new try at the delivery recorded under `doneKey`. */
export const delivery = (doneKey: string): Delivery => ({
  doneKey,
  claimKey: `${doneKey}:claim`,
  owner: randomUUID(),
});

/**
 * One look at a delivery: its claim taken and its record read in one store call (a delivery recorded before the claim
 * was taken is seen here). `delivered` (a claim taken then is given back at once, not awaited), `claimed` (this try
 * delivers it), or `busy` (another request or instance holds the claim).
 */
export async function lookAt(store: TesseraStore, d: Delivery): Promise<'delivered' | 'claimed' | 'busy'> {
  const { claimed, value } = await claimAndGet(store, d.claimKey, d.owner, DELIVERY_CLAIM_MS, d.doneKey);
  if (value === 'delivered') {
    if (claimed) store.release(d.claimKey, d.owner).catch(() => undefined);
    return 'delivered';
  }
  return claimed ? 'claimed' : 'busy';
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Looks at a delivery (`look`: {@link lookAt}, maybe wrapped) until it is `delivered` or this try holds its claim
 * (`claimed`), waiting 20 ms, doubling up to 250 ms, between looks while another request or instance holds it; `timeout`
 * once the next wait would end past `deadline` (a `Date.now()` time).
 */
export async function takeTurn(
  look: () => Promise<'delivered' | 'claimed' | 'busy'>,
  deadline: number,
): Promise<'delivered' | 'claimed' | 'timeout'> {
  for (let delay = 20; ; delay = Math.min(delay * 2, 250)) {
    const seen = await look();
    if (seen !== 'busy') return seen;
    if (Date.now() + delay > deadline) return 'timeout';
    await sleep(delay);
  }
}

/**
 * Runs `call` under the claim this try took ({@link lookAt} answered `claimed`), which the caller keeps alive
 * (`stopKeeping` is what keepClaim answered). Once `call` resolved, `delivered` is recorded (24 h) and the claim given
 * back in one store step where the store can, after any extension on its way has landed; when `call` or the record
 * fails, the claim is given back and the failure passed on, so the next try calls the hook again. `record` wraps the
 * record's store call, so that the caller can tell a store that failed from a hook that threw.
 */
export async function runClaimed(
  store: TesseraStore,
  d: Delivery,
  stopKeeping: () => Promise<void> | undefined,
  call: () => Promise<void>,
  record: (step: Promise<void>) => Promise<void> = (step) => step,
): Promise<void> {
  let given = false;
  try {
    await call();
    await stopKeeping();
    await record(setAndRelease(store, d.doneKey, 'delivered', RESULT_TTL_MS, d.claimKey, d.owner));
    given = true;
  } finally {
    if (!given) {
      await stopKeeping();
      await store.release(d.claimKey, d.owner).catch(() => undefined);
    }
  }
}
