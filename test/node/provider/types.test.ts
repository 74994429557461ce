import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

// Compiles test/types/ok.ts plus files of misuse with the repository's compiler options, and checks that
// exactly the misuse fails, each with the expected diagnostic on the expected line.
const repo = resolve('.');
const entry = join(repo, 'server/provider/index.js');
const scratch = mkdtempSync(join(tmpdir(), 'tessera-types-'));

const BAD: Record<string, { code: string; source: string }> = {
  'charge-value.ts': {
    code: 'TS2322',
    source: `const legacy = createLegacyClient({ secretKey: 'sk_test_123456789' });
export const p = legacy.charges.create({ cardToken: 'card_tok_1', value: true, currency: 'EUR', email: 'a@b.co' });`,
  },
  'format.ts': {
    code: 'TS2322',
    source: `export const c = createLegacyClient({ secretKey: 'sk_test_123456789', format: 'yaml' });`,
  },
  'if-match.ts': {
    code: 'TS2554',
    source: `const a = createAccountsClient({ secretKey: 'sk_test_123456789' });
export const p = a.reserveRules.update('ent_1', 'rsv_1', { type: 'rolling', valid_from: 'x', rolling: { percentage: 1, holding_duration: { weeks: 1 } } });`,
  },
  'v2-body-as-v3.ts': {
    code: 'TS2322',
    source: `const a = createAccountsClient({ secretKey: 'sk_test_123456789' });
export const p = a.entities.create({ reference: 'r', contact_details: { phone: { number: '1', country_code: '1' } }, profile: { urls: [], mccs: [] }, individual: { first_name: 'a', last_name: 'b', registered_address: { address_line1: '1', city: 'c', zip: 'z', country: 'GB' }, date_of_birth: '1990-01-01', identification: {} } });`,
  },
  'result-field.ts': {
    code: 'TS2339',
    source: `const a = createAccountsClient({ secretKey: 'sk_test_123456789' });
export const p = a.reserveRules.retrieve('ent_1', 'rsv_1').then((r) => r.data.percentage);`,
  },
};

describe('consumer types of tessera-pay/provider', { timeout: 120_000 }, () => {
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('compiles the usage file and rejects each misuse on its own line', () => {
    const header = `import { createAccountsClient, createLegacyClient } from ${JSON.stringify(entry)};\n`;
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ type: 'module' }));
    for (const [name, bad] of Object.entries(BAD)) writeFileSync(join(scratch, name), header + bad.source + '\n');
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({
        extends: join(repo, 'tsconfig.json'),
        compilerOptions: { noEmit: true, types: ['node'], typeRoots: [join(repo, 'node_modules/@types')] },
        include: [],
        files: [join(repo, 'test/types/ok.ts'), ...Object.keys(BAD).map((f) => join(scratch, f))],
      }),
    );
    let out = '';
    try {
      execFileSync(join(repo, 'node_modules/.bin/tsc'), ['-p', scratch], { encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      out = (error as { stdout: string }).stdout;
    }
    const errors = out.split('\n').filter((l) => /error TS\d+/.test(l));
    assert.ok(!errors.some((l) => l.includes('ok.ts')), `ok.ts must compile:\n${out}`);
    for (const [name, bad] of Object.entries(BAD)) {
      const hits = errors.filter((l) => l.includes(name));
      assert.ok(hits.length > 0, `${name} compiled but should not:\n${out}`);
      assert.ok(
        hits.every((l) => l.includes('(3,') || l.includes('(2,')),
        `${name}: error on an unexpected line:\n${hits.join('\n')}`,
      );
      assert.ok(
        hits.some((l) => l.includes(bad.code)),
        `${name}: expected ${bad.code}, got:\n${hits.join('\n')}`,
      );
    }
  });
});
