/**
 * Zod schemas of the Account Services API (shared/spec/account-services-api.md) and its OAuth token endpoint:
 * one schema per request or response object, one file per resource. They are the single source of truth
 * (DESIGN.md): the client infers its types from them, the sandbox validates requests with them. Cross-field rules
 * that depend on state or on the entity's region (unique reference, US tax ids, default instruments) live in the
 * sandbox. Choices the spec leaves open are in docs/decisions/sandbox.md#sandbox-account-services.
 */

export * from './account-updater.js';
export * from './common.js';
export * from './entities.js';
export * from './errors.js';
export * from './ids.js';
export * from './members.js';
export * from './oauth.js';
export * from './payment-instruments.js';
export * from './reserve-rules.js';
export * from './simulator.js';
