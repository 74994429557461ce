/**
 * `tessera/widget`: importing this module defines `<tessera-card-form>`.
 * The script-tag bundle (`dist/widget/tessera-card-form.js`) is built from this file.
 */

export * from './card/index.js';
export { TesseraCardForm } from './card-form/define.js';
