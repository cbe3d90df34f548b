/**
 * The child process of the scheduler race test (`deployment-scheduler.race.test.ts`): a second
 * server instance in its own process, on its own engine over the same data dir. It waits for a
 * line on stdin, runs one scheduler tick at the given clock (building and switching in what it
 * takes live, as a server does), and prints the ids it took live as JSON.
 *
 * Usage: node --conditions=@trelliscms/source --import tsx scheduler-race-child.ts <dataDir> <nowIso> [neo4j]
 * With `neo4j` it opens the Neo4j of NEO4J_URI (NEO4J_USER, NEO4J_PASSWORD, NEO4J_EDITION; the audit key
 * in hex in RACE_AUDIT_KEY) instead of the embedded engine on the data dir.
 */
import { createInterface } from 'node:readline';
import { createEmbeddedEngine } from '../../src/engines/embedded';
import { createNeo4jEngine } from '../../src/engines/neo4j';
import { PLATFORM_GRAPH } from '../../src/platform/platform-graph';
import { BuildService } from '../../src/publishing/build-service';
import { DeploymentScheduler } from '../../src/releases/deployment-scheduler';
import { ReleasePublisher } from '../../src/releases/release-publisher';
import { fixedClock } from '../../src/shared/clock';
import { createGuardedFetch } from '../../src/shared/outbound/guarded-fetch';

const [dataDir, nowIso, engineName] = process.argv.slice(2);
if (!dataDir || !nowIso) {
  console.error('usage: scheduler-race-child <dataDir> <nowIso>');
  process.exit(2);
}
const engine =
  engineName === 'neo4j'
    ? createNeo4jEngine({
        uri: process.env.NEO4J_URI as string,
        user: process.env.NEO4J_USER ?? 'neo4j',
        password: process.env.NEO4J_PASSWORD ?? 'trellis-test-pw',
        edition: process.env.NEO4J_EDITION === 'enterprise' ? 'enterprise' : 'community',
        auditKey: Buffer.from(process.env.RACE_AUDIT_KEY ?? '', 'hex'),
      })
    : createEmbeddedEngine({ dataDir });
await engine.init();
const platform = await engine.openGraph(PLATFORM_GRAPH);
if (!platform) throw new Error('no platform graph');
const silent = { info() {}, error() {}, warn() {}, debug() {}, child: () => silent } as never;
const clock = fixedClock(nowIso);
const outbound = createGuardedFetch({ policy: { allow: [] }, timeoutMs: 5000, maxResponseBytes: 1 << 20 });
const builds = new BuildService({ dataDir, log: silent, clock, outbound });
const publisher = new ReleasePublisher({ builds, log: silent, clock });
const scheduler = new DeploymentScheduler({
  engine,
  platform,
  publisher,
  now: () => clock.now(),
  log: silent,
  intervalMs: 60_000,
  prebuild: false,
});
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
for await (const _line of lines) break;
const result = await scheduler.tick();
process.stdout.write(
  `${JSON.stringify({ attempted: result.attempted, fired: result.fired.map((d) => d.id) })}\n`,
);
await builds.close();
await engine.close();
