import type { SchemaVersion } from '../../../provider/schemas/accounts/index.js';
import type { Request } from '../../core/http.js';
import { href } from '../http.js';
import type { EntityRecord } from '../store.js';
import { dateToV2, mapDates } from './dates.js';

/** The entity's links: version 3.0 links every sub-resource, 2.0 only `self` (docs/decisions/sandbox.md#entity-versions). */
export function entityLinks(e: EntityRecord, version: SchemaVersion, req: Request) {
  const self = `/accounts/entities/${e.id}`;
  if (version === '2.0') return { self: href(req, self) };
  return {
    self: href(req, self),
    members: href(req, `${self}/members`),
    payment_instruments: href(req, `${self}/payment-instruments`),
    reserve_rules: href(req, `${self}/reserve-rules`),
  };
}

/** 201 of POST /accounts/entities: 3.0 `{id, reference, status, _links}`, 2.0 `{id, reference, _links}`. */
export function createdView(e: EntityRecord, version: SchemaVersion, req: Request) {
  const links = entityLinks(e, version, req);
  return version === '3.0'
    ? { id: e.id, reference: e.reference, status: e.status, _links: links }
    : { id: e.id, reference: e.reference, _links: links };
}

/** Dotted names of what the entity still lacks for a full review (lite data, invitations). */
export function requirementsDue(e: EntityRecord): string[] {
  if (e.level === 'invitation') {
    return ['contact_details.phone', ...(e.data.profile ? [] : ['profile']), 'individual_or_company'];
  }
  if (e.level !== 'lite' || !e.form) return [];
  const part = e.data[e.form] ?? {};
  const due =
    e.form === 'individual'
      ? ['date_of_birth', 'identification', ...(e.region === 'US' ? ['national_tax_id'] : [])]
      : ['representatives', ...(e.region === 'US' ? ['tax_id'] : [])];
  return due.filter((k) => part[k] === undefined).map((k) => `${e.form}.${k}`);
}

/** GET /accounts/entities/{id} in the asked version's form (dates converted for 2.0). */
export function entityView(e: EntityRecord, version: SchemaVersion, req: Request) {
  const out: Record<string, unknown> = {
    id: e.id,
    reference: e.reference,
    status: e.status,
    requirements_due: requirementsDue(e),
  };
  if (e.data.contact_details) out.contact_details = e.data.contact_details;
  if (e.data.profile) out.profile = e.data.profile;
  if (e.form && e.data[e.form]) {
    const part = e.data[e.form]!;
    out[e.form] = version === '2.0' ? mapDates(part, dateToV2) : part;
  }
  out._links = entityLinks(e, version, req);
  return out;
}
