import { readFileSync } from 'node:fs';
import {
  IMPORT_EDGES_BATCH,
  IMPORT_JSON_BATCH,
  IMPORT_MAX_EDGES,
  IMPORT_MAX_RECORDS,
} from '@trelliscms/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

/** The World Factbook fixture (public domain; see test/fixtures/README.md). */
const factbook = JSON.parse(
  readFileSync(new URL('../../../test/fixtures/world-factbook.json', import.meta.url), 'utf8'),
) as {
  types: Array<Record<string, unknown>>;
  records: Record<'region' | 'country' | 'division', Array<Record<string, unknown>>>;
  edges: Array<{ from: string; edge: string; to: string; props?: Record<string, unknown> }>;
};

let site: ContentTestSite;
beforeEach(async () => {
  site = await createContentTestSite();
  for (const type of factbook.types) await site.createType(type);
});
afterEach(async () => {
  await site.close();
});

const importJson = (payload: Record<string, unknown>) =>
  site.request({ method: 'POST', url: '/api/import/json', payload });
const importEdges = (payload: Record<string, unknown>) =>
  site.request({ method: 'POST', url: '/api/import/edges', payload });
const removeEdges = (payload: Record<string, unknown>) =>
  site.request({ method: 'POST', url: '/api/import/edges/remove', payload });
const auditActions = async (after: number) =>
  (await site.graph.auditRecords()).slice(after).map((entry) => entry.action);
const total = async (type: string) =>
  (await site.request({ method: 'GET', url: `/api/content/${type}?withMeta=1&limit=1` })).json()
    .total as number;

