// Account Services API schemas: Entities (spec: Resources › Entity; POST /accounts/entities; GET /accounts/entities/{id}).
import { z } from 'zod';
import { countrySchema, idOf, int, linksSchema, text } from './common.js';

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

/** The years an entity date may fall in, in either version's form. */
const FIRST_YEAR = 1900;
const LAST_YEAR = 2100;
/** Version 3.0 date: `{day, month, year}` integers (spec table). */
export const dateV3Schema = z.object({ day: int(1, 31), month: int(1, 12), year: int(FIRST_YEAR, LAST_YEAR) });
/**
 * Version 2.0 date: `YYYY-MM-DD` (docs/decisions/sandbox.md#entity-versions), in the years 3.0 allows: the two
 * versions carry the same entity, so a date one of them takes must be one the other can answer.
 */
export const dateV2Schema = z.iso.date().refine(
  (s) => {
    const year = Number(s.slice(0, 4));
    // A string that is no date at all has its issue from z.iso.date() already.
    return !Number.isInteger(year) || (year >= FIRST_YEAR && year <= LAST_YEAR);
  },
  { message: `must be a date in the years ${FIRST_YEAR} to ${LAST_YEAR}` },
);

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
/** US sole trader (SaaS), marked by `saas: true` (docs/decisions/sandbox.md#entity-variants), 3.0 form. */
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

/** Any 3.0 onboarding request (the sandbox picks the variant: docs/decisions/sandbox.md#entity-variants). */
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

/** Onboarding states (docs/decisions/sandbox.md#onboarding-states). */
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
  /**
   * The onboarding state. The spec shows no entity status values ("not shown"): the sandbox sends one
   * (docs/decisions/sandbox.md#onboarding-states), the provider may not, so a read without it is valid.
   */
  status: entityStatusSchema.optional(),
  /** Dotted names of the fields still needed before the entity can be reviewed (a sandbox extension, as `status`). */
  requirements_due: z.array(z.string()).optional(),
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
