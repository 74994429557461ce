import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { HostBindingContext, HostTokenClaims } from '../server/helper/index.js';

/** The demo's session cookie: an opaque id the server issued, HttpOnly, SameSite=Lax, and Secure over HTTPS. */
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
 * The demo's sessions: a visitor who stores something gets an id the server issued, in `res.locals.session`; the platform
 * dashboard's signed-in user is kept here, on the server, by id. A real shop has its own session middleware
 * (express-session and a store); this is just enough for the demo, with the same rules
 * (docs/decisions/demo.md#demo-sessions):
 * - an id the server never issued is not adopted (session fixation): it carries a MAC under a key made at start,
 *   and a cookie without a valid one is no session, as a missing cookie is;
 * - an id is issued only when something is stored under it ({@link DemoSessions.ensure}: the cart, a sign-in), never
 *   on an answer that stores nothing, which a shared cache could keep and give to every visitor;
 * - signing in issues a new id ({@link DemoSessions.signIn}), so an id planted or seen before sign-in never
 *   names the signed-in session;
 * - the cookie is `Secure` whenever the request came over HTTPS (`req.secure`, which honours `trust proxy`).
 */
export class DemoSessions {
  readonly #key = randomBytes(32);
  /** The key of the host tokens' `sid`: another than the ids' MAC key, so a `sid` is no MAC of anything a cookie holds. */
  readonly #bindingKey = randomBytes(32);
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
    // One cookie of ours per answer: a sign-in replaces one that ensure() set earlier in the same request.
    const others = ([] as (string | number)[])
      .concat(res.getHeader('Set-Cookie') ?? [])
      .map(String)
      .filter((c) => !c.startsWith(`${SESSION_COOKIE}=`));
    // Secure whenever the request came over HTTPS (`req.secure`: TLS here, or `X-Forwarded-Proto: https` from a proxy
    // Express's `trust proxy` names): behind HTTPS a cookie without it is sent over any plain-HTTP request to the
    // domain, where a network attacker reads it. Not on plain HTTP, where the browser would refuse to store it
    // (loopback aside), as the demo is served (docs/decisions/demo.md#demo-sessions).
    const secure = req.secure ? '; Secure' : '';
    res.setHeader('Set-Cookie', [...others, `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax${secure}`]);
    this.#ids.set(req, id);
    res.locals.session = id;
  }

  /**
   * The middleware: `res.locals.session` is the request's session id when its cookie carries one the server issued,
   * else undefined. It sets no cookie: a request that stores nothing under a session (a page, a script, the widget
   * bundle) gets none, so an answer a shared cache may keep (`Cache-Control: public`) never carries one visitor's id
   * to the next, as express-session's `saveUninitialized: false` does. {@link DemoSessions.ensure} issues one.
   */
  middleware() {
    return (req: Request, res: Response, next: NextFunction) => {
      const header = req.headers.cookie ?? '';
      for (const part of header.split(';')) {
        const [name, value] = part.trim().split('=', 2);
        if (name === SESSION_COOKIE && value && this.#issued(value)) {
          this.#ids.set(req, value);
          res.locals.session = value;
          break;
        }
      }
      next();
    };
  }

  /** The request's session id, issued now (with its cookie) when it has none: for a request that stores something. */
  ensure(req: Request, res: Response): string {
    const id = this.#ids.get(req);
    if (id !== undefined) return id;
    const fresh = this.#issue();
    this.#use(req, res, fresh);
    return fresh;
  }

  /** The session id of a request the middleware saw (the helper's `sessionId` option), or undefined. */
  readonly sessionOf = (req: Request): string | undefined => this.#ids.get(req);

  /** The demo user id this request's session signed in as, or undefined. */
  user(req: Request): string | undefined {
    const id = this.#ids.get(req);
    return id === undefined ? undefined : this.#users.get(id);
  }

  /**
   * What a host token issued to this request's session carries as `sid`: an HMAC-SHA-256 of the session id under a
   * key of the server (base64url), never the id, since the page's scripts can read the token but not the HttpOnly
   * cookie (docs/decisions/demo.md#demo-host-binding). Undefined without a session.
   */
  binding(req: Request): string | undefined {
    const id = this.#ids.get(req);
    return id === undefined ? undefined : this.#bindingOf(id);
  }

  #bindingOf(id: string): string {
    return createHmac('sha256', this.#bindingKey).update(id).digest('base64url');
  }

  /**
   * The helper's `hostAuth.isBound`: true when the token was issued to the session this request carries (its `sid` is
   * that session's {@link binding}) and that session is still signed in as the token's `sub`. A token sent without the
   * cookie, with another session's, after a sign-out or after signing in again (a new id) is refused.
   */
  readonly isBound = (claims: HostTokenClaims, { req }: HostBindingContext): boolean => {
    const id = this.#ids.get(req);
    if (id === undefined || typeof claims.sid !== 'string' || this.#users.get(id) !== claims.sub) return false;
    const expected = Buffer.from(this.#bindingOf(id));
    const given = Buffer.from(claims.sid);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

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

  /**
   * Signs the session out: it forgets its user and goes on under a new id, as after a sign-in, so nothing issued to
   * the signed-in id (a host token) names it any more. A request without a session has nothing to sign out.
   */
  signOut(req: Request, res: Response): void {
    const from = this.#ids.get(req);
    if (from === undefined) return;
    this.#users.delete(from);
    const to = this.#issue();
    this.#onRotate(from, to);
    this.#use(req, res, to);
  }
}
