import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../test/helpers/content-test-site';
import { SqlConnection } from '../engines/embedded/connection';
import type { Graph, GraphWriter } from '../engines/port';
import { compileRecordCheck, detachedWrites, importRecords, prepare } from './import-records';
import { itemHash } from './item-hash';
import { splitItemProps } from './item-record';
import { getTypeForWrite } from './type-repository';

/**
 * The import's bulk path (new items written as columns with `createNodeRun`, their props'
 * JSON joined from their fields' JSON and the batch's shared bookkeeping) against the
 * node-by-node path and against items created one by one through the API.
 */

/** A type with every kind of value the bulk path serializes: defaults, lists, numbers, long and escaped text, rich text objects. */
const typeDefinition = (name: string) => ({
  name,
  label: name,
  nodeLabel: name[0]!.toUpperCase() + name.slice(1),
  keyField: 'slug',
  fields: [
    { name: 'slug', type: 'string', required: true, unique: true },
    { name: 'title', type: 'string', required: true },
    { name: 'body', type: 'markdown' },
    { name: 'rank', type: 'number', default: 7 },
    { name: 'featured', type: 'boolean' },
    { name: 'tags', type: 'stringlist' },
    { name: 'doc', type: 'richtext' },
    { name: 'kind', type: 'enum', values: ['a', 'b'], default: 'a' },
  ],
  relationships: [{ name: 'related', edgeLabel: 'RELATED', target: name, kind: 'many-to-many' }],
});

const LONG = `${'Lorem ipsum "quoted" \\ back\u2028slash café 🙂 '.repeat(40)}end`;

/** Records covering the value shapes (seeded by index, no randomness). */
function records(count: number): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, i) => {
    const record: Record<string, unknown> = { slug: `item-${i}`, title: `Item "${i}" — ünïcode` };
    if (i % 2 === 0) record.body = i % 4 === 0 ? LONG : `short body ${i} with searchword${i % 3}`;
    if (i % 3 === 0) record.rank = i * 1.5;
    if (i % 5 === 0) record.featured = i % 10 === 0;
    if (i % 4 === 1) record.tags = ['x', `t${i}`, ''];
    if (i % 7 === 0) record.doc = { blocks: [{ text: `rich ${i}` }], n: null };
    if (i % 6 === 5) record.kind = 'b';
    return record;
  });
}

/** The graph with its transactions' `createNodeRun` hidden: the import takes the node-by-node path. */
function withoutNodeRun(graph: Graph): Graph {
  const hide = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, key) {
        if (key === 'createNodeRun') return undefined;
        const value = Reflect.get(object, key, object);
        return typeof value === 'function' ? value.bind(object) : value;
      },
    });
  return new Proxy(graph, {
    get(object, key) {
      if (key === 'createNodeRun') return undefined;
      if (key === 'transaction')
        return <T>(work: (tx: GraphWriter) => Promise<T>) => object.transaction((tx) => work(hide(tx)));
      const value = Reflect.get(object, key, object);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  }) as Graph;
}

let site: ContentTestSite;
beforeEach(async () => {
  site = await createContentTestSite();
  // Both paths stamp the same time (and the same empty body), so their rows can be compared whole.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-11-26T05:00:00.000Z'));
});
afterEach(async () => {
  detachedWrites.enabled = true;
  vi.useRealTimers();
  await site.close();
});

const hits = async (label: string, q: string) =>
  (await site.graph.findNodes({ label, q, limit: 100 })).nodes.map((node) => node.id.split(':')[1]).sort();

