import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', build: 'src/build.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
