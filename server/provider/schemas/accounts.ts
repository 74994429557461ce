/**
 * Zod schemas of the Account Services API (shared/spec/account-services-api.md) and its OAuth token endpoint:
 * one schema per request or response object. They are the single source of truth (DESIGN.md): the client infers
 * its types from them, the sandbox validates requests with them. Cross-field rules that depend on state or on
 * the entity's region (unique reference, US tax ids, default instruments) live in the sandbox.
 * Choices the spec leaves open are in docs/DECISIONS.md#sandbox-account-services.
 */
import { z } from 'zod';

// ---------------------------------------------------------------------------------------------------------------
// Building blocks

/** An id with its prefix: `ent_`, `usr_`, `ppi_`, `rsv_`, `src_`, `file_`, `card_tok_`. */
export const idOf = (prefix: string) =>
  z
    .string()
    .max(80)
    .regex(new RegExp(`^${prefix}[A-Za-z0-9_-]{1,64}$`), `must be an id starting with ${prefix}`);

const text = (max: number) => z.string().trim().min(1).max(max);
const int = (min: number, max: number) => z.number().int().min(min).max(max);

/** Two-letter ISO 3166-1 country code (upper case). */
export const countrySchema = z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter country code (GB)');
/** Three-letter ISO 4217 currency code (upper case). */
export const currencySchema = z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter currency code (GBP)');
/** Links object: `{ self: { href } , … }` (docs/DECISIONS.md#accounts-links). */
export const linkSchema = z.object({ href: z.string() });
export const linksSchema = z.record(z.string(), linkSchema);

// ---------------------------------------------------------------------------------------------------------------
// OAuth (DESIGN.md: token endpoint; RFC 6749 §4.4, §5.1, §5.2)

/** The scopes the sandbox knows (docs/DECISIONS.md#oauth-scopes). */
export const ACCOUNT_SCOPES = ['accounts', 'vault:real-time-account-updater', 'vault:instruments'] as const;
export type AccountScope = (typeof ACCOUNT_SCOPES)[number];

/** `POST {auth_url}/connect/token` form body (client credentials grant). */
export const tokenRequestSchema = z.object({
  grant_type: z.string().min(1),
  client_id: z.string().min(1).max(200).optional(),
  client_secret: z.string().min(1).max(500).optional(),
  /** Space-separated scopes; absent = every scope the client may have. */
  scope: z.string().max(1000).optional(),
});
export type TokenRequest = z.infer<typeof tokenRequestSchema>;

export const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.literal('Bearer'),
  /** Lifetime in seconds from issue (sandbox clock). */
  expires_in: z.number().int().positive(),
  /** Space-separated granted scopes. */
  scope: z.string(),
});
export type TokenResponse = z.infer<typeof tokenResponseSchema>;

