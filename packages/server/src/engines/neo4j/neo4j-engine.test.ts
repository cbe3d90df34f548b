import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import neo4j, { Neo4jError, Session } from 'neo4j-driver';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Graph, isEngineError } from '../port';
import { GraphOps, newWriteAttempt } from './graph-ops';
import { createNeo4jEngine } from './index';
import { isRoutingUri, type Neo4jEngine } from './neo4j-engine';

const uri = process.env.NEO4J_URI;
const user = process.env.NEO4J_USER ?? 'neo4j';
// The password of tools/neo4j-harness (`pnpm neo4j:start`) unless told otherwise.
const password = process.env.NEO4J_PASSWORD ?? 'trellis-test-pw';
/** The audit chains' key of the engines under test. */
const auditKey = randomBytes(32);

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address !== null ? address.port : 1;
}

describe('neo4j engine without a server', () => {
  it('reports an unreachable server from probe without throwing, even before init', async () => {
    const engine = createNeo4jEngine({
      uri: `bolt://127.0.0.1:${await closedPort()}`,
      user: 'neo4j',
      password: 'secret',
      edition: 'community',
      auditKey,
    });
    const result = await engine.probe(3000);
    expect(result.reachable).toBe(false);
    expect(result.probeMs).toBeNull();
    expect(result.error).toEqual(expect.any(String));
    expect(result.error?.length).toBeGreaterThan(0);
  });

  it('reports every failed procedure listing as an attempt', async () => {
    const engine = createNeo4jEngine({
      uri: `bolt://127.0.0.1:${await closedPort()}`,
      user: 'neo4j',
      password: 'secret',
      edition: 'community',
      auditKey,
    });
    const error = await engine.procedures().catch((caught: unknown) => caught);
    expect(isEngineError(error, 'unavailable')).toBe(true);
    const { attempts } = (
      error as { details: { attempts: Array<{ via: string; ok: boolean; error: string }> } }
    ).details;
    expect(attempts.map((attempt) => [attempt.via, attempt.ok])).toEqual([
      ['SHOW PROCEDURES', false],
      ['dbms.procedures()', false],
    ]);
    expect(attempts.every((attempt) => attempt.error.length > 0)).toBe(true);
  });

  it('fails init with EngineError unavailable', async () => {
    const engine = createNeo4jEngine({
      uri: `bolt://127.0.0.1:${await closedPort()}`,
      user: 'neo4j',
      password: 'secret',
      edition: 'community',
      auditKey,
    });
    const error = await engine.init().catch((caught: unknown) => caught);
    expect(isEngineError(error, 'unavailable')).toBe(true);
  });

  it('keeps bookmarks only for a routing URI (a cluster)', () => {
    expect(isRoutingUri('neo4j://db.example:7687')).toBe(true);
    expect(isRoutingUri('neo4j+s://db.example')).toBe(true);
    expect(isRoutingUri('NEO4J+SSC://db.example')).toBe(true);
    expect(isRoutingUri('bolt://127.0.0.1:7687')).toBe(false);
    expect(isRoutingUri('bolt+s://db.example')).toBe(false);
  });

  it('shows its endpoint without credentials', () => {
    const engine = createNeo4jEngine({
      uri: 'bolt://admin:hunter2@db.example:7687',
      user: 'neo4j',
      edition: 'community',
      auditKey,
    });
    expect(engine.endpoint()).toBe('bolt://db.example:7687');
  });
});

