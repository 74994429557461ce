// Module resolution hook (node:module register) used by express-version.mjs: `express` → `express4`.
/** @type {import('node:module').ResolveHook} */
export const resolve = (specifier, context, nextResolve) =>
  nextResolve(specifier === 'express' ? 'express4' : specifier, context);
