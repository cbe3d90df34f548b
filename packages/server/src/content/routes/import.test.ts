import { readFileSync } from 'node:fs';
import { IMPORT_MAX_RECORDS } from '@trelliscms/core';
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
    expect(again).toMatchObject({ created: 2, failed: 0 });
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
    expect(skipped.json()).toMatchObject({ created: 0, skipped: records.length, failed: 0 });
    const renamed = records.map((record) => ({ ...record, name: `${record.name} (new)` }));
    const replaced = await importJson({ typeName: 'region', records: renamed });
    expect(replaced.json()).toMatchObject({ created: records.length, failed: 0 });
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

  it('answers 413 past the per-request maximum, with how to split', async () => {
    const records = Array.from({ length: IMPORT_MAX_RECORDS + 1 }, () => ({}));
    const response = await importJson({ typeName: 'region', records });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({
      code: 'too_many_records',
      suggestedBatchSize: Math.ceil((IMPORT_MAX_RECORDS + 1) / 2),
      suggestedCallCount: 2,
    });
    expect(await total('region')).toBe(0);
  });

  it('validates the request: batchSize 1..500, a known type', async () => {
    const records = factbook.records.region;
    expect((await importJson({ typeName: 'region', records, batchSize: 501 })).statusCode).toBe(400);
    expect((await importJson({ typeName: 'region', records, batchSize: 0 })).statusCode).toBe(400);
    expect((await importJson({ typeName: 'nope', records })).statusCode).toBe(404);
    expect((await importJson({ records })).statusCode).toBe(400);
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

  it('fails alone an edge the engine refuses in a batch of good ones', async () => {
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
    expect(body.errors.map((error: { index: number }) => error.index)).toEqual([2]);
    expect((await site.graph.getEdges({ type: 'BORDERS' })).map((edge) => `${edge.from}>${edge.to}`)).toEqual(
      ['country:fr>country:gm', 'country:fr>country:sp', 'country:gm>country:fr'],
    );
    expect((await site.graph.verifyAudit()).status).toBe('ok');
  });

  it('validates batchSize 1..2000', async () => {
    const edges = [{ from: 'country:gm', edge: 'BORDERS', to: 'country:fr' }];
    expect((await importEdges({ edges, batchSize: 2001 })).statusCode).toBe(400);
    expect((await importEdges({ edges: 'x' })).statusCode).toBe(400);
  });
});