/** RFC 6749 §5.2 error body (plus the request id every sandbox error carries). */
export const oauthErrorSchema = z.object({
  error: z
    .enum([
      'invalid_request',
      'invalid_client',
      'invalid_grant',
      'unauthorized_client',
      'unsupported_grant_type',
      'invalid_scope',
      'server_error',
      'temporarily_unavailable',
    ])
    .or(z.string()),
  error_description: z.string().optional(),
  request_id: z.string().optional(),
});
export type OAuthError = z.infer<typeof oauthErrorSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Errors (docs/DECISIONS.md#accounts-errors)

/**
 * Every Account Services error body: 422 has `error_type: "request_invalid"` and one code per field at fault
 * (`individual.first_name_required`); other statuses name their kind in `error_type` (`unauthorized`,
 * `not_found`, `precondition_required`, …). A 409 also carries `_links` to the existing entity.
 */
export const errorBodySchema = z.object({
  request_id: z.string(),
  error_type: z.string(),
  error_codes: z.array(z.string()).optional(),
  _links: linksSchema.optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

// ---------------------------------------------------------------------------------------------------------------
// Entities (spec: Resources › Entity; POST /accounts/entities; GET /accounts/entities/{id})

/** Supported `schema_version` values of the Accept header; 3.0 is the latest. */
export const SCHEMA_VERSIONS = ['3.0', '2.0'] as const;
export type SchemaVersion = (typeof SCHEMA_VERSIONS)[number];

export const addressSchema = z.object({
  address_line1: text(200),
  address_line2: text(200).optional(),
  city: text(100),
  state: text(100).optional(),
  zip: text(20),
  country: countrySchema,
});
export type Address = z.infer<typeof addressSchema>;

export const phoneSchema = z.object({
  number: z.string().regex(/^[0-9][0-9 ()-]{3,24}$/, 'must be 4 to 25 digits, spaces, dashes or brackets'),
  country_code: z.string().regex(/^\+?[0-9]{1,4}$/, 'must be a country calling code (+44)'),
});

export const profileSchema = z.object({
  urls: z
    .array(z.url({ protocol: /^https?$/ }).max(2000))
    .min(1)
    .max(10),
  mccs: z
    .array(z.string().regex(/^\d{4}$/, 'must be a four-digit merchant category code'))
    .min(1)
    .max(10),
});

/** Version 3.0 date: `{day, month, year}` integers (spec table). */
export const dateV3Schema = z.object({ day: int(1, 31), month: int(1, 12), year: int(1900, 2100) });
/** Version 2.0 date: `YYYY-MM-DD` (docs/DECISIONS.md#entity-versions). */
export const dateV2Schema = z.iso.date();

export const identificationSchema = z.object({
  national_id_number: text(50).optional(),
  document: z
    .object({
      type: z.enum(['passport', 'national_identity_card', 'driving_licence']),
      front: idOf('file_'),
      back: idOf('file_').optional(),
    })
    .optional(),
});

const individualCore = {
  first_name: text(50),
  middle_name: text(50).optional(),
  last_name: text(50),
  trading_name: text(100).optional(),
  registered_address: addressSchema,
};

/** Sole trader, full (3.0): the spec's individual fields exactly. */
export const individualFullV3Schema = z.object({
  ...individualCore,
  national_tax_id: text(30).optional(),
  date_of_birth: dateV3Schema,
  identification: identificationSchema,
});
/** Sole trader, full (2.0): as 3.0 with the 2.0 date form. */
export const individualFullV2Schema = individualFullV3Schema.extend({ date_of_birth: dateV2Schema });
/** Sole trader, lite (2.0 only): no tax id, no identification. */
export const individualLiteV2Schema = z.object({ ...individualCore, date_of_birth: dateV2Schema.optional() });
/** US sole trader for SaaS platforms (3.0 form): the platform vouches for identity; the SSN/ITIN is required. */
export const individualSaasV3Schema = z.object({
  ...individualCore,
  national_tax_id: text(30),
  date_of_birth: dateV3Schema,
});
/** US sole trader for SaaS platforms (2.0 form). */
export const individualSaasV2Schema = individualSaasV3Schema.extend({ date_of_birth: dateV2Schema });

const representativeCore = {
  first_name: text(50),
  last_name: text(50),
  address: addressSchema,
  identification: identificationSchema,
  roles: z
    .array(z.enum(['ubo', 'director', 'authorised_signatory', 'legal_representative']))
    .max(4)
    .optional(),
};
export const representativeV3Schema = z.object({ ...representativeCore, date_of_birth: dateV3Schema });
export const representativeV2Schema = z.object({ ...representativeCore, date_of_birth: dateV2Schema });

const companyCore = {
  legal_name: text(200),
  trading_name: text(200).optional(),
  business_registration_number: text(40),
  registered_address: addressSchema,
};
/** Company, full (3.0). `tax_id` is required for US companies (EIN). */
export const companyFullV3Schema = z.object({
  ...companyCore,
  principal_address: addressSchema.optional(),
  tax_id: text(30).optional(),
  date_of_incorporation: dateV3Schema.optional(),
  representatives: z.array(representativeV3Schema).min(1).max(10),
});
export const companyFullV2Schema = companyFullV3Schema.extend({
  date_of_incorporation: dateV2Schema.optional(),
  representatives: z.array(representativeV2Schema).min(1).max(10),
});
/** Company, lite (2.0 only): no representatives. */
export const companyLiteV2Schema = z.object({ ...companyCore, principal_address: addressSchema.optional() });
/** US company for SaaS platforms (3.0 form): the EIN is required, representatives optional. */
export const companySaasV3Schema = z.object({
  ...companyCore,
  tax_id: text(30),
  representatives: z.array(representativeV3Schema).max(10).optional(),
});
/** US company for SaaS platforms (2.0 form). */
export const companySaasV2Schema = companySaasV3Schema.extend({
  representatives: z.array(representativeV2Schema).max(10).optional(),
});

/** Merchant reference: unique per platform (409 when taken). */
export const referenceSchema = z
  .string()
  .min(1)
  .max(50)
  .regex(/^[A-Za-z0-9._:-]+$/, 'must be 1 to 50 letters, digits, dot, dash, colon or underscore');

const onboardBase = {
  reference: referenceSchema,
  contact_details: z.object({ phone: phoneSchema }),
  profile: profileSchema,
};

export const onboardIndividualFullV3Schema = z.object({ ...onboardBase, individual: individualFullV3Schema });
export const onboardIndividualFullV2Schema = z.object({ ...onboardBase, individual: individualFullV2Schema });
export const onboardIndividualLiteV2Schema = z.object({ ...onboardBase, individual: individualLiteV2Schema });
export const onboardCompanyFullV3Schema = z.object({ ...onboardBase, company: companyFullV3Schema });
export const onboardCompanyFullV2Schema = z.object({ ...onboardBase, company: companyFullV2Schema });
export const onboardCompanyLiteV2Schema = z.object({ ...onboardBase, company: companyLiteV2Schema });
/** US sole trader (SaaS), marked by `saas: true` (docs/DECISIONS.md#entity-variants), 3.0 form. */
export const onboardIndividualSaasV3Schema = z.object({
  ...onboardBase,
  saas: z.literal(true),
  individual: individualSaasV3Schema,
});
export const onboardIndividualSaasV2Schema = z.object({
  ...onboardBase,
  saas: z.literal(true),
  individual: individualSaasV2Schema,
});
/** US company (SaaS), 3.0 form. */
export const onboardCompanySaasV3Schema = z.object({
  ...onboardBase,
  saas: z.literal(true),
  company: companySaasV3Schema,
});
export const onboardCompanySaasV2Schema = z.object({
  ...onboardBase,
  saas: z.literal(true),
  company: companySaasV2Schema,
});
/** Hosted-onboarding invitation: creates the entity in `draft` and its one member (`usr_`). */
export const onboardInvitationSchema = z.object({
  reference: referenceSchema,
  contact_details: z.object({
    invitee: z.object({ email: z.email().max(254) }),
  }),
  profile: profileSchema.optional(),
});

/** Any 3.0 onboarding request (the sandbox picks the variant: docs/DECISIONS.md#entity-variants). */
export const onboardEntityRequestV3Schema = z.union([
  onboardIndividualFullV3Schema,
  onboardCompanyFullV3Schema,
  onboardIndividualSaasV3Schema,
  onboardCompanySaasV3Schema,
  onboardInvitationSchema,
]);
export type OnboardEntityRequestV3 = z.infer<typeof onboardEntityRequestV3Schema>;
/** Any 2.0 onboarding request. */
export const onboardEntityRequestV2Schema = z.union([
  onboardIndividualFullV2Schema,
  onboardIndividualLiteV2Schema,
  onboardCompanyFullV2Schema,
  onboardCompanyLiteV2Schema,
  onboardIndividualSaasV2Schema,
  onboardCompanySaasV2Schema,
  onboardInvitationSchema,
]);
export type OnboardEntityRequestV2 = z.infer<typeof onboardEntityRequestV2Schema>;

/** Onboarding states (docs/DECISIONS.md#onboarding-states). */
export const ENTITY_STATUSES = ['draft', 'requirements_due', 'pending', 'active', 'restricted', 'rejected'] as const;
export const entityStatusSchema = z.enum(ENTITY_STATUSES);
export type EntityStatus = z.infer<typeof entityStatusSchema>;

/** 201 of POST /accounts/entities, version 3.0 form. */
export const entityCreatedV3Schema = z.object({
  id: idOf('ent_'),
  reference: z.string(),
  status: entityStatusSchema,
  _links: linksSchema,
});
export type EntityCreatedV3 = z.infer<typeof entityCreatedV3Schema>;
/** 201 of POST /accounts/entities, version 2.0 form (no status; only `self`). */
export const entityCreatedV2Schema = z.object({ id: idOf('ent_'), reference: z.string(), _links: linksSchema });
export type EntityCreatedV2 = z.infer<typeof entityCreatedV2Schema>;

const entityReadBase = {
  id: idOf('ent_'),
  reference: z.string(),
  status: entityStatusSchema,
  /** Dotted names of the fields still needed before the entity can be reviewed. */
  requirements_due: z.array(z.string()),
  contact_details: z
    .object({ phone: phoneSchema.optional(), invitee: z.object({ email: z.string() }).optional() })
    .optional(),
  profile: profileSchema.optional(),
  _links: linksSchema,
};
/** GET /accounts/entities/{id} in the 3.0 form (full or lite data, whichever the entity has). */
export const entityV3Schema = z.object({
  ...entityReadBase,
  individual: individualFullV3Schema.partial().optional(),
  company: companyFullV3Schema.partial().optional(),
});
export type EntityV3 = z.infer<typeof entityV3Schema>;
/** GET /accounts/entities/{id} in the 2.0 form. */
export const entityV2Schema = z.object({
  ...entityReadBase,
  individual: individualFullV2Schema.partial().optional(),
  company: companyFullV2Schema.partial().optional(),
});
export type EntityV2 = z.infer<typeof entityV2Schema>;

// ---------------------------------------------------------------------------------------------------------------
// Members (beta, hosted onboarding)

export const memberSchema = z.object({ user_id: idOf('usr_') });
export type Member = z.infer<typeof memberSchema>;
export const membersListSchema = z.object({ data: z.array(memberSchema) });
export type MembersList = z.infer<typeof membersListSchema>;
/** PUT …/members/{userId}: a JSON object; no field is needed to resend (docs/DECISIONS.md#members). */
export const reinviteRequestSchema = z.object({});
export type ReinviteRequest = z.infer<typeof reinviteRequestSchema>;
export const reinviteResponseSchema = z.object({ id: idOf('usr_') });
export type ReinviteResponse = z.infer<typeof reinviteResponseSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Payment instruments (sub-entity payout destinations)

export const PAYMENT_INSTRUMENT_STATUSES = ['verified', 'unverified'] as const;
export const paymentInstrumentStatusSchema = z.enum(PAYMENT_INSTRUMENT_STATUSES);
export const bankDocumentSchema = z.object({ type: z.literal('bank_statement'), file_id: idOf('file_') });

/** GET …/payment-instruments/{id}. `default` is shown on read (docs/DECISIONS.md#instrument-default). */
export const paymentInstrumentSchema = z.object({
  id: idOf('ppi_'),
  label: z.string(),
  type: z.enum(['bank_account', 'card_token']),
  currency: currencySchema,
  country: countrySchema,
  document: bankDocumentSchema.optional(),
  status: paymentInstrumentStatusSchema,
  instrument_id: idOf('src_'),
  default: z.boolean(),
  _links: linksSchema.optional(),
});
export type PaymentInstrument = z.infer<typeof paymentInstrumentSchema>;

/** Extension: GET …/payment-instruments. */
export const paymentInstrumentListSchema = z.object({ data: z.array(paymentInstrumentSchema) });
export type PaymentInstrumentList = z.infer<typeof paymentInstrumentListSchema>;

export const instrumentLabelSchema = text(50);

/** PATCH …/payment-instruments/{id}: `label` and/or `default`. */
export const updatePaymentInstrumentRequestSchema = z
  .object({ label: instrumentLabelSchema.optional(), default: z.boolean().optional() })
  .refine((b) => b.label !== undefined || b.default !== undefined, {
    message: 'give label, default or both',
    path: ['label_or_default'],
    params: { code: 'label_or_default_required' },
  });
export type UpdatePaymentInstrumentRequest = z.infer<typeof updatePaymentInstrumentRequestSchema>;

/** PATCH answer and POST (extension) answer: `{id, _links}`. */
export const paymentInstrumentWriteResponseSchema = z.object({ id: idOf('ppi_'), _links: linksSchema });
export type PaymentInstrumentWriteResponse = z.infer<typeof paymentInstrumentWriteResponseSchema>;

const createInstrumentBase = {
  label: instrumentLabelSchema,
  currency: currencySchema,
  country: countrySchema,
  /** Sandbox extension: the verification state to start in (default `unverified`). */
  status: paymentInstrumentStatusSchema.optional(),
};
/** Extension: POST …/payment-instruments, a bank account (with its bank statement). */
export const createBankAccountInstrumentSchema = z.object({
  ...createInstrumentBase,
  type: z.literal('bank_account'),
  account_number: z.string().regex(/^[A-Z0-9]{4,34}$/, 'must be 4 to 34 upper-case letters or digits'),
  bank_code: z
    .string()
    .regex(/^[A-Z0-9]{2,20}$/, 'must be 2 to 20 upper-case letters or digits')
    .optional(),
  document: bankDocumentSchema,
});
/** Extension: POST …/payment-instruments, a card, from a `card_tok_` or an existing `src_` card. */
export const createCardInstrumentSchema = z
  .object({
    ...createInstrumentBase,
    type: z.literal('card_token'),
    token: idOf('card_tok_').optional(),
    instrument_id: idOf('src_').optional(),
  })
  .refine((b) => (b.token === undefined) !== (b.instrument_id === undefined), {
    message: 'give exactly one of token or instrument_id',
    path: ['token'],
    params: { code: 'token_or_instrument_id_required' },
  });
export const createPaymentInstrumentRequestSchema = z.discriminatedUnion('type', [
  createBankAccountInstrumentSchema,
  createCardInstrumentSchema,
]);
export type CreatePaymentInstrumentRequest = z.infer<typeof createPaymentInstrumentRequestSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Reserve rules

/** A percentage with at most two decimals. */
const percentage = z
  .number()
  .min(0)
  .max(100)
  .refine((n) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-9, 'must have at most two decimals');

/** The rule body: POST (extension) and PUT take it whole. `valid_from` is ISO 8601 UTC (`…Z`). */
export const reserveRuleRequestSchema = z.object({
  type: z.literal('rolling'),
  valid_from: z.iso.datetime({ offset: false }),
  rolling: z.object({ percentage, holding_duration: z.object({ weeks: int(1, 52) }) }),
});
export type ReserveRuleRequest = z.infer<typeof reserveRuleRequestSchema>;

/** GET …/reserve-rules/{id} (ETag header carries the version). */
export const reserveRuleSchema = reserveRuleRequestSchema.extend({
  id: idOf('rsv_'),
  valid_from: z.string(),
  _links: linksSchema.optional(),
});
export type ReserveRule = z.infer<typeof reserveRuleSchema>;

/** Extension: GET …/reserve-rules. */
export const reserveRuleListSchema = z.object({ data: z.array(reserveRuleSchema) });
export type ReserveRuleList = z.infer<typeof reserveRuleListSchema>;

/** PUT and POST answer (with the new ETag header). */
export const reserveRuleWriteResponseSchema = z.object({ id: idOf('rsv_'), _links: linksSchema });
export type ReserveRuleWriteResponse = z.infer<typeof reserveRuleWriteResponseSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Account updater and stored instruments

/** Card networks the account updater supports (docs/DECISIONS.md#updater-networks). */
export const UPDATER_NETWORKS = ['visa', 'mastercard', 'amex'] as const;

export const updaterCardSourceSchema = z.object({
  number: z.string().regex(/^\d{12,19}$/, 'must be 12 to 19 digits'),
  expiry_month: int(1, 12),
  expiry_year: int(2000, 2100),
});

/** POST /account-updater/cards. `source_options` holds exactly one of `card` or `instrument`. */
export const accountUpdaterRequestSchema = z.object({
  source_options: z
    .object({ card: updaterCardSourceSchema.optional(), instrument: z.object({ id: idOf('src_') }).optional() })
    .superRefine((s, ctx) => {
      if (s.card === undefined && s.instrument === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: 'give one of card or instrument',
          path: [],
          params: { code: 'source_options_card_or_instrument_required' },
        });
      } else if (s.card !== undefined && s.instrument !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message: 'give only one of card or instrument',
          path: [],
          params: { code: 'source_options_card_and_instrument_exclusive' },
        });
      }
    }),
});
export type AccountUpdaterRequest = z.infer<typeof accountUpdaterRequestSchema>;

