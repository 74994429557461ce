/** Older or alternative language subtags that name one of our locale files. */
const ALIASES: Readonly<Record<string, string>> = { no: 'nb', nn: 'nb', iw: 'he', in: 'id' };

/**
 * Picks the best of the `available` locale codes for a BCP 47 tag: the whole tag (`pt-br`), then its first two
 * subtags (`zh-hant` for `zh-Hant-TW`), then its language (`pt`); undefined when none is available (the caller shows
 * English). Case and `_` are forgiven. Chinese of Taiwan, Hong Kong and Macau without a script (`zh-TW`) is
 * Traditional (`zh-Hant-TW`).
 *
 * @example matchLocale('he-IL', ['en', 'he']) // 'he'
 */
export function matchLocale(tag: string, available: readonly string[]): string | undefined {
  const full = tag
    .trim()
    .toLowerCase()
    .replace(/_/g, '-')
    .replace(/^zh-(tw|hk|mo)\b/, 'zh-hant');
  const [lang, sub] = full.split('-');
  for (const code of [full, `${lang}-${sub}`, lang, ALIASES[lang!]]) {
    if (code && available.includes(code)) return code;
  }
}
