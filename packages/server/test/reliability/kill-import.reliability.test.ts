import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomInt } from '@trelliscms/core';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmbeddedEngine } from '../../src/engines/embedded';
import { PLATFORM_GRAPH } from '../../src/platform/platform-graph';
import {
  api,
  apiOk,
  createBlogSite,
  LONG,
  probeRandom,
  type ServerProcess,
  scaled,
  startServer,
} from './harness';

/**
 * kill -9 during an import: the built server imports batches (one transaction each, two
 * requests in flight) and is SIGKILLed at a random point; then every database file passes
 * `PRAGMA integrity_check`, the server restarts on the same data, every acknowledged batch is
 * there exactly once and every other batch wholly or not at all, and both audit chains (the
 * site's and the platform's) verify against their anchors.
 */

const RUNS = scaled(3, 20);
const BATCH = scaled(100, 500);
const BATCHES = scaled(40, 200);
const { random, seed } = probeRandom('kill -9 during import');
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** The records of batch `b` of run `run`. */
function batchRecords(run: number, b: number): Array<{ title: string; body: string }> {
  return Array.from({ length: BATCH }, (_, i) => ({
    title: `r${run}-b${b}-i${i}`,
    body: `batch ${b} record ${i} ${'x'.repeat(randomInt(random, 0, 200))}`,
  }));
}

function integrity(dataDir: string): Record<string, string> {
  const dir = join(dataDir, 'graphs');
  const out: Record<string, string> = {};
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.db'))) {
    const db = new Database(join(dir, file));
    try {
      out[file] = (db.prepare('PRAGMA integrity_check').all() as Array<Record<string, string>>)
        .map((row) => Object.values(row)[0])
        .join('; ');
    } finally {
      db.close();
    }
  }
  return out;
}

describe(`kill -9 during import (${RUNS} runs of up to ${BATCHES} batches of ${BATCH}, seed ${seed})`, () => {
  it('keeps every database intact, every acknowledged batch exactly once, and the audit chains verifiable', async () => {
    for (let run = 1; run <= RUNS; run++) {
      const dataDir = await mkdtemp(join(tmpdir(), 'trellis-kill-import-'));
      dirs.push(dataDir);
      let server: ServerProcess = await startServer({}, { dataDir });
      const site = await createBlogSite(server, { slug: `kill-${run}` });
      // The default kills early (a short run); the long variant anywhere in a run of up to 100k records.
      const killAfter = randomInt(random, 2, LONG ? BATCHES - 2 : 12);
      const extraMs = randomInt(random, 0, 250);
      const acknowledged = new Set<number>();
      const sent = new Set<number>();
      let next = 0;
      let killed = false;
      let resolveKill: () => void = () => {};
      const killTime = new Promise<void>((resolve) => {
        resolveKill = resolve;
      });
      const worker = async () => {
        while (!killed && next < BATCHES) {
          const b = next++;
          sent.add(b);
          try {
            const answer = await api(server, 'POST', '/api/import/json', {
              site: site.id,
              body: { typeName: 'post', records: batchRecords(run, b), batchSize: BATCH },
            });
            if (answer.status !== 200) throw new Error(`import answered ${answer.status}: ${answer.text}`);
            expect((answer.body as { created: number }).created).toBe(BATCH);
            acknowledged.add(b);
            if (acknowledged.size >= killAfter) resolveKill();
          } catch (error) {
            if (killed) return; // the connection died with the server: not acknowledged
            throw error;
          }
        }
      };
      const workers = [worker(), worker()];
      await Promise.race([killTime, Promise.all(workers)]);
      await new Promise((resolve) => setTimeout(resolve, extraMs));
      killed = true;
      const exit = await server.kill('SIGKILL');
      expect(exit.signal).toBe('SIGKILL');
      await Promise.all(workers);

      const checks = integrity(dataDir);
      expect(Object.keys(checks).length).toBeGreaterThanOrEqual(2);
      for (const [file, result] of Object.entries(checks)) expect(result, `${file} (run ${run})`).toBe('ok');

      server = await startServer({}, { dataDir });
      try {
        for (const graph of [site.graphName, PLATFORM_GRAPH]) {
          const verdict = await apiOk<{ status: string; reason: string | null }>(
            server,
            'GET',
            `/api/audit/verify?graph=${graph}`,
            { site: site.id },
          );
          expect(verdict.status, `${graph}: ${verdict.reason} (run ${run}, seed ${seed})`).toBe('ok');
        }
        // The restarted server takes writes again.
        const after = await api(server, 'POST', '/api/import/json', {
          site: site.id,
          body: { typeName: 'post', records: batchRecords(run, BATCHES), batchSize: BATCH },
        });
        expect(after.status, after.text).toBe(200);
      } finally {
        await server.kill('SIGTERM');
      }

      // Count what the graph holds, batch by batch, straight from the files.
      const engine = createEmbeddedEngine({ dataDir });
      await engine.init();
      try {
        const graph = await engine.openGraph(site.graphName);
        const page = await graph!.findNodes({ label: 'Post', limit: (BATCHES + 1) * BATCH + 10 });
        const perBatch = new Map<number, number>();
        for (const node of page.nodes) {
          const match = /^r(\d+)-b(\d+)-i\d+$/.exec(String(node.props.title));
          expect(match, `unexpected item ${node.id}`).not.toBeNull();
          const b = Number(match![2]);
          perBatch.set(b, (perBatch.get(b) ?? 0) + 1);
        }
        for (const b of acknowledged)
          expect(perBatch.get(b), `acknowledged batch ${b} (run ${run})`).toBe(BATCH);
        for (const [b, count] of perBatch) {
          expect(sent.has(b) || b === BATCHES, `batch ${b} was never sent`).toBe(true);
          expect(count, `batch ${b} is all or nothing (run ${run})`).toBe(BATCH);
        }
        expect(page.total).toBe([...perBatch.values()].reduce((sum, n) => sum + n, 0));
        console.info(
          `[kill -9 during import] run ${run}: killed after ${acknowledged.size} acknowledged batches (+${extraMs} ms), ${perBatch.size - 1} batches found before the restart`,
        );
      } finally {
        await engine.close();
      }
    }
  });
});
