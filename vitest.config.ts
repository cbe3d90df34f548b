import { defineConfig } from 'vitest/config';

/**
 * One vitest run for the whole workspace. Each package is a project (packages/*\/vitest.config.ts,
 * built by `packageProject` in vitest.shared.ts); tests live beside the code they test
 * (`src/**\/*.test.ts`) or under the package's `test/`. End-to-end tests are named
 * `*.e2e.test.ts` and run the built packages: `pnpm test` builds first and runs everything,
 * `pnpm test:unit` leaves them out.
 */
export default defineConfig({
  test: {
    projects: ['packages/*'],
    // Two test files at a time, also on a 2-core machine (vitest's default there is one): most
    // files wait on servers, child processes and the disk, and the builder's longest file
    // (incremental.test.ts, minutes under load) no longer holds up all the others.
    maxWorkers: 2,
  },
});
