import type { z } from 'zod';
import type {
  accountUpdaterRequestSchema,
  accountUpdaterResponseSchema,
  createInstrumentRequestSchema,
  createPaymentInstrumentRequestSchema,
  entityCreatedV2Schema,
  entityCreatedV3Schema,
  entityV2Schema,
  entityV3Schema,
  membersListSchema,
  onboardEntityRequestV2Schema,
  onboardEntityRequestV3Schema,
  paymentInstrumentListSchema,
  paymentInstrumentSchema,
  paymentInstrumentWriteResponseSchema,
  reinviteRequestSchema,
  reinviteResponseSchema,
  reserveRuleRequestSchema,
  reserveRuleSchema,
  reserveRuleWriteResponseSchema,
  storedInstrumentSchema,
  updatePaymentInstrumentRequestSchema,
} from '../schemas/accounts/index.js';

/**
 * Types of the Account Services client, inferred from the shared schemas (server/provider/schemas/accounts.ts):
 * requests are the schemas' input types, responses their output types.
 */

/** `schema_version` of the entity payloads: 3.0 (latest, default) or 2.0. */
export type SchemaVersion = '3.0' | '2.0';

export interface AccountUpdaterRequest extends z.input<typeof accountUpdaterRequestSchema> {}
export interface AccountUpdaterResult extends z.output<typeof accountUpdaterResponseSchema> {}

/** Entity types by schema version. */
export interface EntityTypes {
  '3.0': {
    request: z.input<typeof onboardEntityRequestV3Schema>;
    created: z.output<typeof entityCreatedV3Schema>;
    entity: z.output<typeof entityV3Schema>;
  };
  '2.0': {
    request: z.input<typeof onboardEntityRequestV2Schema>;
    created: z.output<typeof entityCreatedV2Schema>;
    entity: z.output<typeof entityV2Schema>;
  };
}
export type OnboardEntityRequest<V extends SchemaVersion = '3.0'> = EntityTypes[V]['request'];
export type EntityCreated<V extends SchemaVersion = '3.0'> = EntityTypes[V]['created'];
export type Entity<V extends SchemaVersion = '3.0'> = EntityTypes[V]['entity'];

export interface MembersList extends z.output<typeof membersListSchema> {}
export interface ReinviteRequest extends z.input<typeof reinviteRequestSchema> {}
export interface ReinviteResult extends z.output<typeof reinviteResponseSchema> {}

export interface PaymentInstrument extends z.output<typeof paymentInstrumentSchema> {}
export interface PaymentInstrumentList extends z.output<typeof paymentInstrumentListSchema> {}
export type CreatePaymentInstrumentRequest = z.input<typeof createPaymentInstrumentRequestSchema>;
export interface UpdatePaymentInstrumentRequest extends z.input<typeof updatePaymentInstrumentRequestSchema> {}
export interface PaymentInstrumentWriteResult extends z.output<typeof paymentInstrumentWriteResponseSchema> {}

export interface ReserveRule extends z.output<typeof reserveRuleSchema> {}
export interface ReserveRuleRequest extends z.input<typeof reserveRuleRequestSchema> {}
export interface ReserveRuleWriteResult extends z.output<typeof reserveRuleWriteResponseSchema> {}
/** Sandbox extension `GET …/reserve-rules`: `{ data: ReserveRule[] }`. */
export interface ReserveRuleList {
  readonly data: ReserveRule[];
}

export interface CreateInstrumentRequest extends z.input<typeof createInstrumentRequestSchema> {}
export interface StoredInstrument extends z.output<typeof storedInstrumentSchema> {}
