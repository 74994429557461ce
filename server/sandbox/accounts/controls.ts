import { z } from 'zod';
import { parseBody } from '../core/body.js';
import type { Request, Response, Router } from '../core/http.js';
import { respond } from '../core/respond.js';
import type { AccountsDeps } from './http.js';
import { testCardsView } from './test-cards.js';
import { parse422 } from './validate.js';

const settingsSchema = z.object({ hosted_onboarding: z.boolean() });

/**
 * Sandbox-only controls of this area (404 in production, like every `/_sandbox/…` path):
 * the account-updater test-card table and the account settings (hosted onboarding on/off).
 */
export function accountControlRoutes(router: Router, deps: AccountsDeps): void {
  const { store } = deps;
  router.get('/_sandbox/account-updater/test-cards', (_req: Request, res: Response) =>
    respond(res, 200, testCardsView()),
  );
  const settings = () => ({ hosted_onboarding: store.hostedOnboarding });
  router.get('/_sandbox/accounts/settings', (_req: Request, res: Response) => respond(res, 200, settings()));
  router.put('/_sandbox/accounts/settings', parseBody(['json']), (req: Request, res: Response) => {
    store.hostedOnboarding = parse422(settingsSchema, req.body).hosted_onboarding;
    respond(res, 200, settings());
  });
}
