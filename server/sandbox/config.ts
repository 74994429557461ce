/**
 * Sandbox credentials and mode. Each credential comes from its environment
 * variable, else a fixed, documented default shaped like the real ones, so a
 * fresh clone works with no configuration and tests can hard-code nothing.
 */

import { CLIENT_ID } from '../provider/urls.js';

export type SandboxMode = 'sandbox' | 'production';

export interface SandboxCredentials {
  /** Public key for client-side calls (card tokens). */
  readonly publicKey: string;
  /** Secret key for server-to-server calls. */
  readonly secretKey: string;
  /** OAuth client id, `cli_` + at least 8 characters; the first 8 after `cli_` are the host prefix. */
  readonly clientId: string;
  /** OAuth client secret. */
  readonly clientSecret: string;
}

export const DEFAULT_CREDENTIALS: SandboxCredentials = Object.freeze({
  publicKey: 'pk_sbox_tessera0demo0public0key0000001',
  secretKey: 'sk_sbox_tessera0demo0secret0key0000001',
  clientId: 'cli_tessdemo0000000000000001',
  clientSecret: 'tessera-sandbox-client-secret-0001',
});

/** Credentials from `TESSERA_SANDBOX_*` variables, falling back to {@link DEFAULT_CREDENTIALS}. */
export function credentialsFromEnv(env: NodeJS.ProcessEnv = process.env): SandboxCredentials {
  return {
    publicKey: env.TESSERA_SANDBOX_PUBLIC_KEY || DEFAULT_CREDENTIALS.publicKey,
    secretKey: env.TESSERA_SANDBOX_SECRET_KEY || DEFAULT_CREDENTIALS.secretKey,
    clientId: env.TESSERA_SANDBOX_CLIENT_ID || DEFAULT_CREDENTIALS.clientId,
    clientSecret: env.TESSERA_SANDBOX_CLIENT_SECRET || DEFAULT_CREDENTIALS.clientSecret,
  };
}

const ENV_NAMES: Record<keyof SandboxCredentials, string> = {
  publicKey: 'TESSERA_SANDBOX_PUBLIC_KEY',
  secretKey: 'TESSERA_SANDBOX_SECRET_KEY',
  clientId: 'TESSERA_SANDBOX_CLIENT_ID',
  clientSecret: 'TESSERA_SANDBOX_CLIENT_SECRET',
};

/**
 * Checks credentials once, at start, and throws naming the option (`credentials.clientId`) or, when the value came
 * from the environment, the variable: each must fit in a header as sent (8 to 200 printable ASCII characters, no
 * spaces), the client id must be `cli_` + letters or digits (its first 8 after `cli_` are a host-name label), and the
 * public and secret keys must differ (else a wrong-kind key could not be told apart).
 */
export function checkCredentials(
  creds: SandboxCredentials,
  given: Partial<SandboxCredentials> = {},
): SandboxCredentials {
  const name = (k: keyof SandboxCredentials) => (given[k] !== undefined ? `credentials.${k}` : ENV_NAMES[k]);
  for (const k of Object.keys(ENV_NAMES) as (keyof SandboxCredentials)[]) {
    const v: unknown = creds[k];
    if (typeof v !== 'string' || !/^[\x21-\x7e]{8,200}$/.test(v)) {
      throw new TypeError(`tessera-pay sandbox: ${name(k)} must be 8 to 200 printable ASCII characters without spaces`);
    }
  }
  if (!CLIENT_ID.test(creds.clientId)) {
    throw new TypeError(`tessera-pay sandbox: ${name('clientId')} must be cli_ followed by 8 to 196 letters or digits`);
  }
  if (creds.publicKey === creds.secretKey) {
    throw new TypeError(`tessera-pay sandbox: ${name('secretKey')} must differ from ${name('publicKey')}`);
  }
  return creds;
}
