import type { SandboxMode } from '../config.js';

/**
 * Where the legacy API lives. Sandbox mode uses the spec's sandbox paths (`/api2/v2/…`); production mode the live
 * ones (`/v2/…`): the spec names only `POST /v2/charges/token` live, and the token and read paths follow the same
 * rule (docs/decisions/sandbox.md#legacy-paths).
 */
export interface LegacyPaths {
  readonly base: string;
  readonly cardTokens: string;
  readonly paymentTokens: string;
  readonly chargeWithToken: string;
  /** `GET {base}/charges/{id}`: a documented sandbox extension, by `charge_…` id or 3-D Secure `pay_tok_…`. */
  readonly charge: string;
  /** The 3-D Secure challenge page, `{challenge}/{pay_tok_…}`. */
  readonly challenge: string;
  /** `GET /_sandbox/test-cards`; undefined in production mode. */
  readonly testCards: string | undefined;
}

export function legacyPaths(mode: SandboxMode): LegacyPaths {
  const base = mode === 'production' ? '/v2' : '/api2/v2';
  return {
    base,
    cardTokens: `${base}/tokens/card`,
    paymentTokens: `${base}/tokens/payment`,
    chargeWithToken: `${base}/charges/token`,
    charge: `${base}/charges`,
    // Live, the challenge is the issuer's page; the production-mode sandbox plays the issuer under the API base.
    challenge: mode === 'production' ? `${base}/3ds` : '/_sandbox/3ds',
    testCards: mode === 'production' ? undefined : '/_sandbox/test-cards',
  };
}
