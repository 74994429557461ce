import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './package-root.js';

/** File name of the script-tag bundle inside `dist/widget/`. */
export const WIDGET_FILE = 'tessera-card-form.js';

export interface WidgetAsset {
  /** Absolute path of the built bundle. */
  readonly path: string;
  /** The bundle's bytes. */
  readonly body: Buffer;
  /** Subresource Integrity value, `sha384-…`, for the `integrity` attribute. */
  readonly integrity: string;
}

/** Where the built bundle is: `dist/widget/` of the package (of the repository, run from a clone). */
function widgetBundlePath(): string {
  return join(packageRoot(), 'dist', 'widget', WIDGET_FILE);
}

/** What to do about a missing bundle, for the server's developer (it names a path: never in an answer to a browser). */
function widgetNotBuilt(path: string): string {
  return (
    `the widget bundle is missing at ${path}: in a clone of the repository, run \`npm run build\` first ` +
    '(`npm start` builds it for the demo); the npm package ships it, so an installed package without it is a broken ' +
    'install: install it again'
  );
}

/**
 * Why the widget bundle could not be loaded. `missing` only when it is not there (ENOENT): building it helps. Any other
 * error (EACCES, EMFILE, EISDIR, …) is named by its `code` and the path, with no word of the build, which would not
 * help (it names a path: never in an answer to a browser).
 */
export class WidgetBundleError extends Error {
  /** Whether the bundle is not there at all (ENOENT). */
  readonly missing: boolean;
  /** The error's code (`ENOENT`, `EACCES`, `EISDIR`, …), or undefined when it had none. */
  readonly code: string | undefined;
  constructor(who: string, path: string, cause: unknown) {
    const code = (cause as { code?: unknown } | null)?.code;
    const missing = code === 'ENOENT';
    super(
      missing
        ? `${who}: ${widgetNotBuilt(path)}`
        : `${who}: the widget bundle at ${path} could not be read (${typeof code === 'string' ? code : String(cause)}): ` +
            'check its permissions and that it is a file',
      { cause },
    );
    this.name = 'WidgetBundleError';
    this.missing = missing;
    this.code = typeof code === 'string' ? code : undefined;
  }
}

/**
 * Throws a {@link WidgetBundleError} when the bundle is missing or is no readable file. For what needs it from the
 * start (`helper.page()`): a `statSync` and an open for reading, nothing read or hashed, so a built package starts as
 * fast as before. The open is what finds a file the process may not read (EACCES): `stat` needs no read permission.
 */
export function requireWidgetBundle(who: string): void {
  const path = widgetBundlePath();
  let file: boolean;
  try {
    file = statSync(path).isFile();
    if (file) closeSync(openSync(path, 'r'));
  } catch (cause) {
    throw new WidgetBundleError(who, path, cause);
  }
  if (!file) {
    throw new WidgetBundleError(who, path, Object.assign(new Error(`${path} is not a file`), { code: 'EISDIR' }));
  }
}

/**
 * Reads the built widget bundle and hashes it for its SRI value. The hash is made from the bytes read, not taken from
 * the `.sri` file the build writes beside the bundle: that file is written after the bundle, so a server that read
 * the pair mid-build (`vite build --watch`), or a deploy that copied one and not the other, would name a hash the
 * bundle it serves does not have, and browsers would refuse the widget.
 * Throws a {@link WidgetBundleError}: `missing` when the package has not been built, else naming the error's code.
 */
export function loadWidgetAsset(): WidgetAsset {
  const path = widgetBundlePath();
  let body: Buffer;
  try {
    // `widgetScriptTag()` without `integrity` asks on every page: the file is read and hashed again only when it
    // changed (its size or modification time), not for each page.
    const { size, mtimeMs } = statSync(path);
    if (last?.path === path && last.size === size && last.mtimeMs === mtimeMs) return last.asset;
    body = readFileSync(path);
    last = { path, size, mtimeMs, asset: { path, body, integrity: sri(body) } };
    return last.asset;
  } catch (cause) {
    throw new WidgetBundleError('tessera', path, cause);
  }
}

const sri = (body: Buffer) => `sha384-${createHash('sha384').update(body).digest('base64')}`;

/** The bundle read last, with the size and time of the file it was read from. */
let last: { path: string; size: number; mtimeMs: number; asset: WidgetAsset } | undefined;

const LOCALE_FILE = /^([a-z]{2,3}(-[A-Za-z0-9]{2,8})*|manifest)\.json$/;

/**
 * One file of the widget's `locales/` folder (`de.json`, `manifest.json`), or undefined when the name is not a
 * locale file name or the file does not exist. The widget fetches them beside its bundle and checks each against
 * the hash manifest pinned in the bundle (docs/decisions/widget.md#widget-locales).
 */
export function loadWidgetLocale(name: string): Buffer | undefined {
  if (!LOCALE_FILE.test(name)) return undefined;
  try {
    return readFileSync(join(packageRoot(), 'dist', 'widget', 'locales', name));
  } catch {
    return undefined;
  }
}

/**
 * The bundle's source map (`tessera-card-form.js.map`, which the bundle's last line names), or undefined when the
 * package holds none. Served beside the bundle so a browser's developer tools find it instead of a 404.
 */
export function loadWidgetSourceMap(): Buffer | undefined {
  try {
    return readFileSync(join(packageRoot(), 'dist', 'widget', `${WIDGET_FILE}.map`));
  } catch {
    return undefined;
  }
}

/** A short, URL-safe version of the bundle derived from its SRI hash (`?v=` of the script URL). */
export function widgetVersion(integrity: string): string {
  return integrity
    .replace(/^sha\d+-/, '')
    .slice(0, 16)
    .replace(/\+/g, '-')
    .replace(/\//g, '_');
}
