import { createRequire } from 'node:module';

/** The CLI's version (from its package.json), printed by `cms --version`. */
export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string })
  .version;
