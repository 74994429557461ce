import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import vm from 'node:vm';
import {
  CUSTOM_ELEMENTS_SCHEMA,
  DomElementSchemaRegistry,
  parseTemplate,
  type SchemaMetadata,
  TmplAstBoundAttribute,
  TmplAstElement,
  type TmplAstNode,
} from '@angular/compiler';
import { compileScript, parse as parseSfc } from '@vue/compiler-sfc';
import { compile as compileSvelte } from 'svelte/compiler';

// docs/frameworks.md compiled, so the guides cannot rot: each fenced block after a `<!-- frameworks-test: NAME -->`
// line is read from the doc itself and compiled with the framework's own compiler from npm.
const repo = resolve('.');
const doc = readFileSync(join(repo, 'docs/frameworks.md'), 'utf8');

function snippets(): Map<string, string> {
  const found = new Map<string, string>();
  const lines = doc.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const name = /^<!-- frameworks-test: ([a-z-]+) -->$/.exec(lines[i] ?? '')?.[1];
    if (!name) continue;
    assert.match(lines[i + 1] ?? '', /^```\w+$/, `the marker ${name} is not followed by a fence`);
    const end = lines.indexOf('```', i + 2);
    assert.ok(end > i, `the ${name} fence is not closed`);
    assert.ok(!found.has(name), `two snippets named ${name}`);
    found.set(name, lines.slice(i + 2, end).join('\n'));
  }
  return found;
}
const SNIPPETS = snippets();

function snippet(name: string): string {
  const text = SNIPPETS.get(name);
  assert.ok(text, `docs/frameworks.md has no snippet marked ${name}`);
  return text;
}

