import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  // The .d.ts bundle reads sibling packages' built .d.ts (no source condition: cheaper than
  // re-checking their sources, hence build's ^build order), and is not a composite project.
  dts: { compilerOptions: { composite: false, customConditions: [] } },
  clean: true,
  sourcemap: true,
  target: 'node20',
});
