import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';

// scripts/split-decisions.js on a small tree of its own: the lead re-runs it after merging branches that added
// entries to the single file, so it must be exact, idempotent, and loud about what it cannot place.
const SCRIPT = resolve('scripts/split-decisions.js');
// Written in pieces, so that this file cites no decision itself (docs-links.test.ts reads every file).
const INDEX = `DECISIONS${'.md'}`;
const PARTS = 'decisions';

let root: string;

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}
const read = (path: string) => readFileSync(join(root, path), 'utf8');

function split(): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [SCRIPT, '--root', root], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every file of the tree with its text. */
function snapshot(): Map<string, string> {
  const files = readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  return new Map(
    files.map((e) => [relative(root, join(e.parentPath, e.name)), read(relative(root, join(e.parentPath, e.name)))]),
  );
}

const SINGLE = `# Decisions

Code cites an entry as docs/${INDEX}#<anchor>.

## Tooling

### <a id="linter"></a>Linter: Biome
Status: accepted (date 2026-11-23)

Biome is one binary. See [the numbers](benchmarks.md).

### <a id="server-timeouts"></a>Connection timeouts

The servers we start time out slow requests.

## Helper

### <a id="helper-charges"></a>One card token, one charge

One key per token; limits in [rate limits](#helper-rate-limits), timeouts in [timeouts](#server-timeouts).

### <a id="helper-rate-limits"></a>Rate limits
<a id="helper-limits-old"></a>Status: superseded by helper-charges

Per IP and per session.

## Sandbox core

### <a id="sandbox-http"></a>node:http

No Express. The helper's side: docs/${INDEX}#helper-charges.
`;

describe('scripts/split-decisions.js', () => {
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'tessera-split-'));
    write(`docs/${INDEX}`, SINGLE);
    write('docs/benchmarks.md', '# Benchmarks\n');
    write('docs/helper.md', `# Helper\n\nWhy: [one charge](${INDEX}#helper-charges).\n`);
    write('README.md', `See [the decision](docs/${INDEX}#sandbox-http) and [all](docs/${INDEX}).\n`);
    write(
      'server/helper/charges.ts',
      `// One charge per token (docs/${INDEX}#helper-charges, ${INDEX}#helper-limits-old).\n`,
    );
    write('node_modules/dep/index.js', `// docs/${INDEX}#helper-charges\n`);
    write('dist/server/helper/charges.js', `// docs/${INDEX}#helper-charges\n`);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('moves every entry into its part, leaves the index, and rewrites every citation', () => {
    const r = split();
    assert.equal(r.status, 0, r.stderr);

    const tooling = read('docs/decisions/tooling.md');
    const helper = read('docs/decisions/helper.md');
    const sandbox = read('docs/decisions/sandbox.md');
    assert.match(tooling, /^# Tooling decisions\n/);
    assert.match(tooling, /### <a id="linter"><\/a>Linter: Biome\nStatus: accepted \(date 2026-11-23\)\n\nBiome/);
    // Relative links of a moved entry still reach their file from docs/decisions/.
    assert.match(tooling, /\[the numbers\]\(\.\.\/benchmarks\.md\)/);
    // server-timeouts leaves Tooling for the sandbox.
    assert.doesNotMatch(tooling, /server-timeouts/);
    assert.match(
      sandbox,
      /## Sandbox core\n\n### <a id="server-timeouts"><\/a>Connection timeouts\nStatus: accepted\n\n/,
    );
    // A status line is added where there was none, and an existing one is kept.
    assert.match(helper, /One card token, one charge\nStatus: accepted\n\n/);
    assert.match(helper, /<a id="helper-limits-old"><\/a>Status: superseded by helper-charges\n/);
    // Links between entries: within a part stay local, across parts name the other file.
    assert.match(helper, /\[rate limits\]\(#helper-rate-limits\)/);
    assert.match(helper, /\[timeouts\]\(sandbox\.md#server-timeouts\)/);
    assert.match(sandbox, /The helper's side: docs\/decisions\/helper\.md#helper-charges\./);

    const index = read(`docs/${INDEX}`);
    assert.doesNotMatch(index, /^### /m);
    assert.match(index, /\n## Tooling\n\n- \[Linter: Biome\]\(decisions\/tooling\.md#linter\)\n\n## Helper\n/);
    assert.match(
      index,
      /- \[Rate limits\]\(decisions\/helper\.md#helper-rate-limits\) \(superseded by helper-charges\)\n/,
    );
    assert.match(index, /- \[Connection timeouts\]\(decisions\/sandbox\.md#server-timeouts\)\n/);

    assert.equal(
      read('server/helper/charges.ts'),
      `// One charge per token (docs/${PARTS}/helper.md#helper-charges, docs/${PARTS}/helper.md#helper-limits-old).\n`,
    );
    assert.equal(
      read('README.md'),
      `See [the decision](docs/${PARTS}/sandbox.md#sandbox-http) and [all](docs/${INDEX}).\n`,
    );
    assert.equal(read('docs/helper.md'), `# Helper\n\nWhy: [one charge](${PARTS}/helper.md#helper-charges).\n`);
    // Not the repository's own files: left alone.
    assert.equal(read('node_modules/dep/index.js'), `// docs/${INDEX}#helper-charges\n`);
    assert.equal(read('dist/server/helper/charges.js'), `// docs/${INDEX}#helper-charges\n`);
  });

  it('changes nothing when run again on the split tree', () => {
    const first = snapshot();
    const r = split();
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /0 entries moved; 0 files changed/);
    assert.deepEqual(snapshot(), first);
  });

  it('moves an entry appended to the index after the split into its part, and its citations with it', () => {
    const index = read(`docs/${INDEX}`);
    write(
      `docs/${INDEX}`,
      index.replace(
        '\n## Sandbox core\n',
        '\n### <a id="helper-email"></a>E-mail addresses\n\nThe browser\'s rule.\n\n## Sandbox core\n',
      ),
    );
    write('server/helper/email.ts', `// The browser's rule (docs/${INDEX}#helper-email).\n`);
    const r = split();
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /1 entries moved/);
    assert.match(
      read('docs/decisions/helper.md'),
      /Per IP and per session\.\n\n### <a id="helper-email"><\/a>E-mail addresses\nStatus: accepted\n\nThe browser's rule\.\n$/,
    );
    assert.match(
      read(`docs/${INDEX}`),
      /- \[E-mail addresses\]\(decisions\/helper\.md#helper-email\)\n\n## Sandbox core/,
    );
    assert.doesNotMatch(read(`docs/${INDEX}`), /^### /m);
    assert.equal(read('server/helper/email.ts'), `// The browser's rule (docs/${PARTS}/helper.md#helper-email).\n`);
    const again = snapshot();
    assert.equal(split().status, 0);
    assert.deepEqual(snapshot(), again);
  });

  it('refuses, naming it, an entry under a heading that is no part, or an anchor already used', () => {
    const index = read(`docs/${INDEX}`);
    write(`docs/${INDEX}`, `${index}\n## Misc\n\n### <a id="misc-one"></a>One\n\nText.\n`);
    let r = split();
    assert.equal(r.status, 1);
    assert.match(r.stderr, /#misc-one is under "## Misc", which is no part; use one of: Tooling, CI, Widget/);

    write(`docs/${INDEX}`, `${index}\n## Helper\n\n### <a id="linter"></a>Another linter\n\nText.\n`);
    r = split();
    assert.equal(r.status, 1);
    assert.match(r.stderr, /#linter is in both docs\/decisions\/tooling\.md and docs\//);
    write(`docs/${INDEX}`, index);
  });
});
