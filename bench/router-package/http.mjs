// The sandbox's core/http.js with one change: `Router` is the `router` npm package (the router Express 5 uses),
// given the same routes and handlers as the sandbox's own. Loaded in place of the real module by ./hooks.mjs.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import createRouter from 'router';

const own = await import(`${pathToFileURL(resolve('dist/server/sandbox/core/http.js')).href}?own`);

export const { chain, claimPaths, decorate, isSandboxPath, Locals } = own;

/**
 * The sandbox's Router interface over the `router` package. Matching like the sandbox's (case-insensitive, an
 * optional trailing slash, GET answering HEAD); a copy of the routes in the sandbox's own router answers only
 * `allowedMethods`, which runs for requests no route matched (404/405), never on the measured path.
 */
export class Router {
  /** @type {any} the package's typings want Express's handler types; the sandbox's handlers have their own. */
  #routes = createRouter({ caseSensitive: false, strict: false });
  #own = new own.Router();

  /** @param {...Function} handlers */
  use(...handlers) {
    this.#routes.use(...handlers);
    this.#own.use(...handlers);
    return this;
  }

  /** @param {string} path @param {...Function} handlers */
  get(path, ...handlers) {
    this.#routes.get(path, ...handlers);
    this.#own.get(path, ...handlers);
    return this;
  }

  /** @param {string} path @param {...Function} handlers */
  post(path, ...handlers) {
    this.#routes.post(path, ...handlers);
    this.#own.post(path, ...handlers);
    return this;
  }

  /** @param {string} path @param {...Function} handlers */
  put(path, ...handlers) {
    this.#routes.put(path, ...handlers);
    this.#own.put(path, ...handlers);
    return this;
  }

  /** @param {string} path @param {...Function} handlers */
  patch(path, ...handlers) {
    this.#routes.patch(path, ...handlers);
    this.#own.patch(path, ...handlers);
    return this;
  }

  /** @param {string} path @param {...Function} handlers */
  delete(path, ...handlers) {
    this.#routes.delete(path, ...handlers);
    this.#own.delete(path, ...handlers);
    return this;
  }

  /** @param {unknown} req @param {unknown} res @param {(err?: unknown) => void} done */
  handle(req, res, done) {
    this.#routes.handle(req, res, done);
  }

  /** @param {string} path */
  allowedMethods(path) {
    return this.#own.allowedMethods(path);
  }
}
