import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureOwnerKey } from '../test/helpers/neo4j-owner-key';
import { type ServerProcess, startServerProcess } from '../test/helpers/server-process';
import { createEmbeddedEngine } from './engines/embedded';
import { createNeo4jEngine } from './engines/neo4j';
import type { Graph, GraphEngine } from './engines/port';
import { createApiKey } from './platform/api-keys';
import { setMembership } from './platform/members';
import { PLATFORM_GRAPH } from './platform/platform-graph';
import { createUser } from './platform/users';
import { buildNodeId } from './publishing/build-service';
import { systemClock } from './shared/clock';

// Several API servers, one platform (issue 17 item 2, docs/scaling.md § Several API servers): two
// built server processes (`pnpm build`) on one Neo4j — skipped without NEO4J_URI, like the other
// Neo4j suites — and on one embedded data directory, driven through both.

const neo4jUri = process.env.NEO4J_URI;
const seed = randomBytes(4).toString('hex');
console.log(`several-servers e2e: seed ${seed}`);

interface Variant {
  name: string;
  enabled: boolean;
  /** The env both servers share, the engine the test reads the graphs through, and how to clean up. */
  setup(
    ownerKey: string,
  ): Promise<{ env: Record<string, string>; engine: GraphEngine; cleanup(): Promise<void> }>;
}

const variants: Variant[] = [
  {
    name: 'neo4j',
    enabled: neo4jUri !== undefined,
    async setup(ownerKey) {
      const auditKey = randomBytes(32);
      const env = {
        CMS_ENGINE: 'neo4j',
        NEO4J_URI: neo4jUri as string,
        NEO4J_USER: process.env.NEO4J_USER ?? 'neo4j',
        NEO4J_PASSWORD: process.env.NEO4J_PASSWORD ?? 'trellis-test-pw',
        NEO4J_EDITION: process.env.NEO4J_EDITION === 'enterprise' ? 'enterprise' : 'community',
        CMS_AUDIT_KEY: auditKey.toString('hex'),
      };
      const engine = createNeo4jEngine({
        uri: env.NEO4J_URI,
        user: env.NEO4J_USER,
        password: env.NEO4J_PASSWORD,
        edition: env.NEO4J_EDITION as 'community' | 'enterprise',
        auditKey,
      });
      await engine.init();
      // The Neo4j platform graph may exist from earlier runs: make sure the owner key is ours.
      await ensureOwnerKey(engine, ownerKey);
      return { env, engine, cleanup: () => engine.close() };
    },
  },
  {
    name: 'embedded',
    enabled: true,
    async setup() {
      const dataDir = await mkdtemp(join(tmpdir(), 'trellis-several-'));
      // The first server bootstraps the platform; the test opens the engine once it has.
      const engine = createEmbeddedEngine({ dataDir });
      return {
        env: { CMS_DATA_DIR: dataDir },
        engine,
        cleanup: async () => {
          await engine.close();
          await rm(dataDir, { recursive: true, force: true });
        },
      };
    },
  },
];

const servers: ServerProcess[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.cleanup()));
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

