// Account Services API schemas: Errors (docs/decisions/sandbox.md#accounts-errors).
import { z } from 'zod';
import { linksSchema } from './common.js';

/**
 * Every Account Services error body: 422 has `error_type: "request_invalid"` and one code per field at fault
 * (`individual.first_name_required`); other statuses name their kind in `error_type` (`unauthorized`,
 * `not_found`, `precondition_required`, …). A 409 also carries `_links` to the existing entity.
 */
export const errorBodySchema = z.object({
  request_id: z.string(),
  error_type: z.string(),
  error_codes: z.array(z.string()).optional(),
  _links: linksSchema.optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;
