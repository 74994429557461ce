/** Older or alternative language subtags that name one of our locale files. */
const ALIASES: Readonly<Record<string, string>> = { no: 'nb', nn: 'nb', iw: 'he', in: 'id' };

/**
 * Picks the best of the `available` locale codes for a BCP 47 tag: the whole
 * tag (`pt-br`), then its language (`pt`), then English. Case and `_` are forgiven.
 *
 * @example matchLocale('he-IL', ['en', 'he']) // 'he'
 */
export function matchLocale(tag: string, available: readonly string[]): string {
  const full = tag.trim().toLowerCase().replace(/_/g, '-');
  const lang = full.split('-')[0]!;
  for (const code of [full, lang, ALIASES[lang]]) {
    if (code && available.includes(code)) return code;
  }
  return 'en';
}
