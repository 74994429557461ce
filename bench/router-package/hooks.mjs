// Module hooks for the router comparison in bench/sandbox.bench.ts (issue #14): every import of the built
// sandbox's core/http.js gets ./http.mjs instead, which keeps everything that module exports but its `Router`.
// ./http.mjs itself reaches the real module as `…/core/http.js?own`, which these hooks leave alone.

const SHIM = new URL('./http.mjs', import.meta.url).href;

/**
 * @param {string} specifier
 * @param {{ parentURL?: string }} context
 * @param {(specifier: string, context: { parentURL?: string }) => Promise<{ url: string }>} nextResolve
 */
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (resolved.url.endsWith('/dist/server/sandbox/core/http.js') && context.parentURL !== SHIM) {
    return { ...resolved, url: SHIM, shortCircuit: true };
  }
  return resolved;
}
