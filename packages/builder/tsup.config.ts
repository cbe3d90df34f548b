import { defineConfig, type Options } from 'tsup';

type Plugin = NonNullable<Options['esbuildPlugins']>[number];

/**
 * `import { ... } from 'liquidjs'` loads liquidjs with `require` (through a module made here
 * that re-exports each of its exports). liquidjs is CommonJS with no `exports`: for an `import`
 * of it, Node first runs its CommonJS export lexer (`parseSource`) over liquidjs's 180 KB, in
 * each thread that imports it (the build thread and every render worker), and that long loop
 * is then optimized by TurboFan on V8's platform threads, in each thread's isolate again — 0.5
 * s of compile a time by `--trace-opt` (docs/benchmarks.md, eleventh round). A `require` of the
 * same file needs no lexer: the same module object (Node's CommonJS cache), the same classes.
 */
const liquidjsByRequire: Plugin = {
  name: 'liquidjs-by-require',
  setup(build) {
    build.onResolve({ filter: /^liquidjs$/ }, () => ({ path: 'liquidjs', namespace: 'liquidjs-by-require' }));
    build.onLoad({ filter: /.*/, namespace: 'liquidjs-by-require' }, async () => {
      const names = Object.keys(await import('liquidjs')).filter(
        (name) => name !== 'default' && /^[A-Za-z_$][\w$]*$/.test(name),
      );
      return {
        loader: 'js',
        contents: [
          "import { createRequire } from 'node:module';",
          "const liquidjs = createRequire(import.meta.url)('liquidjs');",
          ...names.map((name) => `export const ${name} = liquidjs.${name};`),
        ].join('\n'),
      };
    });
  },
};

/** Both builds' liquidjs, by {@link liquidjsByRequire}. */
const liquidjsRequired: Options = {
  // not external to tsup: its own resolution would take the import before the plugin
  noExternal: ['liquidjs'],
  esbuildPlugins: [liquidjsByRequire],
};

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
    ...liquidjsRequired,
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
    ...liquidjsRequired,
  },
]);