describe('import bulk path', () => {
  it.each([
    ['in a transaction', false],
    ['off the main thread', true],
  ])(
    'stores what the node-by-node path stores, byte for byte, and the same search entries and audit (%s)',
    async (_, detached) => {
      detachedWrites.enabled = detached;
      await site.createType(typeDefinition('bulk'));
      await site.createType(typeDefinition('single'));
      const list = records(60);
      // Relationships to earlier records of the same import.
      list[10]!.relationships = { related: ['bulk:item-3'] };
      const single = structuredClone(list);
      single[10]!.relationships = { related: ['single:item-3'] };
      const run = async (graph: Graph, typeName: string, recs: Array<Record<string, unknown>>) =>
        importRecords({
          graph,
          type: await getTypeForWrite(site.graph, typeName),
          records: recs,
          batchSize: 25,
          skipExisting: false,
          dryRun: false,
          actor: 'tester',
          estimatedRecordsPerSec: 1000,
        });
      const auditBefore = (await site.graph.auditRecords()).length;
      let runs = 0;
      let detachedRuns = 0;
      const counting = new Proxy(site.graph, {
        get(object, key) {
          if (key === 'createNodeRunDetached') {
            const value = Reflect.get(object, key, object) as NonNullable<Graph['createNodeRunDetached']>;
            return (batch: Parameters<typeof value>[0]) => {
              detachedRuns += 1;
              return value.call(object, batch);
            };
          }
          if (key !== 'transaction') return Reflect.get(object, key, object);
          return <T>(work: (tx: GraphWriter) => Promise<T>) =>
            object.transaction((tx) =>
              work(
                new Proxy(tx, {
                  get(inner, name) {
                    const value = Reflect.get(inner, name, inner);
                    if (typeof value !== 'function') return value;
                    if (name !== 'createNodeRun') return value.bind(inner);
                    return (...args: unknown[]) => {
                      runs += 1;
                      return value.apply(inner, args);
                    };
                  },
                }),
              ),
            );
        },
      }) as Graph;
      const bulk = await run(counting, 'bulk', list);
      // 60 new records in batches of 25: one run per batch (the bulk path was taken); off the
      // main thread, the first batch (a record with a relationship) in a transaction, the others not.
      expect([runs, detachedRuns]).toEqual(detached ? [1, 2] : [3, 0]);
      const auditBetween = (await site.graph.auditRecords()).length;
      const byNode = await run(withoutNodeRun(site.graph), 'single', single);
      const { tookMs: _a, recordsPerSec: _b, ...bulkCounts } = bulk;
      const { tookMs: _c, recordsPerSec: _d, ...nodeCounts } = byNode;
      expect(bulkCounts).toEqual(nodeCounts);
      expect(bulk).toMatchObject({ created: 60, failed: 0 });
      // The rows as stored (the props' text, not parsed), and the index rows beside them.
      const file = new SqlConnection(join(site.platform.dataDir, 'graphs', `${site.graph.name}.db`), {
        readonly: true,
      });
      try {
        const row = (id: string) =>
          file.row('SELECT props, labels, text_given FROM nodes WHERE id = ?', [id]);
        for (let i = 0; i < list.length; i += 1) {
          const a = row(`bulk:item-${i}`);
          const b = row(`single:item-${i}`);
          expect(a, `item-${i}`).toBeDefined();
          expect(a![0]).toBe(b![0]);
          expect(a![1]).toBe('["Bulk","Content"]');
          expect(b![1]).toBe('["Single","Content"]');
          expect(a![2]).toBe(b![2]);
          const { fields, meta } = splitItemProps(JSON.parse(a![0] as string));
          expect(meta.hash).toBe(itemHash(fields, meta.body));
        }
        const counts = (label: string) => [
          file.row('SELECT count(*) FROM unique_values WHERE label = ?', [label])?.[0],
          file.row(`SELECT count(*) FROM nodes WHERE label = ?1 AND labels = json_array(?1, 'Content')`, [
            label,
          ])?.[0],
          file.row(`SELECT count(*) FROM label_carriers WHERE label = 'Content' AND primary_label = ?`, [
            label,
          ])?.[0],
        ];
        expect(counts('Bulk')).toEqual([60, 60, 1]);
        expect(counts('Single')).toEqual([60, 60, 1]);
      } finally {
        file.db.close();
      }
      for (const q of ['searchword1', 'ipsum', 'unicode', 'Item']) {
        expect(await hits('Bulk', q)).toEqual(await hits('Single', q));
      }
      expect(await hits('Bulk', 'searchword1')).not.toEqual([]);
      expect((await site.graph.getEdges({ from: 'bulk:item-10' })).map((edge) => edge.to)).toEqual([
        'bulk:item-3',
      ]);
      // One audit entry per batch, with the same data.
      const audit = await site.graph.auditRecords();
      const strip = (entries: typeof audit) =>
        entries.map((entry) => ({ ...entry.data, first: null, last: null, action: entry.action }));
      expect(strip(audit.slice(auditBefore, auditBetween))).toEqual(strip(audit.slice(auditBetween)));
      expect(auditBetween - auditBefore).toBe(3);
      // Re-importing counts every record unchanged on both.
      const again = await run(site.graph, 'bulk', list);
      expect(again).toMatchObject({ created: 0, updated: 0, unchanged: 60, failed: 0 });
    },
  );

  it.each([
    ['in a transaction', false],
    ['off the main thread', true],
  ])('writes a batch of up to 500 new items in one engine call, the same items (%s)', async (_, detached) => {
    detachedWrites.enabled = detached;
    await site.createType(typeDefinition('bulk'));
    const sizes: number[] = [];
    const counting = new Proxy(site.graph, {
      get(object, key) {
        if (key === 'createNodeRunDetached') {
          const value = Reflect.get(object, key, object) as NonNullable<Graph['createNodeRunDetached']>;
          return (batch: Parameters<typeof value>[0]) => {
            sizes.push(batch.run.ids.length);
            return value.call(object, batch);
          };
        }
        if (key !== 'transaction') return Reflect.get(object, key, object);
        return <T>(work: (tx: GraphWriter) => Promise<T>) =>
          object.transaction((tx) =>
            work(
              new Proxy(tx, {
                get(inner, name) {
                  const value = Reflect.get(inner, name, inner);
                  if (typeof value !== 'function') return value;
                  if (name !== 'createNodeRun') return value.bind(inner);
                  return (run: { ids: string[] }) => {
                    sizes.push(run.ids.length);
                    return value.call(inner, run);
                  };
                },
              }),
            ),
          );
      },
    }) as Graph;
    const result = await importRecords({
      graph: counting,
      type: await getTypeForWrite(site.graph, 'bulk'),
      records: records(1100),
      batchSize: 500,
      skipExisting: false,
      dryRun: false,
      actor: 'tester',
      estimatedRecordsPerSec: 1000,
    });
    expect(result).toMatchObject({ created: 1100, failed: 0 });
    expect(sizes).toEqual([500, 500, 100]);
    const stored = await site.graph.findNodes({ label: 'Bulk', limit: 2000 });
    expect(stored.nodes.map((node) => node.id).sort()).toEqual(
      Array.from({ length: 1100 }, (_, i) => `bulk:item-${i}`).sort(),
    );
  });

  it('writes batches off the main thread only when the request body holds at most maxBytesPerRecord characters per record', async () => {
    await site.createType(typeDefinition('bulk'));
    const type = await getTypeForWrite(site.graph, 'bulk');
    let detachedCalls = 0;
    const counting = new Proxy(site.graph, {
      get(object, key) {
        const value = Reflect.get(object, key, object);
        if (key !== 'createNodeRunDetached') return typeof value === 'function' ? value.bind(object) : value;
        return (batch: Parameters<NonNullable<Graph['createNodeRunDetached']>>[0]) => {
          detachedCalls += 1;
          return (value as NonNullable<Graph['createNodeRunDetached']>).call(object, batch);
        };
      },
    }) as Graph;
    const run = (list: Array<Record<string, unknown>>) =>
      importRecords({
        graph: counting,
        type,
        records: list,
        batchSize: 10,
        skipExisting: false,
        dryRun: false,
        actor: 'tester',
        estimatedRecordsPerSec: 1000,
        source: JSON.stringify({ records: list }),
      });
    const defaultLimit = detachedWrites.maxBytesPerRecord;
    detachedWrites.maxBytesPerRecord = 1_024;
    try {
      const short = Array.from({ length: 30 }, (_, i) => ({ slug: `short-${i}`, title: 'short' }));
      const long = Array.from({ length: 30 }, (_, i) => ({ slug: `long-${i}`, title: 'long', body: LONG }));
      // LONG is more than 1,024 characters of JSON: each record's body alone
      expect(JSON.stringify(long).length / long.length).toBeGreaterThan(detachedWrites.maxBytesPerRecord);
      expect(await run(short)).toMatchObject({ created: 30, failed: 0 });
      expect(detachedCalls).toBe(3);
      expect(await run(long)).toMatchObject({ created: 30, failed: 0 });
      expect(detachedCalls).toBe(3);
      const limit = detachedWrites.maxBytesPerRecord;
      detachedWrites.maxBytesPerRecord = 100_000;
      try {
        const longer = long.map((record, i) => ({ ...record, slug: `longer-${i}` }));
        expect(await run(longer)).toMatchObject({ created: 30, failed: 0 });
        expect(detachedCalls).toBe(6);
      } finally {
        detachedWrites.maxBytesPerRecord = limit;
      }
    } finally {
      detachedWrites.maxBytesPerRecord = defaultLimit;
    }
  });

  it('gives imported items the fields, hash and search hits of items created one by one through the API', async () => {
    await site.createType(typeDefinition('imported'));
    await site.createType(typeDefinition('created'));
    const list = records(24);
    for (const record of list) {
      const response = await site.request({ method: 'POST', url: '/api/content/created', payload: record });
      expect(response.statusCode, response.body).toBe(201);
    }
    const imported = await site.request({
      method: 'POST',
      url: '/api/import/json',
      payload: { typeName: 'imported', records: list, batchSize: 10 },
    });
    expect(imported.json()).toMatchObject({ created: 24, failed: 0, errors: [] });
    const read = async (type: string, slug: string) =>
      (await site.request({ method: 'GET', url: `/api/content/${type}/${type}:${slug}` })).json();
    for (let i = 0; i < list.length; i += 1) {
      const a = await read('imported', `item-${i}`);
      const b = await read('created', `item-${i}`);
      for (const key of ['fields', 'status', 'version', 'hash', 'body', 'publishedEnvs', 'createdAt']) {
        expect(a[key], `item-${i} ${key}`).toEqual(b[key]);
      }
    }
    for (const q of ['searchword0', 'ipsum', 'Item']) {
      const list = async (type: string) =>
        (
          (
            await site.request({ method: 'GET', url: `/api/content/${type}?q=${q}&limit=100` })
          ).json() as Array<{
            id: string;
          }>
        )
          .map((item) => item.id.split(':')[1])
          .sort();
      expect(await list('imported')).toEqual(await list('created'));
    }
    // The items created through the API count as unchanged when the same records are imported.
    const repeat = await site.request({
      method: 'POST',
      url: '/api/import/json',
      payload: { typeName: 'created', records: list },
    });
    expect(repeat.json()).toMatchObject({ created: 0, updated: 0, unchanged: 24, failed: 0 });
  });

  it.each([
    ['one batch in flight', 1],
    ['two batches in flight', 2],
  ])(
    'answers and stores the same with batches written off the main thread as in transactions: held values, stored items (%s)',
    async (_, inFlight) => {
      const defaultInFlight = detachedWrites.inFlight;
      detachedWrites.inFlight = inFlight;
      try {
        const outcomes: string[] = [];
        const watched = new Proxy(site.graph, {
          get(object, key) {
            const value = Reflect.get(object, key, object);
            if (key !== 'createNodeRunDetached') return value;
            const write = value as NonNullable<Graph['createNodeRunDetached']>;
            return async (batch: Parameters<typeof write>[0]) => {
              const outcome = await write.call(object, batch);
              outcomes.push(outcome);
              return outcome;
            };
          },
        }) as Graph;
        const scenario = async (typeName: string) => {
          const type = await getTypeForWrite(site.graph, typeName);
          const run = (list: Array<Record<string, unknown>>) =>
            importRecords({
              graph: watched,
              type,
              records: list,
              batchSize: 10,
              skipExisting: false,
              dryRun: false,
              actor: 'tester',
              estimatedRecordsPerSec: 1000,
            });
          const results = [];
          const base = records(30);
          results.push(await run(base));
          // new items; then one whose unique slug a stored item holds (the engine sees it); then new again
          const second = records(60).slice(30);
          second[15] = { id: 'clash', slug: 'item-3', title: 'Clash' };
          results.push(await run(second));
          // new items, then stored ones (unchanged, changed), then new ones
          const third = [
            ...records(70).slice(60),
            ...base
              .slice(0, 10)
              .map((record, i) => (i % 2 === 0 ? record : { ...record, title: `changed ${i}` })),
            ...records(80).slice(70),
          ];
          results.push(await run(third));
          return results.map(({ tookMs: _a, recordsPerSec: _b, ...counts }) => ({
            ...counts,
            errors: counts.errors.map((error) => ({
              ...error,
              id: error.id.replace(typeName, 'T'),
              error: error.error.replace(type.nodeLabel, 'T'),
            })),
          }));
        };
        const audit = async () =>
          (await site.graph.auditRecords()).map((entry) => ({
            ...entry.data,
            first: null,
            last: null,
            action: entry.action,
          }));
        await site.createType(typeDefinition('on'));
        await site.createType(typeDefinition('off'));
        const before = (await audit()).length;
        detachedWrites.enabled = true;
        const on = await scenario('on');
        // with two in flight, the batch sent behind a declined one is declined by the chain (nothing
        // written) and written the ordinary way after it
        const behind = inFlight === 2 ? ['declined'] : [];
        expect(outcomes).toEqual([
          ...['written', 'written', 'written'],
          // the held value: declined, written the ordinary way, and so are the batches after it
          ...['written', 'declined', ...behind],
          // the third import: a stored item declines its batch
          ...['written', 'declined', ...behind],
        ]);
        const sent = outcomes.length;
        const between = (await audit()).length;
        detachedWrites.enabled = false;
        const off = await scenario('off');
        expect(outcomes).toHaveLength(sent);
        expect(on).toEqual(off);
        expect(on[1]).toMatchObject({ created: 29, failed: 1, errors: [{ index: 15, id: 'T:clash' }] });
        expect(on[2]).toMatchObject({ created: 20, updated: 5, unchanged: 5, failed: 0 });
        const entries = await audit();
        expect(entries.slice(before, between)).toEqual(entries.slice(between));
        const file = new SqlConnection(join(site.platform.dataDir, 'graphs', `${site.graph.name}.db`), {
          readonly: true,
        });
        try {
          const rows = (label: string) =>
            file.rows(
              "SELECT substr(id, instr(id, ':')), props, text_given FROM nodes WHERE label = ? ORDER BY id",
              [label],
            );
          const stored = rows('On');
          expect(stored).toHaveLength(79);
          expect(stored).toEqual(rows('Off'));
        } finally {
          file.db.close();
        }
      } finally {
        detachedWrites.inFlight = defaultInFlight;
      }
    },
  );

  it('fails a record whose unique value a stored item holds with the error the node-by-node path gives', async () => {
    await site.createType(typeDefinition('bulk'));
    await site.createType(typeDefinition('single'));
    const errorsOf = async (graph: Graph, typeName: string) => {
      const type = await getTypeForWrite(site.graph, typeName);
      await importRecords({
        graph,
        type,
        records: [{ slug: 'held', title: 'Held' }],
        batchSize: 10,
        skipExisting: false,
        dryRun: false,
        actor: 'tester',
        estimatedRecordsPerSec: 1000,
      });
      // `id` differs from the stored slug, so the unique `slug` clashes with the stored item.
      const result = await importRecords({
        graph,
        type,
        records: [
          { slug: 'fresh-1', title: 'One' },
          { id: 'other', slug: 'held', title: 'Clash' },
          { slug: 'fresh-2', title: 'Two' },
        ],
        batchSize: 10,
        skipExisting: false,
        dryRun: false,
        actor: 'tester',
        estimatedRecordsPerSec: 1000,
      });
      return {
        created: result.created,
        errors: result.errors.map((error) => ({ ...error, error: error.error.replace(typeName, 'T') })),
      };
    };
    const bulk = await errorsOf(site.graph, 'bulk');
    const byNode = await errorsOf(withoutNodeRun(site.graph), 'single');
    expect(bulk.created).toBe(2);
    expect(bulk.errors).toHaveLength(1);
    expect(bulk.errors[0]).toMatchObject({ index: 1 });
    expect(bulk.errors[0]!.error).toMatch(/slug/);
    expect(bulk.errors.map((error) => error.error.replace(/Bulk|bulk/g, 'X'))).toEqual(
      byNode.errors.map((error) => error.error.replace(/Single|single/g, 'X')),
    );
  });

  it('checks records with the compiled checker exactly as the general check does, or leaves them to it', async () => {
    await site.createType({
      ...typeDefinition('checked'),
      fields: [
        ...typeDefinition('checked').fields.filter((field) => field.name !== 'title'),
        { name: 'title', type: 'string', required: true, maxLength: 5 },
        { name: 'day', type: 'date' },
        { name: 'ref', type: 'reference', target: 'checked' },
        { name: 'code', type: 'string', regex: '^[a-z]+$' },
      ],
    });
    const type = await getTypeForWrite(site.graph, 'checked');
    const fast = compileRecordCheck(type)!;
    expect(fast).not.toBeNull();
    const cases: Array<Record<string, unknown>> = [
      { slug: 'a', title: 'ok' },
      { slug: 'Hello World', title: 'ok', rank: null, tags: [], body: '' },
      { slug: 'b', title: 'ok', rank: 3, featured: false, kind: 'b', day: '2026-02-28', ref: 'checked:a' },
      { slug: 'c', title: 'ok', doc: { blocks: [] }, code: 'abc', tags: ['x'] },
      { slug: 'd', title: '🙂🙂🙂' },
      { slug: 'e', title: 'toolong' },
      { slug: 'f', title: 'ok', code: 'ABC' },
      { slug: 'g', title: 'ok', day: '2026-02-30' },
      { slug: 'h', title: 'ok', ref: 'other:x' },
      { slug: 'i' },
      { slug: '!!!', title: 'ok' },
      { slug: 'j', title: 'ok', unknown: 1 },
      { slug: 'k', title: 'ok', kind: 'z' },
      { slug: 'l', title: 'ok', rank: '3' },
      { id: 'x', slug: 'm', title: 'ok' },
      { slug: 'n', title: 'ok', relationships: { related: ['checked:a'] } },
      { fields: { slug: 'o', title: 'ok' } },
      { slug: 'p', title: 'ok', version: 2 },
      { slug: 'q', title: 'ok', featured: 'yes' },
      {},
    ];
    let taken = 0;
    for (const [index, record] of cases.entries()) {
      const general = prepare(type, record, index);
      const quick = fast(record, index);
      if (quick === null) continue;
      taken += 1;
      expect(general, JSON.stringify(record)).toEqual({ ok: quick });
      expect(Object.keys(quick.fields)).toEqual(Object.keys((general as { ok: typeof quick }).ok.fields));
    }
    // The valid plain records go the compiled way; the others to the general check.
    expect(taken).toBe(4);
  });
});
