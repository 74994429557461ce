// Account Services API schemas: Reserve rules.
import { z } from 'zod';
import { idOf, int, linksSchema } from './common.js';

/** A percentage with at most two decimals. */
const percentage = z
  .number()
  .min(0)
  .max(100)
  .refine((n) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-9, 'must have at most two decimals');

/** The rule body: POST (extension) and PUT take it whole. `valid_from` is ISO 8601 UTC (`…Z`). */
export const reserveRuleRequestSchema = z.object({
  type: z.literal('rolling'),
  valid_from: z.iso.datetime({ offset: false }),
  rolling: z.object({ percentage, holding_duration: z.object({ weeks: int(1, 52) }) }),
});
export type ReserveRuleRequest = z.infer<typeof reserveRuleRequestSchema>;

/** GET …/reserve-rules/{id} (ETag header carries the version). */
export const reserveRuleSchema = reserveRuleRequestSchema.extend({
  id: idOf('rsv_'),
  valid_from: z.string(),
  _links: linksSchema.optional(),
});
export type ReserveRule = z.infer<typeof reserveRuleSchema>;

/** Extension: GET …/reserve-rules. */
export const reserveRuleListSchema = z.object({ data: z.array(reserveRuleSchema) });
export type ReserveRuleList = z.infer<typeof reserveRuleListSchema>;

/** PUT and POST answer (with the new ETag header). */
export const reserveRuleWriteResponseSchema = z.object({ id: idOf('rsv_'), _links: linksSchema });
export type ReserveRuleWriteResponse = z.infer<typeof reserveRuleWriteResponseSchema>;
