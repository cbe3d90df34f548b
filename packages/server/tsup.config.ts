import { defineConfig } from 'tsup';

export default defineConfig({
  // import-worker: the import's preparing thread (src/content/import-pipeline.ts starts dist/import-worker.js)
  // detached-writer-worker: the embedded engine's detached write connection (src/engines/embedded/detached-writer.ts)
  entry: {
    index: 'src/index.ts',
    main: 'src/main.ts',
    'import-worker': 'src/content/import-worker.ts',
    'detached-writer-worker': 'src/engines/embedded/detached-writer-worker.ts',
  },
  format: ['esm'],
  // The .d.ts bundle reads sibling packages' built .d.ts (no source condition: cheaper than
  // re-checking their sources, hence build's ^build order), and is not a composite project.
  dts: {
    entry: { index: 'src/index.ts', main: 'src/main.ts' },
    compilerOptions: { composite: false, customConditions: [] },
  },
  clean: true,
  sourcemap: true,
  target: 'node20',
});
