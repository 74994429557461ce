/** Pure card logic: no DOM, no dependencies. Shared by the widget and the sandbox. */
export * from './brands.js';
export * from './format.js';
export * from './luhn.js';
export * from './validate.js';
