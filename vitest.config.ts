import { defineConfig } from 'vitest/config';

/**
 * One vitest run for the whole workspace. Each package is a project; tests live
 * beside the code they test (`src/**\/*.test.ts`).
 */
export default defineConfig({
  test: {
    projects: ['packages/*'],
  },
});