describe.skipIf(!uri)('neo4j engine on a real server', () => {
  const runId = randomBytes(4).toString('hex');
  const graphs: string[] = [];
  let engine: Neo4jEngine;
  const raw = uri ? neo4j.driver(uri, neo4j.auth.basic(user, password)) : null;

  async function newGraph(suffix: string): Promise<Graph> {
    const name = `nt-${runId}-${suffix}`;
    graphs.push(name);
    return engine.createGraph(name);
  }

  async function cypher(query: string, params: Record<string, unknown> = {}) {
    const result = await raw!.executeQuery(query, params);
    return result.records.map((record) => record.toObject());
  }

  beforeAll(async () => {
    engine = createNeo4jEngine({
      uri: uri as string,
      user,
      password,
      edition: 'community',
      auditKey,
    }) as Neo4jEngine;
    await engine.init();
  }, 120_000);

  afterAll(async () => {
    for (const name of graphs) await engine?.dropGraph(name);
    await engine?.close();
    await raw?.close();
  }, 120_000);

  it('keeps graphs whose names share a prefix apart in the one database', async () => {
    const short = await newGraph('iso');
    const long = await newGraph('iso-2');
    await short.createNode({ id: 'n', labels: ['Doc'], props: { body: 'shared word' } });
    await long.createNode({ id: 'n', labels: ['Doc'], props: { body: 'shared word twice word' } });
    await long.createNode({ id: 'm', labels: ['Doc'], props: { body: 'shared' } });
    expect((await short.findNodes({ label: 'Doc', q: 'shared' })).total).toBe(1);
    expect((await long.findNodes({ label: 'Doc', q: 'shared' })).total).toBe(2);
    // Both graphs' nodes sit in one database, told apart by `g`.
    const rows = await cypher('MATCH (n:TNode {id: $id}) WHERE n.g IN $graphs RETURN n.g AS g ORDER BY g', {
      id: 'n',
      graphs: [short.name, long.name],
    });
    expect(rows.map((row) => row.g)).toEqual([short.name, long.name]);
    await engine.dropGraph(long.name);
    expect(await short.getNode('n')).not.toBeNull();
    expect(await cypher('MATCH (x {g: $g}) RETURN count(x) AS c', { g: long.name })).toEqual([
      { c: neo4j.int(0) },
    ]);
  });

  it('reads Lucene syntax in q as plain words', async () => {
    const graph = await newGraph('lucene');
    await graph.createNode({
      id: 'hit',
      labels: ['Doc'],
      props: { body: 'C++ and (parentheses) with title:colon AND star* "quoted" ~tilde a\\b' },
    });
    await graph.createNode({ id: 'miss', labels: ['Doc'], props: { body: 'nothing relevant' } });
    for (const q of [
      'C++',
      '(parentheses)',
      'title:colon',
      'AND',
      'star*',
      '"quoted"',
      '~tilde',
      'a\\b',
      'c && ||',
    ]) {
      const page = await graph.findNodes({ label: 'Doc', q });
      expect(
        page.nodes.map((node) => node.id),
        q,
      ).toEqual(['hit']);
    }
    for (const q of ['*', 'nothing OR hit', 'ftg:*', 'relevant NOT nothing', '[a TO z]']) {
      const error = await graph.findNodes({ label: 'Doc', q }).catch((caught: unknown) => caught);
      expect(error, q).not.toBeInstanceOf(Error);
    }
    expect((await graph.findNodes({ label: 'Doc', q: 'nothing OR hit' })).total).toBe(0);
  });

  it('never splices labels, types or property names into Cypher', async () => {
    const graph = await newGraph('inject');
    await graph.createNode({ id: 'a', labels: ['Doc'], props: {} });
    await graph.createNode({ id: 'b', labels: ['Doc'], props: {} });
    const attempts: Array<() => Promise<unknown>> = [
      () => graph.mergeEdge({ from: 'a', type: 'X]->() DETACH DELETE a //', to: 'b', props: {} }),
      () => graph.createNode({ id: 'c', labels: ['Doc`) DETACH DELETE (n'], props: {} }),
      () => graph.findNodes({ label: 'Doc', orderBy: [{ prop: 'x] DESC //' }] }),
      () => graph.findNodes({ label: 'Doc', where: [{ prop: "x') OR true //", op: 'eq', value: 1 }] }),
      () => graph.traverse({ from: 'a', direction: 'out', depth: 1, edgeTypes: ['A|B'] }),
      () => graph.ensureUnique('Doc', 'a.b'),
    ];
    for (const attempt of attempts) {
      const error = await attempt().catch((caught: unknown) => caught);
      expect(isEngineError(error, 'invalid_argument')).toBe(true);
    }
    expect((await graph.findNodes({ label: 'Doc' })).total).toBe(2);
  });

  it('writes a real label per Trellis label and moves them when the labels change', async () => {
    const graph = await newGraph('labels');
    const name = graphs[graphs.length - 1] as string;
    const realLabels = async (id: string) => {
      const [row] = await cypher('MATCH (n:TNode {g: $g, id: $id}) RETURN labels(n) AS l', { g: name, id });
      return [...((row?.l as string[] | undefined) ?? [])].sort();
    };
    await graph.createNode({ id: 'a', labels: ['Doc', 'TAudit'], props: {} });
    await graph.createNodes([{ id: 'b', labels: ['Doc'], props: {} }]);
    await graph.putNode({ id: 'c', labels: ['Page'], props: {} });
    expect(await realLabels('a')).toEqual(['L_Doc', 'L_TAudit', 'TNode']);
    expect(await realLabels('b')).toEqual(['L_Doc', 'TNode']);
    expect(await realLabels('c')).toEqual(['L_Page', 'TNode']);
    await graph.updateNode('a', { labels: ['Page'], props: { x: 1 } });
    await graph.putNode({ id: 'b', labels: ['Note'], props: {} });
    expect(await realLabels('a')).toEqual(['L_Page', 'TNode']);
    expect(await realLabels('b')).toEqual(['L_Note', 'TNode']);
    expect((await graph.findNodes({ label: 'Doc' })).total).toBe(0);
    expect((await graph.findNodes({ label: 'Page' })).nodes.map((n) => n.id)).toEqual(['a', 'c']);
    expect((await graph.findNodes({ label: 'Page', q: 'nothing' })).total).toBe(0);
    // An update without labels keeps them.
    await graph.updateNode('b', { props: { y: 2 } });
    expect(await realLabels('b')).toEqual(['L_Note', 'TNode']);
  });

  it('labels the nodes an earlier version wrote, once, when the engine starts', async () => {
    const graph = await newGraph('migrate');
    const name = graphs[graphs.length - 1] as string;
    await graph.createNode({ id: 'new', labels: ['Old'], props: {} });
    // The layout of earlier versions: TNode with only the `labels` list.
    const oldNode = (id: string) =>
      cypher(
        `CREATE (n:TNode {g: $g, id: $id, labels: ['Old', 'Other'], json: '{"v":1}', ft: '', ftg: $g})`,
        { g: name, id },
      );
    await oldNode('old1');
    await oldNode('old2');
    await cypher("MATCH (m:TLayout {key: 'data'}) DELETE m");
    expect((await graph.findNodes({ label: 'Old' })).nodes.map((n) => n.id)).toEqual(['new']);
    const fresh = createNeo4jEngine({ uri: uri as string, user, password, edition: 'community', auditKey });
    try {
      await fresh.init();
      const reopened = await fresh.openGraph(name);
      const found = await reopened!.findNodes({ label: 'Old' });
      expect(found.nodes.map((n) => n.id)).toEqual(['new', 'old1', 'old2']);
      expect(found.nodes[1]).toEqual({ id: 'old1', labels: ['Old', 'Other'], props: { v: 1 } });
      expect((await reopened!.findNodes({ label: 'Other' })).total).toBe(2);
      const [marker] = await cypher("MATCH (m:TLayout {key: 'data'}) RETURN m.version AS v");
      expect(Number(marker?.v)).toBe(1);
    } finally {
      await fresh.close();
    }
    // The marker makes it run once: a node written the old way after it stays unlabelled.
    await oldNode('old3');
    const again = createNeo4jEngine({ uri: uri as string, user, password, edition: 'community', auditKey });
    try {
      await again.init();
      expect((await (await again.openGraph(name))!.findNodes({ label: 'Old' })).total).toBe(3);
    } finally {
      await again.close();
    }
  });

  it('applies a write once when the driver retries after a transient failure', async () => {
    const graph = await newGraph('retry');
    let attempts = 0;
    await graph.transaction(async (tx) => {
      attempts += 1;
      await tx.createNode({ id: 'once', labels: ['Doc'], props: { n: attempts } });
      await tx.appendAudit({ actor: 'system', action: 'test', target: 'once' });
      if (attempts === 1) {
        // What the server sends for a transient failure; the driver rolls back and retries.
        throw new Neo4jError(
          'simulated',
          'Neo.TransientError.General.DatabaseUnavailable',
          '50N00',
          'transient',
        );
      }
    });
    expect(attempts).toBe(2);
    expect((await graph.getNode('once'))?.props).toEqual({ n: 2 });
    expect((await graph.auditRecords()).map((record) => record.seq)).toEqual([1]);
    expect((await graph.verifyAudit()).status).toBe('ok');
  });

  it('recognises its own committed work when a write is retried after a lost acknowledgement', async () => {
    const graph = await newGraph('replay');
    const token = randomUUID();
    // The same logical write run twice, as the driver does when a commit succeeded but the
    // connection dropped before the acknowledgement arrived.
    const attempt = async () => {
      const session = raw!.session();
      try {
        return await session.executeWrite(async (tx) => {
          const ops = new GraphOps(
            tx,
            graph.name,
            { isOnline: async () => false },
            newWriteAttempt(token),
            auditKey,
          );
          const node = await ops.createNode({ id: 'n', labels: ['Doc'], props: { v: 1 } });
          const record = await ops.appendAudit({ actor: 'system', action: 'create', target: 'n' });
          return { node, record };
        });
      } finally {
        await session.close();
      }
    };
    const first = await attempt();
    const second = await attempt();
    expect(second).toEqual(first);
    expect(await graph.auditRecords()).toEqual([first.record]);
    // Another write of the same id is still refused.
    const error = await graph
      .createNode({ id: 'n', labels: ['Doc'], props: {} })
      .catch((caught: unknown) => caught);
    expect(isEngineError(error, 'exists')).toBe(true);
  });

  it('refuses the same id twice within one transaction', async () => {
    const graph = await newGraph('twice');
    const error = await graph
      .transaction(async (tx) => {
        await tx.createNode({ id: 'n', labels: ['Doc'], props: {} });
        await tx.createNode({ id: 'n', labels: ['Doc'], props: {} });
      })
      .catch((caught: unknown) => caught);
    expect(isEngineError(error, 'exists')).toBe(true);
    expect(await graph.getNode('n')).toBeNull();
  });

  it('sends the point reads of one turn, of every graph, as one statement', async () => {
    const one = await newGraph('batch-1');
    const two = await newGraph('batch-2');
    for (const graph of [one, two]) {
      await graph.createNodes(
        Array.from({ length: 20 }, (_, i) => ({ id: `n${i}`, labels: ['Doc'], props: { i, g: graph.name } })),
      );
      await graph.mergeEdges(
        Array.from({ length: 20 }, (_, i) => ({
          from: `n${i}`,
          type: 'NEXT',
          to: `n${(i + 1) % 20}`,
          props: {},
        })),
      );
    }
    const run = vi.spyOn(Session.prototype, 'run');
    try {
      const reads = await Promise.all(
        [one, two].flatMap((graph) =>
          Array.from({ length: 20 }, async (_, i) => {
            const [node, edges] = await Promise.all([
              graph.getNode(`n${i}`),
              graph.getEdges({ from: `n${i}` }),
            ]);
            return { graph: graph.name, i, node, edges };
          }),
        ),
      );
      // 80 reads (a node and its edges, 20 each of two graphs): one auto-commit statement.
      expect(run).toHaveBeenCalledTimes(1);
      for (const { graph, i, node, edges } of reads) {
        expect(node?.props).toEqual({ i, g: graph });
        expect(edges.map((edge) => [edge.from, edge.to])).toEqual([[`n${i}`, `n${(i + 1) % 20}`]]);
      }
      // A read the engine refuses fails alone; the others of its turn are answered.
      run.mockClear();
      const [invalid, node] = await Promise.all([
        one.getNode('').catch((error: unknown) => error),
        one.getNode('n3'),
      ]);
      expect(isEngineError(invalid, 'invalid_argument')).toBe(true);
      expect(node?.props.i).toBe(3);
      expect(run).toHaveBeenCalledTimes(1);
      // Reads asked in the next turn go out as the next statement.
      run.mockClear();
      await one.getNode('n1');
      await one.getNode('n2');
      expect(run).toHaveBeenCalledTimes(2);
    } finally {
      run.mockRestore();
    }
  });

  it('answers similarity from the vector index once it is online', async () => {
    const graph = await newGraph('vectors');
    const dimension = 7;
    await graph.transaction(async (tx) => {
      for (let i = 0; i < 40; i += 1) {
        await tx.createNode({
          id: `v${String(i).padStart(2, '0')}`,
          labels: [i % 2 ? 'Odd' : 'Even'],
          props: {},
        });
        await tx.setEmbedding(
          `v${String(i).padStart(2, '0')}`,
          Array.from({ length: dimension }, (_, j) => Math.cos(i + j)),
        );
      }
    });
    await cypher('CALL db.awaitIndexes(120)');
    const online = await cypher(
      `SHOW VECTOR INDEXES YIELD name, state WHERE name = 'trellis_vec_7' RETURN state`,
    );
    expect(online).toEqual([{ state: 'ONLINE' }]);
    const query = Array.from({ length: dimension }, (_, j) => Math.cos(3 + j));
    const hits = await graph.similar({ label: 'Odd', vector: query, k: 3 });
    expect(hits[0]?.node.id).toBe('v03');
    expect(hits[0]?.score).toBeCloseTo(1, 6);
    expect(hits.every((hit) => hit.node.labels.includes('Odd'))).toBe(true);
    expect(hits.map((hit) => hit.score)).toEqual([...hits.map((hit) => hit.score)].sort((a, b) => b - a));
  });

  it.skipIf(process.env.NEO4J_EDITION === 'enterprise')(
    'refuses one database per graph on Community with a hint, registering nothing',
    async () => {
      const enterprise = createNeo4jEngine({
        uri: uri as string,
        user,
        password,
        edition: 'enterprise',
        auditKey,
      });
      await enterprise.init();
      try {
        const name = `nt-${runId}-enterprise`;
        const error = await enterprise.createGraph(name).catch((caught: unknown) => caught);
        expect(isEngineError(error, 'unavailable')).toBe(true);
        expect((error as { details: { hint: string } }).details.hint).toMatch(/NEO4J_EDITION=community/);
        expect(await enterprise.listGraphs()).not.toContain(name);
        expect(await enterprise.openGraph(name)).toBeNull();
      } finally {
        await enterprise.close();
      }
    },
  );

  it('lets a transaction find its own uncommitted words and embeddings while the vector index is online', async () => {
    const graph = await newGraph('own-writes');
    await graph.createNode({ id: 'seed', labels: ['V'], props: {} });
    await graph.setEmbedding('seed', [0, 1, 0, 0, 0]);
    await cypher('CALL db.awaitIndexes(120)');
    expect(
      await cypher(`SHOW VECTOR INDEXES YIELD name, state WHERE name = 'trellis_vec_5' RETURN state`),
    ).toEqual([{ state: 'ONLINE' }]);
    await graph.transaction(async (tx) => {
      await tx.createNode({ id: 'fresh', labels: ['V'], props: { body: 'uncommitted zebra' } });
      await tx.setEmbedding('fresh', [1, 0, 0, 0, 0]);
      expect((await tx.findNodes({ label: 'V', q: 'zebra' })).nodes.map((node) => node.id)).toEqual([
        'fresh',
      ]);
      const hits = await tx.similar({ label: 'V', vector: [1, 0, 0, 0, 0], k: 1 });
      expect(hits.map((hit) => hit.node.id)).toEqual(['fresh']);
    });
    expect((await graph.similar({ label: 'V', vector: [1, 0, 0, 0, 0], k: 1 }))[0]?.node.id).toBe('fresh');
  });

  it('lists procedures through SHOW PROCEDURES', async () => {
    const listing = await engine.procedures();
    expect(listing.via).toBe('SHOW PROCEDURES');
    expect(listing.procedures.map((procedure) => procedure.name)).toContain('db.index.fulltext.queryNodes');
  });
});
