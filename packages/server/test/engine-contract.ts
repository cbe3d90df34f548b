/**
 * The engine contract suite: the cases every GraphEngine adapter must pass. Each engine has a
 * `*.contract.test.ts` that calls {@link describeEngineContract} with a factory:
 *
 * ```ts
 * describeEngineContract('embedded', async () => {
 *   const engine = createEmbeddedEngine({ dataDir });
 *   await engine.init();
 *   return { engine, tamperAudit, cleanup };
 * });
 * ```
 *
 * Factory contract ({@link EngineUnderTest}):
 * - `engine` is already initialized (`init()` resolved). The suite calls the factory once per
 *   file (beforeAll), and never calls `engine.close()` itself: `cleanup` does.
 * - `tamperAudit(graph, seq)` changes the stored audit record `seq` of `graph` *behind the
 *   engine's back* (raw SQL or Cypher, e.g. rewrite its `actor`), so that only hash
 *   verification can notice. It must not go through the port. `truncateAudit(graph, fromSeq)`
 *   deletes the records from `fromSeq` on, and `overwriteAudit(graph, records)` stores each
 *   given record's fields over the stored record of its seq, the same way: what an attacker
 *   with write access to the database (but not the server's audit key) can do.
 * - `cleanup()` closes the engine and removes whatever the factory created (temp dirs). The
 *   suite drops every graph it created before calling it.
 *
 * Every graph the suite creates is named `ct-<run id>-<n>`, unique per run, so runs against one
 * shared server (Neo4j Community: one database for all graphs) never collide.
 */
import { randomBytes } from 'node:crypto';
import {
  type GraphQueryInput,
  type GraphQueryReader,
  type QueryItem,
  type QueryTypeInfo,
  runGraphQuery,
  runGraphQuerySync,
} from '@trelliscms/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_LABEL } from '../src/content/item-record';
import { TYPE_LABEL, typeNodeId } from '../src/content/type-repository';
import type {
  AuditRecord,
  Graph,
  GraphEngine,
  GraphNode,
  GraphWriter,
  NodeQuery,
  Props,
} from '../src/engines/port';
import { isEngineError } from '../src/engines/port';
import { auditHash, auditMac, GENESIS_HASH } from '../src/engines/shared/audit-chain';
import { engineQueryReader } from '../src/site-resources/saved-queries';

/** What an engine's contract test hands the suite. */
export interface EngineUnderTest {
  /** An initialized engine. */
  engine: GraphEngine;
  /** The key the engine's audit chains are keyed with. */
  auditKey: Uint8Array;
  /** Alters audit record `seq` of graph `graph` without going through the engine. */
  tamperAudit(graph: string, seq: number): Promise<void>;
  /** Deletes the audit records of `graph` from seq `fromSeq` on, without going through the engine. */
  truncateAudit(graph: string, fromSeq: number): Promise<void>;
  /** Stores each record's fields over the stored audit record of its seq, without going through the engine. */
  overwriteAudit(graph: string, records: AuditRecord[]): Promise<void>;
  /** Closes the engine and removes what the factory created. */
  cleanup(): Promise<void>;
}

/** Builds a fresh engine under test (called once per suite). */
export type EngineFactory = () => Promise<EngineUnderTest>;

const ids = (nodes: GraphNode[]) => nodes.map((node) => node.id);

