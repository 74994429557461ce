import type { z } from 'zod';
import { coerceFromXml } from '../../provider/codec/coerce.js';
import type { Request, Response } from '../core/http.js';
import { parseWith } from '../core/validate.js';

/**
 * Validates a legacy request body with its schema; an XML body is first given the schema's types, reading its text
 * by the same rule as a JSON string (no trimming around numbers: docs/decisions/sandbox.md#legacy-xml-coercion).
 */
export function parseLegacy<S extends z.ZodType>(schema: S, req: Request, res: Response): z.output<S> {
  const body = res.locals.bodyFormat === 'xml' ? coerceFromXml(schema, req.body, { exact: true }) : req.body;
  return parseWith(schema, body);
}
