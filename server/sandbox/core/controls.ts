import { z } from 'zod';
import { crossSiteWrites } from '../../common/cross-site.js';
import type { SandboxArea } from './area.js';
import { renderDefaultError } from './area.js';
import { parseBody } from './body.js';
import type { SandboxContext } from './context.js';
import { SandboxError } from './errors.js';
import { parseFaultRule } from './faults.js';
import type { NextFunction, Request, Response } from './http.js';
import { isSandboxPath, Router } from './http.js';
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

/** `?limit=` of the request log: 1 to 200 entries (all it keeps), 50 when absent; anything else is a 400 naming it. */
const requestsQuerySchema = z
  .object({
    limit: z
      .string({ error: 'must be one number from 1 to 200' })
      .regex(/^\d{1,3}$/, { error: 'must be a whole number from 1 to 200' })
      .transform(Number)
      .pipe(z.number().min(1, { error: 'must be from 1 to 200' }).max(200, { error: 'must be from 1 to 200' }))
      .optional(),
  })
  .strip();

/** server/common/cross-site.ts's rule: the sandbox's own origin is the one its `Host` names. */
const foreign = crossSiteWrites();

/**
 * Refuses a state-changing control asked from a web page of another origin: any page a developer opens could
 * otherwise reset or fault their sandbox with a simple cross-origin POST (`text/plain` needs no preflight).
 * Browsers send `Origin` on every cross-origin POST and DELETE (and `Sec-Fetch-Site` where they support it);
 * scripts, tests and the demo console (which calls the controls from its server) send neither.
 * See docs/decisions/sandbox.md#sandbox-controls.
 */
function sameOriginOnly(req: Request, _res: Response, next: NextFunction): void {
  next(
    foreign(req)
      ? new SandboxError(403, 'origin_refused', 'sandbox controls only answer requests from the sandbox origin', {
          field: 'Origin',
        })
      : undefined,
  );
}

/**
 * `/_sandbox/…`: the controls a developer or a test drives the sandbox with.
 * All 404 in production mode (DESIGN.md: sandbox-only controls). Changes (POST, DELETE) are refused from other
 * origins, and a body they carry must be JSON (an empty body is fine).
 */
export function controlsArea(ctx: SandboxContext): SandboxArea {
  const router = new Router();
  const json = parseBody(['json']);

  router.get('/_sandbox/clock', (_req, res) => respond(res, 200, { now: ctx.clock.now().toISOString() }));
  router.post('/_sandbox/clock/advance', sameOriginOnly, json, (req, res) => {
    const { seconds } = parseWith(advanceSchema, req.body);
    respond(res, 200, { now: ctx.clock.advance(seconds).toISOString() });
  });
  router.get('/_sandbox/faults', (_req, res) => respond(res, 200, { data: ctx.faults.list() }));
  router.post('/_sandbox/faults', sameOriginOnly, json, (req, res) => {
    respond(res, 201, ctx.faults.add(parseFaultRule(req.body)));
  });
  router.delete('/_sandbox/faults', sameOriginOnly, json, (_req, res) => {
    ctx.faults.clear();
    respond(res, 204);
  });
  router.post('/_sandbox/reset', sameOriginOnly, json, (_req, res) => {
    ctx.reset();
    respond(res, 204);
  });
  router.get('/_sandbox/requests', (req, res) => {
    const { limit = 50 } = parseWith(requestsQuerySchema, req.query);
    respond(res, 200, { data: ctx.log.list(limit) });
  });

  return {
    name: 'controls',
    claims: (path) => ctx.mode === 'sandbox' && isSandboxPath(path),
    formats: ['json'],
    renderError: renderDefaultError,
    faultable: false,
    router,
  };
}
