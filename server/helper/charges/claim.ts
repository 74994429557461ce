import { randomUUID } from 'node:crypto';
import type { Request } from 'express';
import type { HelperContext } from '../context.js';
import { HelperHttpError } from '../errors.js';
import { keepClaim } from '../lease.js';
import { claimAndGet } from '../store.js';
import type { Caller } from './caller.js';
import { type ChargeOutcome, outcomeUnknown } from './outcome.js';
import type { ChargeBody } from './schema.js';

/** How long a request waits for another request's (or instance's) charge of the same token before answering 503. */
export const CLAIM_WAIT_MS = 15_000;

/**
 * How long a card token's claim lasts once its owner stopped keeping it alive (keepClaim): how long a crashed instance
 * blocks the token. A live owner keeps it for as long as it works (`resolveCharge`, every provider attempt).
 */
const CLAIM_TTL_MS = 10_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A store call of a request that waits for another request's charge of the same token: that charge may have been
 * made, even though this request saw no one else charging before ({@link outcomeUnknown}).
 */
const waitedFor = <T>(read: Promise<T>) =>
  outcomeUnknown(
    read,
    'another request is charging this card token and its outcome cannot be read now; send the same request again to learn it (it will not be charged twice)',
  );

/** One valid `POST /charges`: the request, its parsed body, the token's store key and digest, and its caller. */
export interface TokenRequest {
  readonly req: Request;
  readonly body: ChargeBody;
  readonly key: string;
  readonly digest: Buffer;
  readonly caller: Caller;
  /** Every mount-path parameter of the request, for the idempotency key (records.ts `mountBinding`). */
  readonly pathParams: Readonly<Record<string, unknown>>;
  /** The request's mount-path parameters as a record keeps them (records.ts `mountRecord`). */
  readonly mount: { readonly params: Readonly<Record<string, string>>; readonly mount?: string };
}

/** A card token's claim in the store, held by one request while it charges; `given` once it was given back. */
export interface TokenClaim {
  readonly key: string;
  readonly owner: string;
  given: boolean;
  /** Stops keeping the claim alive: an extension on its way, if any, to wait for before the claim is given back. */
  stopKeeping: () => Promise<void> | undefined;
}

/** What the owner of a token's claim does with it. */
export interface ClaimSteps {
  /** A stored answer, brought up to date (a pending 3-D Secure charge the shopper may have finished). */
  refreshed(outcome: ChargeOutcome, t: TokenRequest): Promise<ChargeOutcome>;
  /** A new charge; gives the claim back with its answer when it can (`claim.given`). */
  charge(t: TokenRequest, claim: TokenClaim): Promise<ChargeOutcome>;
}

/**
 * The outcome of a card token's `POST /charges`, one per token: shared by the requests of this process that ask at
 * once, claimed in the store across requests and instances. One per helper instance.
 */
export function tokenOutcomes(ctx: HelperContext, steps: ClaimSteps): (t: TokenRequest) => Promise<ChargeOutcome> {
  // In-process fast path: a double submit to this process shares one promise; the store's claim covers the rest.
  const inFlight = new Map<string, Promise<ChargeOutcome>>();
  const { store } = ctx;

  /**
   * The token's outcome: the stored one (refreshed while 3-D Secure is pending), or a new charge by whoever
   * claims the token in the store; the others poll the store for its answer, at most {@link CLAIM_WAIT_MS}.
   * The claim comes first and the stored answer is read right after it, in one step where the store offers
   * `claimAndGet`, and a new answer is stored and the claim given back in one step where it offers `setAndRelease`
   * (both built-in stores offer both): a new token costs two store calls. A claim is kept alive while its owner
   * works and expires {@link CLAIM_TTL_MS} after its owner died; the next request then calls the provider with the
   * same idempotency key, which replays the first answer (docs/decisions/helper.md#helper-charges).
   */
  async function tokenOutcome(t: TokenRequest): Promise<ChargeOutcome> {
    const { key } = t;
    const claim: TokenClaim = { key: `${key}:claim`, owner: randomUUID(), given: false, stopKeeping: () => undefined };
    const deadline = Date.now() + CLAIM_WAIT_MS;
    // Whether another request was seen charging the token: from then on a store that fails is no "nothing was done".
    let another = false;
    for (let delay = 20; ; delay = Math.min(delay * 2, 250)) {
      const { claimed, value: stored } = await (another
        ? waitedFor(claimAndGet(store, claim.key, claim.owner, CLAIM_TTL_MS, key))
        : claimAndGet(store, claim.key, claim.owner, CLAIM_TTL_MS, key));
      if (claimed) {
        claim.stopKeeping = keepClaim(ctx, claim.key, claim.owner, CLAIM_TTL_MS, 'tessera.charge.claim', t.req);
        try {
          if (stored) return await steps.refreshed(JSON.parse(stored) as ChargeOutcome, t);
          return await steps.charge(t, claim);
        } finally {
          // Not given back with a new answer (a replay, a failed call): given back now, without holding up the
          // answer; a request that meets the claim before it is gone reads the stored answer. A release that fails
          // leaves the claim to expire.
          if (!claim.given) {
            const landing = claim.stopKeeping();
            const release = () => store.release(claim.key, claim.owner);
            (landing ? landing.then(release) : release()).catch(() => undefined);
          }
        }
      }
      if (stored) return steps.refreshed(JSON.parse(stored) as ChargeOutcome, t);
      another = true;
      if (Date.now() + delay > deadline) {
        throw new HelperHttpError(
          503,
          'TESSERA_CHARGE_IN_PROGRESS',
          'this card token is being charged by another request; send the same request again to learn the outcome (it will not be charged twice)',
          { outcomeKnown: false, headers: { 'Retry-After': '2' } },
        );
      }
      await sleep(delay);
    }
  }

  return (t) => {
    const { key } = t;
    // One promise per token in this process, registered before any await, so a double submit shares it.
    let running = inFlight.get(key);
    if (!running) {
      running = tokenOutcome(t);
      inFlight.set(key, running);
      running.then(
        () => inFlight.delete(key),
        () => inFlight.delete(key),
      );
    }
    return running;
  };
}
