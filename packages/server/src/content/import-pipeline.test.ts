import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../test/helpers/content-test-site';
import { SqlConnection } from '../engines/embedded/connection';
import { importThread, importThreadStats, stopImportThread } from './import-pipeline';
import { detachedWrites, importRecords } from './import-records';
import { getTypeForWrite } from './type-repository';

/**
 * The import with its new rows prepared ahead on the preparing thread (import-pipeline.ts,
 * import-worker.ts) against the same import made in one thread: the same stored rows byte for
 * byte, the same answers and errors, the same audit entries, and a batch that fails in the
 * middle leaving the batches before it written.
 */

const typeDefinition = (name: string) => ({
  name,
  label: name,
  nodeLabel: name[0]!.toUpperCase() + name.slice(1),
  keyField: 'slug',
  fields: [
    { name: 'slug', type: 'string', required: true, unique: true },
    { name: 'title', type: 'string', required: true, maxLength: 40 },
    { name: 'body', type: 'markdown' },
    { name: 'rank', type: 'number', default: 7 },
    { name: 'featured', type: 'boolean' },
    { name: 'tags', type: 'stringlist' },
    { name: 'doc', type: 'richtext' },
    { name: 'kind', type: 'enum', values: ['a', 'b'], default: 'a' },
    { name: 'code', type: 'string', unique: true },
  ],
  relationships: [{ name: 'related', edgeLabel: 'RELATED', target: name, kind: 'many-to-many' }],
});

const LONG = `${'Lorem ipsum "quoted" \\ back\u2028slash café 🙂 '.repeat(40)}end`;

/**
 * Records of every value shape, and some the general check takes or refuses (an `id`, an
 * unknown key, a title over its limit, a wrong type, a repeated id), seeded by index.
 */
function records(count: number): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, i) => {
    const record: Record<string, unknown> = { slug: `item-${i}`, title: `Item "${i}" — ünïcode` };
    if (i % 2 === 0) record.body = i % 4 === 0 ? LONG : `short body ${i} with searchword${i % 3}`;
    if (i % 3 === 0) record.rank = i * 1.5;
    if (i % 5 === 0) record.featured = i % 10 === 0;
    if (i % 4 === 1) record.tags = ['x', `t${i}`, ''];
    if (i % 7 === 0) record.doc = { blocks: [{ text: `rich ${i}` }], n: null };
    if (i % 6 === 5) record.kind = 'b';
    if (i % 9 === 0) record.code = `code-${i}`;
    if (i % 31 === 3) record.id = `given-${i}`;
    if (i % 37 === 4) record.extra = 'not a field';
    if (i % 41 === 5) record.title = 'x'.repeat(41);
    if (i % 43 === 6) record.rank = 'seven';
    if (i % 47 === 7) record.slug = 'item-1';
    return record;
  });
}

let site: ContentTestSite;
const saved = { ...importThread };
beforeEach(async () => {
  site = await createContentTestSite();
  // Both imports stamp the same time (and the same empty body), so their rows can be compared whole.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-11-26T05:00:00.000Z'));
  // The preparing thread serves imports whose batches are written on the main thread.
  detachedWrites.enabled = false;
  // Every batch's parts from the thread: the thread is used for small imports and waited for.
  Object.assign(importThread, {
    enabled: true,
    minRecords: 1,
    maxBytesPerRecord: Number.POSITIVE_INFINITY,
    waitForThread: true,
  });
});
afterEach(async () => {
  detachedWrites.enabled = true;
  Object.assign(importThread, saved);
  vi.useRealTimers();
  await site.close();
});

/** One import of `list` into `typeName`, pipelined (the body's text given) or in this thread. */
async function run(typeName: string, list: Array<Record<string, unknown>>, pipelined: boolean) {
  const before = { ...importThreadStats };
  const result = await importRecords({
    graph: site.graph,
    type: await getTypeForWrite(site.graph, typeName),
    records: list,
    batchSize: 25,
    skipExisting: false,
    dryRun: false,
    actor: 'tester',
    estimatedRecordsPerSec: 1000,
    ...(pipelined ? { source: JSON.stringify({ typeName, records: list, batchSize: 25 }) } : {}),
  });
  const { tookMs: _a, recordsPerSec: _b, ...rest } = result;
  return {
    result: {
      ...rest,
      errors: rest.errors.map((error) => ({
        ...error,
        id: error.id.replace(`${typeName}:`, 'T:'),
        error: error.error
          .replaceAll(typeName, 'T')
          .replaceAll(typeName[0]!.toUpperCase() + typeName.slice(1), 'T'),
      })),
    },
    batches: importThreadStats.batches - before.batches,
    fromThread: importThreadStats.fromThread - before.fromThread,
  };
}

