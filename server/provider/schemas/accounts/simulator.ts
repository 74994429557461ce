// Account Services API schemas: Onboarding simulator (sandbox only; docs/decisions/sandbox.md#onboarding-states).
import { z } from 'zod';
import { idOf } from './common.js';
import { entityStatusSchema } from './entities.js';

export const simulatorTransitionRequestSchema = z.object({ status: entityStatusSchema });
export type SimulatorTransitionRequest = z.infer<typeof simulatorTransitionRequestSchema>;
export const simulatorStateSchema = z.object({
  id: idOf('ent_'),
  status: entityStatusSchema,
  allowed_transitions: z.array(entityStatusSchema),
});
export type SimulatorState = z.infer<typeof simulatorStateSchema>;