export const ACCOUNT_UPDATE_STATUSES = ['CARD_UPDATED', 'CARD_CLOSED', 'CARD_EXPIRY_UPDATED', 'UPDATE_FAILED'] as const;

export const updatedCardSchema = z.object({
  encrypted_card_number: z.string(),
  bin: z.string(),
  last4: z.string(),
  expiry_month: z.number().int(),
  expiry_year: z.number().int(),
  fingerprint: z.string(),
});
export type UpdatedCard = z.infer<typeof updatedCardSchema>;

/** 200 of POST /account-updater/cards: `card` only with CARD_UPDATED and CARD_EXPIRY_UPDATED. */
export const accountUpdaterResponseSchema = z.object({
  account_update_status: z.enum(ACCOUNT_UPDATE_STATUSES),
  account_update_failure_code: z.string().optional(),
  card: updatedCardSchema.optional(),
});
export type AccountUpdaterResponse = z.infer<typeof accountUpdaterResponseSchema>;

/** Extension: POST /instruments stores a card from a single-use card token (docs/DECISIONS.md#stored-instruments). */
export const createInstrumentRequestSchema = z.object({ type: z.literal('token'), token: idOf('card_tok_') });
export type CreateInstrumentRequest = z.infer<typeof createInstrumentRequestSchema>;

