// Browser tests: @web/test-runner + @open-wc/testing in Chromium, Firefox ESR and WebKitGTK, all from
// Debian packages (scripts/engines.js, scripts/wtr-launchers.js); $TESSERA_BROWSERS narrows the engines.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { tsImport } from 'tsx/esm/api';
import { keyActions, launchers } from './scripts/wtr-launchers.js';

const sri = (/** @type {string} */ text) => `sha384-${createHash('sha384').update(text).digest('base64')}`;

/**
 * The engine a request or a test session belongs to: from the browser's user agent (a page's requests) or the
 * launcher's name (server commands). Chromium says `Chrome`, Firefox `Firefox`, WebKitGTK neither.
 * @param {string} text
 */
function engineOf(text) {
  if (/firefox/i.test(text)) return 'firefox';
  if (/chrom/i.test(text)) return 'chromium';
  return 'webkit';
}

/**
 * The real provider sandbox (server/sandbox) for the widget's tokenizing tests, one per engine: the three engines
 * run at once, and a fault, a clock step or a reset one engine's test makes must not reach another engine's
 * requests (a shared sandbox made "a provider 5xx surfaces as a provider error" take another engine's fault).
 * Tests read `/__sandbox.json` ({ url, publicKey, tokenUrl }) or `/__sandbox-config.json` and drive it through
 * server commands: `sandbox-fault` (the sandbox's own fault injection), `sandbox-advance` (its virtual clock) and
 * `sandbox-reset`.
 *
 * @returns {import('@web/test-runner').TestRunnerPlugin}
 */
function sandboxPlugin() {
  /** @type {Map<string, Promise<any>>} */
  const sandboxes = new Map();
  /** @type {((options: object) => Promise<any>) | undefined} */
  let start;
  /** @param {string} engine */
  const sandboxFor = (engine) => {
    let sandbox = sandboxes.get(engine);
    if (!sandbox) {
      sandbox = /** @type {NonNullable<typeof start>} */ (start)({ port: 0 });
      sandboxes.set(engine, sandbox);
    }
    return sandbox;
  };
  return {
    name: 'tessera-sandbox',
    async serverStart() {
      ({ startSandbox: start } = await tsImport('./server/sandbox/index.ts', import.meta.url));
    },
    async serverStop() {
      await Promise.all([...sandboxes.values()].map(async (s) => (await s).close()));
    },
    async serve(context) {
      if (context.path !== '/__sandbox.json' && context.path !== '/__sandbox-config.json') return undefined;
      const sandbox = await sandboxFor(engineOf(context.get('user-agent')));
      const { publicKey } = sandbox.credentials;
      const tokenUrl = `${sandbox.url}/api2/v2/tokens/card`;
      if (context.path === '/__sandbox.json') {
        return { body: JSON.stringify({ url: sandbox.url, publicKey, tokenUrl }), type: 'json' };
      }
      // The helper's /config answer (server/helper), for the config-url test.
      return { body: JSON.stringify({ publicKey, cardTokenUrl: tokenUrl, environment: 'sandbox' }), type: 'json' };
    },
    async executeCommand({ command, payload, session }) {
      if (!['sandbox-fault', 'sandbox-advance', 'sandbox-reset'].includes(command)) return undefined;
      const sandbox = await sandboxFor(engineOf(session.browser.name));
      if (command === 'sandbox-fault') {
        sandbox.context.faults.add({
          method: 'POST',
          path: '/api2/v2/tokens/card',
          count: 1,
          phase: 'before',
          .../** @type {object} */ (payload),
        });
      } else if (command === 'sandbox-advance') {
        sandbox.clock.advance(/** @type {{ seconds: number }} */ (payload).seconds);
      } else {
        sandbox.context.reset();
      }
      return true;
    },
  };
}

/**
 * What the script-tag bundle's locale loader fetches, built from the same sources as vite.config.ts:
 * `/__locales/manifest.json` and `/__locales/<code>.json`, plus `/__locales/manifest.sri` (the hash the
 * build compiles into the bundle). `/__locales-tampered/` serves one altered file under the same manifest.
 *
 * @returns {import('@web/test-runner').TestRunnerPlugin}
 */
function localesPlugin() {
  /** @type {Map<string, string>} */
  const files = new Map();
  return {
    name: 'tessera-locales',
    async serverStart() {
      const { LAZY_LOCALES } = await tsImport('./widget/i18n/all.ts', import.meta.url);
      /** @type {Record<string, string>} */
      const hashes = {};
      for (const [code, strings] of Object.entries(LAZY_LOCALES)) {
        const json = JSON.stringify(strings);
        files.set(`${code}.json`, json);
        hashes[code] = sri(json);
      }
      const manifest = JSON.stringify(hashes);
      files.set('manifest.json', manifest);
      files.set('manifest.sri', sri(manifest));
    },
    serve(context) {
      const m = /^\/__locales(-tampered)?\/([a-z.-]+)$/.exec(context.path);
      const name = m?.[2] ?? '';
      let body = files.get(name);
      if (body === undefined) return undefined;
      if (m?.[1] && name !== 'manifest.json') body = body.replace('"numberLabel":"', '"numberLabel":"!');
      return { body, type: name.endsWith('.json') ? 'json' : 'txt' };
    },
  };
}

