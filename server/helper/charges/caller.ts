import { hash } from 'node:crypto';
import type { Request } from 'express';
import type { HelperContext } from '../context.js';
import { ipKey } from '../rate-limit.js';
import type { ResultOwner } from './outcome.js';

// Who sends a charge request, and who may read a token's stored answer (docs/decisions/helper.md#helper-charges).

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
