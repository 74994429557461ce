/**
 * Sandbox credentials and mode. Each credential comes from its environment
 * variable, else a fixed, documented default shaped like the real ones, so a
 * fresh clone works with no configuration and tests can hard-code nothing.
 */

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

/** The host prefix the spec derives from a client id: the first 8 characters after `cli_`. */
export function clientPrefix(clientId: string): string {
  return clientId.replace(/^cli_/, '').slice(0, 8);
}
