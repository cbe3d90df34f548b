import { defineConfig } from 'tsup';

export default defineConfig({
  // The render worker is its own entry: build() starts it from dist/render-worker.js.
  entry: { index: 'src/index.ts', cli: 'src/cli.ts', 'render-worker': 'src/render/render-worker.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  sourcemap: true,
  target: 'node20',
  // only used to bundle the worker when running from source (tests)
  external: ['esbuild'],
});
