/**
 * Every shipped locale at once, for build tooling and tests only (the build writes
 * them out as JSON files; the tests check each is complete). The widget itself
 * never imports this module: it loads one locale on demand through ./load.ts.
 */
import ar from './locales/ar.js';
import cs from './locales/cs.js';
import da from './locales/da.js';
import de from './locales/de.js';
import es from './locales/es.js';
import fi from './locales/fi.js';
import fr from './locales/fr.js';
import he from './locales/he.js';
import hi from './locales/hi.js';
import id from './locales/id.js';
import it from './locales/it.js';
import ja from './locales/ja.js';
import ko from './locales/ko.js';
import nb from './locales/nb.js';
import nl from './locales/nl.js';
import pl from './locales/pl.js';
import pt from './locales/pt.js';
import ptBr from './locales/pt-br.js';
import ru from './locales/ru.js';
import sv from './locales/sv.js';
import tr from './locales/tr.js';
import uk from './locales/uk.js';
import zh from './locales/zh.js';
import zhHant from './locales/zh-hant.js';
import type { Strings } from './strings.js';

/** The locales loaded on demand, by code (English, built in, is not among them). */
export const LAZY_LOCALES: Readonly<Record<string, Strings>> = {
  ar,
  cs,
  da,
  de,
  es,
  fi,
  fr,
  he,
  hi,
  id,
  it,
  ja,
  ko,
  nb,
  nl,
  pl,
  pt,
  'pt-br': ptBr,
  ru,
  sv,
  tr,
  uk,
  zh,
  'zh-hant': zhHant,
};
