/**
 * Base of every error Tessera throws for bad data from outside or a failing
 * provider. Wrong use of the API throws a plain `TypeError` instead.
 * `code` is stable and safe to branch on; `message` is for people.
 */
export class TesseraError extends Error {
  /** Stable machine-readable code, e.g. `TESSERA_CARD_TOKEN_USED`. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}
