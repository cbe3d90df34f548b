/**
 * Runs every `*.bench.ts` in this folder, one after another, each in its own process (so one
 * benchmark's heap and open handles never disturb the next). Exits non-zero if any fails.
 *
 * Run: pnpm --filter @trelliscms/server bench   (BENCH_ONLY=import runs the files whose name contains it)
 * `releases.bench.ts` starts the built server (`dist/main.js`): build first (the root `pnpm bench` does).
 * Neo4j is measured when NEO4J_URI is set, or with BENCH_NEO4J=harness, which starts a server of
 * its own from tools/neo4j-harness with the production JVM profile for the run and stops it after.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startOwnHarness } from './neo4j-server';

const dir = fileURLToPath(new URL('.', import.meta.url));
const only = process.env.BENCH_ONLY;
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.bench.ts') && (!only || name.includes(only)))
  .sort();
const env: NodeJS.ProcessEnv = { ...process.env, TSX_TSCONFIG_PATH: 'bench/tsconfig.json' };
let harness: Awaited<ReturnType<typeof startOwnHarness>> | null = null;
if (!env.NEO4J_URI && env.BENCH_NEO4J === 'harness') {
  harness = await startOwnHarness();
  env.NEO4J_URI = harness.uri;
  env.NEO4J_PASSWORD ??= 'trellis-test-pw';
  console.log(`Neo4j harness (production profile) at ${harness.uri}`);
}
let failed = 0;
for (const file of files) {
  console.log(`\n== ${file}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', `bench/${file}`], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: 'inherit',
    env,
  });
  if (result.status !== 0) failed += 1;
}
harness?.stop();
process.exit(failed === 0 ? 0 : 1);
