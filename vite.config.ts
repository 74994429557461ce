import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import { LAZY_LOCALES } from './widget/i18n/all.js';

const OUT_DIR = 'dist/widget';
const FILE = 'tessera-card-form.js';

const sri = (data: string | Buffer) => `sha384-${createHash('sha384').update(data).digest('base64')}`;

/** Writes `<bundle>.sri` (sha384, the SRI format) beside the built bundle. */
function subresourceIntegrity(): Plugin {
  return {
    name: 'tessera-sri',
    apply: 'build',
    closeBundle() {
      const path = resolve(OUT_DIR, FILE);
      writeFileSync(`${path}.sri`, `${sri(readFileSync(path))}\n`);
    },
  };
}

/**
 * Lit's production modules less what this bundle can never use (docs/decisions/widget.md#widget-bundle-size): the hooks for
 * `@lit/polyfill-support` (browsers without shadow DOM, which the widget does not support), the version lists that
 * only Lit's development build reads (to warn about two copies on a page), the `<style>`-element fallback for browsers
 * without constructable stylesheets (none that the widget supports), the decorator-metadata globals and the loop
 * that reads them (the element declares `static properties` and uses no decorator), and the text of two errors this
 * code cannot raise (a `CSSResult` constructed by hand, the `html` tag called without a template literal), which
 * still throw; and three template features the widget's templates never use (bindings in comments, in the text of
 * raw-text elements such as `<textarea>`, and iterables in a child binding), nor its `svg` and `mathml` templates nor
 * property bindings (`.value=${…}`); and the attribute converter's `Number`, `Object` and `Array` types (the
 * element's properties are strings and booleans); directives (none is imported), the `useDefault` property option and
 * the `wrapped` handling of a property declared over an accessor (an `accessor` field).
 * Each edit must apply: a Lit update that changes the text fails the build rather than silently growing it.
 * Exported for its test (test/node/widget/template-guard.test.ts).
 */
