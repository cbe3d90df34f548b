import { defineProject } from 'vitest/config';
import { workspaceAlias } from '../../vitest.shared';

export default defineProject({
  resolve: {
    // The subpath comes first: the `@trelliscms/sdk` entry would also match it as a prefix.
    alias: [
      {
        find: '@trelliscms/sdk/test-support',
        replacement: new URL('../sdk/src/test-support/index.ts', import.meta.url).pathname,
      },
      ...Object.entries(workspaceAlias).map(([find, replacement]) => ({ find, replacement })),
    ],
  },
  test: {
    name: 'cli',
    include: ['src/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
