import type { ConfigReason } from './events.js';

/**
 * The codes of the widget's console warnings (dev help, sandbox mode only): one per {@link ConfigReason}, and a
 * second definition of the element (two script tags on one page).
 */
export type WidgetWarningCode = `TESSERA_${Uppercase<ConfigReason>}` | 'TESSERA_ALREADY_DEFINED';

/** Console warnings carry a stable code and a hint, each once per page (per URL at fault), and never card data. */
const warned = new Set<string>();

/** Warns `[tessera] CODE: hint` unless this very line was warned before. */
export function warnOnce(code: WidgetWarningCode, hint: string): void {
  const line = `[tessera] ${code}: ${hint}`;
  if (warned.has(line)) return;
  warned.add(line);
  console.warn(line);
}
