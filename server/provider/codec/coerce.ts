import type { z } from 'zod';
import { setField } from '../../common/own-field.js';
import { type Walkable, WRAPPERS } from '../schemas/zod-walk.js';

/**
 * Gives a decoded XML document the types its zod schema expects. XML carries only text, so `decodeXml` returns
 * strings, nested objects, and arrays only where an element repeated. Walking the schema beside the value:
 *
 * - a string where the schema wants a number becomes that number when it is a plain decimal (`"100"` → `100`,
 *   `"-0.5"` → `-0.5`; no exponent, no `+`, at most 16 digits before the point and 400 after);
 * - `"true"`/`"false"` where it wants a boolean become booleans;
 * - a single element where it wants an array becomes a one-item array (an empty element too: `<products/>` is
 *   `[{}]`), and a missing element where it requires an array becomes `[]` (an empty array writes no element at all);
 * - an empty element (`<billingDetails/>`, decoded as `""`) where it wants an object becomes `{}`;
 * - a digit string where it wants a numeric literal (`chargeMode`) becomes that number.
 *
 * Anything else is left as it is, for the schema to refuse with the field's name. The input is not modified, and
 * every key of the copy is an own field (a `__proto__` key too: never the copy's prototype).
 * Unions are tried option by option: the first option that accepts the (coerced) value wins, except that text is
 * never turned into a number for a union that takes text itself (`value`: a number or a digit string): there the
 * union's own string rule reads it, exactly as it reads a JSON string, so `<value>1e3</value>` is refused like
 * `"value":"1e3"` (docs/decisions/sandbox.md#legacy-xml-coercion).
 * See docs/decisions/sandbox.md#xml-mapping.
 *
 * @example
 * const body = coerceFromXml(chargeResponseSchema, decodeXml(text));
 * const charge = chargeResponseSchema.parse(body);
 */
export function coerceFromXml<S extends z.ZodType>(schema: S, value: unknown, options: CoerceOptions = {}): unknown {
  return coerce(schema as unknown as Walkable, value, 0, options.exact === true);
}

export interface CoerceOptions {
  /**
   * For text decoded with `decodeXml(text, { trim: false })` (the sandbox's requests): a number is read only from
   * text that is exactly a plain decimal, so `" 1999"` stays a string for the schema to refuse as it refuses
   * `"value":" 1999"` in JSON; text of XML white space only, where an object, a record or an array is wanted, is
   * an empty element (a pretty-printer's line break is not data). The default trims around numbers, as a reader of a
   * provider's answers may (docs/decisions/sandbox.md#legacy-xml-coercion).
   */
  readonly exact?: boolean;
}

// Bounded and unambiguous (each part can match in one way only), so linear on any input; the old
// `\d+\.?\d*` backtracked quadratically on a long run of digits (40,000 digits: 2 s). Up to 400 digits after the
// point: `encodeXml` writes a number's shortest round-trip digits without an exponent (0.1 * 3 is
// 0.30000000000000004, 5e-324 has 324 digits after the point), and every number it writes must read back.
const NUMBER = /^-?[0-9]{1,16}(?:\.[0-9]{1,400})?$/;
const MAX_DEPTH = 64;
/** XML's white space (§2.3 S): space, tab, CR, LF. */
const XML_SPACE_ONLY = /^[ \t\r\n]*$/;

/** An empty element: `""`, or (reading exact text) XML white space only. */
function isEmpty(value: unknown, exact: boolean): boolean {
  return value === '' || (exact && typeof value === 'string' && XML_SPACE_ONLY.test(value));
}

function unwrap(schema: Walkable): Walkable {
  let s = schema;
  for (let i = 0; i < 32; i++) {
    const def = s._zod.def;
    if (WRAPPERS.has(def.type) && def.innerType) s = def.innerType;
    else if (def.type === 'lazy' && def.getter) s = def.getter();
    else if (def.type === 'pipe' && def.in && def.out) {
      // A transform in front (z.preprocess) says nothing about the wire type: follow the output side.
      s = def.in._zod.def.type === 'transform' ? def.out : def.in;
    } else break;
  }
  return s;
}

/** Whether `schema` accepts undefined (an optional field). */
function isOptional(schema: Walkable): boolean {
  let s = schema;
  for (let i = 0; i < 32; i++) {
    const def = s._zod.def;
    if (def.type === 'optional' || def.type === 'default' || def.type === 'prefault') return true;
    if (WRAPPERS.has(def.type) && def.innerType) s = def.innerType;
    else return false;
  }
  return false;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function coerce(schema: Walkable, value: unknown, depth: number, exact: boolean): unknown {
  if (value === null || value === undefined || depth > MAX_DEPTH) return value;
  const s = unwrap(schema);
  const def = s._zod.def;
  switch (def.type) {
    case 'number':
    case 'int':
      if (typeof value !== 'string') return value;
      if (exact) return NUMBER.test(value) ? Number(value) : value;
      return NUMBER.test(value.trim()) ? Number(value.trim()) : value;
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    case 'literal': {
      if (typeof value !== 'string') return value;
      const hit = def.values?.find((v) => typeof v !== 'string' && String(v) === value);
      return hit === undefined ? value : hit;
    }
    case 'array': {
      // An element is one item, an empty one too (`<products/>` is `[{}]`: an empty array writes no element);
      // only an element of XML white space, read exactly, is a pretty-printer's layout and no item.
      const items = Array.isArray(value) ? value : value !== '' && isEmpty(value, exact) ? [] : [value];
      return def.element ? items.map((v) => coerce(def.element!, v, depth + 1, exact)) : items;
    }
    case 'object': {
      if (isEmpty(value, exact)) return {};
      if (!isPlainObject(value) || !def.shape) return value;
      // Own fields whatever their names (spread defines them; setField for the rest): a `__proto__` key of the
      // value is a field of the copy, never its prototype.
      const out: Record<string, unknown> = { ...value };
      for (const [key, field] of Object.entries(def.shape)) {
        if (Object.hasOwn(value, key)) setField(out, key, coerce(field, value[key], depth + 1, exact));
        else if (unwrap(field)._zod.def.type === 'array' && !isOptional(field)) setField(out, key, []);
      }
      return out;
    }
    case 'record': {
      if (isEmpty(value, exact)) return {};
      if (!isPlainObject(value) || !def.valueType) return value;
      const out: Record<string, unknown> = {};
      for (const [key, v] of Object.entries(value)) setField(out, key, coerce(def.valueType, v, depth + 1, exact));
      return out;
    }
    case 'union': {
      const options = def.options ?? [];
      if (options.some((o) => o.safeParse?.(value).success)) return value;
      if (typeof value === 'string' && options.some((o) => unwrap(o)._zod.def.type === 'string')) return value;
      for (const option of options) {
        const candidate = coerce(option, value, depth + 1, exact);
        if (option.safeParse?.(candidate).success) return candidate;
      }
      return value;
    }
    case 'intersection':
      return def.left && def.right
        ? coerce(def.right, coerce(def.left, value, depth + 1, exact), depth + 1, exact)
        : value;
    default:
      return value;
  }
}