describe('POST /api/import/json', () => {
  it('imports the whole World Factbook fixture, then its edges with merge semantics', async () => {
    for (const type of ['region', 'country', 'division'] as const) {
      const records = factbook.records[type];
      const response = await importJson({ typeName: type, records, batchSize: 500 });
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      expect(body).toMatchObject({
        ok: true,
        totalRecords: records.length,
        created: records.length,
        failed: 0,
        batches: Math.ceil(records.length / 500),
        errors: [],
        gatewayTimeoutWarning: null,
      });
      expect(body.recordsPerSec).toBeGreaterThan(0);
      expect(await total(type)).toBe(records.length);
    }
    const germany = (await site.request({ method: 'GET', url: '/api/content/country/country:gm' })).json();
    expect(germany.fields).toMatchObject({ code: 'gm', name: 'Germany', capital: 'Berlin' });
    expect(germany.version).toBe(1);
    // Long records (Germany's texts: 1,272 characters) are stored from their fields serialized
    // once (for the hash and the props): read back whole, and the same records again change nothing.
    expect(germany.fields).toMatchObject(factbook.records.country.find((record) => record.code === 'gm')!);
    const reimport = await importJson({ typeName: 'country', records: factbook.records.country });
    expect(reimport.json()).toMatchObject({
      created: 0,
      updated: 0,
      unchanged: factbook.records.country.length,
    });

    const edges = await importEdges({ edges: factbook.edges, batchSize: 2000 });
    expect(edges.statusCode, edges.body).toBe(200);
    expect(edges.json()).toMatchObject({
      ok: true,
      totalEdges: factbook.edges.length,
      merged: factbook.edges.length,
      mismatch: 0,
      failed: 0,
      batches: Math.ceil(factbook.edges.length / 2000),
    });
    const withBorders = (
      await site.request({ method: 'GET', url: '/api/content/country/country:gm' })
    ).json();
    expect(withBorders.relationships.region).toBe('region:europe');
    expect(withBorders.relationships.borders).toContain('country:fr');
    const frBorder = (
      await site.graph.getEdges({ from: 'country:gm', type: 'BORDERS', to: 'country:fr' })
    )[0];
    expect(frBorder?.props).toEqual({ lengthKm: 418 });

    const before = (await site.graph.getEdges({ type: 'PART_OF' })).length;
    const again = await importEdges({ edges: factbook.edges });
    expect(again.json()).toMatchObject({ merged: factbook.edges.length, mismatch: 0, failed: 0 });
    expect((await site.graph.getEdges({ type: 'PART_OF' })).length).toBe(before);
    expect((await site.graph.verifyAudit()).status).toBe('ok');
  });

  it('fails a bad record alone: its batch writes its good records, other batches are untouched', async () => {
    const records = factbook.records.country.slice(0, 10).map((record) => ({ ...record }));
    records[3] = { ...records[3], population: 'many' };
    records[7] = { ...records[7], code: undefined };
    const response = await importJson({ typeName: 'country', records, batchSize: 5 });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ ok: false, totalRecords: 10, created: 8, failed: 2, batches: 2 });
    expect(body.errors).toEqual([
      { index: 3, id: `country:${records[3]?.code}`, error: 'field `population` must be a finite number' },
      { index: 7, id: expect.any(String), error: expect.stringContaining('field `code` is required') },
    ]);
    expect(await total('country')).toBe(8);
    const bad = await site.request({
      method: 'GET',
      url: `/api/content/country/country:${records[3]?.code}`,
    });
    expect(bad.statusCode).toBe(404);
  });

  it('checks unique fields and references per record, within the import and against stored items', async () => {
    await importJson({ typeName: 'region', records: factbook.records.region });
    const [first, second] = factbook.records.country;
    await importJson({ typeName: 'country', records: [first] });
    const response = await importJson({
      typeName: 'country',
      records: [
        { ...second, code: first?.code, id: 'country:clash' },
        { ...second, id: 'country:one', code: 'qq' },
        { ...second, id: 'country:two', code: 'qq' },
        { ...second, id: 'country:one', code: 'qz' },
      ],
    });
    const body = response.json();
    expect(body).toMatchObject({ created: 1, failed: 3 });
    expect(body.errors.map((error: { index: number; id: string }) => [error.index, error.id])).toEqual([
      [0, 'country:clash'],
      [2, 'country:two'],
      [3, 'country:one'],
    ]);
    expect(body.errors[0].error).toContain('must be unique');
    expect(body.errors[2].error).toContain('duplicates the id of record 1');

    const divisions = await importJson({
      typeName: 'division',
      records: [
        { slug: 'x-a', name: 'A', countryCode: 'x', relationships: { country: 'country:zz' } },
        { slug: 'x-b', name: 'B', countryCode: 'x', relationships: { country: `country:${first?.code}` } },
      ],
    });
    expect(divisions.json()).toMatchObject({ created: 1, failed: 1 });
    expect(divisions.json().errors[0]).toMatchObject({
      index: 0,
      id: 'division:x-a',
      error: 'field `country` points at country:zz, which does not exist',
    });
    expect(await site.graph.getEdges({ from: 'division:x-b' })).toHaveLength(1);
  });

  it('rolls a batch back when the write itself fails, and retries its records one by one', async () => {
    await site.createType({
      name: 'tagset',
      label: 'Tag set',
      nodeLabel: 'TagSet',
      keyField: 'name',
      fields: [
        { name: 'name', type: 'string', required: true },
        // Lists are not pre-checked for uniqueness, so only the engine's constraint catches a clash.
        { name: 'tags', type: 'stringlist', unique: true },
      ],
    });
    const response = await importJson({
      typeName: 'tagset',
      records: [
        { name: 'a', tags: ['x', 'y'] },
        { name: 'b', tags: ['x', 'y'] },
        { name: 'c', tags: ['z'] },
      ],
    });
    const body = response.json();
    expect(body).toMatchObject({ created: 2, failed: 1 });
    expect(body.errors).toEqual([{ index: 1, id: 'tagset:b', error: expect.stringContaining('tags') }]);
    const ids = (await site.request({ method: 'GET', url: '/api/content/tagset' }))
      .json()
      .map((item: { id: string }) => item.id);
    expect(ids).toEqual(['tagset:a', 'tagset:c']);
    const versions = await site.graph.findNodes({
      label: 'ItemVersion',
      where: [{ prop: 'itemId', op: 'eq', value: 'tagset:b' }],
    });
    expect(versions.total).toBe(0);
  });

  it('lands the good records of a batch the engine refuses for one record, and leaves no trace of it', async () => {
    await site.createType({
      name: 'tagset',
      label: 'Tag set',
      nodeLabel: 'TagSet',
      keyField: 'name',
      fields: [
        { name: 'name', type: 'string', required: true },
        { name: 'tags', type: 'stringlist', unique: true },
      ],
    });
    expect(
      (await importJson({ typeName: 'tagset', records: [{ name: 'stored', tags: ['x'] }] })).json(),
    ).toMatchObject({ created: 1 });
    const auditBefore = (await site.graph.auditRecords()).length;
    // One batch of 12: record 7 repeats the stored item's unique list, which only the engine sees.
    const records = Array.from({ length: 12 }, (_, i) => ({
      name: `t${i}`,
      tags: i === 7 ? ['x'] : [`v${i}`],
    }));
    const body = (await importJson({ typeName: 'tagset', records, batchSize: 12 })).json();
    expect(body).toMatchObject({ created: 11, failed: 1, batches: 1 });
    expect(body.errors).toEqual([{ index: 7, id: 'tagset:t7', error: expect.stringContaining('tags') }]);
    const ids = (await site.request({ method: 'GET', url: '/api/content/tagset?limit=100' }))
      .json()
      .map((item: { id: string }) => item.id)
      .sort();
    expect(ids).toEqual(
      ['tagset:stored', ...records.map((_, i) => `tagset:t${i}`).filter((id) => id !== 'tagset:t7')].sort(),
    );
    const t3 = (await site.request({ method: 'GET', url: '/api/content/tagset/tagset:t3' })).json();
    expect(t3).toMatchObject({
      version: 1,
      fields: { tags: ['v3'] },
      hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    const versions = await site.graph.findNodes({
      label: 'ItemVersion',
      where: [{ prop: 'itemId', op: 'eq', value: 'tagset:t7' }],
    });
    expect(versions.total).toBe(0);
    const audit = (await site.graph.auditRecords()).slice(auditBefore);
    expect(audit.every((entry) => entry.action === 'content.import')).toBe(true);
    expect(audit.reduce((sum, entry) => sum + Number(entry.data?.count), 0)).toBe(11);
    expect((await site.graph.verifyAudit()).status).toBe('ok');
  });

  it('in a batch retried in halves, retries a record whose target landed in a later half', async () => {
    await site.createType({
      name: 'tagset',
      label: 'Tag set',
      nodeLabel: 'TagSet',
      keyField: 'name',
      fields: [
        { name: 'name', type: 'string', required: true },
        { name: 'tags', type: 'stringlist', unique: true },
      ],
      relationships: [{ name: 'related', edgeLabel: 'RELATED', target: 'tagset', kind: 'many-to-many' }],
    });
    await importJson({ typeName: 'tagset', records: [{ name: 'stored', tags: ['x'] }] });
    // t3 repeats the stored list (only the engine sees it), so the batch is split: t0 runs in
    // the first half, before t2, which it points at (and t1 at t0).
    const records = [
      { name: 't0', tags: ['a'], relationships: { related: ['tagset:t2'] } },
      { name: 't1', tags: ['b'], relationships: { related: ['tagset:t0'] } },
      { name: 't2', tags: ['c'] },
      { name: 't3', tags: ['x'] },
    ];
    const body = (await importJson({ typeName: 'tagset', records, batchSize: 4 })).json();
    expect(body).toMatchObject({ created: 3, failed: 1 });
    expect(body.errors).toEqual([{ index: 3, id: 'tagset:t3', error: expect.stringContaining('tags') }]);
    expect((await site.graph.getEdges({ type: 'RELATED' })).map((edge) => `${edge.from}>${edge.to}`)).toEqual(
      ['tagset:t0>tagset:t2', 'tagset:t1>tagset:t0'],
    );
    expect((await site.graph.verifyAudit()).status).toBe('ok');
  });

  it('writes the edges of a record to a later record of its batch, never an edge to a record that failed', async () => {
    const pair = (
      await importJson({
        typeName: 'country',
        records: [
          { code: 'aa', name: 'A', relationships: { borders: ['country:bb'] } },
          { code: 'bb', name: 'B', relationships: { borders: ['country:aa'] } },
        ],
      })
    ).json();
    expect(pair).toMatchObject({ created: 2, failed: 0 });
    expect((await site.graph.getEdges({ type: 'BORDERS' })).map((edge) => `${edge.from}>${edge.to}`)).toEqual(
      ['country:aa>country:bb', 'country:bb>country:aa'],
    );
    // cc points at dd, which passes the reference check (it is in the batch) and then fails
    // the batch's unique check: cc must not land without its edge, and dryRun says so too.
    const records = [
      { id: 'country:cc', code: 'cc', name: 'C', relationships: { borders: ['country:dd'] } },
      { id: 'country:ee', code: 'qq', name: 'E' },
      { id: 'country:dd', code: 'qq', name: 'D' },
    ];
    const dry = (await importJson({ typeName: 'country', records, dryRun: true })).json();
    expect(dry).toMatchObject({ created: 1, failed: 2 });
    const body = (await importJson({ typeName: 'country', records })).json();
    expect(body).toMatchObject({ created: 1, failed: 2 });
    expect(body.errors).toEqual(dry.errors);
    expect(body.errors.map((error: { index: number; id: string }) => [error.index, error.id])).toEqual([
      [0, 'country:cc'],
      [2, 'country:dd'],
    ]);
    expect(body.errors[0].error).toContain('country:dd');
    for (const id of ['country:cc', 'country:dd']) {
      expect((await site.request({ method: 'GET', url: `/api/content/country/${id}` })).statusCode).toBe(404);
    }
    expect(await site.graph.getEdges({ from: 'country:cc' })).toEqual([]);
  });

  it('replaces the relationships of a replaced item and stores the version node an import left unstored', async () => {
    const countries = [
      { code: 'aa', name: 'A' },
      { code: 'bb', name: 'B' },
    ];
    await importJson({ typeName: 'country', records: countries });
    const division = { slug: 'aa-one', name: 'One', countryCode: 'aa' };
    await importJson({
      typeName: 'division',
      records: [{ ...division, relationships: { country: 'country:aa' } }],
    });
    const getOne = async () =>
      (await site.request({ method: 'GET', url: '/api/content/division/division:aa-one' })).json();
    // Read once before the re-import, so a read cache would hold the old version.
    expect(await getOne()).toMatchObject({ version: 1, relationships: { country: 'country:aa' } });
    const again = (
      await importJson({
        typeName: 'division',
        records: [
          { ...division, name: 'One (moved)', relationships: { country: 'country:bb' } },
          { slug: 'bb-two', name: 'Two', countryCode: 'bb', relationships: { country: 'country:bb' } },
        ],
      })
    ).json();
    expect(again).toMatchObject({ created: 1, updated: 1, unchanged: 0, failed: 0 });
    expect(await getOne()).toMatchObject({
      version: 2,
      fields: { name: 'One (moved)' },
      relationships: { country: 'country:bb' },
    });
    expect(await site.graph.getEdges({ from: 'division:aa-one' })).toEqual([
      { from: 'division:aa-one', type: 'PART_OF', to: 'country:bb', props: {} },
    ]);
    expect(await site.graph.getEdges({ from: 'division:bb-two' })).toHaveLength(1);
    const stored = await site.graph.getNode('division:aa-one@1');
    expect(stored?.props).toMatchObject({ version: 1, action: 'content.import', fields: { name: 'One' } });
    const versions = (
      await site.request({ method: 'GET', url: '/api/content/division/division:aa-one/versions' })
    ).json();
    expect(
      versions.map((v: { version: number; fields: { name: string } }) => [v.version, v.fields.name]),
    ).toEqual([
      [2, 'One (moved)'],
      [1, 'One'],
    ]);
  });

  it('skips existing items with skipExisting, and replaces them (a new version) without it', async () => {
    const records = factbook.records.region;
    await importJson({ typeName: 'region', records });
    const skipped = await importJson({ typeName: 'region', records, skipExisting: true });
    expect(skipped.json()).toMatchObject({
      created: 0,
      updated: 0,
      unchanged: 0,
      skipped: records.length,
      failed: 0,
    });
    const renamed = records.map((record) => ({ ...record, name: `${record.name} (new)` }));
    const replaced = await importJson({ typeName: 'region', records: renamed });
    expect(replaced.json()).toMatchObject({ created: 0, updated: records.length, failed: 0 });
    const europe = (await site.request({ method: 'GET', url: '/api/content/region/region:europe' })).json();
    expect(europe).toMatchObject({ version: 2, fields: { name: 'Europe (new)' } });
    // Imports store the node of the version they create lazily; the history stays complete.
    await site.request({
      method: 'PATCH',
      url: '/api/content/region/region:europe',
      payload: { name: 'Europa' },
    });
    const versions = (
      await site.request({ method: 'GET', url: '/api/content/region/region:europe/versions' })
    ).json();
    expect(
      versions.map((v: { version: number; action: string; fields: { name: string } }) => [
        v.version,
        v.action,
        v.fields.name,
      ]),
    ).toEqual([
      [3, 'content.update', 'Europa'],
      [2, 'content.import', 'Europe (new)'],
      [1, 'content.import', 'Europe'],
    ]);
    const v2 = (
      await site.request({ method: 'GET', url: '/api/content/region/region:europe/versions/2' })
    ).json();
    expect(v2.hash).toBe(versions[1].hash);
  });

  it('writes nothing with dryRun, but reports what would fail', async () => {
    const auditBefore = (await site.graph.auditRecords()).length;
    const records = [...factbook.records.region, { name: 'no slug' }];
    const response = await importJson({ typeName: 'region', records, dryRun: true });
    expect(response.json()).toMatchObject({ dryRun: true, created: records.length - 1, failed: 1 });
    expect(await total('region')).toBe(0);
    expect((await site.graph.auditRecords()).length).toBe(auditBefore);
  });

  it('answers 413 past the per-request maximum with a valid batchSize to split by, and takes the maximum itself', async () => {
    // At the maximum the count passes (the unknown type answers next); one more is a 413.
    const atMax = Array.from({ length: IMPORT_MAX_RECORDS }, () => ({}));
    expect((await importJson({ typeName: 'nope', records: atMax })).statusCode).toBe(404);
    const records = [...atMax, {}];
    const response = await importJson({ typeName: 'region', records });
    expect(response.statusCode).toBe(413);
    const body = response.json();
    expect(body).toMatchObject({ code: 'too_many_records', max: IMPORT_MAX_RECORDS });
    const { suggestedBatchSize, suggestedCallCount } = body;
    expect(suggestedBatchSize).toBeGreaterThanOrEqual(IMPORT_JSON_BATCH.min);
    expect(suggestedBatchSize).toBeLessThanOrEqual(IMPORT_JSON_BATCH.max);
    expect(suggestedBatchSize * suggestedCallCount).toBeGreaterThanOrEqual(records.length);
    expect(suggestedBatchSize * (suggestedCallCount - 1)).toBeLessThan(records.length);
    expect(body.error).toContain(`${suggestedCallCount} calls of at most ${suggestedBatchSize} records`);
    expect(await total('region')).toBe(0);
    // The advice is accepted as it stands: one of the suggested calls.
    const call = factbook.records.region.slice(0, Math.min(suggestedBatchSize, 5));
    const followed = await importJson({ typeName: 'region', records: call, batchSize: suggestedBatchSize });
    expect(followed.statusCode, followed.body).toBe(200);
  });

  it('validates the request: batchSize 1..500, a known type', async () => {
    const records = factbook.records.region;
    expect((await importJson({ typeName: 'region', records, batchSize: 501 })).statusCode).toBe(400);
    expect((await importJson({ typeName: 'region', records, batchSize: 0 })).statusCode).toBe(400);
    expect((await importJson({ typeName: 'nope', records })).statusCode).toBe(404);
    expect((await importJson({ records })).statusCode).toBe(400);
    // A record that is not an object, or records that are not a list, fail the whole request
    // with zod's answer naming the place (the fast path of the validator takes only objects).
    for (const bad of [[records[0], 'x'], [records[0], null], [records[0], [1]], 'x', { 0: records[0] }]) {
      const answer = await importJson({ typeName: 'region', records: bad });
      expect(answer.statusCode, answer.body).toBe(400);
      expect(answer.json().error).toContain('records');
    }
    // The records as sent, the defaults filled in (dryRun false: the records are written).
    const written = await importJson({ typeName: 'region', records: records.slice(0, 2) });
    expect(written.statusCode, written.body).toBe(200);
    expect(written.json().created).toBe(2);
    expect(await total('region')).toBe(2);
  });
});

