/** `tessera-pay/server`: the Express helper a merchant mounts on its own server. */

export { type CurrencyCode, isIso4217 as isCurrencyCode } from '../provider/schemas/currencies.js';
export { type CspOptions, tesseraCsp } from './csp.js';
export { HELPER_ERROR_CODES, type HelperErrorCode } from './error-codes.js';
export { type HelperErrorBody, HelperHttpError } from './errors.js';
export { type TesseraHelper, tesseraHelper } from './helper.js';
export type {
  HostAlgorithm,
  HostAuthOptions,
  HostBindingContext,
  HostClaims,
  HostKey,
  HostTokenClaims,
} from './host-auth.js';
export type { KeyCheckOutcome, KeyCheckResult } from './key-check.js';
export { type HelperLogger, redactingLogger } from './log.js';
export type {
  CardUpdatedEvent,
  ChallengeEvent,
  ChargeDetails,
  ChargeEvent,
  ChargeRequestBody,
  HelperChargeKey,
  OnChallengeContext,
  OnChargeContext,
  PaymentInstrumentIdsContext,
  TesseraHelperOptions,
  TesseraHelperSettings,
} from './options.js';
export type { HelperPage } from './page.js';
export type { Limit } from './rate-limit.js';
export { RedisStore, type RedisStoreClient, type RedisStoreOptions, StoreUnavailableError } from './redis-store.js';
export { MemoryStore, type MemoryStoreOptions, type TesseraStore } from './store.js';
export { type CheckTesseraStoreOptions, checkTesseraStore, StoreCheckError } from './store-check.js';
export type { StoreCheckOutcome, StoreCheckResult } from './store-startup.js';
export { loadWidgetAsset, WIDGET_FILE, type WidgetAsset, widgetVersion } from './widget-asset.js';
export { type WidgetScriptTagOptions, widgetScriptTag } from './widget-tag.js';
