import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';
import { runCli } from '../../test-support/run-cli';

const t = setUpCommandTests();

const cityType = {
  name: 'city',
  label: 'City',
  nodeLabel: 'City',
  keyField: 'slug',
  fields: [
    { name: 'slug', type: 'string', required: true },
    { name: 'name', type: 'string', required: true },
    { name: 'population', type: 'number' },
    { name: 'code', type: 'string' },
  ],
};

/** An import answer counting every record of the call as created. */
function created(records: unknown[], extra: Record<string, unknown> = {}) {
  return {
    ok: true,
    totalRecords: records.length,
    created: records.length,
    updated: 0,
    unchanged: 0,
    skipped: 0,
    failed: 0,
    batches: 1,
    tookMs: 1,
    recordsPerSec: 1,
    errors: [],
    gatewayTimeoutWarning: null,
    ...extra,
  };
}

describe('cms import records', () => {
  it('Ctrl-C stops the import, says what was done and how to resume, exits 130', async () => {
    let interrupt: (() => void) | undefined;
    let calls = 0;
    const server = await t.serve({
      'POST /api/import/json': async ({ body }) => {
        const { records } = body as { records: unknown[] };
        calls++;
        // Ctrl-C while the second request is on its way: its answer never arrives.
        if (calls === 2) {
          interrupt?.();
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        return { body: created(records) };
      },
    });
    const records = Array.from({ length: 6 }, (_, n) => ({ slug: `c${n}`, name: `City ${n}` }));
    await writeFile(join(t.dir, 'cities.json'), JSON.stringify(records));
    const result = await runCli(
      ['import', 'records', 'cities.json', '--type', 'city', '--call-size', '2', ...t.connection()],
      {
        env: { XDG_CONFIG_HOME: join(t.dir, 'config') },
        cwd: t.dir,
        onInterrupt: (handler) => {
          interrupt = handler;
          return () => {
            interrupt = undefined;
          };
        },
      },
    );
    expect(result.code).toBe(130);
    expect(result.stderr).toContain(
      'Interrupted: 2 of 6 city record(s) were imported before Ctrl-C (2 created, 0 failed)',
    );
    expect(result.stderr).toContain('cms import records cities.json --type city');
    expect(server.hits('POST /api/import/json').length).toBeLessThanOrEqual(2);
    expect(interrupt).toBeUndefined();
  });

  it('imports a CSV in calls, prints progress lines and a summary, writes failures to the errors file, exits 4', async () => {
    const server = await t.serve({
      'GET /api/types/city': () => ({ body: cityType }),
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
    const imports = server.hits('POST /api/import/json');
    const sent = imports.flatMap((request) => (request.body as { records: unknown[] }).records);
    expect(sent[0]).toEqual({ slug: 'c0', name: 'City 0', population: 0, code: '000' });
    expect(sent[3]).toEqual({ slug: 'c3', population: 3000, code: '003' });
    expect(imports).toHaveLength(3);
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

  it('converts CSV cells by the declared field types: an ISBN and a title that look like numbers stay strings', async () => {
    const server = await t.serve({
      'GET /api/types/book': () => ({
        body: {
          name: 'book',
          label: 'Book',
          nodeLabel: 'Book',
          keyField: 'isbn',
          fields: [
            { name: 'isbn', type: 'string', required: true },
            { name: 'title', type: 'string', required: true },
            { name: 'year', type: 'number' },
            { name: 'inPrint', type: 'boolean' },
            { name: 'published', type: 'date' },
            { name: 'tags', type: 'stringlist' },
          ],
          relationships: [{ name: 'author', edgeLabel: 'WRITTEN_BY', target: 'author', kind: 'many-to-one' }],
        },
      }),
      'POST /api/import/json': ({ body }) => ({ body: created((body as { records: unknown[] }).records) }),
    });
    await writeFile(
      join(t.dir, 'books.csv'),
      [
        'isbn,title,year,inPrint,published,tags,author',
        '0451524934,1984,1949,true,1949-06-08,dystopia|classic,author:orwell',
        '9780060850524,Brave New World,1932,no,,,author:huxley',
      ].join('\n'),
    );
    const result = await t.cli(['import', 'records', 'books.csv', '--type', 'book']);
    expect(result.code, result.stderr).toBe(0);
    expect(server.hits('POST /api/import/json')[0]?.body).toMatchObject({
      typeName: 'book',
      records: [
        {
          isbn: '0451524934',
          title: '1984',
          year: 1949,
          inPrint: true,
          published: '1949-06-08',
          tags: ['dystopia', 'classic'],
          relationships: { author: 'author:orwell' },
        },
        {
          isbn: '9780060850524',
          title: 'Brave New World',
          year: 1932,
          inPrint: false,
          relationships: { author: 'author:huxley' },
        },
      ],
    });
  });

  it('sends --publish and reports created, updated, unchanged and what went live', async () => {
    const server = await t.serve({
      'POST /api/import/json': ({ body }) => {
        const { records } = body as { records: unknown[] };
        return {
          body: created(records, {
            created: 1,
            updated: 1,
            unchanged: records.length - 2,
            published: { envId: 'env:prod', count: 2 },
          }),
        };
      },
    });
    await writeFile(
      join(t.dir, 'regions.json'),
      JSON.stringify([{ slug: 'a' }, { slug: 'b' }, { slug: 'c' }, { slug: 'd' }]),
    );
    const result = await t.cli([
      'import',
      'records',
      'regions.json',
      '--type',
      'region',
      '--publish',
      'prod',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests[0]?.body).toMatchObject({ typeName: 'region', publish: 'prod' });
    expect(result.stdout).toContain('1 created, 1 updated, 2 unchanged, 0 failed');
    expect(result.stdout).toContain('Published 2 item(s) to env:prod.');
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

  it('names the line and column of bad JSON', async () => {
    await t.serve({});
    await writeFile(join(t.dir, 'bad.json'), '[\n  {"slug": "a"},\n  {"slug" "b"}\n]\n');
    const result = await t.cli(['import', 'records', 'bad.json', '--type', 'post']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('bad.json: not valid JSON at line 3, column 11');
  });

  it('imports the readable rows of a CSV file and writes the unreadable ones to the errors file', async () => {
    const server = await t.serve({
      'GET /api/types/region': () => ({
        body: {
          name: 'region',
          label: 'Region',
          nodeLabel: 'Region',
          keyField: 'slug',
          fields: [
            { name: 'slug', type: 'string' },
            { name: 'name', type: 'string' },
          ],
        },
      }),
      'POST /api/import/json': (request) => {
        const records = (request.body as { records: unknown[] }).records;
        return {
          body: {
            ok: true,
            totalRecords: records.length,
            created: records.length,
            failed: 0,
            batches: 1,
            tookMs: 5,
            recordsPerSec: 100,
            errors: [],
            gatewayTimeoutWarning: null,
          },
        };
      },
    });
    await writeFile(
      join(t.dir, 'regions.csv'),
      'slug,name\neurope,Europe\nasia,Asia,extra cell\noceania,Oceania\n',
    );
    const result = await t.cli(['import', 'records', 'regions.csv', '--type', 'region']);
    expect(result.code).toBe(4);
    expect(server.hits('POST /api/import/json')[0]?.body).toMatchObject({
      records: [{ slug: 'europe' }, { slug: 'oceania' }],
    });
    expect(result.stdout).toContain('1 unreadable CSV row(s)');
    const errors = (await readFile(join(t.dir, 'regions.errors.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(errors).toEqual([
      expect.objectContaining({ line: 3, raw: expect.stringContaining('asia,Asia,extra cell') }),
    ]);
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