describe('POST /api/import/json: records whose item exists', () => {
  const counters = (body: Record<string, number>) =>
    body.created! + body.updated! + body.unchanged! + body.skipped! + body.failed!;

  it('counts them updated or unchanged, never created; the same batch again writes no version and no audit entry', async () => {
    const records = factbook.records.region;
    const first = (await importJson({ typeName: 'region', records })).json();
    expect(first).toMatchObject({ created: records.length, updated: 0, unchanged: 0, skipped: 0, failed: 0 });
    const auditBefore = (await site.graph.auditRecords()).length;
    const again = (await importJson({ typeName: 'region', records })).json();
    expect(again).toMatchObject({ ok: true, created: 0, updated: 0, unchanged: records.length, failed: 0 });
    expect(await auditActions(auditBefore)).toEqual([]);
    const versions = async (id: string) =>
      (await site.request({ method: 'GET', url: `/api/content/region/${id}/versions` })).json();
    expect((await versions('region:africa')).map((v: { version: number }) => v.version)).toEqual([1]);

    // Two renamed, one new, the rest as stored; batches of 5: the middle batch writes nothing.
    const changed = [
      ...records.map((record, i) => (i < 2 ? { ...record, name: `${record.name} (renamed)` } : record)),
      { slug: 'atlantis', name: 'Atlantis' },
    ];
    const mixed = (await importJson({ typeName: 'region', records: changed, batchSize: 5 })).json();
    expect(mixed).toMatchObject({ created: 1, updated: 2, unchanged: records.length - 2, failed: 0 });
    expect(counters(mixed)).toBe(changed.length);
    const audit = (await site.graph.auditRecords()).slice(auditBefore);
    expect(audit.map((entry) => [entry.action, entry.data?.created, entry.data?.updated])).toEqual([
      ['content.import', 0, 2],
      ['content.import', 1, 0],
    ]);
    expect((await versions('region:africa')).map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect((await versions('region:europe')).map((v: { version: number }) => v.version)).toEqual([1]);

    // dryRun says the same and writes nothing.
    const auditMid = (await site.graph.auditRecords()).length;
    const dry = (await importJson({ typeName: 'region', records, dryRun: true })).json();
    expect(dry).toMatchObject({ dryRun: true, created: 0, updated: 2, unchanged: records.length - 2 });
    expect(await auditActions(auditMid)).toEqual([]);
    expect((await versions('region:africa')).map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect((await site.graph.verifyAudit()).status).toBe('ok');
  });

  it('keeps created honest across calls sharing keys (the sum of created is what exists), and reports repeats in one call per record', async () => {
    const countries = factbook.records.country.slice(0, 30);
    const rename = (record: Record<string, unknown>) => ({ ...record, name: `${record.name} (2)` });
    // Calls of 12 overlapping by 3: records 9..11 come again renamed, 18..20 again as they were.
    const calls = [
      countries.slice(0, 12),
      [...countries.slice(9, 12).map(rename), ...countries.slice(12, 21)],
      countries.slice(18, 30),
    ];
    const expected = [
      { created: 12, updated: 0, unchanged: 0 },
      { created: 9, updated: 3, unchanged: 0 },
      { created: 9, updated: 0, unchanged: 3 },
    ];
    let created = 0;
    for (const [i, records] of calls.entries()) {
      const body = (await importJson({ typeName: 'country', records })).json();
      expect(body, `call ${i}`).toMatchObject({ ...expected[i], skipped: 0, failed: 0 });
      expect(counters(body)).toBe(records.length);
      created += body.created;
    }
    expect(await total('country')).toBe(30);
    expect(created).toBe(30);

    const [a, b] = countries;
    const repeated = (
      await importJson({ typeName: 'country', records: [rename(a!), b, a, rename(rename(a!))] })
    ).json();
    expect(repeated).toMatchObject({ created: 0, updated: 1, unchanged: 1, failed: 2 });
    expect(counters(repeated)).toBe(4);
    expect(repeated.errors).toEqual([
      { index: 2, id: `country:${a!.code}`, error: 'duplicates the id of record 0 in this import' },
      { index: 3, id: `country:${a!.code}`, error: 'duplicates the id of record 0 in this import' },
    ]);
    const stored = (
      await site.request({ method: 'GET', url: `/api/content/country/country:${a!.code}` })
    ).json();
    expect(stored.fields.name).toBe(`${a!.name} (2)`);
  });

  it('compares relationships too, and keeps the edges a record repeats as they are (props included)', async () => {
    await importJson({ typeName: 'region', records: factbook.records.region });
    const aa = { code: 'aa', name: 'A', relationships: { region: 'region:europe', borders: ['country:bb'] } };
    const bb = { code: 'bb', name: 'B' };
    expect((await importJson({ typeName: 'country', records: [bb, aa] })).json()).toMatchObject({
      created: 2,
    });
    const merged = await importEdges({
      edges: [{ from: 'country:aa', edge: 'BORDERS', to: 'country:bb', props: { lengthKm: 7 } }],
    });
    expect(merged.json()).toMatchObject({ merged: 1, failed: 0 });
    expect((await importJson({ typeName: 'country', records: [bb, aa] })).json()).toMatchObject({
      created: 0,
      updated: 0,
      unchanged: 2,
    });
    // A relationship change alone is an update; so is a field change. Neither drops the props.
    const moved = { ...aa, relationships: { ...aa.relationships, region: 'region:africa' } };
    expect((await importJson({ typeName: 'country', records: [moved] })).json()).toMatchObject({
      updated: 1,
      unchanged: 0,
    });
    expect(
      (await importJson({ typeName: 'country', records: [{ ...moved, name: 'A2' }] })).json(),
    ).toMatchObject({ updated: 1 });
    expect(await site.graph.getEdges({ from: 'country:aa' })).toEqual([
      { from: 'country:aa', type: 'BORDERS', to: 'country:bb', props: { lengthKm: 7 } },
      { from: 'country:aa', type: 'IN_REGION', to: 'region:africa', props: {} },
    ]);
    const stored = (await site.request({ method: 'GET', url: '/api/content/country/country:aa' })).json();
    expect(stored).toMatchObject({ version: 3, fields: { name: 'A2' } });
  });

  it('publishes what it created, updated and left unchanged with publish; the same import again publishes nothing new', async () => {
    const records = factbook.records.region.slice(0, 3);
    await importJson({ typeName: 'region', records });
    const more = [...records, { slug: 'atlantis', name: 'Atlantis' }];
    const first = (await importJson({ typeName: 'region', records: more, publish: 'prod' })).json();
    expect(first).toMatchObject({ created: 1, unchanged: 3, published: { envId: 'env:prod', count: 4 } });
    const live = async () =>
      (await site.request({ method: 'GET', url: '/api/releases/live?envId=env:prod' }))
        .json()
        .items.map((item: { itemId: string }) => item.itemId)
        .sort();
    expect(await live()).toEqual(more.map((record) => `region:${record.slug}`).sort());
    const auditBefore = (await site.graph.auditRecords()).length;
    const again = (await importJson({ typeName: 'region', records: more, publish: 'prod' })).json();
    expect(again).toMatchObject({
      created: 0,
      updated: 0,
      unchanged: 4,
      published: { envId: 'env:prod', count: 0 },
    });
    expect(await auditActions(auditBefore)).toEqual([]);
    const atlantis = (
      await site.request({ method: 'GET', url: '/api/content/region/region:atlantis' })
    ).json();
    expect(atlantis.version).toBe(1);
  });
});

describe('POST /api/import/json gateway timeout warning', () => {
  it('warns when the projected time outlasts a gateway timeout', async () => {
    await site.close();
    site = await createContentTestSite({ env: { IMPORT_ESTIMATED_RECORDS_PER_SEC: '1' } });
    for (const type of factbook.types) await site.createType(type);
    const records = factbook.records.country.slice(0, 40);
    const body = (await importJson({ typeName: 'country', records })).json();
    expect(body.created).toBe(40);
    expect(body.gatewayTimeoutWarning).toMatchObject({ suggestedBatchSize: 20, suggestedCallCount: 2 });
    expect(body.gatewayTimeoutWarning.message).toContain('40 s');
  });

  it('suggests at most the largest batchSize however fast the estimate, with calls that cover the import', async () => {
    await site.close();
    // 30 records/s: 600 records would fit 80 % of 25 s, more than a batch holds (1100 records
    // in 2 calls would be 550 each).
    site = await createContentTestSite({ env: { IMPORT_ESTIMATED_RECORDS_PER_SEC: '30' } });
    for (const type of factbook.types) await site.createType(type);
    const records = Array.from({ length: 1100 }, (_, i) => ({ slug: `r${i}`, name: `Region ${i}` }));
    const body = (await importJson({ typeName: 'region', records, batchSize: 500 })).json();
    expect(body.created).toBe(1100);
    const { suggestedBatchSize, suggestedCallCount } = body.gatewayTimeoutWarning;
    expect(suggestedBatchSize).toBeLessThanOrEqual(IMPORT_JSON_BATCH.max);
    expect({ suggestedBatchSize, suggestedCallCount }).toEqual({
      suggestedBatchSize: 367,
      suggestedCallCount: 3,
    });
    const followed = await importJson({
      typeName: 'region',
      records: records.slice(0, suggestedBatchSize),
      batchSize: suggestedBatchSize,
    });
    expect(followed.statusCode, followed.body).toBe(200);
    expect(followed.json()).toMatchObject({ unchanged: 367 });
  });
});

describe('POST /api/import/edges', () => {
  beforeEach(async () => {
    await importJson({ typeName: 'region', records: factbook.records.region });
    await importJson({ typeName: 'country', records: factbook.records.country });
  });

  it('counts missing endpoints as mismatch, fails malformed edges alone, replaces props', async () => {
    const response = await importEdges({
      edges: [
        { from: 'country:gm', edge: 'BORDERS', to: 'country:fr', props: { lengthKm: 1 } },
        { from: 'country:gm', edge: 'borders', to: 'country:fr' },
        { from: 'country:gm', edge: 'BORDERS', to: 'country:nowhere' },
        { from: 'gm', edge: 'BORDERS', to: 'country:fr' },
        { from: 'country:fr', edge: 'BORDERS', to: 'country:gm' },
        { from: 'country:gm', edge: 'BORDERS', to: 'country:fr', props: { lengthKm: 418 } },
      ],
      batchSize: 2,
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ ok: false, totalEdges: 6, merged: 3, mismatch: 1, failed: 2, batches: 3 });
    expect(body.errors.map((error: { index: number }) => error.index)).toEqual([1, 3]);
    expect(body.errors[0].error).toContain('uppercase');
    expect(await site.graph.getEdges({ from: 'country:gm', type: 'BORDERS' })).toEqual([
      { from: 'country:gm', type: 'BORDERS', to: 'country:fr', props: { lengthKm: 418 } },
    ]);
  });

  it('fails alone an edge whose id is longer than the engine stores, in a batch of good ones', async () => {
    const tooLong = `country:${'x'.repeat(600)}`;
    const edges = [
      { from: 'country:gm', edge: 'BORDERS', to: 'country:fr', props: { lengthKm: 418 } },
      { from: 'country:fr', edge: 'BORDERS', to: 'country:gm', props: { lengthKm: 418 } },
      { from: tooLong, edge: 'BORDERS', to: 'country:fr' },
      { from: 'country:gm', edge: 'BORDERS', to: 'country:nowhere' },
      { from: 'country:fr', edge: 'BORDERS', to: 'country:sp' },
    ];
    const body = (await importEdges({ edges, batchSize: 5 })).json();
    expect(body).toMatchObject({ merged: 3, mismatch: 1, failed: 1, batches: 1 });
    expect(body.errors).toEqual([{ index: 2, error: 'from: an item id has at most 512 characters' }]);
    expect((await site.graph.getEdges({ type: 'BORDERS' })).map((edge) => `${edge.from}>${edge.to}`)).toEqual(
      ['country:fr>country:gm', 'country:fr>country:sp', 'country:gm>country:fr'],
    );
    expect((await site.graph.verifyAudit()).status).toBe('ok');
  });

  it('answers 413 past the per-request maximum with a valid batchSize to split by, on import and removal', async () => {
    const edges = Array.from({ length: IMPORT_MAX_EDGES + 1 }, () => ({}));
    for (const send of [importEdges, removeEdges]) {
      const response = await send({ edges });
      expect(response.statusCode).toBe(413);
      const body = response.json();
      expect(body).toMatchObject({ code: 'too_many_records', max: IMPORT_MAX_EDGES });
      const { suggestedBatchSize, suggestedCallCount } = body;
      expect(suggestedBatchSize).toBeGreaterThanOrEqual(IMPORT_EDGES_BATCH.min);
      expect(suggestedBatchSize).toBeLessThanOrEqual(IMPORT_EDGES_BATCH.max);
      expect(suggestedBatchSize * suggestedCallCount).toBeGreaterThanOrEqual(edges.length);
      expect(suggestedBatchSize * (suggestedCallCount - 1)).toBeLessThan(edges.length);
      expect(body.error).toContain('edges');
      const one = [{ from: 'country:gm', edge: 'BORDERS', to: 'country:fr' }];
      const followed = await send({ edges: one, batchSize: suggestedBatchSize });
      expect(followed.statusCode, followed.body).toBe(200);
    }
  });

  it('writes no audit entry when a batch changes nothing', async () => {
    const edges = [{ from: 'country:gm', edge: 'BORDERS', to: 'country:fr', props: { lengthKm: 418 } }];
    const before = (await site.graph.auditRecords()).length;
    expect((await importEdges({ edges })).json()).toMatchObject({ merged: 1 });
    expect(await auditActions(before)).toEqual(['edges.import']);
    const after = (await site.graph.auditRecords()).length;
    expect((await importEdges({ edges })).json()).toMatchObject({ merged: 1, failed: 0 });
    expect(await auditActions(after)).toEqual([]);
  });

  it('validates batchSize 1..2000', async () => {
    const edges = [{ from: 'country:gm', edge: 'BORDERS', to: 'country:fr' }];
    expect((await importEdges({ edges, batchSize: 2001 })).statusCode).toBe(400);
    expect((await importEdges({ edges: 'x' })).statusCode).toBe(400);
  });

  it('checks the body around a list of edges taken as sent: batchSize and its default, a missing list, on import and removal', async () => {
    // The edge list skips zod's element-by-element copy (edgesBodyValidator): the rest of the
    // body is still zod's, with its answers and its default.
    const edges = [{ from: 'country:gm', edge: 'BORDERS', to: 'country:fr' }];
    for (const url of ['/api/import/edges', '/api/import/edges/remove']) {
      const send = (payload: Record<string, unknown>) => site.request({ method: 'POST', url, payload });
      for (const batchSize of [0, 2001, 1.5, '5', null]) {
        const response = await send({ edges, batchSize });
        expect(response.statusCode, `${url} batchSize ${JSON.stringify(batchSize)}`).toBe(400);
        expect(response.json()).toMatchObject({ code: 'validation_failed' });
        expect(response.json().error).toContain('batchSize');
      }
      for (const body of [{}, { edges: { 0: edges[0] } }, { edges: null }]) {
        const response = await send(body);
        expect(response.statusCode, `${url} ${JSON.stringify(body)}`).toBe(400);
        expect(response.json().error).toContain('edges');
      }
      // 1,001 edges (malformed ones fail alone, by index) in batches of the default 500.
      const many = [
        ...edges,
        ...Array.from({ length: 1000 }, (_, i) => (i % 2 === 0 ? 'x' : { from: 'gm' })),
      ];
      const response = await send({ edges: many, ignored: true });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ batches: 3, failed: 1000 });
      expect(response.json().errors[0].index).toBe(1);
    }
  });
});

