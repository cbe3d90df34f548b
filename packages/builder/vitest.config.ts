import { defineProject } from 'vitest/config';
import { workspaceAlias } from '../../vitest.shared';

export default defineProject({
  resolve: { alias: workspaceAlias },
  test: {
    name: 'builder',
    include: ['src/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    // builds spawn worker threads; a loaded CI machine makes them slow
    testTimeout: 90_000,
  },
});
