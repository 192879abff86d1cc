import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsup';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  // The client of the latest version, and one entry per older dated version (D44).
  entry: {
    index: 'src/index.ts',
    'versions/2026-12-01': 'src/versions/2026-12-01.ts',
    'versions/2025-01-01': 'src/versions/2025-01-01.ts',
  },
  format: ['esm', 'cjs'],
  // The contract is private to this repository: bundle its code and types into the SDK.
  // zod and @ts-rest/core stay external (they are dependencies).
  noExternal: ['@protection-service/contract'],
  dts: {
    // The contract's `exports` point at TypeScript sources, which neither `dts.resolve` (it
    // reads `types`/`main`) nor rollup-plugin-dts (it keeps what resolves through
    // node_modules external) inline. A path mapping makes it a local module instead. The
    // base must be absolute: tsup's default (a relative '.') makes declarations name the
    // contract's modules `src`, an import no consumer can resolve.
    compilerOptions: {
      baseUrl: here,
      paths: { '@protection-service/contract': ['../contract/src/index.ts'] },
    },
  },
  clean: true,
  sourcemap: true,
  target: 'node20',
  tsconfig: 'tsconfig.json',
});
