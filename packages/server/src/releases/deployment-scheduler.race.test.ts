import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../test/helpers/content-test-site';
import { ensureOwnerKey } from '../../test/helpers/neo4j-owner-key';
import { TEST_OWNER_KEY } from '../../test/helpers/test-platform';
import { createNeo4jEngine } from '../engines/neo4j';
import type { GraphEngine } from '../engines/port';

const serverDir = fileURLToPath(new URL('../..', import.meta.url));
const child = fileURLToPath(new URL('../../test/helpers/scheduler-race-child.ts', import.meta.url));

const neo4jUri = process.env.NEO4J_URI;
const auditKey = randomBytes(32);
const neo4j = (): GraphEngine =>
  createNeo4jEngine({
    uri: neo4jUri as string,
    user: process.env.NEO4J_USER ?? 'neo4j',
    password: process.env.NEO4J_PASSWORD ?? 'trellis-test-pw',
    edition: process.env.NEO4J_EDITION === 'enterprise' ? 'enterprise' : 'community',
    auditKey,
  });

let site: ContentTestSite | undefined;
afterEach(async () => {
  if (site && site.platform.engine.name === 'neo4j') {
    const graphName = site.graph.name;
    await site.platform.app.trellis.engine.dropGraph(graphName).catch(() => false);
  }
  await site?.close();
  site = undefined;
});

/** Starts a scheduler process on the data dir; resolves once it is ready, with a function that ticks it. */
function startInstance(dataDir: string, now: string, engine: 'embedded' | 'neo4j') {
  const proc: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    // From the TypeScript sources, sibling packages too (their `@trelliscms/source` export condition).
    ['--conditions=@trelliscms/source', '--import', 'tsx', child, dataDir, now, engine],
    { cwd: serverDir, env: { ...process.env, RACE_AUDIT_KEY: Buffer.from(auditKey).toString('hex') } },
  );
  let out = '';
  let err = '';
  proc.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  proc.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    const parts = out.split('\n');
    out = parts.pop() ?? '';
    lines.push(...parts);
    for (const wake of waiters.splice(0)) wake();
  });
  const nextLine = () =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no answer from the scheduler process: ${err}`)),
        60_000,
      );
      const check = () => {
        const line = lines.shift();
        if (line !== undefined) {
          clearTimeout(timer);
          resolve(line);
        } else waiters.push(check);
      };
      proc.on('exit', (code) => {
        if (lines.length === 0) reject(new Error(`the scheduler process exited (${code}): ${err}`));
      });
      check();
    });
  return {
    ready: nextLine(),
    async tick(): Promise<{ attempted: number; fired: string[] }> {
      proc.stdin.write('go\n');
      return JSON.parse(await nextLine());
    },
    kill: () => proc.kill('SIGKILL'),
  };
}

const variants = [
  { engine: 'embedded' as const, enabled: true },
  // Skipped without NEO4J_URI, like the other Neo4j suites.
  { engine: 'neo4j' as const, enabled: neo4jUri !== undefined },
];

for (const variant of variants)
  describe.skipIf(!variant.enabled)(`deployment scheduler across processes (${variant.engine})`, () => {
    it('fires each due deployment exactly once when two server processes tick the same data', async () => {
      if (variant.engine === 'neo4j') {
        const setup = neo4j();
        await setup.init();
        await ensureOwnerKey(setup, TEST_OWNER_KEY);
        await setup.close();
        site = await createContentTestSite({
          engine: () => neo4j(),
          slug: `race-${randomBytes(4).toString('hex')}`,
        });
      } else site = await createContentTestSite();
      const current = site;
      const post = (url: string, payload: Record<string, unknown>) =>
        current.request({ method: 'POST', url, payload });
      await post('/api/releases', { name: 'r' });
      await post('/api/releases/release:r/transition', { state: 'pending' });
      await post('/api/releases/release:r/transition', { state: 'approved' });
      const ids: string[] = [];
      for (let index = 0; index < 8; index += 1) {
        const validFrom = new Date(Date.UTC(2030, 0, 1, 0, index)).toISOString();
        const created = await post('/api/releases/release:r/deploy', {
          environmentId: 'env:prod',
          validFrom,
        });
        expect(created.json().status).toBe('pending');
        ids.push(created.json().id);
      }
      const dataDir = current.platform.dataDir;
      const now = '2030-01-01T01:00:00.000Z';
      const a = startInstance(dataDir, now, variant.engine);
      const b = startInstance(dataDir, now, variant.engine);
      try {
        await Promise.all([a.ready, b.ready]);
        const [first, second] = await Promise.all([a.tick(), b.tick()]);
        const fired = [...first.fired, ...second.fired].sort();
        expect(fired).toEqual([...ids].sort());
        expect(first.attempted + second.attempted).toBeGreaterThanOrEqual(ids.length);
      } finally {
        a.kill();
        b.kill();
      }
      const audit = await current.graph.auditRecords();
      for (const id of ids) {
        expect(
          audit.filter((record) => record.action === 'deployment.live' && record.target === id),
        ).toHaveLength(1);
      }
      const deployments = (await current.request({ method: 'GET', url: '/api/releases/deployments' })).json();
      expect(deployments.every((d: { status: string }) => d.status === 'deployed')).toBe(true);
      // Each went live with its own build, and the environment serves the last one's.
      const builds = new Set(deployments.map((d: { buildId: string }) => d.buildId));
      expect(builds.size).toBe(ids.length);
      const last = (await current.request({ method: 'GET', url: '/api/build/last?env=prod' })).json();
      expect(last).toMatchObject({ live: true, purpose: 'deployment' });
      expect(builds.has(last.buildId)).toBe(true);
    }, 120_000);
  });
