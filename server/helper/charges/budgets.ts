import type { NextFunction, Request, Response } from 'express';
import type { HelperContext, ResolvedLimits } from '../context.js';
import { type Budget, consume, ipKey } from '../rate-limit.js';
import type { ResultOwner } from './outcome.js';

// What the charge routes spend of a caller's limits before any charge (docs/decisions/helper.md#helper-rate-limits):
// every payment request, and every valid charge request.

/** The first middleware that counts a payment request (`requestsPerIp`), after the proxy check. */
export function requestBudget(ctx: HelperContext) {
  const { store, limits } = ctx;
  // Counted before the body is read and scanned: a flood of large bodies costs a store hit each, not a scan.
  return async (req: Request, _res: Response, next: NextFunction) => {
    try {
      ctx.checkProxy(req);
      if (limits.requestsPerIp) {
        await consume(
          store,
          `requests:ip:${ipKey(req.ip)}`,
          limits.requestsPerIp,
          ctx.now(),
          'payment requests',
          'requestsPerIp',
        );
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}

/** The charge budgets of a caller (by IP key and session hash), empty when both limits are off. */
export function chargeBudgets(limits: ResolvedLimits, owner: ResultOwner): Budget[] {
  const what = 'payment attempts';
  const budgets: Budget[] = [];
  if (limits.chargesPerIp) {
    budgets.push({ key: `charges:ip:${owner.ip}`, limit: limits.chargesPerIp, what, name: 'chargesPerIp' });
  }
  if (limits.chargesPerSession && owner.session) {
    const key = `charges:session:${owner.session}`;
    budgets.push({ key, limit: limits.chargesPerSession, what, name: 'chargesPerSession' });
  }
  return budgets;
}
