import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: { index: 'src/index.ts', cli: 'src/cli.ts' },
    format: ['esm'],
    dts: { entry: { index: 'src/index.ts' } },
    // the worker is the other build's (both run at once)
    clean: ['!render-worker.js', '!render-worker.js.map'],
    sourcemap: true,
    target: 'node20',
    // only used to bundle the worker when running from source (tests)
    external: ['esbuild'],
  },
  {
    // The render worker is its own file: build() starts it from dist/render-worker.js. Core is
    // bundled from its sources, tree-shaken to the few helpers a worker uses, so a worker starts
    // without loading core's schemas.
    entry: { 'render-worker': 'src/render/render-worker.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
    external: ['esbuild'],
    noExternal: ['@trelliscms/core'],
    esbuildOptions(options) {
      options.alias = { '@trelliscms/core': fileURLToPath(new URL('../core/src/index.ts', import.meta.url)) };
    },
  },
]);