describe('docs/frameworks.md', () => {
  it('marks a snippet for each framework', () => {
    assert.deepEqual([...SNIPPETS.keys()].sort(), [
      'angular',
      'react',
      'react-intrinsic',
      'svelte',
      'svelte-types',
      'vue',
      'vue-config',
    ]);
  });

  describe('TypeScript snippets (React wrapper, React JSX typings, Svelte typings)', { timeout: 120_000 }, () => {
    // Compiled by the repository's tsc against the sources: `tessera-pay/*` maps to them, the frameworks' types come
    // from the repository's node_modules (the scratch folder is under .tmp/, which git ignores).
    let dir: string;
    const tsc = (project: string) =>
      execFileSync(join(repo, 'node_modules', '.bin', 'tsc'), ['-p', project], {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    before(() => {
      mkdirSync(join(repo, '.tmp'), { recursive: true });
      dir = mkdtempSync(join(repo, '.tmp', 'frameworks-'));
      const compilerOptions = {
        strict: true,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        jsx: 'react-jsx',
        noEmit: true,
        skipLibCheck: true,
        types: [],
        paths: {
          'tessera-pay/react': [join(repo, 'react/index.ts')],
          'tessera-pay/widget': [join(repo, 'widget/index.ts')],
        },
      };
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions, files: ['react.tsx', 'intrinsic.tsx'] }),
      );
      writeFileSync(
        join(dir, 'tsconfig.svelte.json'),
        JSON.stringify({ compilerOptions, files: ['svelte.d.ts', 'use-svelte.ts'] }),
      );
      writeFileSync(join(dir, 'tsconfig.props.json'), JSON.stringify({ compilerOptions, files: ['props.tsx'] }));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('the React snippets compile, and a wrong attribute type on the element does not', () => {
      writeFileSync(join(dir, 'react.tsx'), snippet('react'));
      writeFileSync(join(dir, 'intrinsic.tsx'), snippet('react-intrinsic'));
      tsc('tsconfig.json');
      writeFileSync(
        join(dir, 'intrinsic.tsx'),
        snippet('react-intrinsic').replace('config-url="/payments/config"', 'config-url={42}'),
      );
      assert.throws(
        () => tsc('tsconfig.json'),
        (e: { stdout?: string }) => /intrinsic\.tsx.*TS2322/s.test(e.stdout ?? ''),
      );
    });

    it('the React wrapper takes acceptedBrands as an array, a readonly array or a string, and rejects wrong props', () => {
      // Each `@ts-expect-error` line must fail to compile, or tsc reports the directive as unused.
      writeFileSync(
        join(dir, 'props.tsx'),
        `import { TesseraCardForm, type TesseraCardFormProps } from 'tessera-pay/react';
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
      tsc('tsconfig.props.json');
    });

    it('the Svelte typings compile and type the element in svelte/elements', () => {
      writeFileSync(join(dir, 'svelte.d.ts'), snippet('svelte-types'));
      writeFileSync(
        join(dir, 'use-svelte.ts'),
        `import type { SvelteHTMLElements } from 'svelte/elements';
type Card = SvelteHTMLElements['tessera-card-form'];
export const ok: Card = { 'config-url': '/payments/config', 'ontessera-token': (e) => void e.detail.token };
// @ts-expect-error config-url is a string
export const bad: Card = { 'config-url': 42 };
`,
      );
      tsc('tsconfig.svelte.json');
    });
  });

  it('the Vue SFC compiles with the config snippet’s isCustomElement: the element is a plain tag, not a component', () => {
    // Evaluate the vite.config snippet with the plugin and defineConfig standing in, to get its compilerOptions.
    const config = snippet('vue-config')
      .replace(/^import .*$/gm, '')
      .replace('export default', 'globalThis.config =');
    const sandbox: {
      config?: { plugins: { template: { compilerOptions: { isCustomElement(tag: string): boolean } } }[] };
    } = {};
    vm.runInNewContext(
      config,
      Object.assign(sandbox, { vue: (o: unknown) => o, defineConfig: (c: unknown) => c, globalThis: sandbox }),
    );
    const compilerOptions = sandbox.config?.plugins[0]?.template.compilerOptions;
    assert.ok(compilerOptions, 'the Vue config snippet sets template.compilerOptions');
    assert.equal(compilerOptions.isCustomElement('tessera-card-form'), true);
    assert.equal(compilerOptions.isCustomElement('router-link'), false);

    // As @vitejs/plugin-vue does: the options reach both the SFC parser (which decides element or component)
    // and the template compiler.
    const compile = (options: object) => {
      const { descriptor, errors } = parseSfc(snippet('vue'), {
        filename: 'Checkout.vue',
        templateParseOptions: options,
      });
      assert.deepEqual(errors, []);
      return compileScript(descriptor, {
        id: 'checkout',
        inlineTemplate: true,
        templateOptions: { compilerOptions: options },
      }).content;
    };
    const code = compile(compilerOptions);
    assert.doesNotMatch(code, /resolveComponent/);
    assert.match(code, /createElementVNode\("tessera-card-form"/);
    assert.match(code, /onTesseraToken: pay/);
    assert.match(code, /"config-url": "\/payments\/config"/);
    // Without the option Vue would look the tag up as a component (and warn at run time that it cannot find it).
    assert.match(compile({}), /resolveComponent\("tessera-card-form"\)/);
  });

  it('the Svelte component compiles without warnings; its on… attributes listen to the element’s events', () => {
    const { js, warnings } = compileSvelte(snippet('svelte'), { filename: 'Checkout.svelte', generate: 'client' });
    assert.deepEqual(
      warnings.map((w) => w.message),
      [],
    );
    assert.match(js.code, /<tessera-card-form><\/tessera-card-form>/);
    // Set as a property when the element has one, else as an attribute (config-url is the attribute of configUrl).
    assert.match(js.code, /set_custom_element_data\(tessera_card_form, 'config-url', '\/payments\/config'\)/);
    assert.match(js.code, /event\('tessera-token'/);
    assert.match(js.code, /event\('tessera-error'/);
  });

  it('the Angular template parses and passes the DOM schema with CUSTOM_ELEMENTS_SCHEMA, and only with it', () => {
    const source = snippet('angular');
    assert.match(source, /schemas: \[CUSTOM_ELEMENTS_SCHEMA\]/);
    const template = /template: `([^`]*)`/.exec(source)?.[1];
    assert.ok(template, 'the Angular snippet has an inline template');
    const { nodes, errors } = parseTemplate(template, 'checkout.component.html', {});
    assert.deepEqual(errors ?? [], []);

    const registry = new DomElementSchemaRegistry();
    const problems = (schemas: SchemaMetadata[]): string[] => {
      const out: string[] = [];
      const visit = (list: TmplAstNode[]): void => {
        for (const node of list) {
          if (!(node instanceof TmplAstElement)) continue;
          if (!registry.hasElement(node.name, schemas)) out.push(`unknown element <${node.name}>`);
          for (const input of node.inputs) {
            if (
              input instanceof TmplAstBoundAttribute &&
              input.type === 0 &&
              !registry.hasProperty(node.name, input.name, schemas)
            ) {
              out.push(`unknown property ${node.name}.${input.name}`);
            }
          }
          visit(node.children);
        }
      };
      visit(nodes);
      return out;
    };
    assert.deepEqual(problems([CUSTOM_ELEMENTS_SCHEMA]), []);
    assert.deepEqual(problems([]), [
      'unknown element <tessera-card-form>',
      'unknown property tessera-card-form.hideName',
    ]);
    const outputs = (nodes.find((n) => n instanceof TmplAstElement) as TmplAstElement).children
      .filter((n): n is TmplAstElement => n instanceof TmplAstElement && n.name === 'tessera-card-form')
      .flatMap((n) => n.outputs.map((o) => o.name));
    assert.deepEqual(outputs, ['tessera-token', 'tessera-error']);
  });
});
