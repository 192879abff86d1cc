import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  // The contract is private to this repository: bundle its code and types into the SDK.
  noExternal: ['@protection-service/contract'],
  dts: { resolve: ['@protection-service/contract'] },
  clean: true,
  sourcemap: true,
  target: 'node18',
  tsconfig: 'tsconfig.json',
});
