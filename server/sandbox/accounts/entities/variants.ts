import type { z } from 'zod';
import {
  onboardCompanyFullV2Schema,
  onboardCompanyFullV3Schema,
  onboardCompanyLiteV2Schema,
  onboardCompanySaasV2Schema,
  onboardCompanySaasV3Schema,
  onboardIndividualFullV2Schema,
  onboardIndividualFullV3Schema,
  onboardIndividualLiteV2Schema,
  onboardIndividualSaasV2Schema,
  onboardIndividualSaasV3Schema,
  onboardInvitationSchema,
  type SchemaVersion,
} from '../../../provider/schemas/accounts/index.js';
import { SandboxValidationError } from '../../core/errors.js';
import type { EntityForm, EntityLevel, EntityRecord, Region } from '../store.js';
import { invalid, parse422 } from '../validate.js';
import { dateIssues, dateToV3, mapDates } from './dates.js';

/** EU member states plus Iceland, Liechtenstein and Norway. */
const EEA = new Set(
  'AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE IS LI NO'.split(' '),
);

/** GB, EEA or US for a country code; undefined for any other country (not onboarded: 422). */
export function regionOf(country: string): Region | undefined {
  if (country === 'GB' || country === 'US') return country;
  return EEA.has(country) ? 'EEA' : undefined;
}

type Schemas = Partial<Record<EntityLevel, z.ZodType>>;
const SCHEMAS: Record<SchemaVersion, Record<EntityForm, Schemas>> = {
  '3.0': {
    individual: { full: onboardIndividualFullV3Schema, saas: onboardIndividualSaasV3Schema },
    company: { full: onboardCompanyFullV3Schema, saas: onboardCompanySaasV3Schema },
  },
  '2.0': {
    individual: {
      full: onboardIndividualFullV2Schema,
      lite: onboardIndividualLiteV2Schema,
      saas: onboardIndividualSaasV2Schema,
    },
    company: { full: onboardCompanyFullV2Schema, lite: onboardCompanyLiteV2Schema, saas: onboardCompanySaasV2Schema },
  },
};

/** Fields only the full variants have: in 2.0 their presence selects full over lite. */
const FULL_ONLY: Record<EntityForm, readonly string[]> = {
  individual: ['identification', 'national_tax_id'],
  company: ['representatives', 'tax_id', 'date_of_incorporation'],
};

export interface ValidOnboarding {
  readonly reference: string;
  readonly form: EntityForm | undefined;
  readonly level: EntityLevel;
  readonly region: Region | undefined;
  readonly data: EntityRecord['data'];
}

const obj = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** Region and identity rules the schemas cannot say alone (docs/decisions/sandbox.md#entity-variants). */
function regionIssues(form: EntityForm, level: EntityLevel, region: Region, part: Record<string, unknown>) {
  const issues: { field: string; code: string; message: string }[] = [];
  const add = (field: string, code: string, message: string) =>
    issues.push({ field, code, message: `${field}: ${message}` });
  if (region === 'US' && !obj(part.registered_address)?.state) {
    add(`${form}.registered_address.state`, `${form}.registered_address.state_required`, 'required for US addresses');
  }
  const taxField = form === 'individual' ? 'national_tax_id' : 'tax_id';
  if (region === 'US' && (level === 'full' || level === 'saas')) {
    const tax = part[taxField];
    if (tax === undefined)
      add(`${form}.${taxField}`, `${form}.${taxField}_required`, 'required for US entities (SSN, ITIN or EIN)');
    else if (typeof tax !== 'string' || !/^\d{9}$/.test(tax.replace(/-/g, ''))) {
      add(`${form}.${taxField}`, `${form}.${taxField}_invalid`, 'must be nine digits');
    }
  }
  if (level === 'full') {
    const ids: [string, unknown][] =
      form === 'individual'
        ? [[`${form}.identification`, part.identification]]
        : ((part.representatives as unknown[] | undefined) ?? []).map((r, i) => [
            `${form}.representatives.${i}.identification`,
            obj(r)?.identification,
          ]);
    for (const [field, id] of ids) {
      const o = obj(id);
      if (o && o.national_id_number === undefined && o.document === undefined) {
        add(field, `${field.replace(/\.\d+/g, '')}_required`, 'give national_id_number or a document');
      }
    }
  }
  return issues;
}

/**
 * Picks the onboarding variant of a request and validates it (docs/decisions/sandbox.md#entity-variants):
 * `contact_details.invitee` → hosted-onboarding invitation; else `individual` or `company` (exactly one)
 * gives the legal form, the registered address's country the region (GB, EEA, US), `saas: true` the US
 * SaaS variant, and in 2.0 the presence of any full-only field full rather than lite.
 * Throws a 422 naming every field at fault. `data` is in the 3.0 form.
 */
export function validateOnboarding(body: unknown, version: SchemaVersion, now: Date): ValidOnboarding {
  const b = obj(body) ?? {};
  if (obj(b.contact_details)?.invitee !== undefined) {
    const inv = parse422(onboardInvitationSchema, b);
    return {
      reference: inv.reference,
      form: undefined,
      level: 'invitation',
      region: undefined,
      data: {
        contact_details: { invitee: inv.contact_details.invitee },
        ...(inv.profile ? { profile: inv.profile } : {}),
      },
    };
  }
  const hasInd = b.individual !== undefined;
  const hasCo = b.company !== undefined;
  if (hasInd && hasCo)
    throw invalid('individual', 'individual_and_company_exclusive', 'give individual or company, not both');
  if (!hasInd && !hasCo) throw invalid('individual', 'individual_or_company_required', 'give individual or company');
  const form: EntityForm = hasInd ? 'individual' : 'company';
  const part = obj(b[form]) ?? {};
  const country = obj(part.registered_address)?.country;
  const region = typeof country === 'string' ? regionOf(country) : undefined;
  if (typeof country === 'string' && /^[A-Z]{2}$/.test(country) && !region) {
    throw invalid(
      `${form}.registered_address.country`,
      `${form}.registered_address.country_unsupported`,
      `${country} is not onboarded (GB, EEA and US are)`,
    );
  }
  const saas = b.saas === true;
  if (saas && region !== undefined && region !== 'US') {
    throw invalid('saas', 'saas_region_unsupported', 'the SaaS variants are for US entities only');
  }
  const level: EntityLevel = saas
    ? 'saas'
    : version === '3.0' || FULL_ONLY[form].some((k) => part[k] !== undefined)
      ? 'full'
      : 'lite';
  const parsed = parse422(SCHEMAS[version][form][level]!, b) as Record<string, unknown>;
  const valid = mapDates(parsed[form] as Record<string, unknown>, version === '2.0' ? dateToV3 : (v) => v);
  const issues = [...dateIssues(form, valid, now), ...(region ? regionIssues(form, level, region, valid) : [])];
  if (issues.length) throw new SandboxValidationError(issues, 422);
  return {
    reference: parsed.reference as string,
    form,
    level,
    region,
    data: {
      contact_details: parsed.contact_details as EntityRecord['data']['contact_details'],
      profile: parsed.profile as EntityRecord['data']['profile'],
      [form]: valid,
    },
  };
}
