/**
 * `tessera-pay/widget`: importing this module defines `<tessera-card-form>`.
 * The script-tag bundle (`dist/widget/tessera-card-form.js`) is built from ./card-form/define.ts,
 * which exports the element and its event classes but not the card logic below.
 */

export * from '../shared/card/index.js';
export * from './card-form/define.js';
export type { WidgetWarningCode } from './card-form/warn.js';
export type { Strings } from './i18n/strings.js';
