/**
 * Consumer type test (compiled by `npm run check` and by test/node/provider/types.test.ts): code a user of
 * `tessera-pay/provider` writes. It must compile; it is never run.
 */
import {
  type AccountsClient,
  type Charge,
  ConflictError,
  createAccountsClient,
  createLegacyClient,
  type Entity,
  type EntityCreated,
  isThreeDSecureRedirect,
  type PaymentInstrument,
  ProviderError,
  type ProviderResult,
  type ReserveRule,
  TimeoutError,
  ValidationError,
} from '../../server/provider/index.js';

export async function usage(): Promise<void> {
  const legacy = createLegacyClient({ publicKey: 'pk_test_123456789', secretKey: 'sk_test_123456789', format: 'xml' });
  const { data: card } = await legacy.cardTokens.create({
    number: '4242424242424242',
    expiryMonth: 12,
    expiryYear: 2031,
    cvv: '123',
  });
  const last4: string = card.card.last4;
  const created = await legacy.charges.create(
    { cardToken: card.id, value: '1999', currency: 'EUR', email: 'a@example.com', metadata: { order: '1' } },
    { idempotencyKey: 'order-1' },
  );
  if (isThreeDSecureRedirect(created.data)) {
    const redirect: string = created.data.redirectUrl;
    const verified: ProviderResult<Charge> = await legacy.charges.retrieve(created.data.id);
    void redirect;
    void verified;
  } else {
    const status: 'Pending' | 'Authorised' | 'Captured' | 'Declined' | 'Flagged' | 'Expired' = created.data.status;
    const value: number = created.data.value;
    void status;
    void value;
  }
  const requestId: string | undefined = created.requestId;

  const accounts: AccountsClient = createAccountsClient({
    clientId: 'cli_abcdefgh1234',
    clientSecret: 'secret-123456',
  });
  const v3: EntityCreated = (
    await accounts.entities.create({
      reference: 'r',
      contact_details: { phone: { number: '2079460000', country_code: '+44' } },
      profile: { urls: ['https://a.example'], mccs: ['5311'] },
      individual: {
        first_name: 'A',
        last_name: 'B',
        registered_address: { address_line1: '1', city: 'L', zip: 'N1', country: 'GB' },
        date_of_birth: { day: 1, month: 2, year: 1990 },
        identification: {},
      },
    })
  ).data;
  const v2: EntityCreated<'2.0'> = (
    await accounts.entities.create(
      {
        reference: 'r2',
        contact_details: { phone: { number: '2079460000', country_code: '+44' } },
        profile: { urls: ['https://a.example'], mccs: ['5311'] },
        individual: {
          first_name: 'A',
          last_name: 'B',
          registered_address: { address_line1: '1', city: 'L', zip: 'N1', country: 'GB' },
          date_of_birth: '1990-02-01',
        },
      },
      { schemaVersion: '2.0' },
    )
  ).data;
  const v2client = createAccountsClient({ secretKey: 'sk_test_123456789', schemaVersion: '2.0' });
  const v2entity: Entity<'2.0'> = (await v2client.entities.retrieve(v2.id)).data;
  const dob: string | undefined = v2entity.individual?.date_of_birth;
  const v3again: Entity = (await v2client.entities.retrieve(v2.id, { schemaVersion: '3.0' })).data;
  void [dob, v3again];
  const rule: ProviderResult<ReserveRule> = await accounts.reserveRules.retrieve(v3.id, 'rsv_1');
  const percentage: number = rule.data.rolling.percentage;
  await accounts.reserveRules.update(v3.id, 'rsv_1', rule.data, { ifMatch: rule.etag ?? '*' });
  await accounts.reserveRules.modify(v3.id, 'rsv_1', (r) => ({ ...r, rolling: { ...r.rolling, percentage: 5 } }));
  const pi: PaymentInstrument = (await accounts.paymentInstruments.retrieve(v2.id, 'ppi_1')).data;
  const isDefault: boolean | undefined = pi.default; // write-only in the spec: a provider may leave it out

  try {
    await accounts.paymentInstruments.update(v3.id, pi.id, { default: true });
  } catch (error) {
    if (error instanceof ConflictError) void error.links;
    if (error instanceof ValidationError) for (const f of error.fieldErrors) void f.field;
    if (error instanceof TimeoutError) void error.phase;
    if (error instanceof ProviderError) {
      const known: boolean = error.outcomeKnown;
      const code: string = error.code;
      void known;
      void code;
    }
  }
  void [last4, requestId, percentage, isDefault];
}
