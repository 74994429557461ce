import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Page } from 'playwright-core';
import type { Env } from './env.js';
import { screenshot } from './shop.js';

const A = 'ent_demo_a';

async function signIn(env: Env, name: string): Promise<Page> {
  const page = await env.page();
  await page.goto(`${env.demo.url}/platform`);
  await page.getByLabel(new RegExp(`^${name}`)).check();
  await page.getByRole('button', { name: 'Sign in' }).click();
  // The sign-in form posts, and the demo answers with the dashboard at /platform again.
  await page.locator('#instruments table').waitFor();
  return page;
}

const message = (page: Page) => page.locator('#instruments-message');

/** The platform dashboard on sub-entity A, through the helper's host-JWT routes. */
export function dashboardTests(env: () => Env): void {
  let page: Page;

  it("signs in as A's user: A's payout instruments (through the helper) and A's reserve rule (read server-side)", async () => {
    page = await signIn(env(), 'Ada Lovelace');
    const rows = page.locator('#instruments tbody tr');
    assert.deepEqual((await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-instrument')))).sort(), [
      'ppi_demo_a_bank_second',
      'ppi_demo_a_bank_unverified',
      'ppi_demo_a_bank_verified',
    ]);
    // The list comes from the platform's records (`paymentInstrumentIds`), read one by one with the specified GET,
    // never from the sandbox's list extension, which the real provider does not have.
    const reads = (await env().sandbox.requests()).filter(
      (r) => r.method === 'GET' && r.path.startsWith(`/accounts/entities/${A}/payment-instruments`),
    );
    assert.ok(reads.length >= 3, `the instruments were read: ${reads.length}`);
    for (const r of reads) assert.match(r.path, /\/payment-instruments\/ppi_demo_a_[a-z_]+$/);
    const rule = page.locator('[data-rule="rsv_demo_a_future"]');
    assert.match((await rule.textContent()) ?? '', /10% of each payout held for 2 weeks[\s\S]*Starts on/);
  });

  it('renames a payout instrument; the sandbox holds the new label', async () => {
    const input = page.getByLabel('Label of New savings account');
    await input.fill('Savings account');
    await page.getByRole('button', { name: 'Rename New savings account' }).click();
    await message(page).getByText('Renamed to “Savings account”.').waitFor();
    const stored = await env().sandbox.paymentInstrument(A, 'ppi_demo_a_bank_unverified');
    assert.equal(stored.label, 'Savings account');
  });

  it('sets a verified account as the default payout destination', async () => {
    await page.getByRole('button', { name: 'Make default Second business account' }).click();
    await message(page).getByText('“Second business account” is now the default.').waitFor();
    await page.locator('tr[data-instrument="ppi_demo_a_bank_second"] .badge').waitFor();
    assert.equal((await env().sandbox.paymentInstrument(A, 'ppi_demo_a_bank_second')).default, true);
    assert.equal((await env().sandbox.paymentInstrument(A, 'ppi_demo_a_bank_verified')).default, false);
  });

  it('an unverified account cannot become the default: the provider’s 428 is shown and nothing changes', async () => {
    await page.getByRole('button', { name: 'Make default Savings account' }).click();
    const refused = message(page);
    await refused.getByText(/only a verified account can be the default/).waitFor();
    assert.match((await refused.textContent()) ?? '', /428 Precondition Required.*409 TESSERA_INSTRUMENT_NOT_VERIFIED/);
    const log = await env().sandbox.requests();
    assert.ok(
      log.some(
        (r) =>
          r.method === 'PATCH' &&
          r.path === `/accounts/entities/${A}/payment-instruments/ppi_demo_a_bank_unverified` &&
          r.status === 428,
      ),
      'the sandbox answered 428',
    );
    assert.equal((await env().sandbox.paymentInstrument(A, 'ppi_demo_a_bank_unverified')).default, false);
  });

  it('refreshes saved cards through the account updater and shows each outcome', async () => {
    const refresh = async (id: string) => {
      await page.locator(`button[data-refresh="${id}"]`).click();
      const item = page.locator(`li[data-instrument="${id}"]`);
      await item.locator('.outcome:not(:empty)').filter({ hasNotText: 'Asking' }).waitFor();
      return { outcome: await item.getAttribute('data-outcome'), text: (await item.textContent()) ?? '' };
    };
    const renewedYear = new Date(env().demo.sandbox.clock.nowMs()).getUTCFullYear() + 3;
    const updated = await refresh('src_demo_visa_updated');
    assert.equal(updated.outcome, 'CARD_UPDATED');
    assert.match(updated.text, /Card updated: the network gave a new card, •••• 9003/);
    const expiry = await refresh('src_demo_visa_expiry');
    assert.equal(expiry.outcome, 'CARD_EXPIRY_UPDATED');
    assert.match(expiry.text, new RegExp(`Expiry updated: •••• 2008, expires 06/${renewedYear}`));
    const closed = await refresh('src_demo_mc_closed');
    assert.equal(closed.outcome, 'CARD_CLOSED');
    assert.match(closed.text, /Card closed/);
    const failed = await refresh('src_demo_amex_current');
    assert.equal(failed.outcome, 'UPDATE_FAILED');
    assert.match(failed.text, /No update \(UP_TO_DATE\): the card is up to date/);
    await screenshot(page, 'dashboard');
  });

  it("asking for B's payout instruments with A's user is refused by the helper (403)", async () => {
    await page.getByRole('button', { name: /Show Sub-entity B's payout instruments/ }).click();
    const shown = page.locator('#other-result');
    await shown.getByText(/Refused by the helper/).waitFor();
    assert.match((await shown.textContent()) ?? '', /does not allow this sub-entity \(403 TESSERA_HOST_FORBIDDEN\)/);
  });

  it('with the keyboard alone: rename with Enter, then make it the default; focus stays in that row', async () => {
    const k = await signIn(env(), 'Ada Lovelace');
    // A verified account that is not the default (which one depends on the tests run before this one).
    const ids = ['ppi_demo_a_bank_verified', 'ppi_demo_a_bank_second'];
    const defaults = await Promise.all(ids.map(async (id) => (await env().sandbox.paymentInstrument(A, id)).default));
    const row = ids[defaults.indexOf(false)]!;
    const focusedRow = () => k.evaluate(() => document.activeElement?.closest('tr')?.getAttribute('data-instrument'));
    await k.locator(`#label-${row}`).focus();
    await k.keyboard.press('Control+A');
    await k.keyboard.type('Keyboard account');
    await k.keyboard.press('Enter');
    await message(k).getByText('Renamed to “Keyboard account”.').waitFor();
    await k.locator(`tr[data-instrument="${row}"] input[value="Keyboard account"]`).waitFor();
    assert.equal(await focusedRow(), row);
    await k.keyboard.press('Tab');
    assert.equal(await k.evaluate(() => document.activeElement?.textContent), 'Make default Keyboard account');
    await k.keyboard.press('Enter');
    await message(k).getByText('“Keyboard account” is now the default.').waitFor();
    await k.locator(`tr[data-instrument="${row}"] .badge`).waitFor();
    assert.equal(await focusedRow(), row);
    assert.equal((await env().sandbox.paymentInstrument(A, row)).default, true);
  });

  it("B's user sees B's instruments and B's active reserve rule", async () => {
    const b = await signIn(env(), 'Grace Hopper');
    assert.equal(await b.locator('#instruments tbody tr').count(), 2);
    assert.match((await b.locator('[data-rule="rsv_demo_b_active"]').textContent()) ?? '', /5.5%[\s\S]*Active since/);
  });

  it('a host token copied out of the page works only with its session, and no longer after Sign out', async () => {
    const p = await env().page();
    await p.goto(`${env().demo.url}/platform`);
    await p.getByLabel(/^Grace Hopper/).check();
    const issued = p.waitForResponse((r) => new URL(r.url()).pathname === '/platform/token');
    await p.getByRole('button', { name: 'Sign in' }).click();
    const { token } = (await (await issued).json()) as { token: string };
    await p.locator('#instruments table').waitFor();
    const path = '/api/entities/ent_demo_b/payment-instruments';
    // The page's own fetch (same origin: its session cookie goes with it), with the token it was given.
    const fromPage = () =>
      p.evaluate(
        async ([url, bearer]) => {
          const r = await fetch(url!, { headers: { authorization: `Bearer ${bearer}` } });
          return [r.status, ((await r.json()) as { code?: string }).code ?? null];
        },
        [path, token],
      );
    assert.deepEqual(await fromPage(), [200, null]);
    const copied = await fetch(`${env().demo.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    assert.deepEqual(
      [copied.status, ((await copied.json()) as { code?: string }).code],
      [401, 'TESSERA_HOST_AUTH_UNBOUND'],
    );
    await p.getByRole('button', { name: 'Sign out' }).click();
    await p.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.deepEqual(await fromPage(), [401, 'TESSERA_HOST_AUTH_UNBOUND'], 'the same browser, signed out');
  });
}