for (const variant of variants) {
  describe.skipIf(!variant.enabled)(`two API servers on one platform (${variant.name})`, () => {
    it('share revocations, role changes and build leases, each with its own instance id', async () => {
      const ownerKey = `several-owner-${seed}-0123456789abcdef`;
      const shared = await variant.setup(ownerKey);
      cleanups.push(shared.cleanup);
      const env = {
        ...shared.env,
        CMS_OWNER_KEY: ownerKey,
        // Caches kept for a minute: only the access epoch can carry a change across in time.
        ACCESS_CACHE_MS: '60000',
        LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
        LOG_LEVEL: 'info',
      };
      const a = await startServerProcess(env);
      servers.push(a);
      const b = await startServerProcess(env);
      servers.push(b);
      await shared.engine.init();

      const call = async (
        server: ServerProcess,
        method: string,
        path: string,
        options: { key?: string; site?: string; body?: unknown } = {},
      ) => {
        const response = await fetch(`${server.url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${options.key ?? ownerKey}`,
            ...(options.site ? { 'x-site-id': options.site } : {}),
            ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: options.body === undefined ? undefined : JSON.stringify(options.body),
        });
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : null };
      };

      // Health: one instance each.
      const healthA = await call(a, 'GET', '/api/health');
      const healthB = await call(b, 'GET', '/api/health');
      expect(healthA.body.instanceId).toBeTruthy();
      expect(healthB.body.instanceId).toBeTruthy();
      expect(healthA.body.instanceId).not.toBe(healthB.body.instanceId);

      // A site made on A, with its starter kit (so a build renders pages).
      const slug = `several-${seed}-${variant.name}`;
      const created = await call(a, 'POST', '/api/sites', { body: { name: 'Several servers', slug } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const site = created.body as { id: string; graphName: string };
      cleanups.push(async () => {
        await shared.engine.dropGraph(site.graphName).catch(() => false);
      });

      // A key made on A works on B; revoked on A, B refuses it on the next request.
      const key = await call(a, 'POST', '/api/auth/api-keys', {
        site: site.id,
        body: { name: 'ci', role: 'editor' },
      });
      expect(key.status, JSON.stringify(key.body)).toBe(201);
      const secret = key.body.secret as string;
      for (let i = 0; i < 3; i += 1) {
        expect((await call(b, 'GET', '/api/types', { key: secret, site: site.id })).status).toBe(200);
      }
      expect((await call(a, 'DELETE', `/api/auth/api-keys/${key.body.id}`, { site: site.id })).status).toBe(
        200,
      );
      const refused = await call(b, 'GET', '/api/types', { key: secret, site: site.id });
      expect(refused.status).toBe(401);
      expect(refused.body.code).toBe('invalid_credential');

      // A member's role lowered on A applies on B on the next request.
      const platform = (await shared.engine.openGraph(PLATFORM_GRAPH)) as Graph;
      const member = await platform.transaction(async (tx) => {
        const user = await createUser(tx, {
          name: `ada-${seed}`,
          email: null,
          sub: null,
          platformRole: null,
          persona: null,
          actor: 'test',
          clock: systemClock,
        });
        await setMembership(tx, {
          userId: user.id,
          siteId: site.id,
          role: 'admin',
          actor: 'test',
          clock: systemClock,
        });
        const minted = await createApiKey(tx, {
          name: 'ada',
          role: 'admin',
          userId: user.id,
          siteId: site.id,
          allowedSites: [site.id],
          actor: 'test',
          clock: systemClock,
        });
        return { userId: user.id, key: minted.token };
      });
      for (let i = 0; i < 3; i += 1) {
        expect((await call(b, 'GET', '/api/auth/users', { key: member.key, site: site.id })).status).toBe(
          200,
        );
      }
      const demoted = await call(a, 'PUT', `/api/auth/users/${member.userId}/role`, {
        site: site.id,
        body: { role: 'viewer' },
      });
      expect(demoted.status, JSON.stringify(demoted.body)).toBe(200);
      expect((await call(b, 'GET', '/api/auth/users', { key: member.key, site: site.id })).status).toBe(403);
      expect((await call(b, 'GET', '/api/types', { key: member.key, site: site.id })).status).toBe(200);

      // Builds of one environment asked of A and B at once: one runs at a time.
      const [onA, onB] = await Promise.all([
        call(a, 'POST', '/api/build?env=dev&async=1', { site: site.id, body: { mode: 'full' } }),
        call(b, 'POST', '/api/build?env=dev&async=1', { site: site.id, body: { mode: 'full' } }),
      ]);
      expect(onA.status, JSON.stringify(onA.body)).toBe(202);
      expect(onB.status, JSON.stringify(onB.body)).toBe(202);
      const graph = (await shared.engine.openGraph(site.graphName)) as Graph;
      const finished = async (buildId: string) => {
        for (const deadline = Date.now() + 240_000; Date.now() < deadline; ) {
          const node = await graph.getNode(buildNodeId(buildId));
          if (node && node.props.status !== 'running') return node.props;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        const logs = (server: typeof a, name: string) =>
          `${name}:\n${server
            .log()
            .split('\n')
            .filter(
              (line) =>
                line.includes(buildId) || line.includes('"level":"error"') || line.includes('"level":"warn"'),
            )
            .slice(-20)
            .join('\n')}`;
        throw new Error(`build ${buildId} did not finish\n${logs(a, 'A')}\n${logs(b, 'B')}`);
      };
      const builds = await Promise.all([finished(onA.body.buildId), finished(onB.body.buildId)]);
      for (const build of builds) {
        expect(build.status, String(build.error)).toBe('ok');
        expect(typeof build.leasedAt).toBe('number');
        expect(typeof build.endedAt).toBe('number');
      }
      expect(builds.map((build) => build.instance).sort()).toEqual(
        [healthA.body.instanceId, healthB.body.instanceId].sort(),
      );
      console.log(
        `several-servers e2e (${variant.name}): builds`,
        JSON.stringify(
          builds.map(({ instance, startedAt, leasedAt, endedAt }) => ({
            instance,
            startedAt,
            leasedAt,
            endedAt,
          })),
        ),
      );
      const [first, second] = [...builds].sort((x, y) => Number(x.leasedAt) - Number(y.leasedAt));
      // The second got the lease only after the first had ended.
      expect(Number(second?.leasedAt)).toBeGreaterThanOrEqual(Number(first?.endedAt));
    }, 600_000);
  });
}
