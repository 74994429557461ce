import { Router } from 'express';
import { z } from 'zod';
import type { LegacyClient } from '../server/provider/index.js';
import { demoBody } from './body.js';
import { type ChargeRow, type ConsoleData, consoleBody, type FaultRow, type LoggedRow } from './console-page.js';
import { DemoError, invalid } from './errors.js';
import { layout } from './html.js';
import { onlyMethods } from './methods.js';
import type { ShopState } from './state.js';

/** Steps of the clock buttons. */
const STEPS = [
  { seconds: 16 * 60, label: '16 minutes' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 86_400, label: '1 day' },
  { seconds: 8 * 86_400, label: '8 days' },
] as const;

const CHARGE_PATH = '/api2/v2/charges/token';

/**
 * Fault switches: the provider's, as `POST /_sandbox/faults` rules, and the shop's own (`shop`: how many of the next
 * payments its `onCharge` fails to record). A charge fault lasts three requests because the helper's client retries
 * a failed charge twice with the same idempotency key (docs/decisions/provider.md#client-retries): one failure alone
 * would be absorbed by the retry.
 */
export const FAULT_PRESETS: Record<
  string,
  { readonly label: string } & ({ readonly rule: Record<string, unknown> } | { readonly shop: number })
> = {
  'charge-unavailable': {
    label: 'Next payment: provider unavailable (503, nothing charged)',
    rule: { method: 'POST', path: CHARGE_PATH, status: 503, count: 3 },
  },
  'charge-lost': {
    label: 'Next payment: charged, but the answer is lost (502 after the charge)',
    rule: { method: 'POST', path: CHARGE_PATH, status: 502, phase: 'after', count: 3 },
  },
  'token-unavailable': {
    label: 'Next card token: provider unavailable (503)',
    rule: { method: 'POST', path: '/api2/v2/tokens/card', status: 503, count: 1 },
  },
  'record-fails': {
    label: 'Next payment: charged, but the shop cannot record it (onCharge fails once)',
    shop: 1,
  },
};

const clockSchema = z.object({
  // Decimal digits only, as the console's form sends them: a coercion to number took `0x10` as 16 and `1e3` as 1000.
  seconds: z
    .string({ error: 'must be a whole number of seconds' })
    .refine((s) => s.length > 0 && s.length <= 9 && [...s].every((c) => c >= '0' && c <= '9'), {
      error: 'must be a whole number of seconds, in digits',
    })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(1, { error: 'must be at least 1' })
        .max(366 * 86_400, { error: 'must be at most a year' }),
    ),
});
const faultSchema = z.object({
  preset: z.enum(Object.keys(FAULT_PRESETS) as [string, ...string[]], { error: 'must be a fault preset' }),
});

export interface ConsoleDeps {
  readonly sandboxUrl: string;
  readonly state: ShopState;
  readonly legacy: LegacyClient;
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = String(issue.path[0] ?? 'body');
  throw invalid(field, `${field} ${issue.message}`);
}

/**
 * The sandbox console (`/sandbox`): a server-rendered page over the sandbox's `/_sandbox/…` controls, which the
 * demo server calls for the browser (the sandbox stays on its own origin, without CORS for its controls). Every
 * action is a plain form post answered with a redirect back to the page.
 */
