// Preloaded by scripts/test-node.js (`--import`). With TESSERA_TEST_EXPRESS=4, every `import 'express'` (the
// helper's own and the tests') resolves to the `express4` dev alias (npm:express@^4.21), so one set of test files
// runs on Express 4 and 5. Without the variable it does nothing.
import { register } from 'node:module';

if (process.env.TESSERA_TEST_EXPRESS === '4') {
  register('./express-hooks.mjs', import.meta.url);
} else if (process.env.TESSERA_TEST_EXPRESS && process.env.TESSERA_TEST_EXPRESS !== '5') {
  throw new Error(`TESSERA_TEST_EXPRESS must be 4 or 5, got ${JSON.stringify(process.env.TESSERA_TEST_EXPRESS)}`);
}
