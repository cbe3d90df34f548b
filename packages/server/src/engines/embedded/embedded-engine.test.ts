import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { testRandom } from '../../../test/helpers/test-seed';
import type { Graph, GraphEngine } from '../port';
import { SqlConnection } from './connection';
import { createEmbeddedEngine } from './index';
import { SCHEMA_VERSION } from './schema';

const ids = (nodes: Array<{ id: string }>) => nodes.map((node) => node.id);

/**
 * Rewrites a current graph file into the layout of schema version 4: a `node_labels` row per
 * further label of every node (kept by triggers), no `label_carriers`.
 */
/** Rewrites a current graph file into the layout of schema version 5 (edges keyed by the ends' ids). */
/** Rewrites a current graph file into the layout of schema version 6 (edge types as names in the rows). */
function toVersion6(file: SqlConnection): void {
  file.exec(`CREATE TABLE edges_6 (
      from_rid INTEGER NOT NULL,
      type TEXT NOT NULL,
      to_rid INTEGER NOT NULL,
      props TEXT NOT NULL,
      PRIMARY KEY (from_rid, type, to_rid)
    ) WITHOUT ROWID;
    INSERT INTO edges_6 (from_rid, type, to_rid, props)
      SELECT e.from_rid, y.name, e.to_rid, e.props FROM edges e JOIN edge_types y ON y.tid = e.tid;
    DROP TABLE edges;
    DROP TABLE edge_types;
    ALTER TABLE edges_6 RENAME TO edges;
    CREATE INDEX edges_to ON edges (to_rid, type, from_rid);
    UPDATE meta SET value = '6' WHERE key = 'schema_version';`);
}

function toVersion5(file: SqlConnection): void {
  toVersion6(file);
  file.exec(`CREATE TABLE edges_5 (
      from_id TEXT NOT NULL,
      type TEXT NOT NULL,
      to_id TEXT NOT NULL,
      props TEXT NOT NULL,
      PRIMARY KEY (from_id, type, to_id)
    ) WITHOUT ROWID;
    INSERT INTO edges_5 (from_id, type, to_id, props)
      SELECT f.id, e.type, t.id, e.props FROM edges e JOIN nodes f ON f.rid = e.from_rid JOIN nodes t ON t.rid = e.to_rid;
    DROP TABLE edges;
    ALTER TABLE edges_5 RENAME TO edges;
    CREATE INDEX edges_to ON edges (to_id, type, from_id);
    UPDATE meta SET value = '5' WHERE key = 'schema_version';`);
}

function toVersion4(file: SqlConnection): void {
  toVersion5(file);
  file.exec(`CREATE TABLE node_labels (
      label TEXT NOT NULL,
      rid INTEGER NOT NULL,
      PRIMARY KEY (label, rid)
    ) WITHOUT ROWID;
    INSERT INTO node_labels (label, rid) SELECT j.value, n.rid FROM nodes n, json_each(n.labels) j WHERE j.key > 0;
    DROP TABLE label_carriers;
    DROP TRIGGER nodes_after_update;
    DROP TRIGGER nodes_after_delete;
    CREATE TRIGGER nodes_after_update AFTER UPDATE ON nodes BEGIN
      DELETE FROM node_labels WHERE label IN (SELECT value FROM json_each(OLD.labels) WHERE key > 0) AND rid = OLD.rid;
      INSERT INTO node_labels (label, rid) SELECT value, NEW.rid FROM json_each(NEW.labels) WHERE key > 0;
    END;
    CREATE TRIGGER nodes_after_delete AFTER DELETE ON nodes BEGIN
      DELETE FROM node_labels WHERE label IN (SELECT value FROM json_each(OLD.labels) WHERE key > 0) AND rid = OLD.rid;
      DELETE FROM nodes_fts WHERE rowid = OLD.rid;
      DELETE FROM embeddings WHERE rid = OLD.rid;
      DELETE FROM unique_values WHERE rid = OLD.rid;
    END;
    UPDATE meta SET value = '4' WHERE key = 'schema_version';`);
}

/** Rewrites a current graph file into the layout of schema version 3 (before nodes had a given search text). */
function toVersion3(file: SqlConnection): void {
  toVersion4(file);
  file.exec(`DROP TRIGGER nodes_after_update;
    ALTER TABLE nodes DROP COLUMN text_given;
    CREATE TRIGGER nodes_after_update AFTER UPDATE ON nodes BEGIN
      DELETE FROM node_labels WHERE label IN (SELECT value FROM json_each(OLD.labels) WHERE key > 0) AND rid = OLD.rid;
      INSERT INTO node_labels (label, rid) SELECT value, NEW.rid FROM json_each(NEW.labels) WHERE key > 0;
      DELETE FROM nodes_fts WHERE rowid = OLD.rid;
    END;
    UPDATE meta SET value = '3' WHERE key = 'schema_version';`);
}