/** Registers the contract cases for one engine. */
export function describeEngineContract(name: string, makeEngine: EngineFactory): void {
  describe(`engine contract: ${name}`, () => {
    const runId = randomBytes(4).toString('hex');
    let counter = 0;
    const created: string[] = [];
    let subject: EngineUnderTest;
    let engine: GraphEngine;

    /** A fresh graph with a name unique to this run. */
    async function newGraph(): Promise<Graph> {
      counter += 1;
      const graphName = `ct-${runId}-${counter}`;
      created.push(graphName);
      return engine.createGraph(graphName);
    }

    async function expectKind(promise: Promise<unknown>, kind: string): Promise<void> {
      const error = await promise.then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error, `expected EngineError ${kind}`).not.toBeNull();
      expect(isEngineError(error), `expected an EngineError, got ${String(error)}`).toBe(true);
      expect((error as { kind: string }).kind).toBe(kind);
    }

    beforeAll(async () => {
      subject = await makeEngine();
      engine = subject.engine;
    }, 120_000);

    afterAll(async () => {
      if (subject === undefined) return;
      try {
        for (const graphName of created) await engine.dropGraph(graphName);
      } finally {
        await subject.cleanup();
      }
    }, 120_000);

    describe('graphs', () => {
      it('creates, opens, lists and drops graphs', async () => {
        const graph = await newGraph();
        expect(graph.name).toMatch(/^ct-/);
        expect(await engine.listGraphs()).toContain(graph.name);
        const opened = await engine.openGraph(graph.name);
        expect(opened?.name).toBe(graph.name);
        await expectKind(engine.createGraph(graph.name), 'exists');
        expect(await engine.dropGraph(graph.name)).toBe(true);
        expect(await engine.listGraphs()).not.toContain(graph.name);
        expect(await engine.openGraph(graph.name)).toBeNull();
        expect(await engine.dropGraph(graph.name)).toBe(false);
      });

      it('opens nothing for an unknown graph', async () => {
        expect(await engine.openGraph(`ct-${runId}-missing`)).toBeNull();
      });

      it('rejects unsafe graph names, and finds no graph under one', async () => {
        for (const bad of ['../escape', 'a/b', '', 'with space', '.hidden']) {
          await expectKind(engine.createGraph(bad), 'invalid_argument');
          expect(await engine.openGraph(bad)).toBeNull();
          expect(await engine.dropGraph(bad)).toBe(false);
        }
      });

      it('keeps two graphs apart', async () => {
        const a = await newGraph();
        const b = await newGraph();
        await a.createNode({ id: 'same', labels: ['Item'], props: { in: 'a' } });
        await b.createNode({ id: 'same', labels: ['Item'], props: { in: 'b' } });
        await a.createNode({ id: 'only-a', labels: ['Item'], props: { title: 'apple' } });
        await a.mergeEdge({ from: 'same', type: 'LINKS', to: 'only-a', props: {} });
        await a.appendAudit({ actor: 'system', action: 'test', target: 'same' });
        await a.setEmbedding('same', [1, 0]);

        expect((await a.getNode('same'))?.props).toEqual({ in: 'a' });
        expect((await b.getNode('same'))?.props).toEqual({ in: 'b' });
        expect(await b.getNode('only-a')).toBeNull();
        expect((await b.findNodes({ label: 'Item' })).total).toBe(1);
        expect((await b.findNodes({ label: 'Item', q: 'apple' })).total).toBe(0);
        expect(await b.getEdges({ from: 'same' })).toEqual([]);
        expect(await b.traverse({ from: 'same', direction: 'both', depth: 2 })).toEqual([]);
        expect(await b.hasEmbedding('same')).toBe(false);
        expect(await b.similar({ label: 'Item', vector: [1, 0], k: 5 })).toEqual([]);
        expect((await b.verifyAudit()).status).toBe('empty');
        expect((await a.verifyAudit()).records).toBe(1);
        await a.ensureUnique('Item', 'in');
        await b.createNode({ id: 'other', labels: ['Item'], props: { in: 'b2' } });
        await b.createNode({ id: 'dup', labels: ['Item'], props: { in: 'a' } });
      });
    });

    describe('nodes', () => {
      it('creates, reads, replaces, updates and deletes nodes', async () => {
        const graph = await newGraph();
        const node = { id: 'post:hello', labels: ['Post', 'Published'], props: { title: 'Hello' } };
        expect(await graph.createNode(node)).toEqual(node);
        expect(await graph.getNode('post:hello')).toEqual(node);
        expect(await graph.getNode('nope')).toBeNull();
        await expectKind(graph.createNode(node), 'exists');

        const replaced = { id: 'post:hello', labels: ['Post'], props: { title: 'Hi', n: 2 } };
        await graph.putNode(replaced);
        await graph.putNode(replaced);
        expect(await graph.getNode('post:hello')).toEqual(replaced);
        await graph.putNode({ id: 'post:new', labels: ['Post'], props: {} });
        expect(await graph.getNode('post:new')).toEqual({ id: 'post:new', labels: ['Post'], props: {} });

        const updated = await graph.updateNode('post:hello', { props: { title: 'Updated' } });
        expect(updated).toEqual({ id: 'post:hello', labels: ['Post'], props: { title: 'Updated' } });
        await graph.updateNode('post:hello', { props: { title: 'Relabelled' }, labels: ['Page', 'Post'] });
        expect(await graph.getNode('post:hello')).toEqual({
          id: 'post:hello',
          labels: ['Page', 'Post'],
          props: { title: 'Relabelled' },
        });
        expect((await graph.findNodes({ label: 'Page' })).total).toBe(1);
        await expectKind(graph.updateNode('missing', { props: {} }), 'not_found');

        expect(ids(await graph.getNodes(['post:new', 'missing', 'post:hello']))).toEqual([
          'post:new',
          'post:hello',
        ]);
        expect(await graph.deleteNode('post:hello')).toBe(true);
        expect(await graph.deleteNode('post:hello')).toBe(false);
        expect(await graph.getNode('post:hello')).toBeNull();
        expect((await graph.findNodes({ label: 'Page' })).total).toBe(0);
      });

      it('round-trips JSON exactly: nested, unicode, numbers and large values', async () => {
        const graph = await newGraph();
        const large = `${'x'.repeat(1024 * 1024 - 7)}ü€😀中文`;
        const props = {
          nested: { a: [1, 2, { b: [true, false, null], c: {} }], d: [], e: { f: { g: { h: 'deep' } } } },
          unicode: 'naïve café — Ελληνικά — 日本語 — עברית — 😀👩‍👩‍👧 — e\u0301',
          quotes: 'He said "hi" \\ \'there\'\n\ttab',
          numbers: [0, -1, 3.5, -0.25, 1e21, 2 ** 53 - 1, 1e-7],
          flag: true,
          off: false,
          large,
          sql: "'); DROP TABLE nodes; --",
        };
        await graph.createNode({ id: 'json', labels: ['Doc'], props });
        const read = await graph.getNode('json');
        expect(read?.props).toEqual(props);
        expect(String(read?.props.large).length).toBe(large.length);
        const [fromQuery] = (await graph.findNodes({ label: 'Doc' })).nodes;
        expect(fromQuery?.props).toEqual(props);
        expect(Object.keys(read ?? {}).sort()).toEqual(['id', 'labels', 'props']);
        const unicodeId = 'ノード:ü/😀 with spaces';
        await graph.createNode({ id: unicodeId, labels: ['Doc'], props: {} });
        expect((await graph.getNode(unicodeId))?.id).toBe(unicodeId);
      });
    });

    describe('queries', () => {
      let graph: Graph;
      const people = [
        { id: 'p1', props: { name: 'Ada', age: 36, city: 'London', tags: ['math'], active: true } },
        { id: 'p2', props: { name: 'Grace', age: 85, city: 'New York', active: false } },
        { id: 'p3', props: { name: 'alan', age: 41, city: 'London' } },
        { id: 'p4', props: { name: 'Edsger', age: 72, city: null } },
        { id: 'p5', props: { name: 'Barbara', age: '80', city: 'Boston' } },
        { id: 'p6', props: { name: 'Ken', age: 1, city: 'Berkeley', active: true } },
      ];

      beforeAll(async () => {
        graph = await newGraph();
        await graph.transaction(async (tx) => {
          for (const person of people)
            await tx.createNode({ id: person.id, labels: ['Person'], props: person.props });
          await tx.createNode({ id: 'x1', labels: ['Robot'], props: { name: 'Ada', age: 36 } });
        });
      });

      const find = async (query: Omit<NodeQuery, 'label'>) => {
        const page = await graph.findNodes({ label: 'Person', ...query });
        return { ids: ids(page.nodes), total: page.total };
      };

      it('lists a label in id order with an exact total', async () => {
        expect(await find({})).toEqual({ ids: ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'], total: 6 });
        expect((await graph.findNodes({ label: 'Nobody' })).total).toBe(0);
      });

      it('filters with every operator', async () => {
        expect((await find({ where: [{ prop: 'city', op: 'eq', value: 'London' }] })).ids).toEqual([
          'p1',
          'p3',
        ]);
        expect((await find({ where: [{ prop: 'age', op: 'eq', value: 80 }] })).ids).toEqual([]);
        expect((await find({ where: [{ prop: 'age', op: 'eq', value: '80' }] })).ids).toEqual(['p5']);
        expect((await find({ where: [{ prop: 'active', op: 'eq', value: true }] })).ids).toEqual([
          'p1',
          'p6',
        ]);
        expect((await find({ where: [{ prop: 'active', op: 'eq', value: 1 }] })).ids).toEqual([]);
        expect((await find({ where: [{ prop: 'city', op: 'eq', value: null }] })).ids).toEqual(['p4']);
        expect((await find({ where: [{ prop: 'city', op: 'ne', value: 'London' }] })).ids).toEqual([
          'p2',
          'p4',
          'p5',
          'p6',
        ]);
        expect((await find({ where: [{ prop: 'active', op: 'ne', value: true }] })).ids).toEqual([
          'p2',
          'p3',
          'p4',
          'p5',
        ]);
        expect((await find({ where: [{ prop: 'age', op: 'lt', value: 41 }] })).ids).toEqual(['p1', 'p6']);
        expect((await find({ where: [{ prop: 'age', op: 'lte', value: 41 }] })).ids).toEqual([
          'p1',
          'p3',
          'p6',
        ]);
        expect((await find({ where: [{ prop: 'age', op: 'gt', value: 72 }] })).ids).toEqual(['p2']);
        expect((await find({ where: [{ prop: 'age', op: 'gte', value: 72 }] })).ids).toEqual(['p2', 'p4']);
        expect((await find({ where: [{ prop: 'name', op: 'gte', value: 'G' }] })).ids).toEqual([
          'p2',
          'p3',
          'p6',
        ]);
        expect(
          (await find({ where: [{ prop: 'city', op: 'in', value: ['Boston', 'Berkeley', 'Paris'] }] })).ids,
        ).toEqual(['p5', 'p6']);
        expect((await find({ where: [{ prop: 'age', op: 'in', value: [1, '80', 85] }] })).ids).toEqual([
          'p2',
          'p5',
          'p6',
        ]);
        expect((await find({ where: [{ prop: 'city', op: 'in', value: [] }] })).total).toBe(0);
        expect((await find({ where: [{ prop: 'name', op: 'contains', value: 'AL' }] })).ids).toEqual(['p3']);
        expect((await find({ where: [{ prop: 'city', op: 'contains', value: 'on' }] })).ids).toEqual([
          'p1',
          'p3',
          'p5',
        ]);
        // On a list, contains matches an entry that equals the value exactly.
        expect((await find({ where: [{ prop: 'tags', op: 'contains', value: 'math' }] })).ids).toEqual([
          'p1',
        ]);
        expect((await find({ where: [{ prop: 'tags', op: 'contains', value: 'Math' }] })).ids).toEqual([]);
        expect((await find({ where: [{ prop: 'tags', op: 'contains', value: 'mat' }] })).ids).toEqual([]);
        expect((await find({ where: [{ prop: 'active', op: 'exists' }] })).ids).toEqual(['p1', 'p2', 'p6']);
        expect((await find({ where: [{ prop: 'city', op: 'exists', value: true }] })).ids).toEqual([
          'p1',
          'p2',
          'p3',
          'p5',
          'p6',
        ]);
        expect((await find({ where: [{ prop: 'city', op: 'exists', value: false }] })).ids).toEqual(['p4']);
        expect((await find({ where: [{ prop: 'tags', op: 'exists' }] })).ids).toEqual(['p1']);
      });

      it('combines filters with AND', async () => {
        expect(
          await find({
            where: [
              { prop: 'city', op: 'eq', value: 'London' },
              { prop: 'age', op: 'gt', value: 40 },
            ],
          }),
        ).toEqual({ ids: ['p3'], total: 1 });
      });

      it('orders by properties, missing values last ascending and first descending', async () => {
        expect((await find({ orderBy: [{ prop: 'city' }] })).ids).toEqual([
          'p6',
          'p5',
          'p1',
          'p3',
          'p2',
          'p4',
        ]);
        expect((await find({ orderBy: [{ prop: 'city', direction: 'desc' }] })).ids).toEqual([
          'p4',
          'p2',
          'p1',
          'p3',
          'p5',
          'p6',
        ]);
        expect(
          (
            await find({
              orderBy: [
                { prop: 'city', direction: 'desc' },
                { prop: 'age', direction: 'desc' },
              ],
            })
          ).ids,
        ).toEqual(['p4', 'p2', 'p3', 'p1', 'p5', 'p6']);
        expect(
          (await find({ where: [{ prop: 'age', op: 'gte', value: 0 }], orderBy: [{ prop: 'age' }] })).ids,
        ).toEqual(['p6', 'p1', 'p3', 'p4', 'p2']);
      });

      it('pages with limit and offset and keeps the total exact', async () => {
        expect(await find({ limit: 2 })).toEqual({ ids: ['p1', 'p2'], total: 6 });
        expect(await find({ limit: 2, offset: 2 })).toEqual({ ids: ['p3', 'p4'], total: 6 });
        expect(await find({ limit: 10, offset: 5 })).toEqual({ ids: ['p6'], total: 6 });
        expect(await find({ offset: 4 })).toEqual({ ids: ['p5', 'p6'], total: 6 });
        expect(await find({ limit: 0 })).toEqual({ ids: [], total: 6 });
        expect(await find({ limit: 5, offset: 100 })).toEqual({ ids: [], total: 6 });
        expect(
          await find({
            where: [{ prop: 'city', op: 'exists' }],
            orderBy: [{ prop: 'name' }],
            limit: 2,
            offset: 1,
          }),
        ).toEqual({ ids: ['p5', 'p2'], total: 5 });
      });

      it('rejects invalid queries with invalid_argument', async () => {
        const bad: NodeQuery[] = [
          { label: 'Person', where: [{ prop: 'x") OR 1=1 --', op: 'eq', value: 1 }] },
          { label: 'Person', where: [{ prop: 'age', op: 'like' as 'eq', value: 1 }] },
          { label: 'Person', where: [{ prop: 'age', op: 'in', value: 3 }] },
          { label: 'Person', where: [{ prop: 'age', op: 'lt', value: { a: 1 } }] },
          { label: 'Person', orderBy: [{ prop: 'age; DROP' }] },
          { label: 'Person', limit: -1 },
          { label: 'Person', offset: 1.5 },
          { label: 'Bad Label' },
        ];
        for (const query of bad) await expectKind(graph.findNodes(query), 'invalid_argument');
      });

      it('honours a deadline: the same pages before it, a timeout once it has passed', async () => {
        const deadline = Date.now() + 60_000;
        for (const query of [
          {},
          { limit: 2, offset: 1 },
          { where: [{ prop: 'city', op: 'exists' as const }], orderBy: [{ prop: 'name' }] },
          { limit: 0 },
        ]) {
          const page = await graph.findNodes({ label: 'Person', ...query }, { deadline });
          expect({ ids: ids(page.nodes), total: page.total }).toEqual(await find(query));
        }
        await expectKind(graph.findNodes({ label: 'Person' }, { deadline: Date.now() - 1 }), 'timeout');
      });
    });

    describe('full-text search', () => {
      it('matches all words and ranks nodes that mention a term more often higher', async () => {
        const graph = await newGraph();
        await graph.transaction(async (tx) => {
          await tx.createNode({
            id: 'once',
            labels: ['Article'],
            props: {
              title: 'Gardening notes',
              body: 'Tomatoes need sun and water, plus a long list of other chores.',
            },
          });
          await tx.createNode({
            id: 'thrice',
            labels: ['Article'],
            props: { title: 'Tomatoes', body: 'Tomatoes, tomatoes: how to grow tomatoes in sun.' },
          });
          await tx.createNode({
            id: 'nested',
            labels: ['Article'],
            props: { title: 'Sauce', blocks: [{ text: 'Crushed tomatoes simmer slowly' }] },
          });
          await tx.createNode({ id: 'other', labels: ['Article'], props: { title: 'Potatoes in the sun' } });
          await tx.createNode({
            id: 'robot',
            labels: ['Robot'],
            props: { title: 'Tomatoes tomatoes tomatoes' },
          });
        });
        const tomatoes = await graph.findNodes({ label: 'Article', q: 'tomatoes' });
        expect(tomatoes.total).toBe(3);
        expect(ids(tomatoes.nodes)[0]).toBe('thrice');
        expect(ids(tomatoes.nodes).sort()).toEqual(['nested', 'once', 'thrice']);

        const both = await graph.findNodes({ label: 'Article', q: 'Tomatoes SUN' });
        expect(ids(both.nodes).sort()).toEqual(['once', 'thrice']);
        expect(both.total).toBe(2);
        expect((await graph.findNodes({ label: 'Article', q: 'tomatoes zucchini' })).total).toBe(0);

        const paged = await graph.findNodes({ label: 'Article', q: 'tomatoes', limit: 1, offset: 1 });
        expect(paged.total).toBe(3);
        expect(paged.nodes).toHaveLength(1);

        const filtered = await graph.findNodes({
          label: 'Article',
          q: 'sun',
          where: [{ prop: 'title', op: 'contains', value: 'potato' }],
        });
        expect(ids(filtered.nodes)).toEqual(['other']);

        const ordered = await graph.findNodes({ label: 'Article', q: 'sun', orderBy: [{ prop: 'title' }] });
        expect(ids(ordered.nodes)).toEqual(['once', 'other', 'thrice']);

        // Operators of the underlying query syntax are plain words here.
        expect((await graph.findNodes({ label: 'Article', q: 'tomatoes OR "zucchini" NOT*' })).total).toBe(0);
        expect((await graph.findNodes({ label: 'Article', q: '   ' })).total).toBe(4);

        await graph.updateNode('thrice', { props: { title: 'Cucumbers' } });
        expect((await graph.findNodes({ label: 'Article', q: 'tomatoes' })).total).toBe(2);
        await graph.deleteNode('once');
        expect(ids((await graph.findNodes({ label: 'Article', q: 'tomatoes' })).nodes)).toEqual(['nested']);
      });

      it('indexes a node under its searchText when given, and keeps it through updates without one', async () => {
        const graph = await newGraph();
        const search = async (q: string, label = 'Article') =>
          ids((await graph.findNodes({ label, q })).nodes).sort();
        await graph.createNode({
          id: 'a',
          labels: ['Article'],
          props: { title: 'Tomatoes', status: 'draft', owner: 'user:alice' },
          searchText: 'Tomatoes',
        });
        await graph.putNode({
          id: 'b',
          labels: ['Article'],
          props: { title: 'Potatoes', status: 'draft' },
          searchText: 'Potatoes in the sun',
        });
        await graph.createNodes([
          { id: 'c', labels: ['Article'], props: { title: 'Leeks', status: 'draft' }, searchText: 'Leeks' },
          { id: 'd', labels: ['Article'], props: { title: 'Draft notes', status: 'draft' } },
          { id: 'e', labels: ['Article'], props: { title: 'Empty', status: 'draft' }, searchText: '' },
        ]);
        // Reads never return the search text.
        expect(await graph.getNode('a')).toEqual({
          id: 'a',
          labels: ['Article'],
          props: { title: 'Tomatoes', status: 'draft', owner: 'user:alice' },
        });
        expect(Object.keys((await graph.getNodes(['b']))[0] ?? {})).toEqual(['id', 'labels', 'props']);
        // Only the given text is indexed; a node without one is indexed under its strings.
        expect(await search('draft')).toEqual(['d']);
        expect(await search('alice')).toEqual([]);
        expect(await search('sun')).toEqual(['b']);
        expect(await search('empty')).toEqual([]);
        // An update without searchText keeps the text; with one, replaces it.
        await graph.updateNode('a', { props: { title: 'Tomatoes', status: 'published' } });
        expect(await search('published')).toEqual([]);
        expect(await search('tomatoes')).toEqual(['a']);
        await graph.updateNode('a', {
          props: { title: 'Cucumbers', status: 'published' },
          searchText: 'Cucumbers',
        });
        expect(await search('tomatoes')).toEqual([]);
        expect(await search('cucumbers')).toEqual(['a']);
        // Within a transaction too, also for a node created in it.
        await graph.transaction(async (tx) => {
          await tx.createNode({
            id: 'f',
            labels: ['Article'],
            props: { title: 'Fennel', k: 'x' },
            searchText: 'Fennel',
          });
          await tx.updateNode('f', { props: { title: 'Fennel', k: 'bookkeeping' } });
          await tx.updateNode('c', {
            props: { title: 'Leeks', status: 'published' },
            labels: ['Article', 'Veg'],
          });
        });
        expect(await search('fennel')).toEqual(['f']);
        expect(await search('bookkeeping')).toEqual([]);
        expect(await search('leeks', 'Veg')).toEqual(['c']);
        // A put without searchText replaces the node: its strings are indexed again.
        await graph.putNode({ id: 'b', labels: ['Article'], props: { title: 'Potatoes', status: 'draft' } });
        expect(await search('sun')).toEqual([]);
        expect(await search('draft')).toEqual(['b', 'd']);
        // And an update of a node that was never given a text indexes its new strings.
        await graph.updateNode('d', { props: { title: 'Final notes', status: 'final' } });
        expect(await search('draft')).toEqual(['b']);
        expect(await search('final')).toEqual(['d']);
        await expectKind(
          graph.createNode({ id: 'x', labels: ['Article'], props: {}, searchText: 1 as unknown as string }),
          'invalid_argument',
        );
      });
    });

    describe('similarity', () => {
      it('returns the top k by cosine, honouring label and excludeId', async () => {
        const graph = await newGraph();
        const vectors: Record<string, number[]> = {
          a: [1, 0, 0],
          b: [0.9, 0.1, 0],
          c: [0.5, 0.5, 0],
          d: [0, 1, 0],
          e: [-1, 0, 0],
        };
        await graph.transaction(async (tx) => {
          for (const [id, vector] of Object.entries(vectors)) {
            await tx.createNode({ id, labels: ['Post'], props: { id } });
            await tx.setEmbedding(id, vector);
          }
          await tx.createNode({ id: 'page', labels: ['Page'], props: {} });
          await tx.setEmbedding('page', [1, 0, 0]);
          await tx.createNode({ id: 'bare', labels: ['Post'], props: {} });
        });
        expect(await graph.hasEmbedding('a')).toBe(true);
        expect(await graph.hasEmbedding('bare')).toBe(false);

        const hits = await graph.similar({ label: 'Post', vector: [1, 0, 0], k: 3 });
        expect(hits.map((hit) => hit.node.id)).toEqual(['a', 'b', 'c']);
        expect(hits[0]?.score).toBeCloseTo(1, 5);
        expect(hits[2]?.score).toBeCloseTo(Math.SQRT1_2, 4);
        expect(hits[0]?.node.labels).toEqual(['Post']);

        const excluded = await graph.similar({ label: 'Post', vector: [1, 0, 0], k: 2, excludeId: 'a' });
        expect(excluded.map((hit) => hit.node.id)).toEqual(['b', 'c']);
        const all = await graph.similar({ label: 'Post', vector: [1, 0, 0], k: 10 });
        expect(all.map((hit) => hit.node.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
        expect(all[4]?.score).toBeCloseTo(-1, 5);
        expect(
          (await graph.similar({ label: 'Page', vector: [0, 1, 0], k: 5 })).map((hit) => hit.node.id),
        ).toEqual(['page']);

        await graph.setEmbedding('e', [1, 0.01, 0]);
        expect(
          (await graph.similar({ label: 'Post', vector: [1, 0, 0], k: 2 })).map((hit) => hit.node.id),
        ).toEqual(['a', 'e']);
        await expectKind(graph.setEmbedding('missing', [1, 0, 0]), 'not_found');
        await expectKind(graph.setEmbedding('a', [1, 0]), 'invalid_argument');
        await expectKind(graph.similar({ label: 'Post', vector: [1, 0], k: 2 }), 'invalid_argument');
        await graph.deleteNode('a');
        expect(await graph.hasEmbedding('a')).toBe(false);
        expect((await graph.similar({ label: 'Post', vector: [1, 0, 0], k: 1 }))[0]?.node.id).toBe('e');
      });

      it('reads stored embeddings back by id and deletes one', async () => {
        const graph = await newGraph();
        await graph.transaction(async (tx) => {
          for (const id of ['a', 'b', 'bare']) await tx.createNode({ id, labels: ['Post'], props: {} });
          await tx.setEmbedding('a', [1, 0, 0.5]);
          await tx.setEmbedding('b', [0, 0.25, 0]);
        });
        const read = await graph.getEmbeddings(['a', 'b', 'bare', 'missing']);
        expect([...read.keys()].sort()).toEqual(['a', 'b']);
        expect(read.get('a')).toEqual([1, 0, 0.5]);
        expect(read.get('b')).toEqual([0, 0.25, 0]);
        expect((await graph.getEmbeddings([])).size).toBe(0);
        const inTx = await graph.transaction(async (tx) => tx.getEmbeddings(['b']));
        expect(inTx.get('b')).toEqual([0, 0.25, 0]);

        expect(await graph.deleteEmbedding('a')).toBe(true);
        expect(await graph.deleteEmbedding('a')).toBe(false);
        expect(await graph.deleteEmbedding('missing')).toBe(false);
        expect(await graph.hasEmbedding('a')).toBe(false);
        expect([...(await graph.getEmbeddings(['a', 'b'])).keys()]).toEqual(['b']);
        expect(
          (await graph.similar({ label: 'Post', vector: [1, 0, 0], k: 5 })).map((h) => h.node.id),
        ).toEqual(['b']);
      });
    });

    describe('edges and traversal', () => {
      let graph: Graph;

      beforeAll(async () => {
        graph = await newGraph();
        // a -LINKS-> b -LINKS-> c -LINKS-> d -LINKS-> e ; a -CITES-> x ; y -LINKS-> a ; b -CITES-> d
        await graph.transaction(async (tx) => {
          for (const id of ['a', 'b', 'c', 'd', 'e', 'y'])
            await tx.createNode({ id, labels: ['Doc'], props: { id } });
          await tx.createNode({ id: 'x', labels: ['Source'], props: {} });
          for (const [from, to] of [
            ['a', 'b'],
            ['b', 'c'],
            ['c', 'd'],
            ['d', 'e'],
            ['y', 'a'],
          ]) {
            await tx.mergeEdge({ from: from as string, type: 'LINKS', to: to as string, props: {} });
          }
          await tx.mergeEdge({ from: 'a', type: 'CITES', to: 'x', props: { page: 3 } });
          await tx.mergeEdge({ from: 'b', type: 'CITES', to: 'd', props: {} });
        });
      });

      const hop = (hits: Array<{ node: GraphNode; depth: number }>) =>
        hits.map((hit) => [hit.node.id, hit.depth]);

      it('follows edges outwards to depth 1, 2 and 3', async () => {
        expect(hop(await graph.traverse({ from: 'a', direction: 'out', depth: 1 }))).toEqual([
          ['b', 1],
          ['x', 1],
        ]);
        expect(hop(await graph.traverse({ from: 'a', direction: 'out', depth: 2 }))).toEqual([
          ['b', 1],
          ['x', 1],
          ['c', 2],
          ['d', 2],
        ]);
        expect(
          hop(await graph.traverse({ from: 'a', direction: 'out', depth: 3, edgeTypes: ['LINKS'] })),
        ).toEqual([
          ['b', 1],
          ['c', 2],
          ['d', 3],
        ]);
      });

      it('follows edges inwards and both ways', async () => {
        expect(hop(await graph.traverse({ from: 'd', direction: 'in', depth: 1 }))).toEqual([
          ['b', 1],
          ['c', 1],
        ]);
        expect(
          hop(await graph.traverse({ from: 'd', direction: 'in', depth: 3, edgeTypes: ['LINKS'] })),
        ).toEqual([
          ['c', 1],
          ['b', 2],
          ['a', 3],
        ]);
        expect(hop(await graph.traverse({ from: 'd', direction: 'in', depth: 3 }))).toEqual([
          ['b', 1],
          ['c', 1],
          ['a', 2],
          ['y', 3],
        ]);
        expect(hop(await graph.traverse({ from: 'a', direction: 'both', depth: 1 }))).toEqual([
          ['b', 1],
          ['x', 1],
          ['y', 1],
        ]);
        expect(
          hop(await graph.traverse({ from: 'c', direction: 'both', depth: 2, edgeTypes: ['LINKS'] })),
        ).toEqual([
          ['b', 1],
          ['d', 1],
          ['a', 2],
          ['e', 2],
        ]);
      });

      it('filters traversal by edge type and label, and limits', async () => {
        expect(
          hop(await graph.traverse({ from: 'a', direction: 'out', depth: 3, edgeTypes: ['CITES'] })),
        ).toEqual([['x', 1]]);
        expect(hop(await graph.traverse({ from: 'a', direction: 'out', depth: 3, label: 'Source' }))).toEqual(
          [['x', 1]],
        );
        expect(hop(await graph.traverse({ from: 'a', direction: 'out', depth: 3, limit: 2 }))).toEqual([
          ['b', 1],
          ['x', 1],
        ]);
        expect(await graph.traverse({ from: 'missing', direction: 'both', depth: 2 })).toEqual([]);
        await expectKind(graph.traverse({ from: 'a', direction: 'out', depth: 0 }), 'invalid_argument');
      });

      it('merges edges idempotently and refuses missing endpoints', async () => {
        expect(await graph.mergeEdge({ from: 'e', type: 'LINKS', to: 'a', props: { w: 1 } })).toBe('created');
        expect(await graph.mergeEdge({ from: 'e', type: 'LINKS', to: 'a', props: { w: 1 } })).toBe(
          'unchanged',
        );
        expect(await graph.mergeEdge({ from: 'e', type: 'LINKS', to: 'a', props: { w: 2 } })).toBe('updated');
        expect(await graph.mergeEdge({ from: 'e', type: 'CITES', to: 'a', props: {} })).toBe('created');
        expect(await graph.getEdges({ from: 'e', to: 'a', type: 'LINKS' })).toEqual([
          { from: 'e', type: 'LINKS', to: 'a', props: { w: 2 } },
        ]);
        expect(await graph.mergeEdge({ from: 'e', type: 'LINKS', to: 'ghost', props: {} })).toBe(
          'missing_endpoint',
        );
        expect(await graph.mergeEdge({ from: 'ghost', type: 'LINKS', to: 'e', props: {} })).toBe(
          'missing_endpoint',
        );
        expect(await graph.getEdges({ to: 'ghost' })).toEqual([]);
        expect(await graph.getEdges({ from: 'ghost' })).toEqual([]);
        const fromE = await graph.getEdges({ from: 'e' });
        expect(fromE.map((edge) => edge.type).sort()).toEqual(['CITES', 'LINKS']);
        expect(await graph.deleteEdge({ from: 'e', type: 'CITES', to: 'a' })).toBe(true);
        expect(await graph.deleteEdge({ from: 'e', type: 'CITES', to: 'a' })).toBe(false);
        expect(
          (await graph.getEdges({ type: 'CITES' })).map((edge) => `${edge.from}>${edge.to}`).sort(),
        ).toEqual(['a>x', 'b>d']);
        expect((await graph.getEdges({ from: 'a', type: 'CITES' }))[0]?.props).toEqual({ page: 3 });
      });

      it('reads a node with its outgoing edges in one call (getNodeWithEdges)', async () => {
        const g = await newGraph();
        await g.createNode({ id: 'item:1', labels: ['Item', 'Content'], props: { title: 'One', n: 1 } });
        for (const id of ['item:2', 'item:3', 'tag:z'])
          await g.createNode({ id, labels: ['Item'], props: {} });
        await g.createNode({ id: 'lonely', labels: ['Item'], props: { nested: { a: [1, 'x'] } } });
        // written out of order, of two types, one with props; one edge into item:1 (not returned)
        await g.mergeEdge({ from: 'item:1', type: 'TAGGED', to: 'tag:z', props: {} });
        await g.mergeEdge({ from: 'item:1', type: 'RELATED', to: 'item:3', props: { w: 2, note: 'é"' } });
        await g.mergeEdge({ from: 'item:1', type: 'RELATED', to: 'item:2', props: {} });
        await g.mergeEdge({ from: 'item:2', type: 'RELATED', to: 'item:1', props: {} });

        const read = await g.getNodeWithEdges('item:1');
        expect(read).toEqual({
          node: {
            id: 'item:1',
            labels: expect.arrayContaining(['Item', 'Content']),
            props: { title: 'One', n: 1 },
          },
          edges: [
            { from: 'item:1', type: 'RELATED', to: 'item:2', props: {} },
            { from: 'item:1', type: 'RELATED', to: 'item:3', props: { w: 2, note: 'é"' } },
            { from: 'item:1', type: 'TAGGED', to: 'tag:z', props: {} },
          ],
        });
        // the same as the two separate reads
        expect(read?.node).toEqual(await g.getNode('item:1'));
        expect(read?.edges).toEqual(await g.getEdges({ from: 'item:1' }));
        expect(await g.getNodeWithEdges('lonely')).toEqual({
          node: { id: 'lonely', labels: ['Item'], props: { nested: { a: [1, 'x'] } } },
          edges: [],
        });
        expect(await g.getNodeWithEdges('ghost')).toBeNull();

        // inside a transaction: its own uncommitted writes
        await g.transaction(async (tx) => {
          await tx.deleteEdge({ from: 'item:1', type: 'TAGGED', to: 'tag:z' });
          await tx.updateNode('item:1', { props: { title: 'Uno', n: 1 } });
          const inside = await tx.getNodeWithEdges('item:1');
          expect(inside?.node.props.title).toBe('Uno');
          expect(inside?.edges.map((edge) => edge.to)).toEqual(['item:2', 'item:3']);
        });
        expect((await g.getNodeWithEdges('item:1'))?.edges.map((edge) => edge.type)).toEqual([
          'RELATED',
          'RELATED',
        ]);
        await g.deleteNode('item:1');
        expect(await g.getNodeWithEdges('item:1')).toBeNull();
      });

      it('reads a node with its props as stored JSON text (getNodeJsonWithEdges)', async () => {
        const g = await newGraph();
        // Props of many shapes, written by every kind of node write.
        const shapes: Props[] = [
          {},
          { title: 'Tōkyō "東京" 🚀 \\ \n\t', lone: '\ud800', sep: 'a\u2028b', ctl: '\u0000\u001f' },
          { '10': 'ten', '9': 'nine', b: 1, a: [1, 2.5, -0, 1e21, 5e-7, null, true] },
          { nested: { z: null, a: [{ y: true }, [[]], {}] }, 'key "quoted"': 'x', 'back\\slash': 1 },
          {
            status: 'published',
            version: 3,
            blockDocument: {
              time: 1,
              blocks: [{ id: 'b', type: 'paragraph', data: { text: '}]",' } }],
              version: '1',
            },
          },
        ];
        const expectSame = async (reader: Graph | GraphWriter, id: string) => {
          const node = await reader.getNode(id);
          const read = await reader.getNodeJsonWithEdges(id);
          expect(read).toEqual({
            labels: node?.labels,
            propsJson: JSON.stringify(node?.props),
            edges: (await reader.getEdges({ from: id })).map((edge) => ({ type: edge.type, to: edge.to })),
          });
          return read;
        };
        for (const [k, props] of shapes.entries()) {
          await g.createNode({ id: `one:${k}`, labels: ['Item', 'Content'], props });
          await g.createNodes([
            { id: `many:${k}`, labels: ['Item'], props, propsJson: JSON.stringify(props) },
          ]);
          await g.createNode({ id: `upd:${k}`, labels: ['Item'], props: { old: true } });
          await g.updateNode(`upd:${k}`, { props });
        }
        if (g.createNodeRun) {
          await g.createNodeRun({
            labels: ['Item'],
            ids: shapes.map((_, k) => `run:${k}`),
            propsJson: shapes.map((props) => JSON.stringify(props)),
            searchText: shapes.map(() => ''),
            uniqueProps: shapes.map(() => ({})),
          });
        }
        await g.mergeEdge({ from: 'one:1', type: 'TAGGED', to: 'one:0', props: { w: 1 } });
        await g.mergeEdge({ from: 'one:1', type: 'RELATED', to: 'one:4', props: {} });
        await g.mergeEdge({ from: 'one:1', type: 'RELATED', to: 'one:2', props: { note: 'é"' } });
        await g.mergeEdge({ from: 'one:2', type: 'RELATED', to: 'one:1', props: {} });
        for (const [k, props] of shapes.entries()) {
          for (const prefix of ['one', 'many', 'upd', ...(g.createNodeRun ? ['run'] : [])]) {
            const read = await expectSame(g, `${prefix}:${k}`);
            expect(read?.propsJson, `${prefix}:${k}`).toBe(JSON.stringify(props));
          }
        }
        expect((await g.getNodeJsonWithEdges('one:1'))?.edges).toEqual([
          { type: 'RELATED', to: 'one:2' },
          { type: 'RELATED', to: 'one:4' },
          { type: 'TAGGED', to: 'one:0' },
        ]);
        expect(await g.getNodeJsonWithEdges('ghost')).toBeNull();
        // inside a transaction: its own uncommitted writes
        await g.transaction(async (tx) => {
          await tx.deleteEdge({ from: 'one:1', type: 'TAGGED', to: 'one:0' });
          await tx.updateNode('one:1', { props: { title: 'Uno' } });
          const inside = await expectSame(tx, 'one:1');
          expect(inside?.propsJson).toBe('{"title":"Uno"}');
          expect(inside?.edges.map((edge) => edge.to)).toEqual(['one:2', 'one:4']);
        });
        await g.deleteNode('one:1');
        expect(await g.getNodeJsonWithEdges('one:1')).toBeNull();
      });

      it('removes a node’s edges with the node', async () => {
        const g = await newGraph();
        await g.createNode({ id: 'hub', labels: ['N'], props: {} });
        await g.createNode({ id: 'in', labels: ['N'], props: {} });
        await g.createNode({ id: 'out', labels: ['N'], props: {} });
        await g.mergeEdge({ from: 'in', type: 'TO', to: 'hub', props: {} });
        await g.mergeEdge({ from: 'hub', type: 'TO', to: 'out', props: {} });
        expect(await g.deleteNode('hub')).toBe(true);
        expect(await g.getEdges({})).toEqual([]);
        await g.createNode({ id: 'hub', labels: ['N'], props: {} });
        expect(await g.getEdges({ to: 'hub' })).toEqual([]);
        expect(await g.traverse({ from: 'in', direction: 'out', depth: 2 })).toEqual([]);
      });
    });

    describe('point reads asked at once', () => {
      // Engines may serve the reads of one moment together (Neo4j sends the point reads of one
      // event-loop turn as one statement): every caller still gets its own, exact answer.
      it('answers many reads of several graphs asked at once, each with its own answer', async () => {
        const one = await newGraph();
        const two = await newGraph();
        for (const [graph, tag] of [
          [one, 'one'],
          [two, 'two'],
        ] as const) {
          await graph.transaction(async (tx) => {
            for (const id of ['a', 'b', 'c']) {
              await tx.createNode({ id, labels: ['Doc'], props: { id, tag, nested: { list: [1, 'x'] } } });
            }
            await tx.mergeEdge({ from: 'a', type: 'LINKS', to: 'c', props: { tag } });
            await tx.mergeEdge({ from: 'a', type: 'LINKS', to: 'b', props: {} });
            await tx.mergeEdge({ from: 'a', type: 'CITES', to: 'b', props: { page: 2 } });
          });
        }
        // Each answer as one read alone gives it.
        const alone = {
          node: await one.getNode('a'),
          edges: await one.getEdges({ from: 'a' }),
          links: await one.getEdges({ from: 'a', type: 'LINKS' }),
        };
        expect(alone.edges.map((edge) => `${edge.type}>${edge.to}`)).toEqual([
          'CITES>b',
          'LINKS>b',
          'LINKS>c',
        ]);
        const [nodeA, nodeA2, nodeB2, missing, edgesA, edgesA2, linksA, edgesB, edgesMissing, nodeA3] =
          await Promise.all([
            one.getNode('a'),
            one.getNode('a'),
            two.getNode('b'),
            one.getNode('ghost'),
            one.getEdges({ from: 'a' }),
            two.getEdges({ from: 'a' }),
            one.getEdges({ from: 'a', type: 'LINKS' }),
            one.getEdges({ from: 'b' }),
            one.getEdges({ from: 'ghost' }),
            two.getNode('a'),
          ]);
        expect(nodeA).toEqual(alone.node);
        expect(nodeA2).toEqual(alone.node);
        expect(nodeB2).toEqual({
          id: 'b',
          labels: ['Doc'],
          props: { id: 'b', tag: 'two', nested: { list: [1, 'x'] } },
        });
        expect(nodeA3?.props.tag).toBe('two');
        expect(missing).toBeNull();
        expect(edgesA).toEqual(alone.edges);
        expect(linksA).toEqual(alone.links);
        expect(edgesA2.map((edge) => [edge.type, edge.to, edge.props])).toEqual([
          ['CITES', 'b', { page: 2 }],
          ['LINKS', 'b', {}],
          ['LINKS', 'c', { tag: 'two' }],
        ]);
        expect(edgesB).toEqual([]);
        expect(edgesMissing).toEqual([]);
        // Two callers of the same read never share an object.
        expect(nodeA2).not.toBe(nodeA);
        ((nodeA as GraphNode).props.nested as { list: unknown[] }).list.push('changed');
        expect(nodeA2?.props.nested).toEqual({ list: [1, 'x'] });
        expect(await one.getNode('a')).toEqual(alone.node);
      });

      it('sees every write that returned before the read was asked', async () => {
        const graph = await newGraph();
        await graph.createNode({ id: 'n', labels: ['Doc'], props: { v: 0 } });
        await graph.createNode({ id: 'm', labels: ['Doc'], props: {} });
        for (let v = 1; v <= 8; v += 1) {
          // Asked before the write: it may see the node before or after it.
          const before = graph.getNode('n');
          await graph.updateNode('n', { props: { v } });
          await graph.mergeEdge({ from: 'n', type: 'SEEN', to: 'm', props: { v } });
          const [node, again, edges] = await Promise.all([
            graph.getNode('n'),
            graph.getNode('n'),
            graph.getEdges({ from: 'n' }),
          ]);
          expect(node?.props).toEqual({ v });
          expect(again?.props).toEqual({ v });
          expect(edges).toEqual([{ from: 'n', type: 'SEEN', to: 'm', props: { v } }]);
          expect([v - 1, v]).toContain((await before)?.props.v);
        }
        await graph.deleteNode('n');
        expect(await Promise.all([graph.getNode('n'), graph.getEdges({ from: 'n' })])).toEqual([null, []]);
      });
    });

    describe('transactions', () => {
      it('commits everything together and lets the transaction read its own writes', async () => {
        const graph = await newGraph();
        const result = await graph.transaction(async (tx) => {
          await tx.createNode({ id: 'a', labels: ['T'], props: { n: 1 } });
          await tx.createNode({ id: 'b', labels: ['T'], props: { n: 2 } });
          await tx.mergeEdge({ from: 'a', type: 'NEXT', to: 'b', props: {} });
          expect((await tx.getNode('a'))?.props).toEqual({ n: 1 });
          expect((await tx.findNodes({ label: 'T' })).total).toBe(2);
          expect(hopIds(await tx.traverse({ from: 'a', direction: 'out', depth: 1 }))).toEqual(['b']);
          return 'done';
        });
        expect(result).toBe('done');
        expect((await graph.findNodes({ label: 'T' })).total).toBe(2);
      });

      it('rolls back every write, audit records included, when the callback throws', async () => {
        const graph = await newGraph();
        await graph.createNode({ id: 'keep', labels: ['T'], props: { v: 1 } });
        await graph.appendAudit({ actor: 'system', action: 'seed', target: 'keep' });
        const failure = new Error('boom');
        await expect(
          graph.transaction(async (tx) => {
            await tx.createNode({ id: 'gone', labels: ['T'], props: { title: 'ephemeral words' } });
            await tx.updateNode('keep', { props: { v: 2 } });
            await tx.mergeEdge({ from: 'gone', type: 'TO', to: 'keep', props: {} });
            await tx.setEmbedding('gone', [1, 2]);
            await tx.appendAudit({ actor: 'u1', action: 'content.create', target: 'gone' });
            await tx.deleteNode('keep');
            throw failure;
          }),
        ).rejects.toBe(failure);
        expect(await graph.getNode('gone')).toBeNull();
        expect(await graph.getNode('keep')).toEqual({ id: 'keep', labels: ['T'], props: { v: 1 } });
        expect(await graph.getEdges({})).toEqual([]);
        expect((await graph.findNodes({ label: 'T', q: 'ephemeral' })).total).toBe(0);
        expect(await graph.auditRecords()).toHaveLength(1);
        const verdict = await graph.verifyAudit();
        expect(verdict).toMatchObject({ status: 'ok', records: 1, last_seq: 1 });
        // The graph is usable afterwards, and the next audit record continues the chain.
        await graph.transaction(async (tx) => {
          await tx.createNode({ id: 'next', labels: ['T'], props: {} });
          await tx.appendAudit({ actor: 'u1', action: 'content.create', target: 'next' });
        });
        expect((await graph.auditRecords()).map((record) => record.seq)).toEqual([1, 2]);
      });

      it('hides uncommitted writes from reads outside the transaction', async () => {
        const graph = await newGraph();
        let resume!: () => void;
        const paused = new Promise<void>((resolve) => {
          resume = resolve;
        });
        let signal!: () => void;
        const wrote = new Promise<void>((resolve) => {
          signal = resolve;
        });
        const running = graph.transaction(async (tx) => {
          await tx.createNode({ id: 'pending', labels: ['T'], props: {} });
          signal();
          await paused;
        });
        await wrote;
        expect(await graph.getNode('pending')).toBeNull();
        expect((await graph.findNodes({ label: 'T' })).total).toBe(0);
        resume();
        await running;
        expect(await graph.getNode('pending')).not.toBeNull();
      });

      it('serializes concurrent transactions on one graph', async () => {
        const graph = await newGraph();
        await graph.createNode({ id: 'counter', labels: ['C'], props: { n: 0 } });
        await Promise.all(
          Array.from({ length: 8 }, () =>
            graph.transaction(async (tx) => {
              const node = await tx.getNode('counter');
              await new Promise((resolve) => setTimeout(resolve, 2));
              await tx.updateNode('counter', { props: { n: (node?.props.n as number) + 1 } });
            }),
          ),
        );
        expect((await graph.getNode('counter'))?.props.n).toBe(8);
      });
    });

    describe('unique constraints', () => {
      it('rejects a second node with the same value, in and out of transactions', async () => {
        const graph = await newGraph();
        await graph.ensureUnique('User', 'email');
        await graph.ensureUnique('User', 'email');
        await graph.createNode({ id: 'u1', labels: ['User'], props: { email: 'a@example.com' } });
        await expectKind(
          graph.createNode({ id: 'u2', labels: ['User'], props: { email: 'a@example.com' } }),
          'unique_violation',
        );
        expect(await graph.getNode('u2')).toBeNull();
        // A taken id is `exists`, even when the unique value repeats too.
        await expectKind(
          graph.createNode({ id: 'u1', labels: ['User'], props: { email: 'a@example.com' } }),
          'exists',
        );
        await expectKind(
          graph.putNode({ id: 'u2', labels: ['User'], props: { email: 'a@example.com' } }),
          'unique_violation',
        );
        // Same value on another label, missing values and the node itself are fine.
        await graph.createNode({ id: 'g1', labels: ['Guest'], props: { email: 'a@example.com' } });
        await graph.createNode({ id: 'u3', labels: ['User'], props: {} });
        await graph.createNode({ id: 'u4', labels: ['User'], props: {} });
        await graph.putNode({ id: 'u1', labels: ['User'], props: { email: 'a@example.com', name: 'A' } });
        await graph.createNode({ id: 'u5', labels: ['User'], props: { email: 'b@example.com' } });
        await expectKind(graph.updateNode('u5', { props: { email: 'a@example.com' } }), 'unique_violation');
        expect((await graph.getNode('u5'))?.props.email).toBe('b@example.com');
        // A freed value can be taken again.
        await graph.updateNode('u1', { props: { email: 'c@example.com' } });
        await graph.createNode({ id: 'u6', labels: ['User'], props: { email: 'a@example.com' } });
        await graph.deleteNode('u6');
        await graph.createNode({ id: 'u7', labels: ['User'], props: { email: 'a@example.com' } });

        const error = await graph
          .transaction(async (tx) => {
            await tx.createNode({ id: 'tx1', labels: ['User'], props: { email: 'tx@example.com' } });
            await tx.createNode({ id: 'tx2', labels: ['User'], props: { email: 'tx@example.com' } });
          })
          .catch((caught: unknown) => caught);
        expect(isEngineError(error, 'unique_violation')).toBe(true);
        expect(await graph.getNode('tx1')).toBeNull();

        // Caught inside the transaction, the violation leaves no partial write behind.
        await graph.transaction(async (tx) => {
          await tx.createNode({ id: 'tx3', labels: ['User'], props: { email: 'tx3@example.com' } });
          const inner = await tx
            .createNode({ id: 'tx4', labels: ['User'], props: { email: 'tx3@example.com' } })
            .catch((caught: unknown) => caught);
          expect(isEngineError(inner, 'unique_violation')).toBe(true);
        });
        expect(await graph.getNode('tx3')).not.toBeNull();
        expect(await graph.getNode('tx4')).toBeNull();
      });

      it('refuses a constraint that existing nodes already violate', async () => {
        const graph = await newGraph();
        await graph.createNode({ id: 'a', labels: ['Tag'], props: { slug: 'x' } });
        await graph.createNode({ id: 'b', labels: ['Tag'], props: { slug: 'x' } });
        await expectKind(graph.ensureUnique('Tag', 'slug'), 'unique_violation');
        await graph.createNode({ id: 'c', labels: ['Tag'], props: { slug: 'x' } });
      });
    });

    describe('batch writes', () => {
      const item = (id: string, props: Record<string, unknown> = {}, labels = ['Item']): GraphNode => ({
        id,
        labels,
        props,
      });

      it('creates nodes in a batch that read back exactly, in input order', async () => {
        const graph = await newGraph();
        expect(await graph.createNodes([])).toEqual([]);
        const batch = [
          item('b2', { title: 'Zweite', nested: { list: [1, 'x', { deep: true }] } }),
          item('b1', { title: 'Première ✓', n: 1.5 }, ['Item', 'Featured']),
          item('b3', {}),
        ];
        expect(await graph.createNodes(batch)).toEqual(batch);
        expect(await graph.getNodes(['b1', 'b2', 'b3'])).toEqual([batch[1], batch[0], batch[2]]);
        const featured = await graph.findNodes({ label: 'Featured' });
        expect(ids(featured.nodes)).toEqual(['b1']);
        expect(featured.total).toBe(1);
        // Full-text entries of a batch mixing labels and text-less nodes.
        expect(ids((await graph.findNodes({ label: 'Item', q: 'premiere' })).nodes)).toEqual(['b1']);
        expect(ids((await graph.findNodes({ label: 'Item', q: 'zweite' })).nodes)).toEqual(['b2']);

        // More nodes than one statement carries, mixed with single creates in one transaction.
        const many = Array.from({ length: 1234 }, (_, i) => item(`m${String(i).padStart(4, '0')}`, { i }));
        await graph.transaction(async (tx) => {
          await tx.createNode(item('single-1', { i: -1 }));
          await tx.createNodes(many);
          await tx.createNode(item('single-2', { i: -2 }));
        });
        const page = await graph.findNodes({
          label: 'Item',
          where: [{ prop: 'i', op: 'gte', value: 0 }],
          limit: 2,
        });
        expect(page.total).toBe(1234);
        expect(ids(page.nodes)).toEqual(['m0000', 'm0001']);
        expect((await graph.getNode('m1233'))?.props).toEqual({ i: 1233 });
        expect((await graph.findNodes({ label: 'Item' })).total).toBe(1239);
      });

      it('writes nothing of a batch when one node’s id is taken or repeated', async () => {
        const graph = await newGraph();
        await graph.createNode(item('taken', { v: 'old' }));
        await expectKind(
          graph.createNodes([item('new-1', { title: 'alpha' }), item('taken'), item('new-2')]),
          'exists',
        );
        await expectKind(graph.createNodes([item('dup'), item('other'), item('dup')]), 'exists');
        expect(await graph.getNodes(['new-1', 'new-2', 'dup', 'other'])).toEqual([]);
        expect((await graph.getNode('taken'))?.props).toEqual({ v: 'old' });
        expect((await graph.findNodes({ label: 'Item', q: 'alpha' })).total).toBe(0);
        await expectKind(
          graph.createNodes([item('fine'), { id: 'bad', labels: ['Not A Label'], props: {} }]),
          'invalid_argument',
        );
        expect(await graph.getNode('fine')).toBeNull();
        expect((await graph.findNodes({ label: 'Item' })).total).toBe(1);
      });

      it('writes nothing of a batch that breaks a unique constraint', async () => {
        const graph = await newGraph();
        await graph.ensureUnique('User', 'email');
        await graph.createNode(item('u0', { email: 'held@example.com' }, ['User']));
        await expectKind(
          graph.createNodes([
            item('u1', { email: 'one@example.com' }, ['User']),
            item('u2', { email: 'held@example.com' }, ['User']),
          ]),
          'unique_violation',
        );
        await expectKind(
          graph.createNodes([
            item('u3', { email: 'twice@example.com' }, ['User']),
            item('u4', { email: 'twice@example.com' }, ['User', 'Admin']),
          ]),
          'unique_violation',
        );
        // A taken id is `exists`, even when a unique value repeats too.
        await expectKind(
          graph.createNodes([
            item('u5', { email: 'five@example.com' }, ['User']),
            item('u0', { email: 'held@example.com' }, ['User']),
          ]),
          'exists',
        );
        expect(await graph.getNodes(['u1', 'u2', 'u3', 'u4', 'u5'])).toEqual([]);
        // The values a batch takes are held afterwards; values of failed batches are free.
        await graph.createNodes([
          item('u6', { email: 'one@example.com' }, ['User']),
          item('g1', { email: 'held@example.com' }, ['Guest']),
        ]);
        await expectKind(
          graph.createNode(item('u7', { email: 'one@example.com' }, ['User'])),
          'unique_violation',
        );
        await graph.createNode(item('u8', { email: 'twice@example.com' }, ['User']));
      });

      it('rolls a batch back with its transaction, and only the batch when the error is caught', async () => {
        const graph = await newGraph();
        await graph.createNode(item('taken'));
        const error = await graph
          .transaction(async (tx) => {
            await tx.createNodes([item('t1', { title: 'rollback words' }), item('t2')]);
            await tx.mergeEdges([{ from: 't1', type: 'NEXT', to: 't2', props: {} }]);
            throw new Error('boom');
          })
          .catch((caught: unknown) => caught);
        expect((error as Error).message).toBe('boom');
        expect(await graph.getNodes(['t1', 't2'])).toEqual([]);
        expect(await graph.getEdges({ type: 'NEXT' })).toEqual([]);
        expect((await graph.findNodes({ label: 'Item', q: 'rollback' })).total).toBe(0);

        await graph.transaction(async (tx) => {
          await tx.createNode(item('before', { title: 'kept before' }));
          // Enough nodes for several statements, the taken id last.
          const filler = Array.from({ length: 700 }, (_, i) => item(`c${i}`, { title: 'caught words' }));
          const inner = await tx.createNodes([...filler, item('taken')]).catch((caught: unknown) => caught);
          expect(isEngineError(inner, 'exists')).toBe(true);
          expect(await tx.getNode('c0')).toBeNull();
          expect(await tx.getNode('c699')).toBeNull();
          await tx.createNodes([item('after', { title: 'kept after' })]);
        });
        expect(ids(await graph.getNodes(['before', 'c0', 'after']))).toEqual(['before', 'after']);
        expect((await graph.findNodes({ label: 'Item' })).total).toBe(3);
        expect(ids((await graph.findNodes({ label: 'Item', q: 'kept' })).nodes)).toEqual(['after', 'before']);
        expect((await graph.findNodes({ label: 'Item', q: 'caught' })).total).toBe(0);
      });

      it('finds batch-created nodes by full-text search, ranked, and forgets deleted ones', async () => {
        const graph = await newGraph();
        await graph.createNodes([
          item('once', { title: 'Gardening notes', body: 'Tomatoes need sun and water, plus other chores.' }),
          item('thrice', { title: 'Tomatoes', body: 'Tomatoes, tomatoes: how to grow tomatoes.' }),
          item('nested', { blocks: [{ text: 'Crushed tomatoes simmer slowly' }] }, ['Item', 'Recipe']),
          item('cherry', { title: 'Cherry pie' }),
        ]);
        const tomatoes = await graph.findNodes({ label: 'Item', q: 'TOMATOES' });
        expect(tomatoes.total).toBe(3);
        expect(ids(tomatoes.nodes)[0]).toBe('thrice');
        expect(ids((await graph.findNodes({ label: 'Recipe', q: 'simmer' })).nodes)).toEqual(['nested']);
        // A node created after a delete must not inherit the deleted node's entry or embedding.
        await graph.setEmbedding('cherry', [1, 0]);
        expect(await graph.deleteNode('cherry')).toBe(true);
        await graph.createNodes([item('date', { title: 'Date cake' })]);
        expect((await graph.findNodes({ label: 'Item', q: 'cherry' })).total).toBe(0);
        expect(ids((await graph.findNodes({ label: 'Item', q: 'date' })).nodes)).toEqual(['date']);
        expect(await graph.hasEmbedding('date')).toBe(false);
      });

      it('merges edges in a batch: one result per edge, idempotent, missing endpoints skipped', async () => {
        const graph = await newGraph();
        await graph.createNodes([item('a'), item('b'), item('c')]);
        await graph.mergeEdge({ from: 'a', type: 'LINKS', to: 'b', props: { w: 1 } });
        const edges = [
          { from: 'a', type: 'LINKS', to: 'b', props: { w: 1 } },
          { from: 'a', type: 'LINKS', to: 'c', props: { w: 2 } },
          { from: 'a', type: 'LINKS', to: 'ghost', props: {} },
          { from: 'ghost', type: 'LINKS', to: 'a', props: {} },
          { from: 'b', type: 'CITES', to: 'c', props: { page: 1 } },
          { from: 'b', type: 'CITES', to: 'c', props: { page: 2 } },
          { from: 'c', type: 'SELF', to: 'c', props: {} },
        ];
        expect(await graph.mergeEdges(edges)).toEqual([
          'unchanged',
          'created',
          'missing_endpoint',
          'missing_endpoint',
          'created',
          'updated',
          'created',
        ]);
        expect(await graph.mergeEdges(edges.slice(0, 2))).toEqual(['unchanged', 'unchanged']);
        expect(await graph.mergeEdges([{ from: 'a', type: 'LINKS', to: 'b', props: { w: 9 } }])).toEqual([
          'updated',
        ]);
        expect(await graph.mergeEdges([])).toEqual([]);
        const all = await graph.getEdges({});
        expect(
          all.map((edge) => `${edge.from}-${edge.type}->${edge.to} ${JSON.stringify(edge.props)}`),
        ).toEqual(['a-LINKS->b {"w":9}', 'a-LINKS->c {"w":2}', 'b-CITES->c {"page":2}', 'c-SELF->c {}']);
        expect(await graph.getEdges({ from: 'ghost' })).toEqual([]);
        expect(await graph.getEdges({ to: 'ghost' })).toEqual([]);
        // Invalid input rejects the whole batch before anything is written.
        await expectKind(
          graph.mergeEdges([
            { from: 'b', type: 'NEW', to: 'a', props: {} },
            { from: 'b', type: 'not valid', to: 'a', props: {} },
          ]),
          'invalid_argument',
        );
        expect(await graph.getEdges({ type: 'NEW' })).toEqual([]);
        // Inside a transaction the batch sees nodes the transaction created.
        const results = await graph.transaction(async (tx) => {
          await tx.createNodes([item('d'), item('e')]);
          return tx.mergeEdges([
            { from: 'd', type: 'NEXT', to: 'e', props: {} },
            { from: 'e', type: 'NEXT', to: 'a', props: {} },
          ]);
        });
        expect(results).toEqual(['created', 'created']);
        expect(
          ids(
            (await graph.traverse({ from: 'd', direction: 'out', depth: 2, edgeTypes: ['NEXT'] })).map(
              (hit) => hit.node,
            ),
          ),
        ).toEqual(['e', 'a']);
      });
    });

    describe('audit chain', () => {
      it('reports an empty chain', async () => {
        const graph = await newGraph();
        expect(await graph.verifyAudit()).toMatchObject({
          graph: graph.name,
          status: 'empty',
          records: 0,
          last_seq: 0,
          reason: null,
        });
      });

      it('chains records with the keyed hash and verifies them', async () => {
        const graph = await newGraph();
        const first = await graph.appendAudit({ actor: 'u1', action: 'content.create', target: 'post:1' });
        const second = await graph.appendAudit({
          actor: 'key:abc',
          action: 'content.update',
          target: 'post:1',
          data: { hash: 'sha256:00', nested: { ü: [1, 'two'] } },
        });
        const third = await graph.transaction((tx) =>
          tx.appendAudit({ actor: 'system', action: 'release.deploy', target: 'release:1' }),
        );
        expect([first.seq, second.seq, third.seq]).toEqual([1, 2, 3]);
        expect(first.prevHash).toBe(GENESIS_HASH);
        expect(second.prevHash).toBe(first.hash);
        expect(third.prevHash).toBe(second.hash);
        expect(first.hash).toBe(auditMac(subject.auditKey, GENESIS_HASH, first));
        expect(second.hash).toBe(auditMac(subject.auditKey, first.hash, second));
        expect(first.hash).not.toBe(auditHash(GENESIS_HASH, first));
        expect(second.hash).toMatch(/^[0-9a-f]{64}$/);
        expect(Number.isNaN(Date.parse(first.ts))).toBe(false);

        const records = await graph.auditRecords();
        expect(records).toEqual([first, second, third]);
        expect(await graph.auditRecords({ afterSeq: 1, limit: 1 })).toEqual([second]);

        const verdict = await graph.verifyAudit();
        expect(verdict).toMatchObject({
          graph: graph.name,
          status: 'ok',
          records: 3,
          last_seq: 3,
          last_hash: third.hash,
          reason: null,
        });
        expect(Number.isNaN(Date.parse(verdict.verified_at))).toBe(false);
      });

      it('finds records by actor, action, target and time, newest first, a page at a time with a total', async () => {
        const graph = await newGraph();
        const other = await newGraph();
        await other.appendAudit({ actor: 'u1', action: 'content.create', target: 'post:elsewhere' });
        const entries = [
          { actor: 'user:a', action: 'content.create', target: 'post:1' },
          { actor: 'key:a1', action: 'content.update', target: 'post:1', data: { version: 2 } },
          { actor: 'user:b', action: 'content.create', target: 'post:10' },
          { actor: 'user:a', action: 'template.update', target: 'template:page' },
          { actor: 'system', action: 'content.publish.bulk', target: 'env:prod' },
          { actor: 'user:b', action: 'content.delete', target: 'post:2' },
        ];
        const written = [];
        for (const entry of entries) written.push(await graph.appendAudit(entry));
        const seqs = (page: { records: Array<{ seq: number }> }) => page.records.map((r) => r.seq);

        const all = await graph.findAudit({});
        expect(all.total).toBe(6);
        expect(all.records).toEqual([...written].reverse());
        expect(seqs(await graph.findAudit({ order: 'asc', limit: 2, offset: 1 }))).toEqual([2, 3]);
        const paged = await graph.findAudit({ limit: 2, offset: 2 });
        expect(seqs(paged)).toEqual([4, 3]);
        expect(paged.total).toBe(6);
        expect(await graph.findAudit({ limit: 0 })).toEqual({ records: [], total: 6 });
        const head = await graph.findAudit({ order: 'desc', limit: 1, total: false });
        expect(seqs(head)).toEqual([6]);
        expect(head.total).toBe(-1);
        await expectKind(graph.findAudit({ total: 'no' as unknown as boolean }), 'invalid_argument');
        expect(seqs(await graph.findAudit({ offset: 10 }))).toEqual([]);

        const byActors = await graph.findAudit({ actor: { in: ['user:a', 'key:a1'] } });
        expect(seqs(byActors)).toEqual([4, 2, 1]);
        expect(byActors.total).toBe(3);
        expect(seqs(await graph.findAudit({ actor: { prefix: 'user:' } }))).toEqual([6, 4, 3, 1]);
        expect(seqs(await graph.findAudit({ action: { prefix: 'content.' } }))).toEqual([6, 5, 3, 2, 1]);
        expect(seqs(await graph.findAudit({ action: { in: ['content.create'] } }))).toEqual([3, 1]);
        // A prefix is a plain string prefix: `post:1` also matches `post:10`; `in` is exact.
        expect(seqs(await graph.findAudit({ target: { prefix: 'post:1' } }))).toEqual([3, 2, 1]);
        expect(seqs(await graph.findAudit({ target: { in: ['post:1'] } }))).toEqual([2, 1]);
        expect(seqs(await graph.findAudit({ target: { prefix: 'POST:' } }))).toEqual([]);
        const combined = await graph.findAudit({
          actor: { prefix: 'user:' },
          action: { prefix: 'content.' },
          target: { prefix: 'post:' },
          limit: 1,
        });
        expect(combined).toEqual({ records: [written[5]], total: 3 });

        // Time bounds: since inclusive, until exclusive (records may share a millisecond).
        const since = written[1]!.ts;
        const until = written[4]!.ts;
        const expected = written
          .filter((record) => record.ts >= since && record.ts < until)
          .map((record) => record.seq)
          .reverse();
        const inRange = await graph.findAudit({ since, until });
        expect(seqs(inRange)).toEqual(expected);
        expect(inRange.total).toBe(expected.length);
        expect(seqs(await graph.findAudit({ since: '2999-01-01T00:00:00.000Z' }))).toEqual([]);
        expect((await graph.findAudit({ until: '2999-01-01T00:00:00.000Z' })).total).toBe(6);

        expect((await other.findAudit({})).total).toBe(1);
        await expectKind(graph.findAudit({ actor: { in: [] } }), 'invalid_argument');
        await expectKind(graph.findAudit({ limit: -1 }), 'invalid_argument');
        await expectKind(graph.findAudit({ order: 'sideways' as 'asc' }), 'invalid_argument');
      });

      it('reports a record changed behind the engine’s back as broken, naming it', async () => {
        const graph = await newGraph();
        for (let i = 1; i <= 4; i++)
          await graph.appendAudit({ actor: 'u1', action: 'content.update', target: `post:${i}` });
        expect((await graph.verifyAudit()).status).toBe('ok');
        await subject.tamperAudit(graph.name, 3);
        const verdict = await graph.verifyAudit();
        expect(verdict.status).toBe('broken');
        expect(verdict.bad_seq).toBe(3);
        expect(verdict.reason).toMatch(/\b3\b/);
        expect(verdict.reason).not.toMatch(/\b[124]\b/);
      });

      /** Appends `count` records and returns them. */
      async function appendRecords(graph: Graph, count: number): Promise<AuditRecord[]> {
        const written: AuditRecord[] = [];
        for (let i = 1; i <= count; i++)
          written.push(
            await graph.appendAudit({ actor: 'u1', action: 'content.update', target: `post:${i}` }),
          );
        return written;
      }

      /** The records re-chained from seq 1 with `hash` (what a forger without the key can do). */
      function rechained(
        records: AuditRecord[],
        hash: (prevHash: string, record: AuditRecord) => string,
        change: (record: AuditRecord) => AuditRecord = (record) => record,
      ): AuditRecord[] {
        let prevHash = GENESIS_HASH;
        return records.map((original) => {
          const record = { ...change(original), prevHash };
          record.hash = hash(prevHash, record);
          prevHash = record.hash;
          return record;
        });
      }

      it('detects its newest records deleted, against the head anchored outside the graph', async () => {
        const graph = await newGraph();
        const written = await appendRecords(graph, 5);
        const head = written[4] as AuditRecord;
        const anchors = [{ seq: head.seq, hash: head.hash, source: 'platform store' }];
        expect(await graph.verifyAudit({ anchors })).toMatchObject({ status: 'ok', anchored_seq: 5 });
        await subject.truncateAudit(graph.name, 4);
        // Without the anchor the shorter chain is consistent; with it, the cut shows.
        expect((await graph.verifyAudit()).status).toBe('ok');
        const verdict = await graph.verifyAudit({ anchors });
        expect(verdict).toMatchObject({ status: 'broken', bad_seq: 4, last_seq: 3, anchored_seq: 5 });
        expect(verdict.reason).toContain('head anchored at seq 5 (platform store) but chain ends at 3');
        // Written on after the cut, the chain differs at the anchored seq.
        await appendRecords(graph, 3);
        const rewritten = await graph.verifyAudit({ anchors });
        expect(rewritten).toMatchObject({ status: 'broken', bad_seq: 5 });
      });

      it('detects the whole chain rewritten consistently without the key', async () => {
        const graph = await newGraph();
        const written = await appendRecords(graph, 4);
        const forged = (record: AuditRecord) => ({ ...record, actor: 'someone-else' });
        // Unkeyed, as chains were before keying.
        await subject.overwriteAudit(graph.name, rechained(written, auditHash, forged));
        expect(await graph.verifyAudit()).toMatchObject({ status: 'broken', bad_seq: 1 });
        // Under a key of the forger's own.
        const otherKey = randomBytes(32);
        await subject.overwriteAudit(
          graph.name,
          rechained(written, (prevHash, record) => auditMac(otherKey, prevHash, record), forged),
        );
        const verdict = await graph.verifyAudit();
        expect(verdict).toMatchObject({ status: 'broken', bad_seq: 1 });
        expect(verdict.reason).toMatch(/seq 1\b/);
      });

      it('accepts records written before keying up to legacyThrough, and keyed ones after them', async () => {
        const graph = await newGraph();
        const written = await appendRecords(graph, 3);
        // The chain as an older server wrote it: plain sha256.
        const legacy = rechained(written, auditHash);
        await subject.overwriteAudit(graph.name, legacy);
        const next = await graph.appendAudit({ actor: 'u1', action: 'content.update', target: 'post:4' });
        expect(next.prevHash).toBe(legacy[2]?.hash);
        expect(await graph.verifyAudit({ legacyThrough: 3 })).toMatchObject({
          status: 'ok',
          records: 4,
          legacy_through: 3,
        });
        expect(await graph.verifyAudit()).toMatchObject({ status: 'broken', bad_seq: 1 });
        expect(await graph.verifyAudit({ legacyThrough: 2 })).toMatchObject({ status: 'broken', bad_seq: 3 });
        // A legacy record tampered with is named.
        await subject.tamperAudit(graph.name, 2);
        expect(await graph.verifyAudit({ legacyThrough: 3 })).toMatchObject({ status: 'broken', bad_seq: 2 });
      });
    });

    describe('saved queries', () => {
      // A saved query reads the graph through the engine (site-resources/saved-queries.ts) and
      // is evaluated by core: its answer must be the one core gives over the same data in memory
      // (as a build does from its snapshot), whatever the engine.
      const types = [
        {
          name: 'post',
          nodeLabel: 'Post',
          fields: [
            { name: 'title', type: 'string' },
            { name: 'year', type: 'number' },
            { name: 'tags', type: 'stringlist' },
            { name: 'draft', type: 'boolean' },
          ],
          relationships: [],
        },
        {
          name: 'person',
          nodeLabel: 'Person',
          fields: [{ name: 'name', type: 'string' }],
          relationships: [],
        },
      ];
      const items: QueryItem[] = [
        {
          id: 'post:a',
          type: 'post',
          fields: { title: 'Graphs in Practice', year: 2020, tags: ['graphs'], draft: false },
        },
        { id: 'post:b', type: 'post', fields: { title: 'the web', year: 2022, tags: ['web', 'graphs'] } },
        { id: 'post:c', type: 'post', fields: { title: 'Zebra', year: 2024, tags: [], draft: true } },
        { id: 'post:d', type: 'post', fields: { title: 'Ünïcode', tags: ['web'] } },
        { id: 'person:ann', type: 'person', fields: { name: 'Ann' } },
        { id: 'person:bob', type: 'person', fields: { name: 'Bob' } },
        { id: 'person:cy', type: 'person', fields: {} },
      ].map((item) => ({
        ...item,
        status: 'draft',
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:00.000Z',
      }));
      const edges = [
        { from: 'person:ann', type: 'WROTE', to: 'post:a' },
        { from: 'person:ann', type: 'WROTE', to: 'post:b' },
        { from: 'person:bob', type: 'WROTE', to: 'post:c' },
        { from: 'person:cy', type: 'EDITED', to: 'post:d' },
        { from: 'post:a', type: 'CITES', to: 'post:b' },
        { from: 'post:b', type: 'CITES', to: 'post:c' },
        { from: 'post:c', type: 'CITES', to: 'post:a' },
      ];
      const queries: GraphQueryInput[] = [
        { type: 'post', sort: '-year' },
        { type: 'post', where: 'year >= 2022', sort: 'title' },
        { type: 'post', where: "tags contains 'graphs' and draft != true", sort: '-title' },
        { type: 'post', where: "title contains 'WEB'" },
        { type: 'post', where: 'year == null' },
        { type: 'post', where: "title > 'M'", sort: 'year', limit: 2, offset: 1 },
        { type: 'post', where: 'year < $max', select: ['title', 'slug'] },
        {
          type: 'person',
          follow: [{ edge: 'WROTE', direction: 'out', type: 'post', sort: '-year' }],
          select: ['year'],
        },
        { type: 'post', where: "title == 'Zebra'", follow: [{ edge: 'WROTE', direction: 'in' }] },
        { type: 'post', where: "title == 'Zebra'", follow: [{ edge: 'CITES', direction: 'both', depth: 1 }] },
        { type: 'post', where: "title == 'Graphs in Practice'", follow: [{ edge: 'CITES', depth: 3 }] },
        { type: 'person', where: "name == 'Cy'", follow: [{ edge: '*', direction: 'out' }] },
        {
          type: 'person',
          follow: [{ edge: '*' }, { edge: 'CITES', direction: 'in', type: 'post', where: 'year > 2020' }],
        },
        { type: 'person', where: 'name != null', sort: '-name' },
      ];

      it('gives the answers core gives over the same data in memory', async () => {
        const graph = await newGraph();
        await graph.createNodes([
          ...types.map((type) => ({ id: typeNodeId(type.name), labels: [TYPE_LABEL], props: type })),
          ...items.map((item) => ({
            id: item.id,
            labels: [types.find((type) => type.name === item.type)!.nodeLabel, CONTENT_LABEL],
            props: {
              ...item.fields,
              status: item.status,
              createdAt: item.createdAt,
              updatedAt: item.updatedAt,
            },
          })),
          // a node that is no item: never a result, never walked through
          { id: '~other:x', labels: ['Other'], props: { name: 'X' } },
        ]);
        await graph.mergeEdges(
          [...edges, { from: 'post:a', type: 'CITES', to: '~other:x' }].map((edge) => ({
            ...edge,
            props: {},
          })),
        );
        const memory: GraphQueryReader = {
          type: (name) => (types.find((type) => type.name === name) as QueryTypeInfo | undefined) ?? null,
          itemsOfType: (type) => items.filter((item) => item.type === type),
          neighbours: (ids, label, direction) => {
            const out = new Map<string, string[]>();
            for (const edge of edges) {
              if (label !== '*' && edge.type !== label) continue;
              const [here, there] = direction === 'out' ? [edge.from, edge.to] : [edge.to, edge.from];
              if (ids.includes(here)) out.set(here, [...(out.get(here) ?? []), there]);
            }
            return out;
          },
          items: (ids) =>
            new Map(items.filter((item) => ids.includes(item.id)).map((item) => [item.id, item])),
        };
        for (const query of queries) {
          const values = { max: 2023 };
          const expected = runGraphQuerySync({ query, values, reader: memory });
          const actual = await runGraphQuery({ query, values, reader: engineQueryReader(graph) });
          expect(actual.rows, JSON.stringify(query)).toEqual(expected.rows);
          expect(actual.total, JSON.stringify(query)).toBe(expected.total);
        }
        // and a few answers spelled out
        const ids = async (query: GraphQueryInput) =>
          (await runGraphQuery({ query, values: { max: 2023 }, reader: engineQueryReader(graph) })).items.map(
            (item) => item.id,
          );
        expect(await ids(queries[0]!)).toEqual(['post:d', 'post:c', 'post:b', 'post:a']);
        expect(await ids(queries[3]!)).toEqual(['post:b']);
        expect(await ids(queries[9]!)).toEqual(['post:a', 'post:b']);
        expect(await ids(queries[10]!)).toEqual(['post:b', 'post:c']);
        expect(await ids(queries[12]!)).toEqual(['post:b', 'post:c']);
      });
    });

    describe('introspection and probe', () => {
      it('answers a probe', async () => {
        const result = await engine.probe(3000);
        expect(result.reachable).toBe(true);
        expect(result.error).toBeNull();
        expect(typeof result.probeMs).toBe('number');
      });

      it('lists its procedures and says how', async () => {
        const listing = await engine.procedures();
        expect(listing.via.length).toBeGreaterThan(0);
        expect(listing.procedures.length).toBeGreaterThan(0);
        expect(listing.attempts.some((attempt) => attempt.ok)).toBe(true);
        expect(typeof engine.endpoint()).toBe('string');
      });
    });
  });
}

function hopIds(hits: Array<{ node: GraphNode }>): string[] {
  return hits.map((hit) => hit.node.id);
}
