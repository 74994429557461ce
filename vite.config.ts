import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';

const OUT_DIR = 'dist/widget';
const FILE = 'tessera-card-form.js';

/** Writes `<bundle>.sri` (sha384, the SRI format) beside the built bundle. */
function subresourceIntegrity(): Plugin {
  return {
    name: 'tessera-sri',
    apply: 'build',
    closeBundle() {
      const path = resolve(OUT_DIR, FILE);
      const digest = createHash('sha384').update(readFileSync(path)).digest('base64');
      writeFileSync(`${path}.sri`, `sha384-${digest}\n`);
    },
  };
}

// Library mode: one minified ES module for <script type="module">, Lit bundled in.
export default defineConfig({
  build: {
    outDir: OUT_DIR,
    emptyOutDir: false,
    sourcemap: true,
    minify: true,
    target: 'es2022',
    lib: {
      entry: resolve('widget/index.ts'),
      formats: ['es'],
      fileName: () => FILE,
    },
  },
  plugins: [subresourceIntegrity()],
});
