import { type Answer, call, callNode } from '../../support/http.js';

/** One request with an explicit Host header (fetch always sends the URL's host). */
export function callWithHost(
  url: string,
  host: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return callNode(url, { ...init, headers: { ...init.headers, host } });
}

/** Form-encodes fields. */
export function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Gets an access token from the sandbox (all scopes, or the ones given). */
export async function accessToken(
  sb: { url: string; credentials: { clientId: string; clientSecret: string } },
  scope?: string,
): Promise<string> {
  const fields: Record<string, string> = {
    grant_type: 'client_credentials',
    client_id: sb.credentials.clientId,
    client_secret: sb.credentials.clientSecret,
  };
  if (scope !== undefined) fields.scope = scope;
  const r = await call(`${sb.url}/connect/token`, { method: 'POST', raw: form(fields), headers: FORM });
  if (r.status !== 200) throw new Error(`token request failed: ${r.status} ${r.text}`);
  return r.json.access_token as string;
}

/** Valid onboarding request bodies (3.0 form unless said). */
export const requests = {
  individualGb: (reference = 'ref-individual-gb') => ({
    reference,
    contact_details: { phone: { number: '7700 900123', country_code: '+44' } },
    profile: { urls: ['https://shop.example'], mccs: ['5734'] },
    individual: {
      first_name: 'Ada',
      last_name: 'Lovelace',
      registered_address: { address_line1: '12 Example Street', city: 'London', zip: 'N1 9GU', country: 'GB' },
      national_tax_id: 'QQ123456C',
      date_of_birth: { day: 10, month: 12, year: 1985 },
      identification: { national_id_number: 'QQ123456C' },
    },
  }),
  companyUs: (reference = 'ref-company-us') => {
    const address = { address_line1: '1 Main Street', city: 'Dover', state: 'DE', zip: '19901', country: 'US' };
    return {
      reference,
      contact_details: { phone: { number: '555 0100', country_code: '+1' } },
      profile: { urls: ['https://bakery.example'], mccs: ['5812'] },
      company: {
        legal_name: 'Bee Bakery LLC',
        business_registration_number: 'DE-7654321',
        tax_id: '12-3456789',
        registered_address: address,
        representatives: [
          {
            first_name: 'Grace',
            last_name: 'Hopper',
            date_of_birth: { day: 9, month: 12, year: 1976 },
            address,
            identification: { document: { type: 'passport', front: 'file_passport1' } },
          },
        ],
      },
    };
  },
  invitation: (reference = 'ref-invite') => ({
    reference,
    contact_details: { invitee: { email: 'owner@shop.example' } },
  }),
};

/** A fixture with one entity, a verified and an unverified GBP bank account, a future and an active rule. */
export function sampleFixtures(extra: Record<string, unknown> = {}) {
  const bank = (id: string, status: string, isDefault = false) => ({
    id,
    label: `Account ${id}`,
    type: 'bank_account',
    currency: 'GBP',
    country: 'GB',
    status,
    default: isDefault,
    account_number: 'GB33BUKB20201555555555',
    document: { type: 'bank_statement', file_id: 'file_statement1' },
  });
  const rolling = { percentage: 10, holding_duration: { weeks: 2 } };
  return {
    accounts: {
      stored_cards: [{ id: 'src_fixture_card', number: '4000000000002008', expiry_month: 6, expiry_year: 2025 }],
      entities: [
        {
          id: 'ent_fixture_a',
          status: 'active',
          request: requests.individualGb('fixture-a'),
          members: [{ user_id: 'usr_fixture_a', email: 'a@shop.example' }],
          payment_instruments: [
            bank('ppi_verified_1', 'verified', true),
            bank('ppi_verified_2', 'verified'),
            bank('ppi_unverified', 'unverified'),
            { ...bank('ppi_eur', 'verified'), currency: 'EUR', country: 'FR' },
            {
              id: 'ppi_card',
              label: 'Card',
              type: 'card_token',
              currency: 'GBP',
              country: 'GB',
              status: 'verified',
              instrument_id: 'src_fixture_card',
            },
          ],
          reserve_rules: [
            { id: 'rsv_future', type: 'rolling', valid_from_in_days: 10, rolling },
            { id: 'rsv_active', type: 'rolling', valid_from: '2020-01-01T00:00:00Z', rolling },
          ],
        },
        { id: 'ent_fixture_b', request: requests.companyUs('fixture-b') },
      ],
      ...extra,
    },
  };
}

/** Calls with `Authorization: Bearer <credential>` and JSON. */
export function authed(credential: string, headers: Record<string, string> = {}) {
  return { authorization: `Bearer ${credential}`, ...headers };
}

export const V3 = 'application/json;schema_version=3.0';
export const V2 = 'application/json; schema_version=2.0';
