import type { Request } from 'express';
import type { HostVerifier } from './host-auth.js';
import type { HelperLogger } from './log.js';
import type { ValidatedOptions } from './options.js';
import type { Limit } from './rate-limit.js';
import type { TesseraStore } from './store.js';
import type { WidgetAsset } from './widget-asset.js';

/** The resolved limits; `undefined` means switched off. */
export interface ResolvedLimits {
  readonly requestsPerIp: Limit | undefined;
  readonly chargesPerIp: Limit | undefined;
  readonly chargesPerSession: Limit | undefined;
  readonly declinesPerIp: Limit | undefined;
  readonly declinesPerSession: Limit | undefined;
  /** Off unless set (docs/decisions/helper.md#helper-declines-total). */
  readonly declinesTotal: Limit | undefined;
  readonly hostRequestsPerUser: Limit | undefined;
  /** Dashboard requests of one IP whose host token was missing or refused (docs/decisions/helper.md#helper-rate-limits). */
  readonly hostAuthFailuresPerIp: Limit | undefined;
}

/** Defaults of `rateLimits` (docs/decisions/helper.md#helper-rate-limits). */
export const DEFAULT_LIMITS: ResolvedLimits = Object.freeze({
  requestsPerIp: { max: 100, windowMs: 10 * 60_000 },
  chargesPerIp: { max: 20, windowMs: 10 * 60_000 },
  chargesPerSession: { max: 10, windowMs: 10 * 60_000 },
  declinesPerIp: { max: 5, windowMs: 10 * 60_000 },
  declinesPerSession: { max: 3, windowMs: 10 * 60_000 },
  declinesTotal: undefined,
  hostRequestsPerUser: { max: 120, windowMs: 60_000 },
  hostAuthFailuresPerIp: { max: 60, windowMs: 60_000 },
});

/** Everything a route of one helper instance shares. */
export interface HelperContext {
  readonly options: ValidatedOptions;
  readonly environment: 'sandbox' | 'production';
  readonly publicKey: string;
  readonly cardTokenUrl: string;
  readonly store: TesseraStore;
  readonly log: HelperLogger;
  /**
   * The configured secrets (secret key, client secret) the log redactor cuts, in each form the helper's writers would
   * give them (respond.ts `answerSecrets`): no answer of this helper may hold one (respond.ts `sendJson`,
   * docs/decisions/helper.md#helper-secret-guard). Per helper, not global: one process may run several helpers with
   * different keys.
   */
  readonly secrets: readonly string[];
  readonly limits: ResolvedLimits;
  readonly now: () => number;
  /** Largest accepted request body in bytes. */
  readonly bodyLimit: number;
  readonly widget: () => WidgetAsset;
  /** The shopper's session id, when the merchant's app has one. */
  readonly sessionOf: (req: Request) => string | undefined;
  /** Warns once when `trust proxy` makes `req.ip`, the key of the per-IP limits, unreliable (one per helper). */
  readonly checkProxy: (req: Request) => void;
  /** Present when `hostAuth` is configured. */
  readonly verifyHost: HostVerifier | undefined;
}
