import { css } from 'lit';

export const styles = css`
  :host {
    display: block;
    font: var(--tessera-font, inherit);
    color: var(--tessera-color, inherit);
  }
  :host([hidden]) {
    display: none;
  }
  .field {
    display: grid;
    gap: var(--tessera-spacing-xs, 0.25rem);
    margin-block-end: var(--tessera-spacing, 0.75rem);
  }
  input {
    font: inherit;
    padding: var(--tessera-spacing-s, 0.5rem);
    border: 1px solid var(--tessera-border-color, #8a8a8a);
    border-radius: var(--tessera-radius, 0.375rem);
  }
`;
