import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GraphEngine, NodeRun } from '../port';
import { checkpoints } from './background-checkpoint';
import { SqlConnection } from './connection';
import type { EmbeddedGraph } from './embedded-graph';
import { createEmbeddedEngine } from './index';

const auditKey = new Uint8Array(32).fill(9);
const audit = { actor: 'tester', action: 'content.import', target: 'type:post' };

/** A run of `count` Post nodes from `from` on, each with a few hundred bytes of props. */
function run(from: number, count: number): NodeRun {
  const props = (i: number) => ({ slug: `s${i}`, body: `body ${i} `.repeat(40) });
  return {
    labels: ['Post', 'Content'],
    ids: Array.from({ length: count }, (_, k) => `p${from + k}`),
    propsJson: Array.from({ length: count }, (_, k) => JSON.stringify(props(from + k))),
    searchText: Array.from({ length: count }, (_, k) => `word${(from + k) % 7}`),
    uniqueProps: Array.from({ length: count }, (_, k) => props(from + k)),
  };
}

describe('background checkpoints (the WAL copied into the file off the write path)', () => {
  let dir: string;
  let engine: GraphEngine;
  const threshold = checkpoints.pages;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trellis-checkpoint-'));
    engine = createEmbeddedEngine({ dataDir: dir, auditKey });
    await engine.init();
    // a small threshold, so a few writes take the WAL past it
    checkpoints.pages = 40;
  });

  afterEach(async () => {
    checkpoints.pages = threshold;
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const file = () => join(dir, 'graphs', 'g.db');
  const count = (sql: string) => {
    const conn = new SqlConnection(file(), { readonly: true });
    try {
      return conn.row(sql)?.[0];
    } finally {
      conn.close();
    }
  };

  it('copies the WAL into the file once it holds the threshold’s pages, with no commit doing it, and the WAL starts again', async () => {
    const graph = (await engine.createGraph('g')) as EmbeddedGraph;
    const background = () => graph.backgroundCheckpoints;
    expect(background().runs).toBe(0);
    // transactions of the graph's own connection until the WAL holds 40 pages not copied
    let written = 0;
    while (background().runs === 0) {
      await graph.transaction(async (tx) => {
        for (let k = 0; k < 20; k += 1)
          await tx.createNode({ id: `n${written + k}`, labels: ['Note'], props: { text: 'x'.repeat(500) } });
      });
      written += 20;
      await background().idle();
      expect(written).toBeLessThan(2000);
    }
    // the background checkpoint copied what the WAL held: fewer pages than the threshold wait
    expect(background().pending()).toBeLessThan(40);
    const fileBytes = statSync(file()).size;
    expect(fileBytes).toBeGreaterThan(20 * 500);
    // writes go on; each time the WAL passes the threshold another checkpoint copies it, so it
    // never holds much more than the threshold (the writers' own backstop is 40,000 pages)
    for (let round = 0; round < 10; round += 1) {
      await graph.transaction(async (tx) => {
        for (let k = 0; k < 20; k += 1)
          await tx.createNode({
            id: `m${round * 20 + k}`,
            labels: ['Note'],
            props: { text: 'y'.repeat(500) },
          });
      });
      await background().idle();
      expect(background().pending()).toBeLessThan(40 + 30);
    }
    expect(background().runs).toBeGreaterThan(1);
    // the WAL started again from its beginning after complete checkpoints: it did not grow with every write
    expect(statSync(`${file()}-wal`).size).toBeLessThan(4096 * 200);
    expect(count('SELECT count(*) FROM nodes')).toBe(written + 200);
    expect(count('PRAGMA integrity_check')).toBe('ok');
  });

  it('is asked after the detached writer’s batches too, and a graph closed while one runs closes cleanly', async () => {
    const graph = (await engine.createGraph('g')) as EmbeddedGraph;
    await graph.ensureUnique('Post', 'slug');
    for (let at = 0; graph.backgroundCheckpoints.runs === 0; at += 50) {
      expect(await graph.createNodeRunDetached!({ run: run(at, 50), absent: [], audit })).toBe('written');
      await graph.backgroundCheckpoints.idle();
      expect(at).toBeLessThan(5000);
    }
    expect(graph.backgroundCheckpoints.pending()).toBeLessThan(40);
    // one more batch past the threshold, and the graph closed at once: close waits for the checkpoint
    await graph.createNodeRunDetached!({ run: run(10_000, 200), absent: [], audit });
    await engine.close();
    expect(count('PRAGMA integrity_check')).toBe('ok');
    expect(Number(count('SELECT count(*) FROM nodes'))).toBeGreaterThanOrEqual(250);
    engine = createEmbeddedEngine({ dataDir: dir, auditKey });
    await engine.init();
    const reopened = await engine.openGraph('g');
    expect((await reopened!.verifyAudit()).status).toBe('ok');
  });
});
