import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEMO_USERS } from '../../../demo/host-tokens.js';
import { dashboardBody } from '../../../demo/platform-page.js';
import type { ReserveRule } from '../../../server/provider/index.js';

const rule = (valid_from: string) =>
  ({
    id: 'rsv_1',
    type: 'rolling',
    valid_from,
    rolling: { percentage: 10, holding_duration: { weeks: 2 } },
  }) as unknown as ReserveRule;

const page = (validFrom: string) =>
  dashboardBody({
    user: DEMO_USERS[0]!,
    other: DEMO_USERS[1]!,
    rules: [rule(validFrom)],
    cards: new Map(),
    nowMs: Date.parse('2026-06-01T00:00:00Z'),
    helperUrl: '/api',
  }).toString();

describe('the platform dashboard page (demo/platform-page.ts)', () => {
  it('shows a reserve rule’s start it cannot read as the provider wrote it, instead of failing the page', () => {
    // ISO 8601 allows the basic format, which Date.parse cannot read: `new Date(NaN).toISOString()` threw a RangeError (500).
    for (const odd of ['20270101T000000Z', 'soon', '', '2026-13-45T00:00:00Z']) {
      const html = page(odd);
      assert.match(html, new RegExp(`<dt>Valid from</dt><dd>${odd}</dd>`), odd);
    }
    const escaped = page('<b>x</b>');
    assert.match(escaped, /<dd>&#60;b&#62;x&#60;\/b&#62;<\/dd>/, 'as text');
    assert.match(page('2027-01-01T00:00:00Z'), /<dt>Starts on<\/dt><dd>2027-01-01 \(not active yet/);
    assert.match(page('2026-01-01T00:00:00Z'), /<dt>Active since<\/dt><dd>2026-01-01<\/dd>/);
  });
});