/**
 * `/__csp.html`: a page under a strict Content Security Policy with Trusted Types enforced that loads
 * the widget's sources, for the test that proves it needs no inline script, eval or style attributes.
 * `/__csp-probe.js` records every violation in `window.violations`.
 *
 * @returns {import('@web/test-runner').TestRunnerPlugin}
 */
function cspPagePlugin() {
  return {
    name: 'tessera-csp-page',
    serve(context) {
      if (context.path === '/__csp-probe.js') {
        return {
          body: "window.violations = []; document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.violatedDirective + ' ' + e.blockedURI));",
          type: 'js',
        };
      }
      if (context.path !== '/__csp.html') return undefined;
      context.response.set(
        'Content-Security-Policy',
        [
          "default-src 'none'",
          "script-src 'self'",
          "style-src 'self'",
          "connect-src 'self' http://127.0.0.1:*",
          "require-trusted-types-for 'script'",
          'trusted-types lit-html',
          "base-uri 'none'",
        ].join('; '),
      );
      return {
        type: 'html',
        body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>CSP</title>
<script src="/__csp-probe.js"></script>
<script type="module" src="/widget/card-form/define.ts"></script></head>
<body><form><tessera-card-form></tessera-card-form><button>Pay</button></form></body></html>`,
      };
    },
  };
}

/**
 * `paste`: puts text on the clipboard and presses Ctrl+V in the page, so the widget sees a real
 * `insertFromPaste` input event. Chromium: playwright's clipboard permission and key press.
 * Firefox: puppeteer over WebDriver BiDi grants no clipboard permission, so the text goes on the
 * clipboard from a real key press's user activation (Firefox allows `clipboard.writeText` then).
 * WebKit: `clipboard.writeText` is refused without a user gesture, so the text is copied from a scratch
 * textarea with a real Ctrl+C, focus and caret go back to the field, and Ctrl+V pastes it.
 *
 * @returns {import('@web/test-runner').TestRunnerPlugin}
 */
function pastePlugin() {
  return {
    name: 'tessera-paste',
    async executeCommand({ command, payload, session }) {
      if (command !== 'paste') return undefined;
      /** @type {any} */
      const launcher = session.browser;
      if (launcher.type === 'playwright') {
        const page = launcher.getPage(session.id);
        await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
        await page.evaluate((/** @type {string} */ text) => navigator.clipboard.writeText(text), payload.text);
        await page.keyboard.press('Control+V');
        return true;
      }
      if (launcher.type === 'puppeteer') {
        const page = launcher.getPage(session.id);
        await page.evaluate((/** @type {string} */ text) => navigator.clipboard.writeText(text), payload.text);
        await page.keyboard.down('Control');
        await page.keyboard.press('v');
        await page.keyboard.up('Control');
        return true;
      }
      const driver = launcher.driver;
      const chord = async (/** @type {string} */ keys) => {
        await driver.performActions([{ type: 'key', id: 'keyboard', actions: keyActions([keys]) }]);
        await driver.releaseActions();
      };
      // Copy from a scratch textarea with a real Ctrl+C, then give focus and caret back and press Ctrl+V.
      await driver.execute((/** @type {string} */ text) => {
        let active = document.activeElement;
        while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
        const field = /** @type {HTMLInputElement} */ (active);
        /** @type {any} */ (window).__pasteBack = { field, start: field.selectionStart, end: field.selectionEnd };
        const scratch = document.createElement('textarea');
        scratch.id = '__paste-scratch';
        scratch.value = text;
        document.body.append(scratch);
        scratch.select();
      }, payload.text);
      await chord('Control+c');
      await driver.execute(() => {
        document.getElementById('__paste-scratch')?.remove();
        const { field, start, end } = /** @type {any} */ (window).__pasteBack;
        field.focus();
        field.setSelectionRange(start, end);
      });
      await chord('Control+v');
      return true;
    },
  };
}

/**
 * `ime`: composes `payload.text` one character at a time through Chromium's IME (CDP
 * `Input.imeSetComposition`, as a Japanese keyboard does for full-width digits), then commits it.
 * Firefox and WebKit offer no IME composition to automation (WebDriver has no composition
 * actions and neither engine speaks CDP), so there the command answers `false` and the test
 * checks the same characters arriving as committed text (what an IME's commit inserts).
 *
 * @returns {import('@web/test-runner').TestRunnerPlugin}
 */
function imePlugin() {
  return {
    name: 'tessera-ime',
    async executeCommand({ command, payload, session }) {
      if (command !== 'ime') return undefined;
      /** @type {any} */
      const launcher = session.browser;
      if (launcher.type !== 'playwright') return false;
      const page = launcher.getPage(session.id);
      const cdp = await page.context().newCDPSession(page);
      let text = '';
      for (const c of payload.text) {
        text += c;
        await cdp.send('Input.imeSetComposition', { text, selectionStart: text.length, selectionEnd: text.length });
      }
      await cdp.send('Input.insertText', { text });
      await cdp.detach();
      return true;
    },
  };
}

/**
 * `color-scheme`: emulates prefers-color-scheme where the automation can (Chromium through playwright)
 * and answers false elsewhere, so the test can fall back (see robustness.test.ts).
 *
 * @returns {import('@web/test-runner').TestRunnerPlugin}
 */
function colorSchemePlugin() {
  return {
    name: 'tessera-color-scheme',
    async executeCommand({ command, payload, session }) {
      if (command !== 'color-scheme') return undefined;
      /** @type {any} */
      const launcher = session.browser;
      if (launcher.type !== 'playwright') return false;
      await launcher.getPage(session.id).emulateMedia({ colorScheme: payload.colorScheme });
      return true;
    },
  };
}

/**
 * React for test/browser/react.test.ts. React 19 ships CommonJS only, which the dev server cannot serve to a
 * browser, so `react`, `react-dom` and `react-dom/client` are built once into ES modules with vite (one shared
 * React instance, `process.env.NODE_ENV` set as a bundler sets it) and served under `/__react/`; the bare imports
 * resolve there. Only the default export exists, as for any CommonJS module imported from ESM.
 *
 * @returns {import('@web/test-runner').TestRunnerPlugin}
 */
function reactPlugin() {
  const require = createRequire(import.meta.url);
  /** @type {Record<string, string>} bare specifier → served file */
  const entries = { react: 'react.js', 'react-dom': 'react-dom.js', 'react-dom/client': 'react-dom-client.js' };
  /** @type {Map<string, string>} */
  const files = new Map();
  return {
    name: 'tessera-react',
    async serverStart() {
      const { build } = await import('vite');
      const result = await build({
        configFile: false,
        logLevel: 'warn',
        define: { 'process.env.NODE_ENV': JSON.stringify('development') },
        build: {
          write: false,
          minify: false,
          target: 'es2022',
          lib: {
            entry: Object.fromEntries(
              Object.entries(entries).map(([spec, file]) => [file.slice(0, -3), require.resolve(spec)]),
            ),
            formats: ['es'],
          },
        },
      });
      for (const output of Array.isArray(result) ? result : [result]) {
        if (!('output' in output)) continue;
        for (const chunk of output.output) if (chunk.type === 'chunk') files.set(chunk.fileName, chunk.code);
      }
    },
    resolveImport({ source }) {
      const file = entries[source];
      return file ? `/__react/${file}` : undefined;
    },
    serve(context) {
      if (!context.path.startsWith('/__react/')) return undefined;
      const body = files.get(context.path.slice('/__react/'.length));
      return body === undefined ? undefined : { body, type: 'js' };
    },
  };
}

/**
 * What a wrong mount path gives the widget: `/__page-404/…` answers 404 with an HTML page (any method), and
 * `/__page-200/…` 200 with the site's HTML, as a catch-all front-end route does.
 *
 * @type {import('@web/dev-server-core').Middleware}
 */
async function wrongPathPages(context, next) {
  const m = /^\/__page-(404|200)\//.exec(context.path);
  if (!m) return next();
  context.status = Number(m[1]);
  context.type = 'text/html';
  context.body = '<!doctype html><html><head><title>Shop</title></head><body><h1>Not here</h1></body></html>';
}

/**
 * A redirect in front of a URL: `/__redirect-307?to=<url>` answers 307 to it, as a misconfigured proxy or a hostile
 * endpoint might (a 307 asks the browser to send the same body again, card included).
 *
 * @type {import('@web/dev-server-core').Middleware}
 */
async function redirects(context, next) {
  if (context.path !== '/__redirect-307') return next();
  context.status = 307;
  context.set('Location', String(context.query.to));
}

export default {
  files: ['test/browser/**/*.test.ts'],
  middleware: [wrongPathPages, redirects],
  nodeResolve: true,
  concurrency: 1,
  testFramework: { config: { timeout: 10_000 } },
  plugins: [
    esbuildPlugin({ ts: true, target: 'es2022', tsconfig: 'tsconfig.json' }),
    sandboxPlugin(),
    reactPlugin(),
    localesPlugin(),
    cspPagePlugin(),
    pastePlugin(),
    imePlugin(),
    colorSchemePlugin(),
  ],
  browsers: launchers(),
};