describe('POST /api/import/edges: the relationships of the types', () => {
  beforeEach(async () => {
    await importJson({ typeName: 'region', records: factbook.records.region });
    await importJson({ typeName: 'country', records: factbook.records.country });
  });

  it('refuses per edge a label the source type does not declare, a target of another type, an unknown type', async () => {
    const edges = [
      { from: 'country:gm', edge: 'BORDERS', to: 'country:fr' },
      { from: 'country:gm', edge: 'WRITTEN_BY', to: 'country:fr' },
      { from: 'country:gm', edge: 'IN_REGION', to: 'country:fr' },
      { from: 'country:gm', edge: 'BORDERS', to: 'region:europe' },
      { from: 'planet:earth', edge: 'BORDERS', to: 'country:fr' },
      { from: 'region:europe', edge: 'BORDERS', to: 'country:fr' },
      { from: 'country:gm', edge: 'BORDERS', to: 'country:nowhere' },
    ];
    const response = await importEdges({ edges, batchSize: 3 });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ ok: false, totalEdges: 7, merged: 1, mismatch: 1, failed: 5 });
    const errors = Object.fromEntries(
      body.errors.map((error: { index: number; error: string }) => [error.index, error.error]),
    );
    expect(Object.keys(errors).map(Number)).toEqual([1, 2, 3, 4, 5]);
    expect(errors[1]).toContain('WRITTEN_BY is not a relationship of type country');
    expect(errors[1]).toContain('IN_REGION → region');
    expect(errors[2]).toBe('IN_REGION edges of a country point at region items; country:fr is a country');
    expect(errors[3]).toBe('BORDERS edges of a country point at country items; region:europe is a region');
    expect(errors[4]).toContain('`planet` is not a content type');
    expect(errors[5]).toContain(
      'BORDERS is not a relationship of type region (it declares no relationships)',
    );
    expect(
      (await site.graph.getEdges({ from: 'country:gm' })).map((edge) => `${edge.type}>${edge.to}`),
    ).toEqual(['BORDERS>country:fr']);
  });

  it('holds one target in a many-to-one relationship: a second one is refused per edge, in a call and across calls', async () => {
    const first = (
      await importEdges({
        edges: [
          { from: 'country:gm', edge: 'IN_REGION', to: 'region:europe' },
          { from: 'country:gm', edge: 'IN_REGION', to: 'region:africa' },
          { from: 'country:fr', edge: 'IN_REGION', to: 'region:europe' },
          { from: 'country:gm', edge: 'IN_REGION', to: 'region:europe', props: { since: 1990 } },
        ],
      })
    ).json();
    expect(first).toMatchObject({ merged: 3, mismatch: 0, failed: 1 });
    expect(first.errors).toEqual([
      {
        index: 1,
        error: expect.stringContaining(
          'country:gm already has IN_REGION → region:europe, and `region` is many-to-one (one target)',
        ),
      },
    ]);
    // A target of the same batch that does not exist holds nothing, nor does an item that
    // does not exist: those edges are mismatches, and the next edge lands.
    const afterMissing = (
      await importEdges({
        edges: [
          { from: 'country:sp', edge: 'IN_REGION', to: 'region:nowhere' },
          { from: 'country:sp', edge: 'IN_REGION', to: 'region:europe' },
          { from: 'country:atlantis', edge: 'IN_REGION', to: 'region:europe' },
          { from: 'country:atlantis', edge: 'IN_REGION', to: 'region:africa' },
        ],
      })
    ).json();
    expect(afterMissing).toMatchObject({ merged: 1, mismatch: 3, failed: 0 });
    expect((await site.graph.getEdges({ from: 'country:sp', type: 'IN_REGION' })).map((e) => e.to)).toEqual([
      'region:europe',
    ]);
    const later = (
      await importEdges({
        edges: [
          { from: 'country:gm', edge: 'IN_REGION', to: 'region:europe' },
          { from: 'country:gm', edge: 'IN_REGION', to: 'region:africa' },
        ],
        batchSize: 1,
      })
    ).json();
    expect(later).toMatchObject({ merged: 1, failed: 1, errors: [{ index: 1 }] });
    expect(await site.graph.getEdges({ from: 'country:gm', type: 'IN_REGION' })).toEqual([
      { from: 'country:gm', type: 'IN_REGION', to: 'region:europe', props: {} },
    ]);
    const gm = (await site.request({ method: 'GET', url: '/api/content/country/country:gm' })).json();
    expect(gm.relationships.region).toBe('region:europe');
    // Once the first target is removed, another one is taken.
    const removed = await removeEdges({
      edges: [{ from: 'country:gm', edge: 'IN_REGION', to: 'region:europe' }],
    });
    expect(removed.json()).toMatchObject({ removed: 1, missing: 0, failed: 0 });
    const moved = await importEdges({
      edges: [{ from: 'country:gm', edge: 'IN_REGION', to: 'region:africa' }],
    });
    expect(moved.json()).toMatchObject({ merged: 1, failed: 0 });
    const after = (await site.request({ method: 'GET', url: '/api/content/country/country:gm' })).json();
    expect(after.relationships.region).toBe('region:africa');
  });
});

