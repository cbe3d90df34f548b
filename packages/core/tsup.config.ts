import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', build: 'src/build.ts' },
  format: ['esm'],
  // The .d.ts bundle is not a composite project (tsc -b's declarations go elsewhere).
  dts: { compilerOptions: { composite: false, customConditions: [] } },
  clean: true,
  sourcemap: true,
  target: 'node20',
});
