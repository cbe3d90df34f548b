import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: { index: 'src/index.ts', cli: 'src/cli.ts' },
    format: ['esm'],
    // The .d.ts bundle reads sibling packages' built .d.ts (no source condition: cheaper than
    // re-checking their sources, hence build's ^build order), and is not a composite project.
    dts: { entry: { index: 'src/index.ts' }, compilerOptions: { composite: false, customConditions: [] } },
    // the worker is the other build's (both run at once)
    clean: ['!render-worker.js', '!render-worker.js.map'],
    sourcemap: true,
    target: 'node20',
    // only used to bundle the worker when running from source (tests)
    external: ['esbuild'],
  },
  {
    // The render worker is its own file: build() starts it from dist/render-worker.js. Core is
    // bundled from its sources (the `@trelliscms/source` export condition), tree-shaken to the few
    // helpers a worker uses, so a worker starts without loading core's schemas.
    entry: { 'render-worker': 'src/render/render-worker.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
    external: ['esbuild'],
    noExternal: ['@trelliscms/core'],
    esbuildOptions(options) {
      options.conditions = ['@trelliscms/source'];
    },
  },
]);