describe('POST /api/import/edges/remove', () => {
  beforeEach(async () => {
    await importJson({ typeName: 'region', records: factbook.records.region });
    await importJson({ typeName: 'country', records: factbook.records.country });
  });

  it('removes edges, counts those that do not exist, and fails malformed edges and edges not between items alone', async () => {
    await importEdges({
      edges: [
        { from: 'country:gm', edge: 'BORDERS', to: 'country:fr' },
        { from: 'country:fr', edge: 'BORDERS', to: 'country:gm' },
      ],
    });
    await site.graph.createNode({ id: 'note:x', labels: ['Note'], props: {} });
    await site.graph.mergeEdge({ from: 'country:gm', type: 'NOTED', to: 'note:x', props: {} });
    const before = (await site.graph.auditRecords()).length;
    const response = await removeEdges({
      edges: [
        { from: 'country:gm', edge: 'BORDERS', to: 'country:fr' },
        { from: 'country:gm', edge: 'BORDERS', to: 'country:fr' },
        { from: 'country:gm', edge: 'borders', to: 'country:fr' },
        { from: 'country:gm', edge: 'NOTED', to: 'note:x' },
        { from: 'country:gm', edge: 'BORDERS', to: 'country:nowhere' },
      ],
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ ok: false, totalEdges: 5, removed: 1, missing: 2, failed: 2, batches: 1 });
    expect(body.errors.map((error: { index: number }) => error.index)).toEqual([2, 3]);
    expect(body.errors[1].error).toContain('only edges between content items');
    expect(await site.graph.getEdges({ type: 'BORDERS' })).toEqual([
      { from: 'country:fr', type: 'BORDERS', to: 'country:gm', props: {} },
    ]);
    expect(await site.graph.getEdges({ type: 'NOTED' })).toHaveLength(1);
    const audit = (await site.graph.auditRecords()).slice(before);
    expect(audit.map((entry) => [entry.action, entry.data?.removed])).toEqual([['edges.remove', 1]]);
    // Removing again changes nothing and records nothing.
    const after = (await site.graph.auditRecords()).length;
    const again = await removeEdges({ edges: [{ from: 'country:gm', edge: 'BORDERS', to: 'country:fr' }] });
    expect(again.json()).toMatchObject({ ok: true, removed: 0, missing: 1 });
    expect(await auditActions(after)).toEqual([]);
    expect((await site.graph.verifyAudit()).status).toBe('ok');
  });

  it('removes a second target a single-target relationship gained behind its back, never the only target of a required one', async () => {
    await site.createType({
      name: 'author',
      label: 'Author',
      nodeLabel: 'Author',
      keyField: 'name',
      fields: [{ name: 'name', type: 'string', required: true }],
    });
    await site.createType({
      name: 'book',
      label: 'Book',
      nodeLabel: 'Book',
      keyField: 'title',
      fields: [{ name: 'title', type: 'string', required: true }],
      relationships: [
        { name: 'author', edgeLabel: 'WRITTEN_BY', target: 'author', kind: 'many-to-one', required: true },
      ],
    });
    await importJson({ typeName: 'author', records: [{ name: 'a1' }, { name: 'a2' }] });
    const book = await importJson({
      typeName: 'book',
      records: [{ title: 'b', relationships: { author: 'author:a1' } }],
    });
    expect(book.json()).toMatchObject({ created: 1 });
    // What earlier servers let an edge import store: a second target, invisible in reads.
    await site.graph.mergeEdge({ from: 'book:b', type: 'WRITTEN_BY', to: 'author:a2', props: {} });
    // The import takes an edge to a target the item holds (it only replaces the props).
    const repeated = await importEdges({ edges: [{ from: 'book:b', edge: 'WRITTEN_BY', to: 'author:a2' }] });
    expect(repeated.json()).toMatchObject({ merged: 1, failed: 0 });
    const body = (
      await removeEdges({
        edges: [
          { from: 'book:b', edge: 'WRITTEN_BY', to: 'author:a1' },
          { from: 'book:b', edge: 'WRITTEN_BY', to: 'author:a2' },
        ],
      })
    ).json();
    expect(body).toMatchObject({ removed: 1, failed: 1 });
    expect(body.errors).toEqual([
      {
        index: 1,
        error: '`author` of book:b is required and author:a2 is its only target: point it elsewhere first',
      },
    ]);
    const stored = (await site.request({ method: 'GET', url: '/api/content/book/book:b' })).json();
    expect(stored.relationships.author).toBe('author:a2');
  });
});
