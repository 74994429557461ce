import type { SandboxContext } from '../core/context.js';
import { SandboxValidationError } from '../core/errors.js';
import { networkOf, storedCard } from './cards.js';
import { initialStatus } from './entities/routes.js';
import { validateOnboarding } from './entities/variants.js';
import { accountsFixturesSchema } from './fixtures-schema.js';
import { newEtag } from './reserve-rules.js';
import { type AccountsStore, accountCaps } from './store.js';

class FixtureError extends Error {
  constructor(path: string, message: string) {
    super(`tessera-pay sandbox: invalid fixtures at accounts.${path}: ${message}`);
    this.name = 'FixtureError';
  }
}

function unique(seen: Set<string>, id: string, path: string): void {
  if (seen.has(id)) throw new FixtureError(path, `duplicate ${JSON.stringify(id)}`);
  seen.add(id);
}

/**
 * Loads `ctx.fixtures.accounts` into the (cleared) store. Throws an Error naming the fixture path at
 * fault, so a bad `--fixtures` file stops the sandbox at start with a clear message.
 */
export function loadAccountsFixtures(ctx: SandboxContext, store: AccountsStore): void {
  const raw = ctx.fixtures.accounts;
  if (raw === undefined) return;
  const parsed = accountsFixturesSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new FixtureError(issue.path.map(String).join('.') || '(root)', issue.message);
  }
  const f = parsed.data;
  const now = ctx.clock.now();
  const ids = new Set<string>();
  if (f.settings) store.hostedOnboarding = f.settings.hosted_onboarding;
  f.stored_cards.forEach((c, i) => {
    unique(ids, c.id, `stored_cards.${i}.id`);
    if (!networkOf(c.number)) throw new FixtureError(`stored_cards.${i}.number`, 'not a valid card number');
    store.stored.set(c.id, storedCard(c.id, c.number, c.expiry_month, c.expiry_year, c.status));
  });
  f.entities.forEach((e, i) => {
    const at = `entities.${i}`;
    unique(ids, e.id, `${at}.id`);
    let valid: ReturnType<typeof validateOnboarding>;
    try {
      valid = validateOnboarding(e.request, e.schema_version, now);
    } catch (err) {
      if (err instanceof SandboxValidationError) {
        const first = err.issues[0]!;
        throw new FixtureError(`${at}.request.${first.field}`, `${first.code} (${first.message})`);
      }
      throw err;
    }
    if (store.references.has(valid.reference))
      throw new FixtureError(`${at}.request.reference`, 'reference already used');
    store.addEntity({
      id: e.id,
      reference: valid.reference,
      form: valid.form,
      level: valid.level,
      region: valid.region,
      createdWith: e.schema_version,
      status: e.status ?? initialStatus(valid.level),
      data: valid.data,
    });
    const members = e.members.length
      ? e.members
      : valid.level === 'invitation'
        ? [{ user_id: ctx.newId('usr_'), email: valid.data.contact_details!.invitee!.email }]
        : [];
    members.forEach((m, j) => {
      unique(ids, m.user_id, `${at}.members.${j}.user_id`);
      store.members.set(m.user_id, {
        userId: m.user_id,
        entityId: e.id,
        email: m.email,
        invitationsSent: 1,
        lastInvitedAt: now.toISOString(),
      });
    });
    const defaults = new Set<string>();
    e.payment_instruments.forEach((p, j) => {
      const pAt = `${at}.payment_instruments.${j}`;
      unique(ids, p.id, `${pAt}.id`);
      let instrumentId: string;
      if (p.type === 'card_token') {
        if (store.stored.get(p.instrument_id!)?.kind !== 'card') {
          throw new FixtureError(`${pAt}.instrument_id`, `no stored card ${p.instrument_id} in stored_cards`);
        }
        instrumentId = p.instrument_id!;
      } else {
        instrumentId = p.instrument_id ?? ctx.newId('src_');
        unique(ids, instrumentId, `${pAt}.instrument_id`);
        store.stored.set(instrumentId, {
          id: instrumentId,
          kind: 'bank_account',
          accountNumber: p.account_number!,
          bankCode: p.bank_code,
        });
      }
      if (p.default) {
        if (defaults.has(p.currency)) throw new FixtureError(`${pAt}.default`, `a second default for ${p.currency}`);
        defaults.add(p.currency);
      }
      store.paymentInstruments.set(p.id, {
        id: p.id,
        entityId: e.id,
        label: p.label,
        type: p.type,
        currency: p.currency,
        country: p.country,
        ...(p.document ? { document: p.document } : {}),
        status: p.status,
        instrument_id: instrumentId,
        isDefault: p.default,
      });
    });
    e.reserve_rules.forEach((r, j) => {
      unique(ids, r.id, `${at}.reserve_rules.${j}.id`);
      const validFrom =
        r.valid_from ??
        new Date(now.getTime() + r.valid_from_in_days! * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      store.reserveRules.set(r.id, {
        id: r.id,
        entityId: e.id,
        rule: { type: r.type, valid_from: validFrom, rolling: r.rolling },
        etag: newEtag(),
      });
    });
  });
  // The caps a create is held to (docs/decisions/sandbox.md#accounts-memory): fixtures past them would start the
  // sandbox over its own limits, with lists longer than they may be.
  const caps = accountCaps(ctx.storeLimits);
  if (store.entities.size > caps.entities) {
    throw new FixtureError(
      'entities',
      `${store.entities.size} entities, more than limits.maxEntities (${caps.entities}) allows`,
    );
  }
  if (store.stored.size > caps.storedInstruments) {
    throw new FixtureError(
      'stored_cards',
      `${store.stored.size} stored instruments (stored cards and bank accounts), more than limits.maxStoredInstruments (${caps.storedInstruments}) allows`,
    );
  }
}
