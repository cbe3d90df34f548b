import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();

describe('cms import records', () => {
  it('imports a CSV in calls, prints progress lines and a summary, writes failures to the errors file, exits 4', async () => {
    const server = await t.serve({
      'POST /api/import/json': ({ body }) => {
        const { records } = body as { records: Record<string, unknown>[] };
        const errors = records
          .map((record, index) => ({ record, index }))
          .filter(({ record }) => record.name === undefined)
          .map(({ record, index }) => ({ index, id: `city:${record.slug}`, error: 'name is required' }));
        return {
          body: {
            ok: errors.length === 0,
            totalRecords: records.length,
            created: records.length - errors.length,
            failed: errors.length,
            batches: 1,
            tookMs: 3,
            recordsPerSec: 1000,
            errors,
            gatewayTimeoutWarning: null,
          },
        };
      },
    });
    const rows = ['slug,name,population,code'];
    for (let n = 0; n < 5; n++) rows.push(`c${n},${n === 3 ? '' : `City ${n}`},${n * 1000},00${n}`);
    await writeFile(join(t.dir, 'cities.csv'), `${rows.join('\n')}\n`);
    const result = await t.cli(['import', 'records', 'cities.csv', '--type', 'city', '--call-size', '2']);
    expect(result.code).toBe(4);
    const sent = server.requests.flatMap((request) => (request.body as { records: unknown[] }).records);
    expect(sent[0]).toEqual({ slug: 'c0', name: 'City 0', population: 0, code: '000' });
    expect(sent[3]).toEqual({ slug: 'c3', population: 3000, code: '003' });
    expect(server.requests).toHaveLength(3);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^city: 2\/5 \(40%\) created 2, failed 0, \d+\/s$/),
      expect.stringMatching(/^city: 4\/5 \(80%\) created 3, failed 1, \d+\/s$/),
      expect.stringMatching(/^city: 5\/5 \(100%\) created 4, failed 1, \d+\/s$/),
    ]);
    expect(result.stdout).toMatch(
      /Imported 5 city record\(s\) in .* 4 created, 1 failed \(.* records\/s, 3 request\(s\)\)/,
    );
    const errorsFile = join(t.dir, 'cities.errors.ndjson');
    expect(result.stdout).toContain(`Errors written to ${errorsFile}`);
    expect(JSON.parse((await readFile(errorsFile, 'utf8')).trim())).toEqual({
      index: 3,
      id: 'city:c3',
      error: 'name is required',
    });
  });

  it('picks records.<type> out of a fixture-shaped JSON file and gives a JSON summary', async () => {
    const server = await t.serve({
      'POST /api/import/json': ({ body }) => {
        const { records } = body as { records: unknown[] };
        return {
          body: {
            ok: true,
            totalRecords: records.length,
            created: records.length,
            failed: 0,
            batches: 1,
            tookMs: 1,
            recordsPerSec: 1,
            errors: [],
            gatewayTimeoutWarning: null,
          },
        };
      },
    });
    await writeFile(
      join(t.dir, 'data.json'),
      JSON.stringify({
        records: { region: [{ slug: 'europe', name: 'Europe' }], country: [{ code: 'fr' }] },
      }),
    );
    const result = await t.cli(['import', 'records', 'data.json', '--type', 'region', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ totalRecords: 1, created: 1, errorsFile: null });
    expect(server.requests[0]?.body).toMatchObject({ typeName: 'region', records: [{ slug: 'europe' }] });
  });

  it('names the file and line of bad NDJSON and exits 2 without calling the server', async () => {
    const server = await t.serve({});
    await writeFile(join(t.dir, 'bad.ndjson'), '{"a":1}\n{"a":\n');
    const result = await t.cli(['import', 'records', 'bad.ndjson', '--type', 'post']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('bad.ndjson line 2: not valid JSON');
    expect(server.requests).toHaveLength(0);
  });
});

describe('cms import edges', () => {
  it('reads from,edge,to CSV with extra columns as props', async () => {
    const server = await t.serve({
      'POST /api/import/edges': ({ body }) => {
        const { edges } = body as { edges: unknown[] };
        return {
          body: {
            ok: true,
            totalEdges: edges.length,
            merged: edges.length,
            mismatch: 0,
            failed: 0,
            batches: 1,
            tookMs: 1,
            edgesPerSec: 1,
            errors: [],
          },
        };
      },
    });
    await writeFile(join(t.dir, 'edges.csv'), 'from,edge,to,lengthKm\ncountry:fr,BORDERS,country:es,623\n');
    const result = await t.cli(['import', 'edges', 'edges.csv']);
    expect(result.code).toBe(0);
    expect(server.requests[0]?.body).toEqual({
      edges: [{ from: 'country:fr', edge: 'BORDERS', to: 'country:es', props: { lengthKm: 623 } }],
    });
    expect(result.stdout).toContain('1 merged, 0 skipped');
  });
});
