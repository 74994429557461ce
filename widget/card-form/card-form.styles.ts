import { unsafeCSS } from 'lit';

/**
 * A `css` tag for one static block without interpolations. Lit's own `css` checks its
 * interpolations and carries the error text for that, which costs bundle bytes this
 * block does not need; the sheet is the same constructable stylesheet either way.
 */
const css = (strings: TemplateStringsArray) => unsafeCSS(strings[0]);

// Public tokens are --tessera-*; private ones --_*. No color-scheme of its own: the host inherits the
// page's, so the system colours (Canvas, CanvasText, GrayText) and light-dark() are dark only on a page
// that allows dark (`color-scheme: light dark` follows the OS). Forcing `light dark` here turned the
// labels white on light pages whenever the OS was dark.
export const styles = css`
  :host {
    --_error: var(--tessera-error-color, light-dark(#c5221f, #f28b82));
    display: block;
    font: var(--tessera-font, inherit);
    color: var(--tessera-color, CanvasText);
  }
  :host([hidden]) {
    display: none;
  }
  .form {
    display: grid;
    grid-template-columns: 1fr 1fr;
    gap: var(--tessera-spacing, 0.75rem);
  }
  .field {
    display: grid;
    gap: 0.25rem;
    align-content: start;
  }
  .number,
  .name,
  #form-error {
    grid-column: 1 / -1;
  }
  label {
    font-size: 0.875em;
  }
  .control {
    position: relative;
  }
  input {
    box-sizing: border-box;
    width: 100%;
    margin: 0;
    padding: 0.5em 0.625em;
    font: inherit;
    color: inherit;
    background: var(--tessera-background, Canvas);
    border: 1px solid var(--tessera-border-color, GrayText);
    border-radius: var(--tessera-radius, 0.375rem);
  }
  input:focus {
    outline: var(--tessera-focus-ring, 2px solid light-dark(#1a73e8, #8ab4f8));
    outline-offset: 1px;
  }
  [aria-invalid='true'] {
    border-color: var(--_error);
  }
  :disabled {
    opacity: 0.6;
  }
  [dir='rtl'] [dir='ltr'] {
    text-align: right;
  }
  /* The number reads left to right in every locale (dir=ltr), so its icon and the room kept for it are
     on the right, in right-to-left pages too (the icon once sat on the left, over the right-aligned digits). */
  #number {
    padding-inline-end: 2.75rem;
  }
  svg {
    position: absolute;
    right: 0.5rem;
    top: 50%;
    translate: 0 -50%;
    width: 1.75rem;
  }
  text {
    fill: #fff;
    font: 700 8.5px sans-serif;
    text-anchor: middle;
  }
  .error {
    margin: 0;
    color: var(--_error);
    font-size: 0.8125em;
  }
  .error:empty {
    display: none;
  }
  .sr {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
  }
`;