export function litTrim(): Plugin {
  const edits: Record<string, [RegExp, string][]> = {
    'lit-html/lit-html.js': [
      [/"invalid template strings array"/, '"lit"'],
      [/,(\w+)=(\w+)\.litHtmlPolyfillSupport;\1\?\.\(\w+,\w+\),\(\2\.litHtmlVersions\?\?=\[\]\)\.push\("[\d.]+"\)/, ''],
      // Template features none of the widget's templates uses (templateWhitespace checks the first two at build time):
      // bindings inside <script>/<style>/<textarea>/<title> text, bindings inside comments, and an iterable (an array,
      // a Set) rendered as a list of parts (the templates render strings, templates and `nothing`).
      [
        /if\(\w+\.test\(\w+\.tagName\)\)\{const (\w+)=\w+\.textContent\.split\(\w+\).*?\.append\(\1\[\w+\],\w+\(\)\)\}\}/,
        '',
      ],
      [
        /else\{let (\w+)=-1;for\(;-1!==\(\1=\w+\.data\.indexOf\(\w+,\1\+1\)\);\)\w+\.push\(\{type:7,index:\w+\}\),\1\+=\w+\.length-1\}/,
        '',
      ],
      [/:\w+\((\w+)\)\?this\.k\(\1\):this\._\(\1\)/, ':this._($1)'],
      [/k\(\w+\)\{\w+\(this\._\$AH\)\|\|\(this\._\$AH=\[\],this\._\$AR\(\)\);.*?\.length=\w+\)\}/, ''],
      // Templates of the `svg` and `mathml` tags (the widget's are `html` ones: an `<svg>` inside `html` is parsed as
      // HTML, as the brand mark is) and property bindings (`.value=${…}`; templateWhitespace fails the build on one).
      [/(\w+)=2===(\w+)\?"<svg>":3===\2\?"<math>":""/, '$1=""'],
      [/\+\(2===\w+\?"<\/svg>":3===\w+\?"<\/math>":""\)/, ''],
      [
        /if\((this\.el=\w+\.createElement\(\w+,\w+\),\w+\.currentNode=this\.el\.content),2===\w+\|\|3===\w+\)\{const (\w+)=this\.el\.content\.firstChild;\2\.replaceWith\(\.\.\.\2\.childNodes\)\}/,
        '$1;',
      ],
      [/"\."===(\w+)\[1\]\?\w+:("\?"===\1\[1\])/, '$2'],
      [
        /class (\w+) extends (\w+)\{constructor\(\)\{super\(\.\.\.arguments\),this\.type=3\}j\(\w+\)\{this\.element\[this\.name\]=\w+===\w+\?void 0:\w+\}\}/,
        '',
      ],
      [/,B:(\w+),F:/, ',F:'],
      // Directives (`lit/directives/*`, `lit/directive.js`): resolveDirective becomes the identity, which is what it is
      // for any other value (templateWhitespace fails the build on a directive module imported by a widget source).
      [
        /function (\w+)\(\w+,(\w+),\w+=\w+,\w+\)\{if\(\2===\w+\)return \2;.*?\._\$litDirective\$;.*?\1\(\w+,\w+\._\$AS\(\w+,\2\.values\),\w+,\w+\)\),\2\}/,
        'const $1=(t,i)=>i;',
      ],
    ],
    '@lit/reactive-element/reactive-element.js': [
      [/,(\w+)=(\w+)\.reactiveElementPolyfillSupport,/, ','],
      // The default attribute converter's `Number`, `Object` and `Array` types: the element's properties are strings
      // and booleans (templateWhitespace fails the build on another `type:` in a widget source).
      [/;break;case Object:case Array:\w+=null==\w+\?\w+:JSON\.stringify\(\w+\)/, ''],
      [/;break;case Number:.*?catch\(\w+\)\{\w+=null\}/, ''],
      // The `useDefault` property option and the `wrapped` flag of a property declared over an accessor (Lit's
      // `accessor` fields with decorators): the element's properties use neither (templateWhitespace fails the build on
      // `useDefault` or an `accessor` field in a widget source), so the default-values map and its checks never ran.
      [/useDefault:!1,/, ''],
      [/,this\.prototype\.hasOwnProperty\(\w+\)&&\(\(\w+=Object\.create\(\w+\)\)\.wrapped=!0\)/, ''],
      [/(this\[(\w+)\]=(\w+))\?\?this\._\$Ej\?\.get\(\2\)\?\?\3/, '$1'],
      [
        /\|\|(\w+)\.useDefault&&\1\.reflect&&\w+===this\._\$Ej\?\.get\(\w+\)&&!this\.hasAttribute\(\w+\._\$Eu\(\w+,\1\)\)/,
        '',
      ],
      [
        /\{useDefault:(\w+),reflect:(\w+),wrapped:\w+\},\w+\)\{\1&&!\(this\._\$Ej\?\?=new Map\)\.has\((\w+)\)&&\(this\._\$Ej\.set\(\3,\w+\?\?\w+\?\?this\[\3\]\),!0!==\w+\|\|void 0!==\w+\)\|\|\((this\._\$AL\.has\(\3\)\|\|\(this\.hasUpdated\|\|)\1\|\|/,
        '{reflect:$2}){($4',
      ],
      [
        /const (\w+)=this\.constructor\.elementProperties;if\(\1\.size>0\)for\(const\[(\w+),(\w+)\]of \1\)\{const\{wrapped:\w+\}=\3,(\w+)=this\[\2\];.*?this\.\w+\(\2,void 0,\3,\4\)\}/,
        '',
      ],
      [/,\w+\?\.\(\{ReactiveElement:\w+\}\),\(\w+\.reactiveElementVersions\?\?=\[\]\)\.push\("[\d.]+"\)/, ''],
      [/Symbol\.metadata\?\?=Symbol\("metadata"\),\w+\.litPropertyMetadata\?\?=new WeakMap;/, ''],
      [
        /const (\w+)=this\[Symbol\.metadata\];if\(null!==\1\)\{const (\w+)=litPropertyMetadata\.get\(\1\);if\(void 0!==\2\)for\(const\[\w+,\w+\]of \2\)this\.elementProperties\.set\(\w+,\w+\)\}/,
        '',
      ],
    ],
    '@lit/reactive-element/css-tag.js': [
      [/"CSSResult is not constructable[^"]*"/, '"lit"'],
      [
        /(\w+)=(\w+)\.ShadowRoot&&\(void 0===\2\.ShadyCSS\|\|\2\.ShadyCSS\.nativeShadow\)&&"adoptedStyleSheets"in Document\.prototype&&"replace"in CSSStyleSheet\.prototype/,
        '$1=!0',
      ],
    ],
  };
  return {
    name: 'tessera-lit-trim',
    apply: 'build',
    transform(code, id) {
      // Directives reach the bundle through lit-html's directive module, whoever imports it (a widget source, which
      // templateWhitespace names, or a package the widget uses): resolveDirective is the identity, so none would work.
      const path = id.replaceAll('\\', '/');
      if (/\/node_modules\/lit-html\/(?:development\/)?(?:async-)?directive\.js$/.test(path)) {
        throw new Error(`tessera-lit-trim: ${id} is bundled, but litTrim removed directives`);
      }
      const file = Object.keys(edits).find((f) => path.endsWith(`/node_modules/${f}`));
      if (!file) return null;
      let out = code;
      for (const [pattern, replacement] of edits[file]!) {
        if (!pattern.test(out)) throw new Error(`tessera-lit-trim: ${pattern} no longer matches ${file}`);
        out = out.replace(pattern, replacement);
      }
      return { code: out, map: null };
    },
  };
}