/** A stored card (`src_`), as POST /instruments and GET /instruments/{id} answer it. */
export const storedInstrumentSchema = z.object({
  id: idOf('src_'),
  type: z.literal('card'),
  scheme: z.string(),
  bin: z.string(),
  last4: z.string(),
  expiry_month: z.number().int(),
  expiry_year: z.number().int(),
  fingerprint: z.string(),
  status: z.enum(['active', 'closed']),
  _links: linksSchema.optional(),
});
export type StoredInstrument = z.infer<typeof storedInstrumentSchema>;

/** A stored bank account (`src_`) behind a bank_account payment instrument, as GET /instruments/{id} answers it. */
export const storedBankAccountSchema = z.object({
  id: idOf('src_'),
  type: z.literal('bank_account'),
  account_number_last4: z.string(),
  bank_code: z.string().optional(),
});
export type StoredBankAccount = z.infer<typeof storedBankAccountSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Onboarding simulator (sandbox only; docs/DECISIONS.md#onboarding-states)

export const simulatorTransitionRequestSchema = z.object({ status: entityStatusSchema });
export type SimulatorTransitionRequest = z.infer<typeof simulatorTransitionRequestSchema>;
export const simulatorStateSchema = z.object({
  id: idOf('ent_'),
  status: entityStatusSchema,
  allowed_transitions: z.array(entityStatusSchema),
});
export type SimulatorState = z.infer<typeof simulatorStateSchema>;
