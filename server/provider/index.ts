/** `tessera-pay/provider`: typed clients of the provider's legacy card API and Account Services API. */
export type { AccountUpdater } from './accounts/account-updater.js';
export { type AccountsClient, type AccountsClientOptions, createAccountsClient } from './accounts/client.js';
export type { Entities, EntityCallOptions } from './accounts/entities.js';
export type { Instruments } from './accounts/instruments.js';
export type { Members } from './accounts/members.js';
export type { PaymentInstruments } from './accounts/payment-instruments.js';
export type { ReserveRules, UpdateReserveRuleOptions } from './accounts/reserve-rules.js';
export type * from './accounts/types.js';
export { PROVIDER_ERROR_CODES, type ProviderErrorCode } from './error-codes.js';
export {
  AuthenticationError,
  ConflictError,
  InvalidResponseError,
  NetworkError,
  NotFoundError,
  PermissionError,
  PreconditionFailedError,
  PreconditionRequiredError,
  ProviderError,
  type ProviderErrorDetails,
  type ProviderFieldError,
  ProviderServerError,
  RateLimitError,
  RequestRejectedError,
  ResponseBudgetError,
  TesseraError,
  TimeoutError,
  ValidationError,
} from './errors.js';
export type { CallOptions, WriteOptions } from './http/call.js';
export type { HttpOptions } from './http/options.js';
export type { ProviderResult } from './http/result.js';
export {
  type CardTokenRequest,
  type Charge,
  type ChargeRequest,
  createLegacyClient,
  isThreeDSecureRedirect,
  type LegacyClient,
  type LegacyClientOptions,
  type LegacyClientSettings,
  type LegacyKeys,
  type PaymentToken,
  type PaymentTokenRequest,
  type ProviderCardToken,
  type ThreeDSecureRedirect,
} from './legacy/client.js';
export type { ClientRedactor, ProviderLogger, Redactor } from './log.js';
export { createTokenSource, type TokenSource, type TokenSourceOptions } from './oauth/token-source.js';
export { clientPrefix, DEFAULT_SANDBOX_URL } from './urls.js';
