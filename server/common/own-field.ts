/**
 * Writes `value` as the own field `key` of `out`. `out[key] = value` with the key `__proto__` (an own field of what
 * `JSON.parse('{"__proto__": …}')` returns, or of a provider's answer) sets the copy's prototype instead: the field
 * is missing from the copy and its value becomes the copy's prototype, whose fields the copy then seems to have. Every
 * copy of outside data keyed by that data's own keys writes through here (log lines, the XML codec, the coercion of
 * decoded XML). Any other key is assigned as before (one comparison).
 */
export function setField(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}
