import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

/** The demo's session cookie: an opaque id the server issued, HttpOnly, SameSite=Lax. */
export const SESSION_COOKIE = 'tessera_demo';
/** 16 random bytes, then the first 16 bytes of their HMAC-SHA-256 under the process's key, both base64url. */
const ID = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/;
/** Most sessions that remember a signed-in user; past it the one signed in longest ago is forgotten. */
export const MAX_SIGNED_IN = 10_000;

export interface DemoSessionsOptions {
  /** Called when a session's id is replaced (sign-in), so what the old id owned (cart, orders) follows it. */
  readonly onRotate?: (from: string, to: string) => void;
}

/**
 * The demo's sessions: every visitor gets an id the server issued, in `res.locals.session`; the platform
 * dashboard's signed-in user is kept here, on the server, by id. A real shop has its own session middleware
 * (express-session and a store); this is just enough for the demo, with the same rules
 * (docs/decisions/demo.md#demo-sessions):
 * - an id the server never issued is not adopted (session fixation): it carries a MAC under a key made at start,
 *   and a cookie without a valid one gets a fresh id, as a missing cookie does;
 * - signing in issues a new id ({@link DemoSessions.signIn}), so an id planted or seen before sign-in never
 *   names the signed-in session.
 */
export class DemoSessions {
  readonly #key = randomBytes(32);
  readonly #ids = new WeakMap<Request, string>();
  /** Session id → the demo user it signed in as, oldest sign-in first. */
  readonly #users = new Map<string, string>();
  readonly #onRotate: (from: string, to: string) => void;

  constructor(options: DemoSessionsOptions = {}) {
    this.#onRotate = options.onRotate ?? (() => {});
  }

  #mac(random: string): Buffer {
    return createHmac('sha256', this.#key).update(random).digest().subarray(0, 16);
  }

  #issue(): string {
    const random = randomBytes(16).toString('base64url');
    return `${random}.${this.#mac(random).toString('base64url')}`;
  }

  #issued(value: string): boolean {
    const m = ID.exec(value);
    if (!m) return false;
    const mac = Buffer.from(m[2]!, 'base64url');
    return mac.length === 16 && timingSafeEqual(mac, this.#mac(m[1]!));
  }

  #use(req: Request, res: Response, id: string): void {
    // One cookie of ours per answer: a sign-in replaces the one the middleware set for a new visitor.
    const others = ([] as (string | number)[])
      .concat(res.getHeader('Set-Cookie') ?? [])
      .map(String)
      .filter((c) => !c.startsWith(`${SESSION_COOKIE}=`));
    res.setHeader('Set-Cookie', [...others, `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax`]);
    this.#ids.set(req, id);
    res.locals.session = id;
  }

  /** The middleware: `res.locals.session` is the request's session id, issued now when it had none the server issued. */
  middleware() {
    return (req: Request, res: Response, next: NextFunction) => {
      const header = req.headers.cookie ?? '';
      let id: string | undefined;
      for (const part of header.split(';')) {
        const [name, value] = part.trim().split('=', 2);
        if (name === SESSION_COOKIE && value && this.#issued(value)) {
          id = value;
          break;
        }
      }
      if (id) {
        this.#ids.set(req, id);
        res.locals.session = id;
      } else this.#use(req, res, this.#issue());
      next();
    };
  }

  /** The session id of a request the middleware saw (the helper's `sessionId` option), or undefined. */
  readonly sessionOf = (req: Request): string | undefined => this.#ids.get(req);

  /** The demo user id this request's session signed in as, or undefined. */
  user(req: Request): string | undefined {
    const id = this.#ids.get(req);
    return id === undefined ? undefined : this.#users.get(id);
  }

  /** Signs the session in as `userId` under a new id (the old one no longer names it); returns the new id. */
  signIn(req: Request, res: Response, userId: string): string {
    const from = this.#ids.get(req);
    const to = this.#issue();
    if (from !== undefined) {
      this.#users.delete(from);
      this.#onRotate(from, to);
    }
    if (this.#users.size >= MAX_SIGNED_IN) this.#users.delete(this.#users.keys().next().value as string);
    this.#users.set(to, userId);
    this.#use(req, res, to);
    return to;
  }
}
