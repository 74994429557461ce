import { AuthenticationError, PermissionError, ProviderError, ValidationError } from '../provider/errors.js';
import type { ChargeRequest, LegacyClient } from '../provider/legacy/client.js';
import type { TokenSource } from '../provider/oauth/token-source.js';
import type { HelperLogger } from './log.js';

/** What the provider made of one set of keys at startup. */
export type KeyCheckOutcome = 'accepted' | 'refused' | 'unchecked';

/** The startup key check's result per key set; a set that is not configured is absent. */
export interface KeyCheckResult {
  /** The secret key (charges), through the legacy client. */
  readonly secretKey?: KeyCheckOutcome;
  /** The public key the widget gets from `/config` (card tokens). */
  readonly publicKey?: KeyCheckOutcome;
  /** The OAuth client (`clientId`/`clientSecret`) of the dashboard routes. */
  readonly clientCredentials?: KeyCheckOutcome;
}

/** One key set and the cheap call that proves it: a call the provider authenticates before it reads the body. */
export interface KeyProbe {
  readonly name: keyof KeyCheckResult;
  /** Which options hold it, for the log line. */
  readonly options: string;
  readonly call: () => Promise<unknown>;
}

/**
 * The helper's log for the probes' own clients: their `provider.error` lines (an expected 400 for the empty body, or
 * the 401 this check reports in its own words) go to debug, so a refused key is said once and a good one not at all.
 */
export function probeLogger(log: HelperLogger): HelperLogger {
  return {
    debug: (obj, msg) => log.debug(obj, msg),
    info: (obj, msg) => log.debug(obj, msg),
    warn: (obj, msg) => log.debug(obj, msg),
    error: (obj, msg) => log.debug(obj, msg),
  };
}

/**
 * Probes of the configured key sets (docs/decisions/helper.md#helper-key-check). None creates anything: a charge and a
 * card token request with an empty body are authenticated first, then refused for the missing fields (400); an
 * OAuth access token request only issues a short-lived token.
 */
export function keyProbes(sets: {
  readonly secret?: LegacyClient;
  readonly public?: LegacyClient;
  readonly oauth?: TokenSource;
}): KeyProbe[] {
  const probes: KeyProbe[] = [];
  const { secret, public: pub, oauth } = sets;
  if (secret) {
    probes.push({
      name: 'secretKey',
      options: 'secretKey',
      call: () => secret.charges.create({} as ChargeRequest),
    });
  }
  if (pub) {
    probes.push({ name: 'publicKey', options: 'publicKey', call: () => pub.cardTokens.create({} as never) });
  }
  if (oauth) {
    probes.push({ name: 'clientCredentials', options: 'clientId/clientSecret', call: () => oauth.token(['accounts']) });
  }
  return probes;
}

/**
 * Runs every probe once and logs one warning per key set the provider refused (401/403) or that could not be
 * checked (network, timeout, 5xx), with the provider's request id and never a key. Never rejects: a provider that
 * is down at startup must not stop the merchant's server from starting.
 */
export async function checkKeys(probes: readonly KeyProbe[], log: HelperLogger): Promise<KeyCheckResult> {
  const result: Partial<Record<keyof KeyCheckResult, KeyCheckOutcome>> = {};
  await Promise.all(
    probes.map(async (probe) => {
      result[probe.name] = await probeOnce(probe, log);
    }),
  );
  return result;
}

async function probeOnce(probe: KeyProbe, log: HelperLogger): Promise<KeyCheckOutcome> {
  try {
    await probe.call();
    return 'accepted';
  } catch (err) {
    // A 400/422 for the empty body means the key got past authentication.
    if (err instanceof ValidationError) return 'accepted';
    const provider = err instanceof ProviderError ? err : undefined;
    const detail = {
      event: 'tessera.key_check',
      key: probe.name,
      status: provider?.status,
      requestId: provider?.requestId,
      code: (err as { code?: unknown } | null)?.code,
    };
    if (err instanceof AuthenticationError || err instanceof PermissionError) {
      log.warn(
        { ...detail, outcome: 'refused' },
        `tessera: the provider refused ${probe.options} at startup (HTTP ${provider?.status}); charges and dashboard calls with it will fail until it is fixed`,
      );
      return 'refused';
    }
    log.warn(
      { ...detail, outcome: 'unchecked' },
      `tessera: could not check ${probe.options} with the provider at startup (${provider?.status ? `HTTP ${provider.status}` : ((err as Error)?.name ?? 'error')}); the helper keeps running`,
    );
    return 'unchecked';
  }
}
