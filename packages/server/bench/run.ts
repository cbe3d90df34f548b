/**
 * Runs every `*.bench.ts` in this folder, one after another, each in its own process (so one
 * benchmark's heap and open handles never disturb the next). Exits non-zero if any fails.
 *
 * Run: pnpm --filter @trelliscms/server bench   (BENCH_ONLY=import runs the files whose name contains it)
 * `releases.bench.ts` starts the built server (`dist/main.js`): build first (the root `pnpm bench` does).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const only = process.env.BENCH_ONLY;
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.bench.ts') && (!only || name.includes(only)))
  .sort();
let failed = 0;
for (const file of files) {
  console.log(`\n== ${file}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', `bench/${file}`], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: 'inherit',
    env: { ...process.env, TSX_TSCONFIG_PATH: 'bench/tsconfig.json' },
  });
  if (result.status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
