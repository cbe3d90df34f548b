import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Graph, GraphEngine, NodeRun } from '../port';
import { SqlConnection } from './connection';
import { DetachedRunWriter } from './detached-run';
import { detachedWriterWaiting, stopDetachedWriterThread } from './detached-writer';
import { createEmbeddedEngine } from './index';

const auditKey = new Uint8Array(32).fill(5);
const audit = { actor: 'tester', action: 'content.import', target: 'type:post' };

/** A run of `count` Post nodes from `from` on, each with a slug and a title. */
function run(from: number, count: number): NodeRun {
  const props = (i: number) => ({ slug: `s${i}`, title: `Title ${i}` });
  return {
    labels: ['Post', 'Content'],
    ids: Array.from({ length: count }, (_, k) => `p${from + k}`),
    propsJson: Array.from({ length: count }, (_, k) => JSON.stringify(props(from + k))),
    searchText: Array.from({ length: count }, (_, k) => `word${(from + k) % 3}`),
    uniqueProps: Array.from({ length: count }, (_, k) => props(from + k)),
  };
}

/** Another engine's transaction on `name` holding the file's write lock until `release()`; resolves once held. */
async function holdWriteLock(other: GraphEngine, name: string): Promise<{ release: () => Promise<void> }> {
  const holder = (await other.openGraph(name)) as Graph;
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holding = () => {};
  const held = new Promise<void>((resolve) => {
    holding = resolve;
  });
  const done = holder.transaction(async (tx) => {
    await tx.appendAudit({ actor: 'tester', action: 'holder', target: 'x' });
    holding();
    await released;
  });
  await held;
  return {
    release: async () => {
      release();
      await done;
    },
  };
}

/** How `promise` settled, without throwing: `{outcome}` or `{outcome: 'failed', error}`. */
function settledOf<T>(promise: Promise<T>): Promise<{ outcome: T | 'failed'; error?: unknown }> {
  return promise.then(
    (outcome) => ({ outcome }),
    (error: unknown) => ({ outcome: 'failed' as const, error }),
  );
}

