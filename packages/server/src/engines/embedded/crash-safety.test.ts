import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomInt } from '@trelliscms/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRandom } from '../../../test/helpers/test-seed';
import { createEmbeddedEngine } from './index';

const ITERATIONS = 20;
/** On a machine too busy to finish 20 kills in this time, stop after at least MIN_ITERATIONS. */
const TIME_BUDGET_MS = 150_000;
const MIN_ITERATIONS = 8;
const BATCH_SIZE = 100;
const serverDir = fileURLToPath(new URL('../../..', import.meta.url));
const writer = fileURLToPath(new URL('../../../test/helpers/crash-writer.ts', import.meta.url));
// The engine needs only core's hashing; loading just that keeps each child's start short.

/** Runs the writer until it has acknowledged `minCommits` batches, waits `delayMs` more, then SIGKILLs it. */
function runAndKill(options: {
  dataDir: string;
  graph: string;
  prefix: string;
  minCommits: number;
  delayMs: number;
}): Promise<{ acknowledged: string[]; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      // From the TypeScript sources, sibling packages too (their `@trelliscms/source` export condition).
      [
        '--conditions=@trelliscms/source',
        '--import',
        'tsx',
        writer,
        options.dataDir,
        options.graph,
        String(BATCH_SIZE),
        options.prefix,
      ],
      {
        cwd: serverDir,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const acknowledged: string[] = [];
    let stderr = '';
    let buffered = '';
    let armed = false;
    const timeout = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the writer made no progress in 90 s: ${stderr}`));
    }, 90_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('committed ')) acknowledged.push(line.slice('committed '.length));
      }
      if (!armed && acknowledged.length >= options.minCommits) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), options.delayMs);
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timeout);
      if (signal !== 'SIGKILL') reject(new Error(`the writer exited with ${code}: ${stderr}`));
      else resolve({ acknowledged, signal });
    });
  });
}

/** Every third batch of a run is written off the main thread: nodes and audit, no edges (crash-writer.ts). */
const detached = (batch: string) => Number(batch.slice(batch.lastIndexOf('-') + 1)) % 3 === 2;

describe('embedded engine crash safety', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'trellis-crash-'));
    const engine = createEmbeddedEngine({ dataDir });
    await engine.init();
    await engine.createGraph('crash');
    await engine.close();
  });

  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves every transaction all-or-nothing when the writer is SIGKILLed at random points', async () => {
    const { random } = testRandom('crash-safety');
    const acknowledged = new Set<string>();
    let killedMidBatch = 0;
    const started = Date.now();
    for (let iteration = 0; iteration < ITERATIONS; iteration++) {
      if (iteration >= MIN_ITERATIONS && Date.now() - started > TIME_BUDGET_MS) break;
      const run = await runAndKill({
        dataDir,
        graph: 'crash',
        prefix: `run${iteration}`,
        // the kill lands in one of the first batches; the third is written off the main thread
        minCommits: randomInt(random, 1, 3),
        delayMs: randomInt(random, 0, 59),
      });
      for (const batch of run.acknowledged) acknowledged.add(batch);

      const engine = createEmbeddedEngine({ dataDir });
      await engine.init();
      try {
        const graph = await engine.openGraph('crash');
        if (graph === null) throw new Error('the graph is gone');
        const items = await graph.findNodes({ label: 'Item' });
        const nodesPerBatch = new Map<string, number>();
        for (const node of items.nodes) {
          const batch = node.props.batch as string;
          nodesPerBatch.set(batch, (nodesPerBatch.get(batch) ?? 0) + 1);
        }
        const edges = await graph.getEdges({ type: 'NEXT' });
        const edgesPerBatch = new Map<string, number>();
        for (const edge of edges) {
          const batch = edge.props.batch as string;
          edgesPerBatch.set(batch, (edgesPerBatch.get(batch) ?? 0) + 1);
        }
        const audited = (await graph.auditRecords()).map((record) => record.target);

        // All or nothing: a batch present at all is complete, with its edges and its audit record.
        for (const [batch, count] of nodesPerBatch) {
          expect(count, `nodes of ${batch}`).toBe(BATCH_SIZE);
          expect(edgesPerBatch.get(batch), `edges of ${batch}`).toBe(
            detached(batch) ? undefined : BATCH_SIZE - 1,
          );
        }
        expect([...edgesPerBatch.keys()].every((batch) => nodesPerBatch.has(batch))).toBe(true);
        expect(new Set(audited)).toEqual(new Set(nodesPerBatch.keys()));
        expect(audited).toHaveLength(nodesPerBatch.size);
        // Durable: every acknowledged commit survived the kill.
        for (const batch of acknowledged)
          expect(nodesPerBatch.has(batch), `acknowledged ${batch}`).toBe(true);
        expect(await graph.verifyAudit()).toMatchObject({ status: 'ok', records: audited.length });
        // A batch the writer started but never acknowledged left nothing behind.
        const next = `run${iteration}-${run.acknowledged.length}`;
        if (!nodesPerBatch.has(next)) killedMidBatch += 1;
      } finally {
        await engine.close();
      }
    }
    // Most kills land inside a transaction; the loop above proved each one left no trace.
    expect(killedMidBatch).toBeGreaterThan(0);
    // Batches of both kinds were acknowledged and found whole.
    expect([...acknowledged].some(detached)).toBe(true);
    expect([...acknowledged].some((batch) => !detached(batch))).toBe(true);
  }, 300_000);
});