export function consoleRoutes(deps: ConsoleDeps): Router {
  const router = Router();
  const form = demoBody('form', { limit: 1024, parameterLimit: 5 });

  async function control(method: string, path: string, body?: unknown): Promise<unknown> {
    let res: globalThis.Response;
    try {
      res = await fetch(`${deps.sandboxUrl}/_sandbox/${path}`, {
        method,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(5000),
      });
    } catch {
      throw new DemoError(502, 'DEMO_SANDBOX_UNREACHABLE', 'The sandbox did not answer.');
    }
    if (!res.ok) {
      // The sandbox keeps at most 100 pending faults, and the console's fault button is how a visitor adds them: a
      // full table is the visitor's to clear, not a fault of the provider (docs/decisions/demo.md#demo-console).
      const refusal = (await res.json().catch(() => undefined)) as { errorCode?: unknown } | undefined;
      if (res.status === 409 && refusal?.errorCode === 'fault_table_full') {
        throw new DemoError(
          409,
          'DEMO_FAULTS_FULL',
          'The sandbox’s table of pending faults is full: press “Clear faults” (or reset the sandbox) first.',
          'preset',
        );
      }
      throw new DemoError(502, 'DEMO_SANDBOX_REFUSED', `The sandbox refused ${method} ${path}.`);
    }
    return res.status === 204 ? undefined : res.json();
  }
  const quietly = <T>(p: Promise<T>) => p.catch(() => undefined);

  async function recentCharges(): Promise<ChargeRow[]> {
    const attempts = deps.state.recentAttempts(10);
    const rows = await Promise.all(
      attempts.map(async ({ order, attempt }): Promise<ChargeRow | undefined> => {
        try {
          const c = (await deps.legacy.charges.retrieve(attempt.id)).data;
          // As requested, in either case (a charge made outside the helper may say "Y").
          const capture = c.autoCapture.toLowerCase() === 'y' ? `after ${c.autoCapTime} h` : 'manual (pre-order)';
          return {
            id: c.id,
            order: order.id,
            amount: c.value,
            currency: c.currency,
            capture,
            status: c.status,
            created: c.created,
          };
        } catch {
          return undefined; // gone after a sandbox reset
        }
      }),
    );
    return rows.filter((r): r is ChargeRow => r !== undefined);
  }

  router
    .route('/sandbox')
    .get(async (req, res) => {
      const allRequests = req.query.requests === 'all';
      // The log first: reading the charges below adds requests of its own.
      const log = await quietly(control('GET', 'requests?limit=200') as Promise<{ data: LoggedRow[] }>);
      // By default only what changed something (card tokens, charges, challenges, dashboard writes): the pages'
      // own reads of charges and instruments would crowd it out.
      const requests = log?.data
        .filter((r) => allRequests || !['GET', 'HEAD', 'OPTIONS'].includes(r.method))
        .slice(0, 25);
      const [clock, faults, charges] = await Promise.all([
        quietly(control('GET', 'clock') as Promise<{ now: string }>),
        quietly(control('GET', 'faults') as Promise<{ data: FaultRow[] }>),
        recentCharges(),
      ]);
      const data: ConsoleData = {
        now: clock?.now,
        charges,
        faults: faults?.data,
        shopFaults: deps.state.recordFaults,
        requests,
        allRequests,
        presets: Object.entries(FAULT_PRESETS).map(([id, p]) => ({ id, label: p.label })),
        steps: STEPS,
      };
      const nonce = String(res.locals.cspNonce);
      res
        .type('html')
        .set('Cache-Control', 'no-store')
        .send(layout({ title: 'Sandbox console', nonce, current: 'sandbox', body: consoleBody(data) }));
    })
    .all(onlyMethods('GET'));

  router
    .route('/sandbox/clock')
    .post(form, async (req, res) => {
      const { seconds } = parse(clockSchema, req.body);
      await control('POST', 'clock/advance', { seconds });
      res.redirect(303, '/sandbox#clock');
    })
    .all(onlyMethods('POST'));

  router
    .route('/sandbox/faults')
    .post(form, async (req, res) => {
      const { preset } = parse(faultSchema, req.body);
      const chosen = FAULT_PRESETS[preset]!;
      if ('shop' in chosen) deps.state.failRecords(chosen.shop);
      else await control('POST', 'faults', chosen.rule);
      res.redirect(303, '/sandbox#faults');
    })
    .all(onlyMethods('POST'));

  router
    .route('/sandbox/faults/clear')
    .post(async (_req, res) => {
      deps.state.failRecords(0);
      await control('DELETE', 'faults');
      res.redirect(303, '/sandbox#faults');
    })
    .all(onlyMethods('POST'));

  router
    .route('/sandbox/reset')
    .post(async (_req, res) => {
      deps.state.failRecords(0);
      await control('POST', 'reset');
      res.redirect(303, '/sandbox');
    })
    .all(onlyMethods('POST'));

  return router;
}