/** Every stored row of a type: the props text, labels' tail, full-text text, in id order (the type's name taken out). */
function storedRows(typeName: string) {
  const file = new SqlConnection(join(site.platform.dataDir, 'graphs', `${site.graph.name}.db`), {
    readonly: true,
  });
  try {
    const label = typeName[0]!.toUpperCase() + typeName.slice(1);
    return {
      nodes: file
        .rows('SELECT id, props, text_given FROM nodes WHERE label = ? ORDER BY id', [label])
        .map((row) => [String(row[0]).slice(typeName.length), row[1], row[2]]),
      unique: file
        .rows('SELECT prop, value FROM unique_values WHERE label = ? ORDER BY prop, value', [label])
        .map((row) => [row[0], row[1]]),
      // The items carrying `Content` as their further label, and that label's carrier row.
      contentLabels: file.row(
        `SELECT (SELECT count(*) FROM nodes WHERE label = ?1 AND labels = json_array(?1, 'Content')),
                (SELECT count(*) FROM label_carriers WHERE label = 'Content' AND primary_label = ?1)`,
        [label],
      ),
    };
  } finally {
    file.db.close();
  }
}

const auditOf = async (typeName: string) =>
  (await site.graph.auditRecords())
    .filter((entry) => entry.target === `type:${typeName}`)
    .map((entry) => ({
      action: entry.action,
      count: entry.data?.count,
      ...entry.data,
      first: String(entry.data?.first).slice(typeName.length),
      last: String(entry.data?.last).slice(typeName.length),
    }));

