import { rootCode } from '../common/logged-error.js';
import { JWKS_CACHE_MAX_AGE_MS } from './jwks-fetch.js';
import type { HelperLogger } from './log.js';

/** Why the last JWKS fetch failed, as a log line may say it: never the error's message, which may hold the URL. */
interface FetchFailure {
  /** The innermost error code (`ECONNREFUSED`, `UND_ERR_SOCKET`, jose's `ERR_JWKS_TIMEOUT`), else the error's name. */
  readonly code: string;
  /** The issuer's status when it answered other than 200. */
  readonly status?: number;
}

/**
 * The operator's view of `hostAuth.jwksStaleIfErrorSeconds` (docs/decisions/helper.md#helper-jwks-stale-log): per
 * outage, one `warn` when the kept set first verifies a token, one `error` when it has been stale (past jose's cache
 * age, JWKS_CACHE_MAX_AGE_MS) for longer than the window and stops being used while the issuer still fails, one `info`
 * when a fetch succeeds again. Requests in between log nothing here (each 503 has its own `tessera.error` line).
 * `ageSeconds` is always counted from the kept set's fetch.
 */
export function staleJwksLog(log: HelperLogger, windowSeconds: number, now: () => number) {
  let failure: FetchFailure | undefined;
  /** When the kept set first answered in this outage, by the helper's clock; undefined while it is not in use. */
  let servingSince: number | undefined;
  let expired = false;
  const seconds = (ms: number) => Math.max(0, Math.floor(ms / 1000));
  /** How long after its fetch the kept set may answer: jose's cache age, then the window (RFC 5861's stale-if-error). */
  const usableSeconds = JWKS_CACHE_MAX_AGE_MS / 1000 + windowSeconds;
  const why = () => (failure ? { code: failure.code, ...(failure.status ? { status: failure.status } : {}) } : {});
  return {
    /** A fetch failed on the issuer's side (not one skipped during the wait after two failures). */
    failed(err: unknown, status: number | undefined): void {
      const name = err instanceof Error ? err.name : typeof err;
      failure = { code: rootCode(err) ?? name, ...(status !== undefined && status !== 200 ? { status } : {}) };
    },
    /** The kept set, loaded `ageMs` ago, verified a token's key. */
    served(ageMs: number): void {
      if (servingSince !== undefined) return;
      servingSince = now();
      log.warn(
        {
          event: 'tessera.host_auth.jwks.stale',
          ageSeconds: seconds(ageMs),
          staleIfErrorSeconds: windowSeconds,
          ...why(),
        },
        `tessera: the host-auth JWKS cannot be fetched (${failure?.code ?? 'unknown'}); host tokens are verified with the set fetched ${seconds(ageMs)} s ago, for at most ${windowSeconds} s after it went stale (${usableSeconds} s after that fetch), so a key the issuer removed since is still accepted`,
      );
    },
    /** The issuer failed and the kept set, loaded `ageMs` ago, is too old to answer. */
    tooOld(ageMs: number): void {
      if (servingSince === undefined || expired) return;
      expired = true;
      log.error(
        {
          event: 'tessera.host_auth.jwks.stale_expired',
          ageSeconds: seconds(ageMs),
          staleIfErrorSeconds: windowSeconds,
          staleForSeconds: seconds(now() - servingSince),
          ...why(),
        },
        `tessera: the host-auth JWKS still cannot be fetched (${failure?.code ?? 'unknown'}) and the kept set has been stale for longer than jwksStaleIfErrorSeconds (${windowSeconds} s; usable until ${usableSeconds} s after its fetch, which was ${seconds(ageMs)} s ago): dashboard requests are answered 503 TESSERA_HOST_AUTH_UNAVAILABLE until the issuer answers`,
      );
    },
    /** jose loaded a set from the issuer. */
    loaded(): void {
      if (servingSince === undefined) return;
      log.info(
        { event: 'tessera.host_auth.jwks.recovered', staleForSeconds: seconds(now() - servingSince), expired },
        'tessera: the host-auth JWKS was fetched again; host tokens are verified with the new set',
      );
      servingSince = undefined;
      expired = false;
      failure = undefined;
    },
  };
}