/** Writes `<bundle>.LICENSE.txt`: the license of every package bundled in (Lit's three), each text once. */
function thirdPartyLicenses(): Plugin {
  return {
    name: 'tessera-third-party-licenses',
    apply: 'build',
    generateBundle() {
      const texts = new Map<string, string[]>();
      for (const pkg of ['lit', 'lit-html', '@lit/reactive-element']) {
        const text = readFileSync(resolve('node_modules', pkg, 'LICENSE'), 'utf8').trim();
        texts.set(text, [...(texts.get(text) ?? []), pkg]);
      }
      const source = [...texts].map(([text, pkgs]) => `${pkgs.join(', ')}:\n\n${text}\n`).join('\n---\n\n');
      this.emitFile({ type: 'asset', fileName: `${FILE}.LICENSE.txt`, source });
    },
  };
}

/**
 * Locales for the script-tag bundle (docs/decisions/widget.md#widget-locales): writes
 * `locales/<code>.json` and `locales/manifest.json` (code → sha384) beside the bundle,
 * compiles the manifest's hash into the bundle, and swaps the chunk-per-locale loader
 * (./widget/i18n/load.ts, right for bundlers) for the fetch-with-integrity one.
 */
function widgetLocales(): Plugin {
  const files = Object.entries(LAZY_LOCALES).map(([code, strings]) => [code, JSON.stringify(strings)] as const);
  const manifest = JSON.stringify(Object.fromEntries(files.map(([code, json]) => [code, sri(json)])));
  return {
    name: 'tessera-locales',
    enforce: 'pre',
    apply: 'build',
    config: () => ({ define: { __TESSERA_LOCALES_SRI__: JSON.stringify(sri(manifest)) } }),
    resolveId(source, importer) {
      if (source === '../i18n/load.js' && importer?.includes('widget')) return resolve('widget/i18n/load-fetch.ts');
      return null;
    },
    generateBundle() {
      for (const [code, json] of files)
        this.emitFile({ type: 'asset', fileName: `locales/${code}.json`, source: json });
      this.emitFile({ type: 'asset', fileName: 'locales/manifest.json', source: manifest });
    },
  };
}

/**
 * Collapses the whitespace in the static parts of `html`, `svg` and `css` tagged templates
 * (what rollup-plugin-minify-html-literals does, for our own few templates): Lit keeps
 * template text verbatim, so indentation would otherwise ship in the bundle.
 */
