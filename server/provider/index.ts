/** `tessera/provider`: typed clients of the provider's legacy card API and Account Services API. */
export { TesseraError } from './errors.js';