describe('detached writer (the embedded engine’s write connection in a worker thread)', () => {
  let dir: string;
  let engine: GraphEngine;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trellis-detached-'));
    engine = createEmbeddedEngine({ dataDir: dir, auditKey });
    await engine.init();
  });

  afterEach(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const file = (name: string) => join(dir, 'graphs', `${name}.db`);
  const count = (name: string, sql: string) => {
    const conn = new SqlConnection(file(name), { readonly: true });
    try {
      return Number(conn.row(sql)?.[0]);
    } finally {
      conn.close();
    }
  };

  it('declines a run whose labels carry a constraint on a prop whose values were not sent, writing nothing', async () => {
    const graph = await engine.createGraph('unsent');
    await graph.ensureUnique('Content', 'title');
    // the thread's half, on this thread: a connection of its own, the graph's pragmas
    const writer = new DetachedRunWriter(file('unsent'), auditKey, ['journal_mode = WAL']);
    try {
      const only = (names: string[], r: NodeRun): NodeRun => ({
        ...r,
        uniqueProps: r.uniqueProps.map((props) =>
          Object.fromEntries(Object.entries(props).filter(([key]) => names.includes(key))),
        ),
      });
      // `slug` sent, `title` (constrained on Content) not: declined, nothing written
      expect(writer.write({ run: only(['slug'], run(0, 3)), uniqueNames: ['slug'], absent: [], audit })).toBe(
        'declined',
      );
      expect(count('unsent', 'SELECT count(*) FROM nodes')).toBe(0);
      expect(count('unsent', 'SELECT count(*) FROM audit')).toBe(0);
      // with `title` sent: written, its values held
      expect(
        writer.write({ run: only(['title'], run(0, 3)), uniqueNames: ['title'], absent: [], audit }),
      ).toBe('written');
      expect(count('unsent', 'SELECT count(*) FROM nodes')).toBe(3);
      expect(count('unsent', "SELECT count(*) FROM unique_values WHERE prop = 'title'")).toBe(3);
    } finally {
      writer.close();
    }
    await expect(
      graph.createNode({ id: 'x', labels: ['Content'], props: { title: 'Title 1' } }),
    ).rejects.toMatchObject({ kind: 'unique_violation' });
    expect((await graph.verifyAudit()).status).toBe('ok');
  });

  it('sends only the constrained props of each row, and the thread holds their values', async () => {
    const graph = await engine.createGraph('cut');
    await graph.ensureUnique('Post', 'slug');
    expect(await graph.createNodeRunDetached!({ run: run(0, 4), absent: [], audit })).toBe('written');
    // stored props are the propsJson given, whole; the unique values only the constrained prop's
    expect((await graph.getNode('p2'))?.props).toEqual({ slug: 's2', title: 'Title 2' });
    expect(count('cut', 'SELECT count(*) FROM unique_values')).toBe(4);
    expect(count('cut', "SELECT count(*) FROM unique_values WHERE prop = 'slug'")).toBe(4);
    // a later run repeating a held slug is declined, with nothing written
    expect(
      await graph.createNodeRunDetached!({
        run: { ...run(10, 2), uniqueProps: [{ slug: 's10' }, { slug: 's1' }] },
        absent: [],
        audit,
      }),
    ).toBe('declined');
    expect(count('cut', 'SELECT count(*) FROM nodes')).toBe(4);
  });

  it('rejects a run it cannot send (a value the structured clone cannot copy), leaves nothing pending, and writes the next run', async () => {
    const graph = await engine.createGraph('unsendable');
    await graph.ensureUnique('Post', 'slug');
    const unsendable = { ...run(0, 2), uniqueProps: [{ slug: 's0' }, { slug: () => 's1' }] };
    await expect(graph.createNodeRunDetached!({ run: unsendable, absent: [], audit })).rejects.toThrow();
    // nothing waits for an answer that will not come (a pending request would keep the process alive)
    expect(detachedWriterWaiting()).toBe(0);
    expect(count('unsendable', 'SELECT count(*) FROM nodes')).toBe(0);
    expect(await graph.createNodeRunDetached!({ run: run(0, 2), absent: [], audit })).toBe('written');
    expect(detachedWriterWaiting()).toBe(0);
    expect(count('unsendable', 'SELECT count(*) FROM nodes')).toBe(2);
    expect((await graph.verifyAudit()).status).toBe('ok');
  });

  it('writes runs asked for at once in their order, and a chained run only after its predecessor was written', async () => {
    const graph = await engine.createGraph('chained');
    await graph.createNode({ id: 'taken', labels: ['Note'], props: {} });
    const rids = (ids: string[]) => {
      const conn = new SqlConnection(file('chained'), { readonly: true });
      try {
        return ids.map((id) => Number(conn.row('SELECT rid FROM nodes WHERE id = ?', [id])?.[0]));
      } finally {
        conn.close();
      }
    };
    // three asked for at once (the later ones sent while the first is written): written in order
    const outcomes = await Promise.all([
      graph.createNodeRunDetached!({ run: run(0, 3), absent: [], audit: { ...audit, target: 'a' } }),
      graph.createNodeRunDetached!({ run: run(10, 3), absent: [], audit: { ...audit, target: 'b' } }),
      graph.createNodeRunDetached!({ run: run(20, 3), absent: [], audit: { ...audit, target: 'c' } }),
    ]);
    expect(outcomes).toEqual(['written', 'written', 'written']);
    const order = rids(['p0', 'p2', 'p10', 'p12', 'p20', 'p22']);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    expect((await graph.auditRecords()).map((record) => record.target)).toEqual(['a', 'b', 'c']);
    // a chain whose first run is declined (an `absent` id exists): the second is declined too,
    // nothing written, though it could have been
    const chain = (seq: number) => ({ id: 'import-1', seq });
    expect(
      await Promise.all([
        graph.createNodeRunDetached!({ run: run(30, 2), absent: ['taken'], audit, chain: chain(0) }),
        graph.createNodeRunDetached!({ run: run(40, 2), absent: [], audit, chain: chain(1) }),
      ]),
    ).toEqual(['declined', 'declined']);
    expect(count('chained', "SELECT count(*) FROM nodes WHERE id IN ('p30', 'p40')")).toBe(0);
    // another chain: both written; a run out of sequence (its predecessor never written) is declined
    expect(
      await Promise.all([
        graph.createNodeRunDetached!({
          run: run(50, 2),
          absent: [],
          audit,
          chain: { id: 'import-2', seq: 0 },
        }),
        graph.createNodeRunDetached!({
          run: run(60, 2),
          absent: [],
          audit,
          chain: { id: 'import-2', seq: 1 },
        }),
      ]),
    ).toEqual(['written', 'written']);
    expect(
      await graph.createNodeRunDetached!({
        run: run(70, 2),
        absent: [],
        audit,
        chain: { id: 'import-2', seq: 3 },
      }),
    ).toBe('declined');
    expect(count('chained', 'SELECT count(*) FROM nodes')).toBe(1 + 9 + 4);
    expect((await graph.verifyAudit()).status).toBe('ok');
  });

  it('survives the thread’s end: a write in flight is whole or absent, the lock is freed, the next write starts a new thread', async () => {
    const graph = await engine.createGraph('ended');
    const other = createEmbeddedEngine({ dataDir: dir, auditKey });
    await other.init();
    try {
      // the connection opened (the thread runs) before the lock is taken
      expect(await graph.createNodeRunDetached!({ run: run(0, 2), absent: [], audit })).toBe('written');
      const lock = await holdWriteLock(other, 'ended');
      // sent while another process holds the write lock: the thread tries it again on its timers
      const inFlight = settledOf(graph.createNodeRunDetached!({ run: run(100, 50), absent: [], audit }));
      // the thread is ended meanwhile, and the lock released
      const stopped = stopDetachedWriterThread();
      await lock.release();
      await stopped;
      const settled = await inFlight;
      // whole or absent: the run's 50 nodes and its audit entry, or none of them
      const written = count('ended', "SELECT count(*) FROM nodes WHERE id LIKE 'p1__'");
      expect([0, 50]).toContain(written);
      if (settled.outcome === 'written') expect(written).toBe(50);
      expect(count('ended', "SELECT count(*) FROM audit WHERE action = 'content.import'")).toBe(
        written === 50 ? 2 : 1,
      );
      // the write lock is free: the graph's own connection writes, and so does a new thread
      await graph.createNode({ id: 'after', labels: ['Note'], props: {} });
      expect(await graph.createNodeRunDetached!({ run: run(200, 3), absent: [], audit })).toBe('written');
      expect(count('ended', 'SELECT count(*) FROM nodes')).toBe(2 + written + 1 + 3);
      expect((await graph.verifyAudit()).status).toBe('ok');
    } finally {
      await other.close();
    }
  });

  it('writes other graphs’ runs while one graph’s run waits for a write lock another process holds, then that run in its order', async () => {
    const waiting = await engine.createGraph('waiting');
    const free = await engine.createGraph('free');
    const other = createEmbeddedEngine({ dataDir: dir, auditKey });
    await other.init();
    try {
      // both connections opened in the thread before the lock is taken
      expect(await waiting.createNodeRunDetached!({ run: run(0, 2), absent: [], audit })).toBe('written');
      expect(await free.createNodeRunDetached!({ run: run(0, 2), absent: [], audit })).toBe('written');
      const lock = await holdWriteLock(other, 'waiting');
      const order: string[] = [];
      // two chained runs for the locked graph: both wait, in their order
      const chain = (seq: number) => ({ id: 'import-w', seq });
      const first = settledOf(
        waiting.createNodeRunDetached!({ run: run(10, 3), absent: [], audit, chain: chain(0) }),
      ).then((settled) => {
        order.push('waiting-0');
        return settled;
      });
      const second = settledOf(
        waiting.createNodeRunDetached!({ run: run(20, 3), absent: [], audit, chain: chain(1) }),
      ).then((settled) => {
        order.push('waiting-1');
        return settled;
      });
      // the other graph's runs are written while the lock is still held
      expect(await free.createNodeRunDetached!({ run: run(10, 3), absent: [], audit })).toBe('written');
      expect(await free.createNodeRunDetached!({ run: run(20, 3), absent: [], audit })).toBe('written');
      expect(order).toEqual([]);
      expect(count('free', 'SELECT count(*) FROM nodes')).toBe(2 + 6);
      expect(count('waiting', 'SELECT count(*) FROM nodes')).toBe(2);
      await lock.release();
      expect(await first).toEqual({ outcome: 'written' });
      expect(await second).toEqual({ outcome: 'written' });
      expect(order).toEqual(['waiting-0', 'waiting-1']);
      expect(count('waiting', 'SELECT count(*) FROM nodes')).toBe(2 + 6);
      expect(detachedWriterWaiting()).toBe(0);
      expect((await waiting.verifyAudit()).status).toBe('ok');
      expect((await free.verifyAudit()).status).toBe('ok');
    } finally {
      await other.close();
    }
  });

  it('gives a run up with SQLITE_BUSY when the lock stays held past the wait, writing nothing, and writes the next one', async () => {
    const graph = await engine.createGraph('held');
    const other = createEmbeddedEngine({ dataDir: dir, auditKey });
    await other.init();
    try {
      expect(await graph.createNodeRunDetached!({ run: run(0, 2), absent: [], audit })).toBe('written');
      const lock = await holdWriteLock(other, 'held');
      // held for WRITE_LOCK_WAIT_MS (5 s) and more: the run fails as a write of the graph's own connection does
      const given = await settledOf(graph.createNodeRunDetached!({ run: run(10, 3), absent: [], audit }));
      expect(given.outcome).toBe('failed');
      expect(given.error).toMatchObject({ code: expect.stringMatching(/^SQLITE_BUSY/) });
      await lock.release();
      expect(count('held', 'SELECT count(*) FROM nodes')).toBe(2);
      expect(await graph.createNodeRunDetached!({ run: run(10, 3), absent: [], audit })).toBe('written');
      expect(count('held', 'SELECT count(*) FROM nodes')).toBe(5);
      expect(detachedWriterWaiting()).toBe(0);
    } finally {
      await other.close();
    }
  });
});