function minifyTemplates(src: string): string {
  let out = '';
  let i = 0;
  const tag = /\b(html|svg|css)`/g;
  for (let m = tag.exec(src); m; m = tag.exec(src)) {
    const start = m.index + m[0].length;
    const parts: [number, number][] = [];
    const end = scanTemplate(src, start, parts);
    out += src.slice(i, start);
    let pos = start;
    for (const [a, b] of parts) {
      out += squeeze(src.slice(pos, a), m[1] === 'css') + src.slice(a, b);
      pos = b;
    }
    out += squeeze(src.slice(pos, end), m[1] === 'css');
    i = end;
    tag.lastIndex = end;
  }
  return out + src.slice(i);
}

function squeeze(text: string, isCss: boolean): string {
  const s = text.replace(/\s+/g, ' ');
  // litTrim removed lit-html's support for bindings inside comments and raw-text elements, and for property bindings
  // (`.value=${…}`, as lit-html finds them: spaces around the `=`, text before the binding in the value): none may
  // appear.
  const unsupported = isCss
    ? null
    : /<!--|<(?:script|style|textarea|title)\b|\s\.[^\s"'>=/]+ ?= ?(?:"[^"]*|'[^']*|[^\s"'`<>=]*)$/i.exec(s);
  if (unsupported) throw new Error(`tessera-template-whitespace: ${unsupported[0]} in a template (see litTrim)`);
  return isCss
    ? s
        .replace(/\/\*.*?\*\//g, '')
        .replace(/ *([{};,>]) */g, '$1')
        .replace(/ \/ /g, '/')
        .replace(/: /g, ':')
        .replace(/;}/g, '}')
        .replace(/([\s:(,])0\.(\d)/g, '$1.$2')
        .replace(/='(\w+)'\]/g, '=$1]')
    : s.replace(/> </g, '><').replace(/^ </, '<').replace(/> $/, '>');
}

/** Index of the backtick closing the template that starts at `i`; `${…}` spans are pushed to `parts`. */
function scanTemplate(src: string, i: number, parts: [number, number][]): number {
  while (i < src.length) {
    const c = src[i];
    if (c === '\\') i += 2;
    else if (c === '`') return i;
    else if (c === '$' && src[i + 1] === '{') {
      const a = i;
      i = scanExpression(src, i + 2);
      parts.push([a, i]);
    } else i++;
  }
  throw new Error('unterminated template literal');
}

/** Index just after the `}` that closes an expression starting at `i`. */
function scanExpression(src: string, i: number): number {
  let depth = 1;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '`') i = scanTemplate(src, i + 1, []) + 1;
    else if (c === "'" || c === '"') {
      i++;
      while (src[i] !== c) i += src[i] === '\\' ? 2 : 1;
      i++;
    } else {
      if (c === '{') depth++;
      else if (c === '}' && --depth === 0) return i + 1;
      i++;
    }
  }
  throw new Error('unterminated template expression');
}

/**
 * The first `get name(`/`set name(` in `code` whose name is a key of its `static properties` (an object literal, or
 * one a `static get properties()` returns), or undefined. Lit marks such a property `wrapped` (the class's
 * prototype has it) and reports it changed in the first update; litTrim removed that.
 */
