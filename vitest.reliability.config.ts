import { defineConfig } from 'vitest/config';
import { reliabilityTests, sourceCondition } from './vitest.shared';

/**
 * The reliability suite (`pnpm test:reliability`, docs/reliability.md): probes of the server as
 * an attacker and a careless operator would try it (kill -9 during imports, malformed input,
 * bombs, hostile templates, authorization, rate limits, shutdown, deploys under readers, audit
 * tampering). Most start the built server as a process, so the command builds first. One file
 * at a time: several probes measure latency and memory, which a second file running beside
 * them on a small machine would disturb. `RELIABILITY_LONG=1` runs the longer variants.
 */
export default defineConfig({
  resolve: { conditions: [sourceCondition] },
  ssr: { resolve: { conditions: [sourceCondition] } },
  test: {
    name: 'reliability',
    include: [`packages/*/test/reliability/${reliabilityTests}`],
    maxWorkers: 1,
    testTimeout: 600_000,
    hookTimeout: 180_000,
    teardownTimeout: 60_000,
  },
});
