import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { STRICT_NODE_PROJECT } from '../../support/tsconfig.js';

// The TypeScript blocks of the server references (docs/helper.md, docs/clients.md, docs/sandbox.md), type-checked as
// a merchant would paste them, with `strict`, by the repository's tsc against the sources (`tessera-pay/*` maps to them;
// the scratch folder is under .tmp/, which git ignores). What the text says stands for the merchant's own code
// (`orders`, `cards`, `payouts`, `app`, `payments`, `api`, `env()` of the first example, express-session's
// `req.session`) is declared once, below; a block that shows only part of the options (`// …`, `/* … */`, or one
// option such as `onCharge: …`) gets the required ones. Anything else a block names must exist and fit.
const repo = resolve('.');
const DOCS = ['docs/helper.md', 'docs/clients.md', 'docs/sandbox.md'];

interface Block {
  doc: string;
  line: number;
  text: string;
}

/** Every fenced ```ts block of a doc (indented ones too, as in a list item), with its first line's number. */
export function tsBlocks(doc: string, markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)```ts$/.exec(lines[i] ?? '');
    if (!open) continue;
    const indent = open[1]!;
    const end = lines.indexOf(`${indent}\`\`\``, i + 1);
    assert.ok(end > i, `${doc}:${i + 1}: the ts fence is not closed`);
    const body = lines.slice(i + 1, end).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l));
    blocks.push({ doc, line: i + 2, text: body.join('\n') });
    i = end;
  }
  return blocks;
}

/** The options every `tesseraHelper()` call needs, for a block that shows only some. */
const REQUIRED = `publicKey: 'pk_sbox_x', secretKey: 'sk_sbox_x', resolveCharge: () => undefined,`;

/**
 * A block as a module of its own: the required options where it leaves them out, and the helper where it is a fragment
 * or named without its import (imports are added at the end, so an error's line is the block's).
 */
function asModule(block: Block): string {
  let text = block.text.replace('/* … */', `${REQUIRED} `).replace(/^(\s*)\/\/ …$/m, `$1${REQUIRED}`);
  if (/^\w+: /.test(text)) {
    text = `helperForFragment({ ${REQUIRED} ${text}\n});\nimport { tesseraHelper as helperForFragment } from 'tessera-pay/server';`;
  }
  // A block that calls the helper without its import line (sandbox.md's `tesseraHelper({ // … })`).
  if (/\btesseraHelper\(/.test(text) && !/import \{[^}]*\btesseraHelper\b/.test(text)) {
    text = `${text}\nimport { tesseraHelper } from 'tessera-pay/server';`;
  }
  return `${text}\nexport {};\n`;
}

/** What the docs say stands for the merchant's own code. */
const MERCHANT = `import type { ChargeDetails, CurrencyCode, TesseraHelper } from 'tessera-pay/server';
import type { Router } from 'express';

type Order = ChargeDetails & { id: string; totalMinor: number; currency: CurrencyCode; paid: boolean; customerId: string };

declare global {
  namespace Express {
    // express-session's, as @types/express-session adds them.
    interface Request {
      session: { userId: string };
      sessionID: string;
    }
  }
  const express: typeof import('express');
  const app: import('express').Express;
  const payments: TesseraHelper & { readonly mountPath: string };
  const api: Router;
  function env(name: string): string;
  const orders: {
    find(reference: string, scope?: string): Promise<Order | undefined>;
    markPaid(reference: string, chargeId: string, amount?: number, currency?: string): Promise<void>;
    noteDecline(reference: string, responseCode: string): Promise<void>;
    noteChallenge(reference: string, chargeId: string, startedAt?: string): Promise<void>;
  };
  const cards: { refresh(instrumentId: string, status: string, card: unknown): Promise<void> };
  const payouts: { instrumentIds(entityId: string): Promise<string[]> };
  // clients.md: the charge's inputs and the page's redirect.
  const cardToken: string;
  const orderId: string;
  function redirectShopperTo(url: string): void;
}
`;

describe('TypeScript blocks of the server references', { timeout: 120_000 }, () => {
  const blocks = DOCS.flatMap((doc) => tsBlocks(doc, readFileSync(join(repo, doc), 'utf8')));
  let dir: string;
  before(() => {
    mkdirSync(join(repo, '.tmp'), { recursive: true });
    dir = mkdtempSync(join(repo, '.tmp', 'docs-snippets-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('finds them', () => {
    const count = (doc: string) => blocks.filter((b) => b.doc === doc).length;
    assert.ok(count('docs/helper.md') >= 8, `docs/helper.md: ${count('docs/helper.md')} ts blocks`);
    assert.ok(count('docs/clients.md') >= 1);
    assert.ok(count('docs/sandbox.md') >= 2);
  });

  it('compile with strict TypeScript, each as pasted', () => {
    const files = blocks.map((b) => `${b.doc.replace(/\W+/g, '-')}-${b.line}.ts`);
    for (const [i, b] of blocks.entries()) writeFileSync(join(dir, files[i]!), asModule(b));
    writeFileSync(join(dir, 'merchant.d.ts'), MERCHANT);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          ...STRICT_NODE_PROJECT,
          lib: ['ES2023', 'DOM'],
          skipLibCheck: true,
          esModuleInterop: true,
          paths: {
            'tessera-pay/server': [join(repo, 'server/helper/index.ts')],
            'tessera-pay/provider': [join(repo, 'server/provider/index.ts')],
            'tessera-pay/sandbox': [join(repo, 'server/sandbox/index.ts')],
          },
        },
        files: ['merchant.d.ts', ...files],
      }),
    );
    try {
      execFileSync(join(repo, 'node_modules', '.bin', 'tsc'), ['-p', '.'], {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      // Name each error by the doc and the line it is on.
      const out = String((err as { stdout?: string }).stdout ?? err).replace(
        /^(docs-\w+-md)-(\d+)\.ts\((\d+),(\d+)\)/gm,
        (_m, file: string, first: string, line: string) =>
          `${file.replace(/^docs-(\w+)-md$/, 'docs/$1.md')}:${Number(first) + Number(line) - 1}`,
      );
      assert.fail(`a TypeScript block of the docs does not compile:\n${out}`);
    }
  });
});
