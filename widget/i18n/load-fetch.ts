/**
 * Locale loading for the script-tag bundle. The bundle is one file pinned by
 * the page's `integrity` attribute; locale files must stay covered by that pin,
 * so they are JSON files beside the bundle (`locales/<code>.json`) listed in
 * `locales/manifest.json` with their sha384 hashes, and the manifest's own hash
 * is compiled into the bundle. Both are fetched with `fetch(url, { integrity })`,
 * so a changed file is refused by the browser. See docs/decisions/widget.md#widget-locales.
 */
import { matchLocale } from './match.js';
import { en, type Strings } from './strings.js';

/** Replaced at build time by vite.config.ts with the manifest's `sha384-…` value. */
declare const __TESSERA_LOCALES_SRI__: string;

const manifests = new Map<string, Promise<Record<string, string>>>();

function getJson<T>(url: URL, integrity: string): Promise<T> {
  return fetch(url, { integrity, credentials: 'omit' }).then((r) => {
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    return r.json() as Promise<T>;
  });
}

/**
 * Loads the locale that best fits `tag` from `base` (a folder URL holding
 * `manifest.json` and `<code>.json`), checking every file against the hashes.
 * Rejects when a file is missing or does not match its hash.
 */
export async function fetchLocale(
  base: URL,
  manifestIntegrity: string,
  tag: string,
): Promise<readonly [string, Strings]> {
  // English is in the bundle: an English page (the default) fetches nothing, not even the manifest.
  if (!matchLocale(tag, ['en'])) {
    const key = base.href + manifestIntegrity;
    let manifest = manifests.get(key);
    if (!manifest) {
      manifest = getJson<Record<string, string>>(new URL('manifest.json', base), manifestIntegrity);
      manifests.set(key, manifest);
      manifest.catch(() => manifests.delete(key));
    }
    const hashes = await manifest;
    const code = matchLocale(tag, Object.keys(hashes));
    if (code) return [code, await getJson<Strings>(new URL(`${code}.json`, base), hashes[code]!)];
  }
  return ['en', en];
}

/** Same contract as ./load.ts: the bundle's folder `locales/` next to the bundle file. */
export function loadLocale(tag: string): Promise<readonly [string, Strings]> {
  // Not `new URL('locales/', import.meta.url)`: Vite would try to bundle that folder as an asset.
  const bundleUrl = import.meta.url;
  return fetchLocale(new URL('locales/', bundleUrl), __TESSERA_LOCALES_SRI__, tag);
}
