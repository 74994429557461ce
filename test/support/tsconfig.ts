/**
 * The compiler options a merchant's strict TypeScript project on Node has (ES modules, `NodeNext` resolution,
 * Node's types, nothing emitted): the project tests type-check what a user writes against them, adding what each
 * needs (`lib`, `jsx`, `skipLibCheck`, `paths`).
 */
export const STRICT_NODE_PROJECT = {
  strict: true,
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  target: 'ES2022',
  noEmit: true,
  types: ['node'],
} as const;
