/**
 * The build's template step (vite.config.ts, templateWhitespace) fails the build on what litTrim cut out of lit-html:
 * property bindings, `svg`/`mathml` templates, directives (added 2026-11-27), and from reactive-element the attribute
 * converter's `Number`, `Object` and `Array` property types, the `useDefault` property option and `accessor` fields
 * (added 2026-11-27) or a property over the class's own getter or setter; and litTrim itself fails it on lit-html's
 * directive module, whoever imports it. Each case below is written the way
 * lit-html itself would take it; before, the guard matched only `.name=${…}` and `svg\`…\`` exactly, so a property
 * binding with a space around its `=` or text before it in the value was built as an attribute binding, silently.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { litTrim, templateWhitespace } from '../../../vite.config.js';

const ID = '/project/widget/card-form/example.ts';

/** Runs the step on a widget source; `%x` in `code` stands for the binding `${x}`. */
function build(code: string): unknown {
  const transform = templateWhitespace().transform as (code: string, id: string) => unknown;
  return transform(
    code.replace(/%(\w+)/g, (_, name: string) => `$\{${name}}`),
    ID,
  );
}

describe('the build fails on a template feature litTrim removed', () => {
  for (const [what, code] of [
    ['a property binding', 'html`<input .value=%v />`'],
    ['a quoted property binding over lines', 'html`<input\n  id="x"\n  .value="%v"\n/>`'],
    ['a property binding with spaces around the =', 'html`<input .value = %v />`'],
    ['a property binding over lines around the =', 'html`<input\n  .value\n  =\n  %v\n/>`'],
    ['a property binding with text before the binding', 'html`<input .title="Card %n" />`'],
    ['an svg template', 'svg`<g></g>`'],
    ['an svg template spaced from its tag', 'svg `<g></g>`'],
    ['an svg tag imported under another name', "import { svg as s } from 'lit';\nconst t = s`<g></g>`;"],
    ['a mathml tag imported', "import { html, mathml } from 'lit';"],
    ['the unsafeSVG directive', "import { unsafeSVG } from 'lit/directives/unsafe-svg.js';"],
    // The attribute converter's Number, Object and Array types (added 2026-11-26).
    ['a Number property', 'static properties = { amount: { type: Number } };'],
    ['an Array property over lines', 'static properties = {\n  brands: {\n    type:\n      Array,\n  },\n};'],
    ['an Object property', 'static properties = { options: { type : Object } };'],
    // Directives, the useDefault option and accessor fields (added 2026-11-27).
    ['a directive', "import { classMap } from 'lit/directives/class-map.js';"],
    ['a directive of its own', "import { Directive, directive } from 'lit/directive.js';"],
    ['an async directive', "import { AsyncDirective } from 'lit-html/async-directive.js';"],
    ['a useDefault property', 'static properties = { size: { reflect: true, useDefault: true } };'],
    ['an accessor field', "@property() accessor brand = '';"],
    ['a private accessor field', 'static accessor #open: boolean;'],
    // A reactive property over a getter and setter of the class's own is `wrapped` too, as an accessor field is: Lit
    // reports it changed (and reflects it) in the first update, which litTrim removed.
    [
      'a property over its own getter and setter',
      'static override properties = { locale: {}, name: {} };\nget locale() { return this.#l; }\nset locale(v: string) { this.#l = v; }',
    ],
    [
      'a quoted property over its own setter',
      "static properties = {\n  'tokenUrl': { attribute: 'token-url' },\n};\nset tokenUrl(v) {}",
    ],
    [
      'a property over its own getter, properties from a getter',
      'static get properties() { return { brand: {} }; }\nget brand() {}',
    ],
  ] as const) {
    it(what, () => {
      assert.throws(() => build(code), /tessera-template-whitespace/);
    });
  }

  for (const [what, code] of [
    ['attribute, boolean and event bindings', 'html`<input id=%f ?disabled=%d @input=%h maxlength=%m />`'],
    ['an <svg> inside an html template', 'html`<svg viewBox="0 0 32 20"><rect x=".5" y=".5" fill=%bg /></svg>`'],
    [
      'Boolean and String properties',
      "static properties = { a: { type: Boolean }, b: { type: String }, c: { type: 'x' } };",
    ],
    ['a comment about an accessor', '// The accessor for the form: a getter, not a reactive property.\nget form() {}'],
    [
      'a getter beside the properties, of another name',
      "static properties = { locale: {}, hideName: { type: Boolean, attribute: 'hide-name' } };\nget form() {}\nget localeName() {}",
    ],
  ] as const) {
    it(`but not on ${what}`, () => {
      assert.doesNotThrow(() => build(code));
    });
  }
});

// A directive the widget's sources do not import themselves (a package's, or one in a `.js` file) passes the step
// above; lit-html's directive module is what every directive imports, so the build fails when it is bundled at all.
describe('the build fails on a directive whoever imports it', () => {
  const load = (id: string) => (litTrim().transform as (code: string, id: string) => unknown)('export {};', id);

  for (const id of [
    '/project/node_modules/lit-html/directive.js',
    '/project/node_modules/lit-html/async-directive.js',
    'C:\\project\\node_modules\\lit-html\\directive.js',
  ]) {
    it(id, () => {
      assert.throws(() => load(id), /tessera-lit-trim: .* litTrim removed directives/);
    });
  }

  it('but not on a module of the widget or another package', () => {
    assert.equal(load('/project/widget/card-form/directive.ts'), null);
    assert.equal(load('/project/node_modules/some-package/directive.js'), null);
  });
});
