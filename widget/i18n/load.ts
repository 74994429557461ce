/**
 * Locale loading for `tessera-pay/widget` (the unbundled module that bundlers use):
 * each locale is a module of its own, imported on demand, so a bundler splits
 * it into a chunk and a page downloads only the locale it shows.
 *
 * The script-tag bundle replaces this module with ./load-fetch.ts at build time
 * (see vite.config.ts and docs/decisions/widget.md#widget-locales).
 */
import { matchLocale } from './match.js';
import { en, type Strings } from './strings.js';

type Loader = () => Promise<{ default: Strings }>;

const LOADERS: Readonly<Record<string, Loader>> = {
  ar: () => import('./locales/ar.js'),
  cs: () => import('./locales/cs.js'),
  da: () => import('./locales/da.js'),
  de: () => import('./locales/de.js'),
  es: () => import('./locales/es.js'),
  fi: () => import('./locales/fi.js'),
  fr: () => import('./locales/fr.js'),
  he: () => import('./locales/he.js'),
  hi: () => import('./locales/hi.js'),
  id: () => import('./locales/id.js'),
  it: () => import('./locales/it.js'),
  ja: () => import('./locales/ja.js'),
  ko: () => import('./locales/ko.js'),
  nb: () => import('./locales/nb.js'),
  nl: () => import('./locales/nl.js'),
  pl: () => import('./locales/pl.js'),
  pt: () => import('./locales/pt.js'),
  'pt-br': () => import('./locales/pt-br.js'),
  ru: () => import('./locales/ru.js'),
  sv: () => import('./locales/sv.js'),
  tr: () => import('./locales/tr.js'),
  uk: () => import('./locales/uk.js'),
  zh: () => import('./locales/zh.js'),
  'zh-hant': () => import('./locales/zh-hant.js'),
};

/** Every locale the widget ships, English first. */
export const LOCALE_CODES: readonly string[] = ['en', ...Object.keys(LOADERS)];

/** Resolves a BCP 47 tag to the best shipped locale and its strings (English when none fits). */
export async function loadLocale(tag: string): Promise<readonly [string, Strings]> {
  const code = matchLocale(tag, LOCALE_CODES);
  const load = code && LOADERS[code];
  return load ? [code, (await load()).default] : ['en', en];
}
