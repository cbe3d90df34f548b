// Writes docs/cli.md from the built commands: `pnpm --filter @trelliscms/cli docs`.
import { writeFile } from 'node:fs/promises';
import { renderCliReference } from '../dist/index.js';

const target = new URL('../../../docs/cli.md', import.meta.url);
await writeFile(target, renderCliReference());
process.stdout.write(`Wrote ${target.pathname}\n`);
