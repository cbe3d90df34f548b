import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: { index: 'src/index.ts', cli: 'src/cli.ts' },
    format: ['esm'],
    // The .d.ts bundle reads sibling packages' built .d.ts (no source condition: cheaper than
    // re-checking their sources, hence build's ^build order), and is not a composite project.
    dts: { entry: { index: 'src/index.ts' }, compilerOptions: { composite: false, customConditions: [] } },
    // the workers are the other build's (both run at once)
    clean: [
      '!render-worker.js',
      '!render-worker.js.map',
      '!liquid-worker.js',
      '!liquid-worker.js.map',
      '!search-worker.js',
      '!search-worker.js.map',
      '!page-write-worker.js',
      '!page-write-worker.js.map',
    ],
    sourcemap: true,
    target: 'node20',
  },
  {
    // The render worker is its own file: build() starts it from dist/render-worker.js. It
    // imports `@trelliscms/core/build` (external, like every dependency): the pure helpers a
    // worker needs, without core's schemas.
    entry: {
      'render-worker': 'src/render/render-worker.ts',
      // the Liquid sandbox (template checks, transforms): src/sandbox/liquid-sandbox.ts starts it
      'liquid-worker': 'src/sandbox/liquid-worker.ts',
      // the search index's shards of a large site: src/emit/shard-index-worker.ts starts it
      'search-worker': 'src/emit/search-worker.ts',
      // the render stage's page writes of a large build: src/pipeline/page-thread.ts starts it
      'page-write-worker': 'src/pipeline/page-write-worker.ts',
    },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
  },
]);