describe('import with its rows prepared on a second thread', () => {
  it('stores what the import made in one thread stores, byte for byte, and answers alike', async () => {
    await site.createType(typeDefinition('piped'));
    await site.createType(typeDefinition('plain'));
    const list = records(160);
    const piped = await run('piped', list, true);
    const plain = await run('plain', list, false);
    // 160 records in batches of 25: 7 batches, every one's parts from the thread
    expect(piped.batches).toBe(7);
    expect(piped.fromThread).toBe(7);
    expect(plain.batches).toBe(0);
    expect(piped.result).toEqual(plain.result);
    // the records refused (general check, repeated id) fail alike, the rest are created
    expect(piped.result.failed).toBeGreaterThanOrEqual(10);
    expect(piped.result.created + piped.result.failed).toBe(160);
    const a = storedRows('piped');
    const b = storedRows('plain');
    expect(a.nodes).toHaveLength(piped.result.created);
    expect(a).toEqual(b);
    expect(await auditOf('piped')).toEqual(await auditOf('plain'));
    for (const q of ['searchword1', 'ipsum', 'unicode']) {
      const hits = async (label: string) =>
        (await site.graph.findNodes({ label, q, limit: 200 })).nodes
          .map((node) => node.id.split(':')[1])
          .sort();
      expect(await hits('Piped')).toEqual(await hits('Plain'));
    }
    // a repeat counts every stored record unchanged (the thread's hashes are the stored ones)
    expect((await run('piped', list, true)).result).toMatchObject({
      created: 0,
      unchanged: piped.result.created,
    });
  });

  it('stores the same rows when the import makes some batches itself (parts not ready)', async () => {
    await site.createType(typeDefinition('piped'));
    await site.createType(typeDefinition('plain'));
    importThread.waitForThread = false;
    const list = records(300);
    const piped = await run('piped', list, true);
    const plain = await run('plain', list, false);
    expect(piped.batches).toBe(12);
    expect(piped.result).toEqual(plain.result);
    expect(storedRows('piped')).toEqual(storedRows('plain'));
  });

  it('keeps the batches before a failing one written, and reports the failure as the one-thread import does', async () => {
    await site.createType(typeDefinition('piped'));
    await site.createType(typeDefinition('plain'));
    // a stored item of each type holds the unique code record 60 (batch 3 of 5) gives: only the
    // engine's constraint sees it, so that batch fails whole, is split, and the record fails alone
    for (const typeName of ['piped', 'plain']) {
      const held = await importRecords({
        graph: site.graph,
        type: await getTypeForWrite(site.graph, typeName),
        records: [{ slug: 'holder', title: 'Holder', code: 'held' }],
        batchSize: 10,
        skipExisting: false,
        dryRun: false,
        actor: 'tester',
        estimatedRecordsPerSec: 1000,
      });
      expect(held.created).toBe(1);
    }
    const list = Array.from({ length: 120 }, (_, i) => ({
      slug: `row-${i}`,
      title: `Row ${i}`,
      body: i % 3 === 0 ? LONG : `body ${i}`,
      ...(i === 60 ? { code: 'held' } : {}),
    }));
    const piped = await run('piped', list, true);
    const plain = await run('plain', list, false);
    expect(piped.fromThread).toBe(5);
    expect(piped.result).toEqual(plain.result);
    expect(piped.result).toMatchObject({ created: 119, failed: 1, batches: 5 });
    expect(piped.result.errors).toHaveLength(1);
    expect(piped.result.errors[0]).toMatchObject({ index: 60, id: 'T:row-60' });
    expect(piped.result.errors[0]!.error).toMatch(/code/);
    expect(storedRows('piped')).toEqual(storedRows('plain'));
    // the batches before the failing one were committed; the failing one wrote its good records
    const audit = await auditOf('piped');
    expect(audit).toEqual(await auditOf('plain'));
    const counts = audit.filter((entry) => entry.action === 'content.import').map((entry) => entry.count);
    expect(counts.slice(0, 3)).toEqual([1, 25, 25]);
    expect(counts.reduce((sum, count) => Number(sum) + Number(count), 0)).toBe(120);
  });

  it('makes the rest of the batches itself when the thread dies in the middle of an import', async () => {
    await site.createType(typeDefinition('piped'));
    await site.createType(typeDefinition('plain'));
    const list = records(300);
    const before = { ...importThreadStats };
    const piped = run('piped', list, true);
    // the thread is ended once the import has taken two of its 12 batches
    let stopped = false;
    while (!stopped) {
      await new Promise((resolve) => setImmediate(resolve));
      if (importThreadStats.batches - before.batches >= 2) {
        await stopImportThread();
        stopped = true;
      }
    }
    const result = await piped;
    const plain = await run('plain', list, false);
    expect(result.batches).toBe(12);
    expect(result.fromThread).toBeGreaterThanOrEqual(2);
    expect(result.fromThread).toBeLessThan(12);
    expect(result.result).toEqual(plain.result);
    expect(storedRows('piped')).toEqual(storedRows('plain'));
    // the next import starts a new thread
    await site.createType(typeDefinition('again'));
    expect((await run('again', list.slice(0, 100), true)).fromThread).toBe(4);
  });

  it('leaves imports of long records (over maxBytesPerRecord of JSON each) in one thread', async () => {
    await site.createType(typeDefinition('long'));
    importThread.maxBytesPerRecord = 1_024;
    const list = Array.from({ length: 60 }, (_, i) => ({
      slug: `long-${i}`,
      title: `Long ${i}`,
      body: LONG,
    }));
    const long = await run('long', list, true);
    expect(long.result).toMatchObject({ created: 60, failed: 0 });
    expect(long.batches).toBe(0);
  });

  it('takes the request body through POST /api/import/json to the thread', async () => {
    await site.createType(typeDefinition('routed'));
    const list = records(80).map((record) => ({ slug: record.slug, title: `Routed ${record.slug}` }));
    const before = { ...importThreadStats };
    const response = await site.request({
      method: 'POST',
      url: '/api/import/json',
      payload: { typeName: 'routed', records: list, batchSize: 20 },
    });
    expect(response.json()).toMatchObject({ created: 78, failed: 2, batches: 4 });
    expect(importThreadStats.fromThread - before.fromThread).toBe(4);
  });
});
