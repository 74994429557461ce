/**
 * Consumer type test of the options' types (compiled by `npm run check`, never run): each `@ts-expect-error`
 * fails the check when the line below it compiles, so misuse the types should catch stays caught.
 */
import express from 'express';
import {
  type ChargeDetails,
  type CurrencyCode,
  type HelperErrorBody,
  type HelperErrorCode,
  HelperHttpError,
  isCurrencyCode,
  tesseraHelper,
} from '../../server/helper/index.js';
import { createLegacyClient, NotFoundError, type ProviderErrorCode } from '../../server/provider/index.js';

const resolveCharge = (): ChargeDetails => ({ amount: 1999, currency: 'EUR' });

export function helperKeys(): void {
  tesseraHelper({ publicKey: 'pk_sbox_x', secretKey: 'sk_sbox_x', resolveCharge });
  // @ts-expect-error neither `secretKey` nor `legacyClient`: the helper could not charge.
  tesseraHelper({ publicKey: 'pk_sbox_x', resolveCharge });
  // @ts-expect-error no `publicKey`: the widget could not make card tokens.
  tesseraHelper({ secretKey: 'sk_sbox_x', resolveCharge });
  const legacyClient = createLegacyClient({ secretKey: 'sk_sbox_x' });
  tesseraHelper({ publicKey: 'pk_sbox_x', legacyClient, resolveCharge });
}

export function mounting(): void {
  const payments = tesseraHelper({
    mountPath: '/payments',
    publicKey: 'pk_sbox_x',
    secretKey: 'sk_sbox_x',
    resolveCharge,
  });
  // Given the option, `mountPath` is a string: the README's `app.use(payments.mountPath, payments)` compiles.
  express().use(payments.mountPath, payments);
  const unmounted = tesseraHelper({ publicKey: 'pk_sbox_x', secretKey: 'sk_sbox_x', resolveCharge });
  // @ts-expect-error without the option, `mountPath` is undefined.
  const path: string = unmounted.mountPath;
  // @ts-expect-error a misspelt option is still caught with `mountPath` given.
  tesseraHelper({ mountPath: '/p', publicKey: 'pk_sbox_x', secretKey: 'sk_sbox_x', resolveCharge, resolvecharge: 1 });
  void path;
}

export function rateLimits(): void {
  const keys = { publicKey: 'pk_sbox_x', secretKey: 'sk_sbox_x', resolveCharge };
  tesseraHelper({ ...keys, rateLimits: { declinesTotal: { max: 50, windowMs: 600_000 } } });
  tesseraHelper({ ...keys, rateLimits: { declinesTotal: false } });
  // @ts-expect-error a limit is `{ max, windowMs }` or `false`, never `true`.
  tesseraHelper({ ...keys, rateLimits: { declinesTotal: true } });
  // @ts-expect-error a limit needs its window.
  tesseraHelper({ ...keys, rateLimits: { declinesTotal: { max: 50 } } });
}

export function clientKeys(): void {
  createLegacyClient({ publicKey: 'pk_sbox_x' });
  // @ts-expect-error a legacy client with no key at all.
  createLegacyClient({ baseUrl: 'https://api.provider.example' });
}

export function currencies(fromDatabase: string): ChargeDetails | undefined {
  // @ts-expect-error not an ISO 4217 code.
  const wrong: ChargeDetails = { amount: 100, currency: 'EURO' };
  const code: CurrencyCode = 'JPY';
  // A string from elsewhere is narrowed by the guard, not cast.
  return isCurrencyCode(fromDatabase) ? { amount: 100, currency: fromDatabase } : { ...wrong, currency: code };
}

export function codes(err: unknown): string {
  if (err instanceof NotFoundError) {
    const code: 'TESSERA_NOT_FOUND' = err.code;
    return code;
  }
  const helperCode: HelperErrorCode = 'TESSERA_CARD_TOKEN_USED';
  // @ts-expect-error the clients' old 429 code was merged into TESSERA_RATE_LIMITED.
  const old: ProviderErrorCode = 'TESSERA_RATE_LIMIT';
  // A merchant's own code from resolveCharge is allowed.
  const own = new HelperHttpError(409, 'ORDER_CLOSED', 'this order is closed');
  return `${helperCode} ${old} ${own.code}`;
}

/** A 402 `TESSERA_CARD_DECLINED` is an error answer, and `HelperErrorBody` types what it carries besides the code. */
export function declineBody(body: HelperErrorBody): string | undefined {
  if (body.code === 'TESSERA_CARD_DECLINED' && body.approved === false) return `${body.id} ${body.brand} ${body.last4}`;
  return body.responseCode;
}
