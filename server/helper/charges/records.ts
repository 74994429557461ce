import { hash } from 'node:crypto';
import type { ChargeOutcome, ResultOwner } from './outcome.js';

// The records of charges the helper keeps in its store, and their keys: a leaf module that the charge route,
// the 3-D Secure return and the order-completion hook share (none of them imports another for these).

/** How long a token's answer is kept: the provider's idempotency window (DESIGN.md: 24 h). */
export const RESULT_TTL_MS = 24 * 3600_000;

/**
 * SHA-256 of a card token: both the idempotency key and the store key derive from it, so it is hashed once.
 * `crypto.hash` is the one-shot form (Node ≥ 20.12): no `Hash` stream object per charge.
 */
export const tokenDigest = (cardToken: string): Buffer => hash('sha256', cardToken, 'buffer');

/**
 * The idempotency key of a card token's charge for one order: the same for every retry of that token and order.
 * The order is part of it because the provider never sees the order reference: with the token alone, a token sent
 * again for another order once the store had forgotten its answer (a restarted `MemoryStore`, a flushed Redis) was the
 * same request to the provider whenever that order cost the same, and its replay of the first charge was taken as
 * the other order's payment. With the order in the key, the provider sees a new charge of a used token and refuses
 * it (docs/decisions/helper.md#helper-charges). The digest has a fixed length, so digest ‖ order is unambiguous.
 */
export function idempotencyKeyFor(
  cardToken: string,
  orderReference: string,
  digest: Buffer = tokenDigest(cardToken),
  params: unknown = {},
): string {
  const entries = Object.entries(mountBinding(params));
  // A helper under a path with parameters (one helper for many shops): the shop is part of the order too, or a token
  // sent again under another shop's path with the same order reference, once the store had forgotten its answer, was
  // the same request to the provider, and its replay was taken as the other shop's payment. Without parameters the key
  // is what it always was. An order reference holds no NUL (its schema refuses control characters), so the NUL parts
  // the two unambiguously. Every parameter counts, as the request has it ({@link mountBinding}), not only those a
  // record keeps ({@link mountParams}). docs/decisions/helper.md#helper-mount-params
  const order = entries.length === 0 ? orderReference : `${orderReference}\0${JSON.stringify(entries)}`;
  const bound = hash('sha256', Buffer.concat([digest, Buffer.from(order, 'utf8')]), 'base64url');
  return `tessera-charge-${bound}`;
}

/** Store key of a token's answer (the token itself is never a key: keys may end up in a shared store's logs). */
export const resultKey = (cardToken: string, digest = tokenDigest(cardToken)) => `charge:${digest.toString('hex')}`;
/** Store key of a pending 3-D Secure charge, by its `pay_tok_…`. */
export const threeDsKey = (paymentToken: string) => `3ds:${hash('sha256', paymentToken, 'hex')}`;

/** How many of the charge request's mount-path parameters a 3-D Secure record keeps, at most. */
export const MOUNT_PARAMS_MAX = 16;
/** The longest name or value of a mount-path parameter a 3-D Secure record keeps (characters). */
export const MOUNT_PARAM_CHARS = 256;

/**
 * The mount-path parameters of a charge request (`{ shop: 'alpha' }` at `/shops/:shop/payments`), as a 3-D Secure
 * record keeps them and as its return reads them back: plain strings only (a wildcard's `string[]` is left out), at
 * most {@link MOUNT_PARAMS_MAX} of them, a name or value longer than {@link MOUNT_PARAM_CHARS} left out, so that the
 * store's value stays small whatever path the request came on. Anything but an object is no parameters at all.
 * The object is built anew (own data properties, so a parameter named `__proto__` is a parameter like any other).
 * docs/decisions/helper.md#helper-mount-params
 */
