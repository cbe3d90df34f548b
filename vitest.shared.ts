import { fileURLToPath } from 'node:url';

/**
 * Tests import sibling packages from source, so a test run needs no prior build and always
 * sees the current code. (End-to-end tests start the built server from `dist/`.)
 */
export const workspaceAlias = {
  // before `@trelliscms/core`: an alias also matches the paths under its name
  '@trelliscms/core/build': fileURLToPath(new URL('./packages/core/src/build.ts', import.meta.url)),
  '@trelliscms/core': fileURLToPath(new URL('./packages/core/src/index.ts', import.meta.url)),
  '@trelliscms/builder': fileURLToPath(new URL('./packages/builder/src/index.ts', import.meta.url)),
  '@trelliscms/sdk': fileURLToPath(new URL('./packages/sdk/src/index.ts', import.meta.url)),
  '@trelliscms/server': fileURLToPath(new URL('./packages/server/src/index.ts', import.meta.url)),
};
