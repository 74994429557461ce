import { hash } from 'node:crypto';
import type { Request } from 'express';
import type { HelperContext } from '../context.js';
import { ipKey } from '../rate-limit.js';
import type { ChargeOutcome, ResultOwner } from './outcome.js';

// Who sends a charge request, and who may read a token's stored answer: its owner (docs/decisions/helper.md#helper-charges)
// under the same mount-path parameters (docs/decisions/helper.md#helper-mount-params).

const sha256 = (text: string) => hash('sha256', text, 'hex');

/** Who sent a charge request: `req.ip` (or `unknown`), and the owner its answer is stored under (the session's hash). */
export interface Caller {
  readonly ip: string;
  readonly owner: ResultOwner;
}

/** Who is paying, read once per request (`req.ip` runs Express's proxy rules on every read). */
export const callerOf = (ctx: HelperContext, req: Request): Caller => {
  const ip = req.ip ?? 'unknown';
  return { ip, owner: ownerOf(ip, ctx.sessionOf(req)) };
};

/**
 * The owner a token's answer is stored under: the caller's IP key and, with a session, its hash (session ids are
 * bearer secrets, and a shared store's keys and values can end up in its logs).
 */
export function ownerOf(ip: string, session: string | undefined): ResultOwner {
  return session ? { session: sha256(session), ip: ipKey(ip) } : { ip: ipKey(ip) };
}

/**
 * Whether a caller may read a token's stored answer (docs/decisions/helper.md#helper-charges): a charge made with a
 * session is answered again only to that session; one made without, only to the same IP key (IPv4, IPv6 /64).
 */
export function mayRead(owner: ResultOwner | undefined, caller: ResultOwner): boolean {
  if (!owner) return true;
  if (owner.session) return owner.session === caller.session;
  return owner.ip === caller.ip;
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
