import { z } from 'zod';
import type { SandboxArea } from './area.js';
import { renderDefaultError } from './area.js';
import { parseBody } from './body.js';
import type { SandboxContext } from './context.js';
import { faultRuleSchema } from './faults.js';
import { Router } from './http.js';
import { respond } from './respond.js';
import { parseWith } from './validate.js';

const advanceSchema = z
  .object({
    seconds: z
      .number()
      .finite()
      .min(0)
      .max(10 * 365 * 24 * 3600),
  })
  .strip();

/**
 * `/_sandbox/…`: the controls a developer or a test drives the sandbox with.
 * All 404 in production mode (DESIGN.md: sandbox-only controls).
 */
export function controlsArea(ctx: SandboxContext): SandboxArea {
  const router = new Router();
  const json = parseBody(['json']);

  router.get('/_sandbox/clock', (_req, res) => respond(res, 200, { now: ctx.clock.now().toISOString() }));
  router.post('/_sandbox/clock/advance', json, (req, res) => {
    const { seconds } = parseWith(advanceSchema, req.body);
    respond(res, 200, { now: ctx.clock.advance(seconds).toISOString() });
  });
  router.get('/_sandbox/faults', (_req, res) => respond(res, 200, { data: ctx.faults.list() }));
  router.post('/_sandbox/faults', json, (req, res) => {
    respond(res, 201, ctx.faults.add(parseWith(faultRuleSchema, req.body)));
  });
  router.delete('/_sandbox/faults', (_req, res) => {
    ctx.faults.clear();
    respond(res, 204);
  });
  router.post('/_sandbox/reset', (_req, res) => {
    ctx.reset();
    respond(res, 204);
  });
  router.get('/_sandbox/requests', (req, res) => {
    const limit = Number(req.query.limit ?? 50);
    const n = Number.isInteger(limit) && limit > 0 ? Math.min(limit, 200) : 50;
    respond(res, 200, { data: ctx.log.list(n) });
  });

  return {
    name: 'controls',
    claims: (path) => ctx.mode === 'sandbox' && (path === '/_sandbox' || path.startsWith('/_sandbox/')),
    formats: ['json'],
    renderError: renderDefaultError,
    faultable: false,
    router,
  };
}