export function mountParams(params: unknown): Record<string, string> {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return {};
  const kept: [string, string][] = [];
  for (const [name, value] of Object.entries(params)) {
    if (kept.length === MOUNT_PARAMS_MAX) break;
    if (typeof value !== 'string' || name.length > MOUNT_PARAM_CHARS || value.length > MOUNT_PARAM_CHARS) continue;
    kept.push([name, value]);
  }
  return Object.fromEntries(kept);
}

/**
 * Every mount-path parameter of a charge request, as a charge is bound to it: each name and value as Express gave it,
 * whatever its length or number, a wildcard's segments (`string[]`) as they are, anything else (only a middleware
 * that rewrote `req.params` leaves it) as `null`. {@link mountParams} keeps a bounded copy for `onCharge`; a charge
 * bound to that copy was one charge for two shops whose paths differ only in what the copy leaves out (a name longer
 * than 256 characters, a wildcard's segments), and its answer was replayed from one to the other
 * (docs/decisions/helper.md#helper-mount-params).
 */
export function mountBinding(params: unknown): Record<string, string | (string | null)[] | null> {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return {};
  const all: [string, string | (string | null)[] | null][] = [];
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'string') all.push([name, value]);
    else if (Array.isArray(value)) all.push([name, value.map((v: unknown) => (typeof v === 'string' ? v : null))]);
    else all.push([name, null]);
  }
  return Object.fromEntries(all);
}

/**
 * The mount-path parameters of a charge as its stored answer and its 3-D Secure record keep them: the bounded copy
 * `onCharge` sees ({@link mountParams}), and, only when that copy is not all of them ({@link mountBinding}), `mount`,
 * the SHA-256 (base64url) of all of them, so that the answer is still told apart from another shop's while the store's
 * value stays small. docs/decisions/helper.md#helper-mount-params
 */
export function mountRecord(params: unknown): { params: Record<string, string>; mount?: string } {
  const kept = mountParams(params);
  const all = JSON.stringify(Object.entries(mountBinding(params)));
  if (all === JSON.stringify(Object.entries(kept))) return { params: kept };
  return { params: kept, mount: hash('sha256', all, 'base64url') };
}

/**
 * Whether a token's stored answer was made under the caller's mount-path parameters: a token sent again under another
 * shop's path (`/shops/beta/payments` for a charge of `/shops/alpha/payments`) is another order, refused like one, so
 * that neither its page nor beta's `onCharge` learns alpha's charge as beta's (docs/decisions/helper.md#helper-mount-params).
 * An answer stored before the parameters were kept is read under any.
 */
export function sameMount(
  outcome: ChargeOutcome,
  { params: caller, mount }: { readonly params: Readonly<Record<string, string>>; readonly mount?: string },
): boolean {
  const kept = outcome.params;
  if (kept === undefined) return true;
  // The parameters a record leaves out (a value over 256 characters, a wildcard's segments) count as well.
  if (outcome.mount !== mount) return false;
  const names = Object.keys(kept);
  if (names.length !== Object.keys(caller).length) return false;
  return names.every((name) => Object.hasOwn(caller, name) && caller[name] === kept[name]);
}

/** What the 3-D Secure return needs to finish a charge. */
export interface PendingThreeDs {
  readonly resultKey: string;
  readonly orderReference: string;
  readonly successUrl?: string;
  readonly failUrl?: string;
  readonly ip: string;
  /**
   * The mount-path parameters of the `POST /charges` that started it ({@link mountParams}), which `onCharge` sees as
   * `req.params` on the return (absent in records written before 2026-11-26: the return's own are kept then).
   */
  readonly params?: Readonly<Record<string, string>>;
  /** The digest of all the parameters, when {@link params} is not all of them ({@link mountRecord}). */
  readonly mount?: string;
  /**
   * The session id itself, in records written before 2026-11-26 only: a session id is a bearer secret, and the store's
   * values can end up in its logs; the {@link owner} holds its hash, which is all the decline counters need.
   */
  readonly session?: string;
  /** Who may read the answer (absent in records written before owners were kept). */
  readonly owner?: ResultOwner;
}
