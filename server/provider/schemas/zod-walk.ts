/**
 * The part of a zod 4 schema's internals (`schema._zod.def`) that code walking a schema beside a value reads: the XML
 * codec's coercion (server/provider/codec/coerce.ts) and the sandbox's issue locator (server/sandbox/core/validate.ts).
 * One copy, so a zod update that moves these fields is met in one place.
 */
export interface Walkable {
  readonly _zod: { readonly def: ZodDef };
  safeParse?(value: unknown): { success: boolean };
}

export interface ZodDef {
  readonly type: string;
  readonly innerType?: Walkable;
  readonly in?: Walkable;
  readonly out?: Walkable;
  readonly shape?: Record<string, Walkable>;
  readonly element?: Walkable;
  readonly valueType?: Walkable;
  readonly items?: readonly Walkable[];
  readonly rest?: Walkable | null;
  readonly options?: readonly Walkable[];
  readonly values?: readonly unknown[];
  readonly getter?: () => Walkable;
  readonly left?: Walkable;
  readonly right?: Walkable;
}

/** Schema types that wrap one inner schema (`def.innerType`) without changing where its fields are. */
export const WRAPPERS: ReadonlySet<string> = new Set([
  'optional',
  'nullable',
  'default',
  'prefault',
  'catch',
  'readonly',
  'nonoptional',
]);
