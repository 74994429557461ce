import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

// custom-elements.json is committed (package.json "customElements") and documents the widget's public surface.
// It must be what `npx cem analyze` makes of the current sources, or editors and docs show a stale API.
describe('custom-elements.json', () => {
  it('matches a fresh `cem analyze` of the widget sources', { timeout: 60_000 }, () => {
    const repo = resolve('.');
    mkdirSync(join(repo, '.tmp'), { recursive: true });
    const scratch = mkdtempSync(join(repo, '.tmp', 'cem-'));
    try {
      // The analyzer joins outdir to the working folder, so it writes inside the repo's ignored .tmp/; it would also
      // point package.json's customElements at its output unless told not to (packagejson: false).
      const config = join(scratch, 'config.mjs');
      writeFileSync(
        config,
        `import base from ${JSON.stringify(join(repo, 'custom-elements-manifest.config.mjs'))};\n` +
          `export default { ...base, packagejson: false, outdir: ${JSON.stringify(relative(repo, scratch))} };\n`,
      );
      execFileSync(join(repo, 'node_modules', '.bin', 'cem'), ['analyze', '--config', config], {
        cwd: repo,
        stdio: 'pipe',
      });
      const fresh = JSON.parse(readFileSync(join(scratch, 'custom-elements.json'), 'utf8'));
      const committed = JSON.parse(readFileSync(join(repo, 'custom-elements.json'), 'utf8'));
      assert.deepEqual(committed, fresh, 'custom-elements.json is stale: run `npx cem analyze` and commit the result');
      const tag = fresh.modules.flatMap((m: { declarations?: { tagName?: string }[] }) => m.declarations ?? []);
      assert.ok(tag.some((d: { tagName?: string }) => d.tagName === 'tessera-card-form'));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('is what docs/widget.md documents (the page is generated from it)', async () => {
    const { renderWidgetDocs, WIDGET_DOCS } = await import('../../../scripts/widget-docs.js');
    const manifest = JSON.parse(readFileSync(resolve('custom-elements.json'), 'utf8'));
    const page = renderWidgetDocs(manifest) as string;
    assert.equal(
      readFileSync(WIDGET_DOCS, 'utf8'),
      page,
      'docs/widget.md is stale: run `node scripts/widget-docs.js` and commit the result',
    );
    // Every attribute, event, part and custom property of the element is on the page.
    const el = manifest.modules
      .flatMap((m: { declarations?: unknown[] }) => m.declarations ?? [])
      .find((d: { tagName?: string }) => d.tagName === 'tessera-card-form');
    for (const list of [el.attributes, el.events, el.cssParts, el.cssProperties]) {
      for (const item of list) assert.ok(page.includes(`\`${item.name}\``), item.name);
    }
  });
});
