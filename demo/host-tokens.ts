import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** A demo user of the platform dashboard and what its host token allows. */
export interface DemoUser {
  readonly id: string;
  readonly name: string;
  /** The one sub-entity this user manages. */
  readonly entity: string;
  readonly entityLabel: string;
  /** Stored cards (`src_…`) this user may refresh through the account updater. */
  readonly savedCards: readonly string[];
}

/** The members of demo/fixtures/platform.json, as a merchant's user table would list them. */
export const DEMO_USERS: readonly DemoUser[] = Object.freeze([
  {
    id: 'usr_demo_ada',
    name: 'Ada Lovelace',
    entity: 'ent_demo_a',
    entityLabel: "Sub-entity A: Ada's Analytical Engines",
    savedCards: ['src_demo_visa_updated', 'src_demo_visa_expiry', 'src_demo_mc_closed', 'src_demo_amex_current'],
  },
  {
    id: 'usr_demo_grace',
    name: 'Grace Hopper',
    entity: 'ent_demo_b',
    entityLabel: 'Sub-entity B: Bee Bakery',
    savedCards: ['src_demo_visa_payout'],
  },
]);

export function demoUser(id: unknown): DemoUser | undefined {
  return DEMO_USERS.find((u) => u.id === id);
}

export const HOST_ISSUER = 'tessera-demo';
export const HOST_AUDIENCE = 'tessera-helper';
export const HOST_ALGORITHM = 'ES256';
/** Host tokens are short-lived: the dashboard asks for a new one when the helper says it expired. */
export const HOST_TOKEN_TTL_SECONDS = 300;

/** The demo back end's signing key, made at start and never written anywhere. */
export interface HostIssuer {
  /** Public JWK for the helper's `hostAuth.key` (and the demo's JWKS). */
  readonly publicJwk: JWK;
  /**
   * A host token for `user`: `sub`, `entities`, `instruments`, `iat`/`exp` on the given clock, and `sid`, the
   * session's binding (`DemoSessions.binding`), which the helper's `hostAuth.isBound` holds it to.
   */
  issue(user: DemoUser, sid: string): Promise<{ token: string; expiresAt: string }>;
}

/**
 * The merchant back end's side of the dashboard auth (docs/decisions/helper.md#helper-host-jwt): an ES256 key pair
 * generated at start; tokens carry the claims the helper checks against each path, and the session they were issued
 * to (docs/decisions/demo.md#demo-host-binding). Time comes from `now` (the
 * sandbox clock), the same clock the helper verifies with.
 */
export async function createHostIssuer(now: () => number): Promise<HostIssuer> {
  const { privateKey, publicKey } = await generateKeyPair(HOST_ALGORITHM);
  const publicJwk = { ...(await exportJWK(publicKey)), alg: HOST_ALGORITHM, use: 'sig', kid: 'demo-1' };
  const key: CryptoKey = privateKey;
  return {
    publicJwk,
    async issue(user, sid) {
      const iat = Math.floor(now() / 1000);
      const exp = iat + HOST_TOKEN_TTL_SECONDS;
      const token = await new SignJWT({ sid, entities: [user.entity], instruments: [...user.savedCards] })
        .setProtectedHeader({ alg: HOST_ALGORITHM, kid: 'demo-1' })
        .setIssuer(HOST_ISSUER)
        .setAudience(HOST_AUDIENCE)
        .setSubject(user.id)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign(key);
      return { token, expiresAt: new Date(exp * 1000).toISOString() };
    },
  };
}
