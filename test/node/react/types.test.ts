import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';

// The props type of `tessera/react`, as an app compiles it: `strict`, the sources mapped to `tessera/react`, React's
// types from the repository's node_modules (the scratch folder is under .tmp/, which git ignores). Each
// `@ts-expect-error` line must fail to compile, or tsc reports the directive as unused.
const repo = resolve('.');

describe('tessera/react props under strict TypeScript', () => {
  let dir: string;
  before(() => {
    mkdirSync(join(repo, '.tmp'), { recursive: true });
    dir = mkdtempSync(join(repo, '.tmp', 'react-types-'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          lib: ['ES2023', 'DOM', 'DOM.Iterable'],
          jsx: 'react-jsx',
          noEmit: true,
          skipLibCheck: true,
          types: [],
          paths: { 'tessera/react': [join(repo, 'react/index.ts')] },
        },
        files: ['app.tsx'],
      }),
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('takes acceptedBrands as an array, a readonly array or a string, and rejects wrong props', () => {
    writeFileSync(
      join(dir, 'app.tsx'),
      `import { TesseraCardForm, type TesseraCardFormProps } from 'tessera/react';
const BRANDS = ['visa', 'mastercard'] as const;
export const asString = <TesseraCardForm acceptedBrands="visa mastercard" />;
export const asReadonly = <TesseraCardForm acceptedBrands={BRANDS} />;
export const asArray = <TesseraCardForm acceptedBrands={['visa']} />;
export const optional = ({ name }: { name?: string }) => <TesseraCardForm name={name} />;
export const props: TesseraCardFormProps = { acceptedBrands: 'amex', hideName: true };
// @ts-expect-error not a brand id
export const badBrand = <TesseraCardForm acceptedBrands={['vissa']} />;
// @ts-expect-error a number
export const badBrands = <TesseraCardForm acceptedBrands={42} />;
// @ts-expect-error a method, not a prop
export const method = <TesseraCardForm tokenize={() => {}} />;
// @ts-expect-error a boolean
export const badBoolean = <TesseraCardForm hideName="yes" />;
// @ts-expect-error the token event's detail has no such field
export const badDetail = <TesseraCardForm onTesseraToken={(e) => e.detail.nope} />;
`,
    );
    let out = '';
    try {
      execFileSync(join(repo, 'node_modules', '.bin', 'tsc'), ['-p', '.'], {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (e) {
      out = (e as { stdout?: string }).stdout ?? String(e);
    }
    assert.equal(out, '');
  });
});
