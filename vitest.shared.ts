import { configDefaults, defineProject, mergeConfig, type ViteUserConfig } from 'vitest/config';

/**
 * The export condition under which each package's `exports` point at its TypeScript sources
 * (`./src/*.ts`). Tests resolve sibling packages through it, so a test run needs no prior build
 * and always sees the current code; tsc does the same through `customConditions` in
 * tsconfig.base.json. (End-to-end tests start the built packages from `dist/`.)
 */
export const sourceCondition = '@trelliscms/source';

/**
 * The reliability suite's files (`pnpm test:reliability`, vitest.reliability.config.ts): left
 * out of the package projects, so `pnpm test` does not run them.
 */
export const reliabilityTests = '**/*.reliability.test.ts';

/**
 * What every package's project shares: sources through the source condition, tests beside the
 * code (`src/**\/*.test.ts`) and under `test/` (but not the reliability suite's), and timeouts generous enough for a busy 2-core
 * machine running two test files at once: the builder's longest tests (many builds on worker
 * threads) took 100 s there, and 200–305 s with two whole test runs at once on the 2 cores (one
 * of them then passed 300 s); servers and child processes start slowly under load. A timeout
 * only costs time when a test hangs.
 */
const shared = defineProject({
  resolve: { conditions: [sourceCondition] },
  ssr: { resolve: { conditions: [sourceCondition] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, reliabilityTests],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    teardownTimeout: 60_000,
  },
});

/** One package's vitest project: the shared settings plus its name (and any overrides). */
export function packageProject(name: string, overrides: ViteUserConfig = {}) {
  return mergeConfig(shared, mergeConfig(defineProject({ test: { name } }), overrides));
}