describe('embedded engine', () => {
  let dir: string;
  let engine: GraphEngine;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trellis-embedded-'));
    engine = createEmbeddedEngine({ dataDir: dir });
    await engine.init();
  });

  afterEach(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps data across a restart', async () => {
    const graph = await engine.createGraph('restart');
    await graph.transaction(async (tx) => {
      await tx.createNode({ id: 'a', labels: ['Post'], props: { title: 'Hello', n: 1 } });
      await tx.createNode({ id: 'b', labels: ['Post', 'Draft'], props: { title: 'World', tags: ['x'] } });
      await tx.mergeEdge({ from: 'a', type: 'LINKS', to: 'b', props: { w: 2 } });
      await tx.setEmbedding('a', [1, 0, 0]);
      await tx.appendAudit({ actor: 'system', action: 'seed', target: 'a' });
    });
    await graph.ensureUnique('Post', 'title');
    await engine.close();

    const again = createEmbeddedEngine({ dataDir: dir });
    await again.init();
    try {
      expect(await again.listGraphs()).toEqual(['restart']);
      const reopened = await again.openGraph('restart');
      expect(reopened).not.toBeNull();
      expect(await reopened?.getNode('b')).toEqual({
        id: 'b',
        labels: ['Post', 'Draft'],
        props: { title: 'World', tags: ['x'] },
      });
      expect(await reopened?.getEdges({ from: 'a' })).toEqual([
        { from: 'a', type: 'LINKS', to: 'b', props: { w: 2 } },
      ]);
      expect(await reopened?.hasEmbedding('a')).toBe(true);
      expect((await reopened?.verifyAudit())?.status).toBe('ok');
      await expect(
        reopened?.createNode({ id: 'c', labels: ['Post'], props: { title: 'Hello' } }),
      ).rejects.toMatchObject({ kind: 'unique_violation' });
    } finally {
      await again.close();
    }
  });

  it('rejects graph names that are not safe file names', async () => {
    for (const name of ['../x', 'a/b', '', '.hidden', 'a b']) {
      await expect(engine.createGraph(name)).rejects.toMatchObject({ kind: 'invalid_argument' });
    }
  });

  it('refuses zero vectors, whose cosine is undefined', async () => {
    const graph = await engine.createGraph('zero');
    await graph.createNode({ id: 'a', labels: ['T'], props: {} });
    await expect(graph.setEmbedding('a', [0, 0])).rejects.toMatchObject({ kind: 'invalid_argument' });
    await graph.setEmbedding('a', [1, 0]);
    await expect(graph.similar({ label: 'T', vector: [0, 0], k: 1 })).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
  });

  it('sees unique constraints another engine declared on the same files', async () => {
    const graph = await engine.createGraph('shared');
    const other = createEmbeddedEngine({ dataDir: dir });
    await other.init();
    try {
      const sameFile = await other.openGraph('shared');
      await graph.createNode({ id: 'a', labels: ['User'], props: { email: 'x@example.com' } });
      await sameFile?.ensureUnique('User', 'email');
      await expect(
        graph.createNode({ id: 'b', labels: ['User'], props: { email: 'x@example.com' } }),
      ).rejects.toMatchObject({ kind: 'unique_violation' });
    } finally {
      await other.close();
    }
  });

  it('waits for a write lock another connection holds without stopping the process', async () => {
    // Two engines on the same files stand for two server processes on one data directory (the
    // several-servers e2e test): each holds one graph's write lock in an open transaction and
    // writes to the graph the other holds. A write that waited for the lock in SQLite's busy
    // handler stopped its whole process, so neither holder could go on to commit, and both
    // writes failed ("database is locked") once the busy timeout ran out.
    const siteA = await engine.createGraph('site');
    const platformA = await engine.createGraph('platform');
    const other = createEmbeddedEngine({ dataDir: dir });
    await other.init();
    try {
      const siteB = (await other.openGraph('site')) as Graph;
      const platformB = (await other.openGraph('platform')) as Graph;
      const events: string[] = [];
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const hold = (graph: Graph, name: string) => {
        let holding = () => {};
        const held = new Promise<void>((resolve) => {
          holding = resolve;
        });
        const done = graph.transaction(async (tx) => {
          await tx.createNode({ id: name, labels: ['T'], props: {} });
          holding();
          await released;
          events.push(`${name} commits`);
        });
        return { held, done };
      };
      const writeAfter = (graph: Graph, name: string, holder: string) =>
        graph.transaction(async (tx) => {
          events.push(`${name} writes`);
          await tx.createNode({ id: name, labels: ['T'], props: {} });
          return (await tx.getNode(holder)) !== null;
        });

      const holdingSite = hold(siteA, 'site holder');
      const holdingPlatform = hold(platformB, 'platform holder');
      await Promise.all([holdingSite.held, holdingPlatform.held]);
      const onPlatform = writeAfter(platformA, 'platform writer', 'platform holder');
      const onSite = writeAfter(siteB, 'site writer', 'site holder');
      const single = siteB.createNode({ id: 'single', labels: ['T'], props: {} });
      // The event loop runs on while those writes wait: a timer fires, and lets the holders finish.
      setTimeout(() => {
        events.push('timer');
        release();
      }, 0);

      await Promise.all([holdingSite.done, holdingPlatform.done]);
      expect(await onPlatform).toBe(true);
      expect(await onSite).toBe(true);
      await single;
      expect(await siteA.getNode('single')).not.toBeNull();
      // Each waiting write began only once the holder of its graph had committed.
      expect(events[0]).toBe('timer');
      expect(events.indexOf('platform writer writes')).toBeGreaterThan(
        events.indexOf('platform holder commits'),
      );
      expect(events.indexOf('site writer writes')).toBeGreaterThan(events.indexOf('site holder commits'));
    } finally {
      await other.close();
    }
  });

  it('refuses a write on the graph from inside its own transaction instead of waiting forever', async () => {
    const graph = await engine.createGraph('reentrant');
    await expect(
      graph.transaction(async () => {
        await graph.createNode({ id: 'a', labels: ['T'], props: {} });
      }),
    ).rejects.toThrow(/tx argument/);
    await expect(graph.transaction(async () => graph.transaction(async () => 1))).rejects.toThrow(
      /tx argument/,
    );
    expect(await graph.getNode('a')).toBeNull();
  });

  it('turns arguments of the wrong type into errors, never a crash of the process', async () => {
    const graph = await engine.createGraph('types');
    await graph.createNode({ id: 'a', labels: ['T'], props: {} });
    await graph.setEmbedding('a', [1, 0]);
    const loose = graph as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    await expect(
      loose.similar?.({ label: 'T', vector: [1, 0], k: 1, excludeId: true }),
    ).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    await expect(loose.similar?.({ label: 'T', vector: [1, 0] })).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    await expect(loose.findNodes?.({ label: 'T', limit: true })).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    await expect(loose.getEdges?.({ from: true })).resolves.toEqual([]);
    await expect(loose.getNode?.(true)).resolves.toBeNull();
    await expect(loose.auditRecords?.({ afterSeq: false })).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
  });

  it('refuses to open a file that is not a graph of its schema', async () => {
    writeFileSync(join(dir, 'graphs', 'stray.db'), '');
    expect(await engine.listGraphs()).toContain('stray');
    await expect(engine.openGraph('stray')).rejects.toMatchObject({ kind: 'unavailable' });
    expect(await engine.dropGraph('stray')).toBe(true);
  });

  it('migrates a schema version 2 file when it opens it', async () => {
    const graph = await engine.createGraph('old');
    await graph.createNode({ id: 'a', labels: ['Post', 'Draft'], props: { title: 'Old file' } });
    await engine.close();
    // What version 2 wrote: the trigger that copied extra labels, and its version number.
    const file = new SqlConnection(join(dir, 'graphs', 'old.db'));
    expect(file.row(`SELECT v FROM nodes_fts_config WHERE k = 'automerge'`)?.[0]).toBe(16);
    file.exec(`DELETE FROM nodes_fts_config WHERE k = 'automerge'`);
    toVersion3(file);
    file.exec(`CREATE TRIGGER nodes_after_insert AFTER INSERT ON nodes
      WHEN json_array_length(NEW.labels) > 1 BEGIN
        INSERT INTO node_labels (label, rid) SELECT value, NEW.rid FROM json_each(NEW.labels) WHERE key > 0;
      END;
      UPDATE meta SET value = '2' WHERE key = 'schema_version';`);
    file.close();

    engine = createEmbeddedEngine({ dataDir: dir });
    await engine.init();
    const reopened = await engine.openGraph('old');
    if (reopened === null) throw new Error('the migrated graph did not open');
    await reopened.createNode({ id: 'b', labels: ['Post', 'Draft'], props: { title: 'New node' } });
    await reopened.createNodes([{ id: 'c', labels: ['Post', 'Draft'], props: { title: 'Batch node' } }]);
    expect(ids((await reopened.findNodes({ label: 'Draft' })).nodes)).toEqual(['a', 'b', 'c']);
    expect((await reopened.findNodes({ label: 'Draft', q: 'node' })).total).toBe(2);
    const check = new SqlConnection(join(dir, 'graphs', 'old.db'));
    expect(check.row(`SELECT value FROM meta WHERE key = 'schema_version'`)?.[0]).toBe(SCHEMA_VERSION);
    expect(check.row(`SELECT count(*) FROM sqlite_master WHERE name = 'nodes_after_insert'`)?.[0]).toBe(0);
    expect(check.row(`SELECT v FROM nodes_fts_config WHERE k = 'automerge'`)?.[0]).toBe(16);
    check.close();
  });

  it('migrates a schema version 3 file: old entries stay searchable, given search texts work', async () => {
    const graph = await engine.createGraph('v3');
    await graph.createNode({ id: 'a', labels: ['Post'], props: { title: 'Old tomatoes', status: 'draft' } });
    await graph.createNode({ id: 'b', labels: ['Post'], props: { title: 'Old leeks', status: 'draft' } });
    await engine.close();
    const file = new SqlConnection(join(dir, 'graphs', 'v3.db'));
    toVersion3(file);
    file.close();

    engine = createEmbeddedEngine({ dataDir: dir });
    await engine.init();
    const reopened = await engine.openGraph('v3');
    if (reopened === null) throw new Error('the migrated graph did not open');
    const search = async (q: string) => ids((await reopened.findNodes({ label: 'Post', q })).nodes);
    expect(await search('draft')).toEqual(['a', 'b']);
    await reopened.updateNode('a', {
      props: { title: 'Old tomatoes', status: 'draft' },
      searchText: 'Old tomatoes',
    });
    await reopened.updateNode('b', { props: { title: 'Old leeks', status: 'published' } });
    expect(await search('draft')).toEqual([]);
    expect(await search('published')).toEqual(['b']);
    expect(await search('tomatoes')).toEqual(['a']);
    const check = new SqlConnection(join(dir, 'graphs', 'v3.db'));
    expect(check.row(`SELECT value FROM meta WHERE key = 'schema_version'`)?.[0]).toBe(SCHEMA_VERSION);
    expect(check.rows(`SELECT id, text_given FROM nodes ORDER BY id`)).toEqual([
      ['a', 1],
      ['b', 0],
    ]);
    check.close();
  });

  it('migrates a schema version 4 file: the same answers by further label, and writes after it', async () => {
    const graph = await engine.createGraph('v4');
    await graph.ensureUnique('Content', 'slug');
    await graph.createNodes([
      { id: 'a1', labels: ['Article', 'Content'], props: { slug: 'one', title: 'Tomato soup' } },
      { id: 'a2', labels: ['Article', 'Content'], props: { slug: 'two', title: 'Leek soup' } },
      { id: 'p1', labels: ['Page', 'Content', 'Draft'], props: { slug: 'three', title: 'Tomato page' } },
      { id: 'p2', labels: ['Page'], props: { slug: 'one', title: 'Plain page' } },
      { id: 'c1', labels: ['Content'], props: { slug: 'four', title: 'Bare content' } },
    ]);
    await graph.setEmbedding('a1', [1, 0]);
    await graph.setEmbedding('p1', [0, 1]);
    await engine.close();
    const file = new SqlConnection(join(dir, 'graphs', 'v4.db'));
    toVersion4(file);
    expect(file.rows('SELECT label, count(*) FROM node_labels GROUP BY label ORDER BY label')).toEqual([
      ['Content', 3],
      ['Draft', 1],
    ]);
    file.close();

    engine = createEmbeddedEngine({ dataDir: dir });
    await engine.init();
    const reopened = await engine.openGraph('v4');
    if (reopened === null) throw new Error('the migrated graph did not open');
    const found = async (query: Parameters<Graph['findNodes']>[0]) => {
      const page = await reopened.findNodes(query);
      return [ids(page.nodes), page.total];
    };
    expect(await found({ label: 'Content' })).toEqual([['a1', 'a2', 'c1', 'p1'], 4]);
    expect(await found({ label: 'Content', q: 'tomato' })).toEqual([['a1', 'p1'], 2]);
    expect(await found({ label: 'Draft' })).toEqual([['p1'], 1]);
    expect(await found({ label: 'Page' })).toEqual([['p1', 'p2'], 2]);
    expect(await found({ label: 'Content', limit: 2, offset: 1 })).toEqual([['a2', 'c1'], 4]);
    expect(
      await found({ label: 'Content', where: [{ prop: 'title', op: 'contains', value: 'soup' }] }),
    ).toEqual([['a1', 'a2'], 2]);
    expect(
      (await reopened.similar({ label: 'Content', vector: [0, 1], k: 5 })).map((hit) => hit.node.id),
    ).toEqual(['p1', 'a1']);
    // The unique constraint on the further label still holds, and p2 (no Content) does not share it.
    await expect(
      reopened.createNode({ id: 'a3', labels: ['Article', 'Content'], props: { slug: 'two' } }),
    ).rejects.toMatchObject({ kind: 'unique_violation' });
    // Writes after the migration: a new carrier, a label taken away, a delete.
    await reopened.createNode({ id: 'v1', labels: ['Video', 'Content'], props: { slug: 'five' } });
    await reopened.updateNode('p1', { labels: ['Page', 'Content'], props: { slug: 'three' } });
    await reopened.updateNode('p2', { labels: ['Page', 'Draft'], props: { slug: 'one' } });
    await reopened.deleteNode('a2');
    expect(await found({ label: 'Content' })).toEqual([['a1', 'c1', 'p1', 'v1'], 4]);
    expect(await found({ label: 'Draft' })).toEqual([['p2'], 1]);
    await reopened.ensureUnique('Draft', 'slug');
    const check = new SqlConnection(join(dir, 'graphs', 'v4.db'));
    expect(check.row(`SELECT value FROM meta WHERE key = 'schema_version'`)?.[0]).toBe(SCHEMA_VERSION);
    expect(check.row(`SELECT count(*) FROM sqlite_master WHERE name = 'node_labels'`)?.[0]).toBe(0);
    expect(
      check.rows('SELECT label, primary_label FROM label_carriers ORDER BY label, primary_label'),
    ).toEqual([
      ['Content', 'Article'],
      ['Content', 'Page'],
      ['Content', 'Video'],
      ['Draft', 'Page'],
    ]);
    check.close();
  });

  it.each(['5', '6'])(
    'migrates a schema version %s file: its edges are found by every edge read, and edge writes after it',
    async (version) => {
      const name = `v${version}`;
      const graph = await engine.createGraph(name);
      // Ids whose order differs from their rids' (b made after c) and from UTF-16 order (U+FF5E
      // against a surrogate pair: SQLite's BINARY order puts the pair last).
      await graph.createNodes([
        { id: 'a', labels: ['Post'], props: {} },
        { id: 'c', labels: ['Post'], props: {} },
        { id: 'b', labels: ['Tag'], props: {} },
        { id: 'x\u{1F600}', labels: ['Tag'], props: {} },
        { id: 'x\uFF5E', labels: ['Tag'], props: {} },
      ]);
      for (const [from, type, to, props] of [
        ['a', 'TAGGED', 'x\u{1F600}', { w: 1 }],
        ['a', 'TAGGED', 'x\uFF5E', {}],
        ['a', 'TAGGED', 'b', {}],
        ['a', 'LINKS', 'c', { w: 2 }],
        ['c', 'TAGGED', 'b', {}],
        ['b', 'LINKS', 'a', {}],
      ] as const) {
        expect(await graph.mergeEdge({ from, type, to, props })).toBe('created');
      }
      await engine.close();
      const file = new SqlConnection(join(dir, 'graphs', `${name}.db`));
      if (version === '5') {
        toVersion5(file);
        expect(file.row('SELECT count(*) FROM edges WHERE from_id = ?', ['a'])?.[0]).toBe(4);
      } else {
        toVersion6(file);
        expect(file.row(`SELECT count(*) FROM edges WHERE type = 'TAGGED'`)?.[0]).toBe(4);
      }
      file.close();

      engine = createEmbeddedEngine({ dataDir: dir });
      await engine.init();
      const reopened = await engine.openGraph(name);
      if (reopened === null) throw new Error('the migrated graph did not open');
      const triples = (edges: Array<{ from: string; type: string; to: string }>) =>
        edges.map((edge) => [edge.from, edge.type, edge.to]);
      expect(triples(await reopened.getEdges({}))).toEqual([
        ['a', 'LINKS', 'c'],
        ['a', 'TAGGED', 'b'],
        ['a', 'TAGGED', 'x\uFF5E'],
        ['a', 'TAGGED', 'x\u{1F600}'],
        ['b', 'LINKS', 'a'],
        ['c', 'TAGGED', 'b'],
      ]);
      expect(await reopened.getEdges({ to: 'b', type: 'TAGGED' })).toEqual([
        { from: 'a', type: 'TAGGED', to: 'b', props: {} },
        { from: 'c', type: 'TAGGED', to: 'b', props: {} },
      ]);
      const withEdges = await reopened.getNodeWithEdges('a');
      expect(withEdges?.edges.map((edge) => [edge.type, edge.to, edge.props])).toEqual([
        ['LINKS', 'c', { w: 2 }],
        ['TAGGED', 'b', {}],
        ['TAGGED', 'x\uFF5E', {}],
        ['TAGGED', 'x\u{1F600}', { w: 1 }],
      ]);
      expect((await reopened.getNodeJsonWithEdges('c'))?.edges).toEqual([{ type: 'TAGGED', to: 'b' }]);
      const reached = await reopened.traverse({ from: 'b', direction: 'in', depth: 2 });
      expect(reached.map((hit) => [hit.node.id, hit.depth])).toEqual([
        ['a', 1],
        ['c', 1],
      ]);
      // Writes after the migration: an update, an unchanged edge, a new one, a delete, a cascade.
      expect(
        await reopened.mergeEdges([
          { from: 'a', type: 'LINKS', to: 'c', props: { w: 3 } },
          { from: 'c', type: 'TAGGED', to: 'b', props: {} },
          { from: 'b', type: 'LINKS', to: 'c', props: {} },
          { from: 'b', type: 'LINKS', to: 'gone', props: {} },
        ]),
      ).toEqual(['updated', 'unchanged', 'created', 'missing_endpoint']);
      expect(await reopened.deleteEdge({ from: 'a', type: 'TAGGED', to: 'x\uFF5E' })).toBe(true);
      expect(await reopened.deleteEdge({ from: 'a', type: 'NEVER', to: 'c' })).toBe(false);
      expect(await reopened.deleteNode('b')).toBe(true);
      expect(triples(await reopened.getEdges({}))).toEqual([
        ['a', 'LINKS', 'c'],
        ['a', 'TAGGED', 'x\u{1F600}'],
      ]);
      expect((await reopened.getEdges({ from: 'a', type: 'LINKS' }))[0]?.props).toEqual({ w: 3 });
      // A type entered after the migration has the highest tid but sorts first by name.
      expect(await reopened.mergeEdge({ from: 'c', type: 'ABOUT', to: 'a', props: {} })).toBe('created');
      expect(await reopened.mergeEdges([{ from: 'a', type: 'ABOUT', to: 'c', props: { w: 4 } }])).toEqual([
        'created',
      ]);
      expect(
        (await reopened.getNodeWithEdges('a'))?.edges.map((edge) => [edge.type, edge.to, edge.props]),
      ).toEqual([
        ['ABOUT', 'c', { w: 4 }],
        ['LINKS', 'c', { w: 3 }],
        ['TAGGED', 'x\u{1F600}', { w: 1 }],
      ]);
      expect(triples(await reopened.getEdges({ to: 'c' }))).toEqual([
        ['a', 'ABOUT', 'c'],
        ['a', 'LINKS', 'c'],
      ]);
      expect(
        (await reopened.traverse({ from: 'c', direction: 'out', depth: 1, edgeTypes: ['ABOUT'] })).map(
          (hit) => hit.node.id,
        ),
      ).toEqual(['a']);
      expect(
        (await reopened.traverse({ from: 'c', direction: 'out', depth: 1, edgeTypes: ['LINKS'] })).map(
          (hit) => hit.node.id,
        ),
      ).toEqual([]);
      const check = new SqlConnection(join(dir, 'graphs', `${name}.db`));
      expect(check.row(`SELECT value FROM meta WHERE key = 'schema_version'`)?.[0]).toBe(SCHEMA_VERSION);
      expect(check.rows(`SELECT name FROM pragma_table_info('edges') ORDER BY cid`)).toEqual([
        ['from_rid'],
        ['tid'],
        ['to_rid'],
        ['props'],
      ]);
      expect(check.rows('SELECT tid, name FROM edge_types ORDER BY tid')).toEqual([
        [1, 'LINKS'],
        [2, 'TAGGED'],
        [3, 'ABOUT'],
      ]);
      expect(check.row(`SELECT count(*) FROM sqlite_master WHERE name = 'edges_to'`)?.[0]).toBe(1);
      check.close();
    },
  );

  it('finds a further label only on the nodes that carry it, also when few of a primary label do', async () => {
    const graph = await engine.createGraph('carriers');
    const nodes = Array.from({ length: 30 }, (_, i) => ({
      id: `n${String(i).padStart(2, '0')}`,
      labels: i % 7 === 0 ? ['Post', 'Featured'] : ['Post'],
      props: { n: i, title: i % 2 === 0 ? 'even word' : 'odd word' },
    }));
    await graph.createNodes(nodes.slice(0, 20));
    for (const node of nodes.slice(20)) await graph.createNode(node);
    await graph.createNode({ id: 'x', labels: ['Note', 'Featured'], props: { title: 'even note' } });
    // A label whose name is inside another's: no false match on the labels' JSON.
    await graph.createNode({ id: 'y', labels: ['Note', 'Featured2'], props: { title: 'even' } });
    const featured = ['n00', 'n07', 'n14', 'n21', 'n28', 'x'];
    expect(ids((await graph.findNodes({ label: 'Featured' })).nodes)).toEqual(featured);
    expect((await graph.findNodes({ label: 'Featured' })).total).toBe(6);
    expect(ids((await graph.findNodes({ label: 'Featured', q: 'even' })).nodes)).toEqual([
      'n00',
      'n14',
      'n28',
      'x',
    ]);
    expect(
      ids((await graph.findNodes({ label: 'Featured', orderBy: [{ prop: 'n', direction: 'desc' }] })).nodes),
    ).toEqual(['x', 'n28', 'n21', 'n14', 'n07', 'n00']);
    await graph.updateNode('n07', { labels: ['Post'], props: { n: 7 } });
    await graph.deleteNode('x');
    expect(ids((await graph.findNodes({ label: 'Featured' })).nodes)).toEqual(['n00', 'n14', 'n21', 'n28']);
    expect(ids((await graph.findNodes({ label: 'Featured2' })).nodes)).toEqual(['y']);
  });

  it('refuses a file of a newer schema version', async () => {
    await engine.createGraph('newer');
    await engine.close();
    const file = new SqlConnection(join(dir, 'graphs', 'newer.db'));
    file.exec(`UPDATE meta SET value = '99' WHERE key = 'schema_version'`);
    file.close();
    engine = createEmbeddedEngine({ dataDir: dir });
    await engine.init();
    await expect(engine.openGraph('newer')).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it('reports a taken id as exists even when a unique value repeats too', async () => {
    const graph = await engine.createGraph('exists');
    await graph.ensureUnique('User', 'email');
    await graph.createNode({ id: 'u1', labels: ['User'], props: { email: 'a@example.com' } });
    await expect(
      graph.createNode({ id: 'u1', labels: ['User'], props: { email: 'a@example.com' } }),
    ).rejects.toMatchObject({ kind: 'exists' });
  });

  it('merges a batch of new edges in one try and falls back when one of them already exists', async () => {
    const graph = await engine.createGraph('edges');
    await graph.createNodes(['a', 'b', 'c'].map((id) => ({ id, labels: ['Item'], props: {} })));
    // All new, one repeated with other props: the last props win, the repeat is an update.
    expect(
      await graph.mergeEdges([
        { from: 'a', type: 'L', to: 'b', props: { w: 1 } },
        { from: 'a', type: 'L', to: 'c', props: {} },
        { from: 'a', type: 'L', to: 'b', props: { w: 2 } },
        { from: 'a', type: 'L', to: 'c', props: {} },
      ]),
    ).toEqual(['created', 'created', 'updated', 'unchanged']);
    // One of three exists: the first try is undone, nothing written twice, the results exact.
    expect(
      await graph.mergeEdges([
        { from: 'b', type: 'L', to: 'c', props: {} },
        { from: 'a', type: 'L', to: 'b', props: { w: 3 } },
        { from: 'c', type: 'L', to: 'a', props: {} },
      ]),
    ).toEqual(['created', 'updated', 'created']);
    const all = await graph.getEdges({});
    expect(all.map((edge) => `${edge.from}-${edge.to} ${JSON.stringify(edge.props)}`)).toEqual([
      'a-b {"w":3}',
      'a-c {}',
      'b-c {}',
      'c-a {}',
    ]);
    expect((await graph.getEdges({ to: 'c' })).map((edge) => edge.from)).toEqual(['a', 'b']);
  });

  it('merges edges as a model of one edge per (from, type, to) does, shared and mixed shapes alike', async () => {
    // Random batches (seed logged) over five nodes and one missing id, each batch's type and
    // props either shared by every edge (ends bound alone) or mixed, new and existing edges
    // and repeats together, batches of up to 260 so multi-row statements of every size run.
    const { random } = testRandom('merge-edges-model');
    const graph = await engine.createGraph('edge-model');
    const nodes = ['n:a', 'n:b', 'n:c', 'n:d', 'n:e'];
    await graph.createNodes(nodes.map((id) => ({ id, labels: ['Item'], props: {} })));
    const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
    const model = new Map<string, string>();
    for (let round = 0; round < 40; round += 1) {
      const count = 1 + Math.floor(random() * 260);
      const shared = random() < 0.5;
      const sharedType = pick(['L', 'M']);
      const sharedProps = pick([{}, { w: 1 }]);
      const batch = Array.from({ length: count }, () => ({
        from: random() < 0.03 ? 'n:missing' : pick(nodes),
        type: shared ? sharedType : pick(['L', 'M']),
        to: random() < 0.03 ? 'n:missing' : pick(nodes),
        props: shared ? sharedProps : pick([{}, { w: 1 }, { w: 2 }]),
      }));
      const expected = batch.map((edge) => {
        if (edge.from === 'n:missing' || edge.to === 'n:missing') return 'missing_endpoint';
        const key = `${edge.from} ${edge.type} ${edge.to}`;
        const before = model.get(key);
        const json = JSON.stringify(edge.props);
        model.set(key, json);
        return before === undefined ? 'created' : before === json ? 'unchanged' : 'updated';
      });
      expect(await graph.mergeEdges(batch)).toEqual(expected);
      const stored = await graph.getEdges({});
      expect(
        new Map(stored.map((edge) => [`${edge.from} ${edge.type} ${edge.to}`, JSON.stringify(edge.props)])),
      ).toEqual(model);
      for (const id of nodes) {
        expect((await graph.getEdges({ to: id })).length).toBe(
          [...model.keys()].filter((key) => key.endsWith(` ${id}`)).length,
        );
      }
    }
  });

  it('writes a batch of new edges that share type and props with each end in its place', async () => {
    const graph = await engine.createGraph('edge-shared');
    const ids = Array.from({ length: 150 }, (_, i) => `n:${String(i).padStart(3, '0')}`);
    await graph.createNodes(ids.map((id) => ({ id, labels: ['Item'], props: {} })));
    // 137 edges: statements of 100, 20, 5, 5, 5, 1 and 1 rows; all new with both ends there, so
    // no statement reads anything back (no endpoint read, no read of the current edges).
    const batch = ids
      .slice(0, 137)
      .map((from, i) => ({ from, type: 'REL', to: ids[i + 13]!, props: { k: 'v' } }));
    const reads = vi.spyOn(SqlConnection.prototype, 'rows');
    try {
      expect(await graph.mergeEdges(batch)).toEqual(batch.map(() => 'created'));
      expect(reads).not.toHaveBeenCalled();
    } finally {
      reads.mockRestore();
    }
    const stored = await graph.getEdges({ type: 'REL' });
    expect(stored.map((edge) => [edge.from, edge.type, edge.to, edge.props])).toEqual(
      batch.map((edge) => [edge.from, edge.type, edge.to, edge.props]),
    );
    expect((await graph.getEdges({ to: 'n:013' })).map((edge) => edge.from)).toEqual(['n:000']);
    // The same again changes nothing; one missing end among new edges is a no-op, the rest land.
    expect(await graph.mergeEdges(batch)).toEqual(batch.map(() => 'unchanged'));
    expect(
      await graph.mergeEdges([
        { from: 'n:140', type: 'REL', to: 'n:141', props: { k: 'v' } },
        { from: 'n:140', type: 'REL', to: 'n:none', props: { k: 'v' } },
        { from: 'n:141', type: 'REL', to: 'n:142', props: { k: 'v' } },
      ]),
    ).toEqual(['created', 'missing_endpoint', 'created']);
    expect((await graph.getEdges({ from: 'n:140' })).map((edge) => edge.to)).toEqual(['n:141']);
    expect((await graph.getEdges({ type: 'REL' })).length).toBe(139);
  });

  it('stores the props text a creator gives, and refuses one that is not a string', async () => {
    const graph = await engine.createGraph('props-json');
    const props = { title: 'Hello', n: 1 };
    const [created] = await graph.createNodes([
      { id: 'a', labels: ['Post'], props, propsJson: JSON.stringify(props) },
    ]);
    expect(created).toEqual({ id: 'a', labels: ['Post'], props });
    expect(await graph.getNode('a')).toEqual({ id: 'a', labels: ['Post'], props });
    expect((await graph.findNodes({ label: 'Post', where: [{ prop: 'n', op: 'eq', value: 1 }] })).total).toBe(
      1,
    );
    await expect(
      graph.createNodes([{ id: 'b', labels: ['Post'], props, propsJson: 1 as unknown as string }]),
    ).rejects.toMatchObject({ kind: 'invalid_argument' });
    expect(await graph.getNode('b')).toBeNull();
  });

  it('creates a run of nodes given as columns as createNodes creates them, errors included', async () => {
    const a = await engine.createGraph('run');
    const b = await engine.createGraph('nodes');
    const labels = ['Post', 'Content'];
    type Item = { id: string; props: Record<string, unknown>; text: string };
    const items: Item[] = Array.from({ length: 130 }, (_, i) => ({
      id: `p${i}`,
      props: { slug: `s${i}`, title: `Title ${i}`, n: i },
      text: i % 9 === 0 ? '' : `word${i % 4} title ${i}`,
    }));
    for (const graph of [a, b]) await graph.ensureUnique('Post', 'slug');
    const run = (list: Item[]) =>
      a.createNodeRun!({
        labels,
        ids: list.map((item) => item.id),
        propsJson: list.map((item) => JSON.stringify(item.props)),
        searchText: list.map((item) => item.text),
        uniqueProps: list.map((item) => item.props),
      });
    const nodes = (list: Item[]) =>
      b.createNodes(list.map((item) => ({ id: item.id, labels, props: item.props, searchText: item.text })));
    expect(await run(items)).toBe(130);
    await nodes(items);
    const all = async (graph: Graph) => (await graph.findNodes({ label: 'Content', limit: 1000 })).nodes;
    expect(await all(a)).toEqual(await all(b));
    for (const q of ['word1', 'title', 'p9']) {
      const hits = async (graph: Graph) =>
        ids((await graph.findNodes({ label: 'Post', q, limit: 1000 })).nodes);
      expect(await hits(a)).toEqual(await hits(b));
    }
    // The same errors, and nothing of a failed run remains.
    const fresh = (i: number, slug = `new${i}`) => ({ id: `n${i}`, props: { slug }, text: 'x' });
    const cases = [
      [fresh(1), { ...fresh(2), id: 'p3' }],
      [fresh(1), fresh(1)],
      [fresh(1), fresh(2, 's5')],
      [fresh(1), fresh(2, 'same'), fresh(3, 'same')],
    ];
    for (const list of cases) {
      const fromRun = await run(list).catch((error: unknown) => error);
      const fromNodes = await nodes(list).catch((error: unknown) => error);
      const what = (error: unknown) => {
        const { kind, message } = error as { kind?: string; message?: string };
        return { kind, message };
      };
      expect(fromRun).toBeInstanceOf(Error);
      expect(what(fromRun)).toEqual(what(fromNodes));
      expect(what(fromRun).kind).toMatch(/exists|unique_violation/);
      expect(await a.getNode('n1')).toBeNull();
    }
    // The unique values a run wrote are held.
    await expect(a.createNode({ id: 'x', labels: ['Post'], props: { slug: 's7' } })).rejects.toMatchObject({
      kind: 'unique_violation',
    });
  });

  it('writes a run off the main thread (createNodeRunDetached) as a transaction with createNodeRun and appendAudit writes it', async () => {
    const a = await engine.createGraph('detached');
    const b = await engine.createGraph('in-transaction');
    for (const graph of [a, b]) await graph.ensureUnique('Post', 'slug');
    const labels = ['Post', 'Content'];
    // 626 nodes: every chunk size of a run (500, 100, 20, 5, 1); some without search text
    const props = (i: number) => ({ slug: `s${i}`, title: `Title ${i}`, n: i });
    const run = (from: number, count: number) => ({
      labels,
      ids: Array.from({ length: count }, (_, k) => `p${from + k}`),
      propsJson: Array.from({ length: count }, (_, k) => JSON.stringify(props(from + k))),
      searchText: Array.from({ length: count }, (_, k) =>
        (from + k) % 9 === 0 ? '' : `word${(from + k) % 4} t`,
      ),
      uniqueProps: Array.from({ length: count }, (_, k) => props(from + k)),
    });
    const audit = { actor: 'tester', action: 'content.import', target: 'type:post', data: { count: 626 } };
    await b.transaction(async (tx) => {
      await tx.createNodeRun!(run(0, 626));
      await tx.appendAudit(audit);
    });
    // the event loop runs while the run is written (its statements and commit are off this thread)
    let turns = 0;
    let writing = true;
    const turn = () => {
      if (!writing) return;
      turns += 1;
      setImmediate(turn);
    };
    setImmediate(turn);
    expect(await a.createNodeRunDetached!({ run: run(0, 626), absent: ['gone', 'p9999'], audit })).toBe(
      'written',
    );
    writing = false;
    expect(turns).toBeGreaterThan(0);
    const file = (name: string) => new SqlConnection(join(dir, 'graphs', `${name}.db`), { readonly: true });
    const stored = (name: string) => {
      const conn = file(name);
      try {
        return {
          nodes: conn.rows('SELECT rid, id, label, labels, props, text_given FROM nodes ORDER BY rid'),
          uniques: conn.rows('SELECT label, prop, value, rid FROM unique_values ORDER BY 1, 2, 3'),
          carriers: conn.rows('SELECT label, primary_label FROM label_carriers ORDER BY 1, 2'),
          audit: conn.rows('SELECT seq, actor, action, target, data FROM audit ORDER BY seq'),
        };
      } finally {
        conn.close();
      }
    };
    const written = stored('detached');
    expect(written).toEqual(stored('in-transaction'));
    expect(written.nodes.length).toBe(626);
    for (const q of ['word1', 'word3']) {
      const hits = async (graph: Graph) =>
        ids((await graph.findNodes({ label: 'Post', q, limit: 1000 })).nodes);
      expect(await hits(a)).toEqual(await hits(b));
      expect(await hits(a)).not.toEqual([]);
    }
    expect((await a.verifyAudit()).status).toBe('ok');
    // Declined, nothing written: an id of `absent` exists, an id of the run is taken, a unique
    // value is held by a stored node (the run's rows go in before its unique values do).
    for (const batch of [
      { run: run(1000, 3), absent: ['gone', 'p5'], audit },
      { run: { ...run(1000, 3), ids: ['n1', 'p7', 'n3'] }, absent: [], audit },
      { run: { ...run(1000, 3), uniqueProps: [props(1000), props(3), props(1002)] }, absent: [], audit },
    ]) {
      expect(await a.createNodeRunDetached!(batch)).toBe('declined');
      expect(stored('detached')).toEqual(written);
    }
    // an id repeated in the run is refused before anything runs, as createNodeRun refuses it
    await expect(
      a.createNodeRunDetached!({ run: { ...run(1000, 2), ids: ['n1', 'n1'] }, absent: [], audit }),
    ).rejects.toMatchObject({ kind: 'exists' });
    // The graph's own connection sees what the other wrote: the values it holds, the rids in use.
    await expect(a.createNode({ id: 'x', labels: ['Post'], props: { slug: 's7' } })).rejects.toMatchObject({
      kind: 'unique_violation',
    });
    await a.transaction((tx) => tx.createNodeRun!(run(626, 1)));
    expect(stored('detached').nodes.at(-1)?.slice(0, 2)).toEqual([627, 'p626']);
    // A constraint declared on the graph's connection after the detached one opened holds there too.
    await a.ensureUnique('Post', 'title');
    expect(
      await a.createNodeRunDetached!({
        run: {
          ...run(2000, 2),
          uniqueProps: [
            { slug: 'z1', title: 'Title 3' },
            { slug: 'z2', title: 'z' },
          ],
        },
        absent: [],
        audit,
      }),
    ).toBe('declined');
    // Writes asked for meanwhile wait for the detached run's commit (the graph's write mutex),
    // none meets the other connection's lock.
    const results = await Promise.all([
      a.createNodeRunDetached!({ run: run(3000, 200), absent: [], audit }),
      a.createNode({ id: 'single', labels: ['Note'], props: {} }),
      a.transaction(async (tx) => tx.appendAudit({ actor: 'tester', action: 'other', target: 'x' })),
      a.createNodeRunDetached!({ run: run(4000, 5), absent: [], audit }),
    ]);
    expect(results[0]).toBe('written');
    expect(results[3]).toBe('written');
    expect((await a.findNodes({ label: 'Post', limit: 0 })).total).toBe(626 + 1 + 200 + 5);
    expect((await a.auditRecords()).map((record) => record.action)).toEqual([
      'content.import',
      'content.import',
      'other',
      'content.import',
    ]);
    expect((await a.verifyAudit()).status).toBe('ok');
  });

  it('waits off the event loop for a write lock another process holds before a detached run', async () => {
    const graph = await engine.createGraph('locked');
    const other = createEmbeddedEngine({ dataDir: dir });
    await other.init();
    try {
      const holder = (await other.openGraph('locked')) as Graph;
      const run = {
        labels: ['Post'],
        ids: ['a', 'b'],
        propsJson: ['{}', '{}'],
        searchText: ['', ''],
        uniqueProps: [{}, {}],
      };
      const audit = { actor: 'tester', action: 'detached', target: 'x' };
      // the detached connection is opened by a first run, before the lock is taken
      expect(
        await graph.createNodeRunDetached!({ run: { ...run, ids: ['c', 'd'] }, absent: [], audit }),
      ).toBe('written');
      const events: string[] = [];
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let holding = () => {};
      const held = new Promise<void>((resolve) => {
        holding = resolve;
      });
      const holderDone = holder.transaction(async (tx) => {
        await tx.appendAudit({ actor: 'tester', action: 'holder', target: 'x' });
        holding();
        await released;
        events.push('holder commits');
      });
      await held;
      const written = graph.createNodeRunDetached!({ run, absent: [], audit }).then((outcome) => {
        events.push(`detached ${outcome}`);
      });
      // the event loop runs on while the detached run waits for the lock
      setTimeout(() => {
        events.push('timer');
        release();
      }, 50);
      await Promise.all([holderDone, written]);
      expect(events).toEqual(['timer', 'holder commits', 'detached written']);
      expect((await graph.auditRecords()).map((record) => record.action)).toEqual([
        'detached',
        'holder',
        'detached',
      ]);
      expect((await graph.verifyAudit()).status).toBe('ok');
    } finally {
      await other.close();
    }
  });

  it('writes the unique values of a run as createNodes does: several constraints and labels, values of each kind', async () => {
    const a = await engine.createGraph('run-uniques');
    const b = await engine.createGraph('nodes-uniques');
    const labels = ['Post', 'Content'];
    for (const graph of [a, b]) {
      await graph.ensureUnique('Post', 'slug');
      await graph.ensureUnique('Post', 'n');
      await graph.ensureUnique('Content', 'code');
    }
    // 1 and "1" differ; a missing or null value holds nothing; object values by canonical JSON
    const values = (i: number): Record<string, unknown> => ({
      slug: `s${i}`,
      ...(i % 3 === 0 ? {} : { n: i % 2 === 0 ? i : String(i) }),
      ...(i % 5 === 0 ? { code: null } : { code: i % 7 === 0 ? { b: i, a: [i] } : `c${i}` }),
    });
    // 626 nodes: every chunk size of a run (500, 100, 20, 5, 1) is used
    const list = Array.from({ length: 626 }, (_, i) => ({ id: `p${i}`, props: values(i) }));
    await a.createNodeRun!({
      labels,
      ids: list.map((item) => item.id),
      propsJson: list.map((item) => JSON.stringify(item.props)),
      searchText: list.map(() => ''),
      uniqueProps: list.map((item) => item.props),
    });
    await b.createNodes(list.map((item) => ({ id: item.id, labels, props: item.props, searchText: '' })));
    const rows = (name: string) => {
      const file = new SqlConnection(join(dir, 'graphs', `${name}.db`), { readonly: true });
      try {
        return file.rows(
          'SELECT u.label, u.prop, u.value, n.id FROM unique_values u JOIN nodes n ON n.rid = u.rid ORDER BY 1, 2, 3',
        );
      } finally {
        file.close();
      }
    };
    const written = rows('run-uniques');
    expect(written).toEqual(rows('nodes-uniques'));
    // slug for all 626, n for the 417 not divisible by 3, code for the 500 not divisible by 5
    expect(written.length).toBe(626 + 417 + 500);
    expect(written).toContainEqual(['Post', 'n', '"1"', 'p1']);
    expect(written).toContainEqual(['Post', 'n', '2', 'p2']);
    expect(written).toContainEqual(['Content', 'code', '{"a":[7],"b":7}', 'p7']);
    // each is held: by another Post, and by a node whose only constrained label is Content
    for (const [props, nodeLabels] of [
      [{ n: '1' }, ['Post']],
      [{ n: 2 }, ['Post']],
      [{ code: { a: [7], b: 7 } }, ['Other', 'Content']],
      [{ code: 'c1' }, ['Other', 'Content']],
    ] as const) {
      await expect(
        a.createNode({ id: 'x', labels: [...nodeLabels], props: { ...props } }),
      ).rejects.toMatchObject({ kind: 'unique_violation' });
    }
    // values nobody holds are free: 1 as a number (p1 holds "1"), a null code
    await a.createNode({ id: 'y', labels: ['Post'], props: { slug: 'free', n: 1, code: 'c0' } });
  });

  it('reads a node with its edges in the key order SQLite sorts by, also where UTF-16 order differs', async () => {
    const graph = await engine.createGraph('edge-order');
    // UTF-8 byte order (SQLite's BINARY): a < é < \uFF21 < 😀; JavaScript's `<` on UTF-16
    // units puts 😀 (a surrogate pair, \uD83D…) before \uFF21.
    const targets = ['t:😀', 't:\uFF21', 't:é', 't:a', 't:😀x'];
    await graph.createNode({ id: 'from', labels: ['Item'], props: { n: 1 } });
    for (const to of targets) await graph.createNode({ id: to, labels: ['Item'], props: {} });
    for (const type of ['B', 'a', 'A'])
      for (const to of targets)
        await graph.mergeEdge({ from: 'from', type, to, props: { k: `${type}${to}` } });
    const read = await graph.getNodeWithEdges('from');
    const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    const expected = ['A', 'B', 'a'].flatMap((type) =>
      [...targets].sort(byBytes).map((to) => ({ from: 'from', type, to, props: { k: `${type}${to}` } })),
    );
    expect(expected.map((edge) => edge.to).slice(0, 5)).toEqual(['t:a', 't:é', 't:\uFF21', 't:😀', 't:😀x']);
    expect(read?.edges).toEqual(expected);
    expect(read?.edges).toEqual(await graph.getEdges({ from: 'from' }));
    // ASCII ids, the common case (the scan's order, checked)
    await graph.createNode({ id: 'plain', labels: ['Item'], props: {} });
    for (const to of ['t:a', 't:é', 't:\uFF21'].reverse())
      await graph.mergeEdge({ from: 'plain', type: 'NEAR', to, props: {} });
    expect((await graph.getNodeWithEdges('plain'))?.edges.map((edge) => edge.to)).toEqual([
      't:a',
      't:é',
      't:\uFF21',
    ]);
  });

  it('never leaks libsql row metadata into nodes', async () => {
    const graph = await engine.createGraph('meta');
    await graph.createNode({ id: 'a', labels: ['T'], props: { x: 1 } });
    const node = await graph.getNode('a');
    expect(Object.keys(node ?? {})).toEqual(['id', 'labels', 'props']);
    const page = await graph.findNodes({ label: 'T' });
    expect(Object.keys(page.nodes[0] ?? {})).toEqual(['id', 'labels', 'props']);
  });

  it('hides an open transaction from reads outside it', async () => {
    const graph = await engine.createGraph('iso');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let written!: () => void;
    const wroteInside = new Promise<void>((resolve) => {
      written = resolve;
    });
    const tx = graph.transaction(async (t) => {
      await t.createNode({ id: 'inside', labels: ['T'], props: {} });
      expect(await t.getNode('inside')).not.toBeNull();
      written();
      await gate;
    });
    await wroteInside;
    expect(await graph.getNode('inside')).toBeNull();
    const queued = graph.createNode({ id: 'after', labels: ['T'], props: {} });
    release();
    await tx;
    await queued;
    expect(await graph.getNode('inside')).not.toBeNull();
    expect(await graph.getNode('after')).not.toBeNull();
  });
});
