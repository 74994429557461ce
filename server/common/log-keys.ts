/**
 * The keys of a logged copy, for every cleaner that writes one (the helper's redactor, the provider clients',
 * the sandbox's request log): a key is text of the line, cleaned as any string is, and written as an own field
 * whatever its name (`setField`, server/common/own-field.ts; docs/decisions/helper.md#helper-logging).
 */

/** The most keys a {@link keyCleaner} remembers as holding nothing to clean, each of at most 64 characters. */
export const PLAIN_KEYS_MAX = 1024;

/** A key cleaner: `text` of the key, plain keys remembered; `forget()` after the rules learn a new secret. */
export interface KeyCleaner {
  (key: string): string;
  forget(): void;
}

/**
 * Cleans keys by `text`. A logger's lines have the same dozen keys, so those that hold nothing to clean are
 * remembered (never one that held a card number or a secret; at most {@link PLAIN_KEYS_MAX} of at most 64 characters,
 * past that each is cleaned afresh), and a line costs what it did before its keys were cleaned.
 */
export function keyCleaner(text: (value: string) => string): KeyCleaner {
  const plain = new Set<string>();
  const clean = ((key: string): string => {
    if (plain.has(key)) return key;
    const out = text(key);
    if (out === key && key.length <= 64 && plain.size < PLAIN_KEYS_MAX) plain.add(key);
    return out;
  }) as KeyCleaner;
  clean.forget = () => plain.clear();
  return clean;
}
