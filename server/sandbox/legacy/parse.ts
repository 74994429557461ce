import type { z } from 'zod';
import { coerceFromXml } from '../../provider/codec/coerce.js';
import type { Request, Response } from '../core/http.js';
import { parseWith } from '../core/validate.js';

/** Validates a legacy request body with its schema; an XML body is first given the schema's types. */
export function parseLegacy<S extends z.ZodType>(schema: S, req: Request, res: Response): z.output<S> {
  const body = res.locals.bodyFormat === 'xml' ? coerceFromXml(schema, req.body) : req.body;
  return parseWith(schema, body);
}