function accessorOverProperty(code: string): string | undefined {
  const start = /\bproperties\s*(?:=|\(\)\s*\{\s*return)\s*\{/.exec(code);
  if (!start) return undefined;
  const from = start.index + start[0].length;
  // The literal's own keys: its nested objects (the options) are emptied first.
  let keys = code.slice(from, scanExpression(code, from) - 1);
  for (let prev = ''; prev !== keys; ) [prev, keys] = [keys, keys.replace(/\{[^{}]*\}/g, '{}')];
  for (const [, key] of keys.matchAll(/['"]?([\w$]+)['"]?\s*:/g)) {
    const accessor = new RegExp(`\\b(?:get|set)\\s+${key!.replaceAll('$', '\\$')}\\s*\\(`).exec(code);
    if (accessor) return accessor[0];
  }
  return undefined;
}

/** Applies {@link minifyTemplates} to the widget's sources. Exported for its test. */
export function templateWhitespace(): Plugin {
  return {
    name: 'tessera-template-whitespace',
    apply: 'build',
    enforce: 'pre',
    transform(code, id) {
      if (!/[/\\]widget[/\\].*\.ts$/.test(id)) return null;
      // litTrim removed lit-html's `svg` and `mathml` templates (an `<svg>` inside `html` is what the widget uses): no
      // such tag (spaced from its template or not), and none imported under another name, nor the directives that
      // make such templates.
      const tag =
        /\b(?:svg|mathml)\s*`|\bimport\b[^;]*\b(?:svg|mathml|unsafeSVG|unsafeMathML)\b[^;]*\bfrom\s*['"]lit/.exec(code);
      if (tag) throw new Error(`tessera-template-whitespace: ${tag[0]} template in ${id} (see litTrim)`);
      // litTrim removed the attribute converter's Number, Object and Array types: a property of those would take the
      // attribute's text as it is.
      const type = /\btype\s*:\s*(?:Number|Object|Array)\b/.exec(code);
      if (type) throw new Error(`tessera-template-whitespace: ${type[0]} property in ${id} (see litTrim)`);
      // litTrim removed directives (resolveDirective is the identity), the `useDefault` property option and the
      // handling of `accessor` fields: none of them would work.
      const trimmed = /['"](?:lit|lit-html)\/(?:async-)?directives?\b|\buseDefault\b|\baccessor\s+#?\w+\s*[=;:!?]/.exec(
        code,
      );
      if (trimmed) throw new Error(`tessera-template-whitespace: ${trimmed[0]} in ${id} (see litTrim)`);
      // A reactive property over the class's own getter or setter is `wrapped` as an accessor field is.
      const over = accessorOverProperty(code);
      if (over) throw new Error(`tessera-template-whitespace: ${over} over a reactive property in ${id} (see litTrim)`);
      return /\b(html|svg|css)`/.test(code) ? { code: minifyTemplates(code), map: null } : null;
    },
  };
}

/**
 * Property names private to this bundle, mangled by the minifier like Lit's `_$` ones
 * (docs/decisions/widget.md#widget-bundle-size): the brand table's fields (shared/card/brands.ts), the card
 * formatter's and checker's results (shared/card/format.ts, validate.ts) and lit-html's template internals. The
 * minifier renames every property of that name, whoever owns it, so a name here must never be one a page, a locale
 * file or the browser reads: not in an event detail or `Strings`, not a DOM or built-in member
 * (test/node/widget/mangled-names.test.ts checks these against TypeScript's declarations of both).
 */
export const MANGLED_PROPERTIES = [
  'patterns',
  'lengths',
  'gaps',
  'cvvLength',
  'luhn',
  'digits',
  'caret',
  'problem',
  'strings',
  'parts',
  'ctor',
  'renderBefore',
  'creationScope',
] as const;

// Library mode: one minified ES module for <script type="module">, Lit bundled in.
export default defineConfig({
  build: {
    outDir: OUT_DIR,
    emptyOutDir: false,
    sourcemap: true,
    minify: true,
    target: 'es2022',
    // Vite keeps whitespace and /* @__PURE__ */ marks in an ES library for the next bundler; this file is
    // final (served as is to browsers), so it gets the full minifier.
    rolldownOptions: {
      // Lit's modules each carry a short BSD-3-Clause notice; the full license texts go beside the bundle instead
      // (thirdPartyLicenses below), as webpack's extractComments does (docs/decisions/widget.md#widget-bundle-size).
      // Lit's cross-version internals (`_$AH`, `_$litType$`, …) keep their names in Lit's own build so that templates
      // and parts of two Lit copies can meet; in this bundle Lit is private (nothing outside renders with it or hands it
      // a template), so they are mangled like any other name (docs/decisions/widget.md#widget-bundle-size).
      // So are the bundle's own private property names (MANGLED_PROPERTIES above).
      output: {
        minify: {
          compress: true,
          mangle: true,
          codegen: true,
          mangleProps: { include: new RegExp(`^(?:_\\$|(?:${MANGLED_PROPERTIES.join('|')})$)`) },
        },
        comments: { annotation: false, jsdoc: false, legal: false },
      },
      // `lit` re-exports LitElement, whose module only registers itself (version list, hydration
      // hooks); the element extends ReactiveElement, so that module can go (docs/decisions/widget.md#widget-reactive-element).
      treeshake: { moduleSideEffects: (id: string) => !/[/\\]lit-element[/\\]/.test(id) },
    },
    lib: {
      entry: resolve('widget/card-form/define.ts'),
      formats: ['es'],
      fileName: () => FILE,
    },
  },
  plugins: [templateWhitespace(), litTrim(), widgetLocales(), thirdPartyLicenses(), subresourceIntegrity()],
});
