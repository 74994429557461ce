// `node --import ./bench/router-package/register.mjs …`: the sandbox started in that process routes with the
// `router` npm package (Express's router) instead of its own (server/sandbox/core/http.ts). See hooks.mjs.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
