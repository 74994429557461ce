/** Helpers for the legacy API tests: a real sandbox over real HTTP, and small builders for tokens and charges. */
import assert from 'node:assert/strict';
import { decodeXml, encodeXml } from '../../../server/provider/codec/xml.js';
import type { RunningSandbox } from '../../../server/sandbox/index.js';
import { type Answer, call } from '../../support/http.js';

export const SANDBOX = '/api2/v2';

/** The legacy API's base path for this sandbox's mode: `/api2/v2`, or the live `/v2` in production mode. */
export function apiBase(sb: RunningSandbox): string {
  return sb.mode === 'production' ? '/v2' : SANDBOX;
}

/** A card expiry two years ahead of the sandbox clock. */
export function futureYear(sb: RunningSandbox): number {
  return sb.clock.now().getUTCFullYear() + 2;
}

export function cardBody(sb: RunningSandbox, number = '4242424242424242', extra: Record<string, unknown> = {}) {
  return {
    number,
    expiryMonth: 6,
    expiryYear: futureYear(sb),
    cvv: number.startsWith('3') && number.length === 15 ? '1234' : '123',
    ...extra,
  };
}

export function postCardToken(
  sb: RunningSandbox,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return call(`${sb.url}${apiBase(sb)}/tokens/card`, {
    body,
    headers: { authorization: sb.credentials.publicKey, ...headers },
  });
}

/** Creates a card token and returns its id (asserts 200). */
export async function cardToken(sb: RunningSandbox, number = '4242424242424242', extra: Record<string, unknown> = {}) {
  const r = await postCardToken(sb, cardBody(sb, number, extra));
  assert.equal(r.status, 200, r.text);
  return r.json.id as string;
}

export function postCharge(sb: RunningSandbox, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return call(`${sb.url}${apiBase(sb)}/charges/token`, {
    body,
    headers: { authorization: sb.credentials.secretKey, ...headers },
  });
}

let n = 0;
/** A minimal valid charge request for a fresh token of `number`. */
export async function chargeBody(
  sb: RunningSandbox,
  number = '4242424242424242',
  extra: Record<string, unknown> = {},
): Promise<Record<string, unknown> & { cardToken: string; email: string }> {
  n++;
  return {
    cardToken: await cardToken(sb, number),
    value: 1999,
    currency: 'EUR',
    email: `shopper${n}@example.com`,
    ...extra,
  };
}

/** Creates a charge and returns the answer's JSON (asserts 200). */
export async function charge(sb: RunningSandbox, number = '4242424242424242', extra: Record<string, unknown> = {}) {
  const r = await postCharge(sb, await chargeBody(sb, number, extra));
  assert.equal(r.status, 200, r.text);
  return r.json;
}

export function getCharge(sb: RunningSandbox, id: string, headers: Record<string, string> = {}): Promise<Answer> {
  return call(`${sb.url}${apiBase(sb)}/charges/${id}`, {
    headers: { authorization: sb.credentials.secretKey, ...headers },
  });
}

export function xmlRequest(value: Record<string, unknown>) {
  return { raw: encodeXml(value), headers: { 'content-type': 'application/xml' } };
}

export function fromXml(text: string): Record<string, unknown> {
  return decodeXml(text);
}

export async function advance(sb: RunningSandbox, seconds: number) {
  const r = await call(`${sb.url}/_sandbox/clock/advance`, { body: { seconds } });
  assert.equal(r.status, 200);
}
