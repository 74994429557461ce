/** Console warnings carry a stable code and a hint, each once per page (per URL at fault), and never card data. */
const warned = new Set<string>();

/** Warns `[tessera] CODE: hint` unless this very line was warned before. */
export function warnOnce(code: string, hint: string): void {
  const line = `[tessera] ${code}: ${hint}`;
  if (warned.has(line)) return;
  warned.add(line);
  console.warn(line);
}
