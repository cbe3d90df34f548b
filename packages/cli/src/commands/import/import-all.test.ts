import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';
import { dependencyOrder } from './import-all';

const t = setUpCommandTests();

const field = (name: string, extra: Record<string, unknown> = {}) => ({ name, type: 'string', ...extra });
const types = {
  post: {
    name: 'post',
    label: 'Post',
    nodeLabel: 'Post',
    keyField: 'slug',
    fields: [field('slug'), field('title'), field('series', { type: 'reference', target: 'series' })],
    relationships: [{ name: 'author', edgeLabel: 'WRITTEN_BY', target: 'author', kind: 'many-to-one' }],
  },
  author: {
    name: 'author',
    label: 'Author',
    nodeLabel: 'Author',
    keyField: 'slug',
    fields: [field('slug'), field('name')],
  },
  series: {
    name: 'series',
    label: 'Series',
    nodeLabel: 'Series',
    keyField: 'slug',
    fields: [field('slug'), field('age', { type: 'number' })],
  },
};

describe('dependencyOrder', () => {
  it('puts a type after the types its references and relationships point at; cycles in name order', () => {
    expect(dependencyOrder(Object.values(types) as never)).toEqual(['author', 'series', 'post']);
    const a = { name: 'a', fields: [field('b', { type: 'reference', target: 'b' })] };
    const b = { name: 'b', fields: [field('a', { type: 'reference', target: 'a' })] };
    const c = { name: 'c', fields: [], relationships: [{ name: 'x', edgeLabel: 'X', target: 'a' }] };
    expect(dependencyOrder([c, b, a] as never)).toEqual(['a', 'b', 'c']);
  });
});

describe('cms import records <folder or multi-type file>', () => {
  const serveTypes = () => {
    const order: string[] = [];
    const server = t.serve({
      ...Object.fromEntries(
        Object.entries(types).map(([name, type]) => [`GET /api/types/${name}`, () => ({ body: type })]),
      ),
      'POST /api/import/json': ({ body }) => {
        const { typeName, records } = body as { typeName: string; records: Record<string, unknown>[] };
        order.push(typeName);
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
      'POST /api/import/edges': ({ body }) => {
        order.push('edges');
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
    return { server, order };
  };

  it('imports a folder type by type in dependency order, CSV cells typed, then the edges', async () => {
    const { server, order } = serveTypes();
    const served = await server;
    const dir = join(t.dir, 'export');
    await mkdir(dir);
    await writeFile(join(dir, 'post.ndjson'), '{"slug":"p1","title":"One","series":"series:s1"}\n');
    await writeFile(join(dir, 'series.csv'), 'slug,age\ns1,7\ns2,broken,extra\n');
    await writeFile(join(dir, 'author.json'), JSON.stringify([{ slug: 'ada', name: 'Ada' }]));
    await writeFile(join(dir, 'edges.csv'), 'from,edge,to\npost:p1,WRITTEN_BY,author:ada\n');
    const result = await t.cli(['import', 'records', 'export']);
    expect(order).toEqual(['author', 'series', 'post', 'edges']);
    const series = served
      .hits('POST /api/import/json')
      .find((hit) => (hit.body as { typeName: string }).typeName === 'series');
    expect((series?.body as { records: unknown[] } | undefined)?.records).toEqual([{ slug: 's1', age: 7 }]);
    expect(result.stderr).toContain('Importing author, series, post, then edges.');
    expect(result.stdout).toContain(
      'series: 1 created, 0 updated, 0 unchanged, 0 failed, 1 unreadable CSV row(s)',
    );
    expect(result.code).toBe(4);
    const errors = await readFile(join(t.dir, 'export.errors.ndjson'), 'utf8');
    expect(JSON.parse(errors.trim())).toMatchObject({ type: 'series', line: 3 });
  });

  it('imports a multi-type JSON file, and names a file whose type the site does not have', async () => {
    const { server, order } = serveTypes();
    await server;
    await writeFile(
      join(t.dir, 'site.json'),
      JSON.stringify({
        records: { post: [{ slug: 'p1', title: 'One' }], author: [{ slug: 'ada', name: 'Ada' }] },
        edges: [{ from: 'post:p1', edge: 'WRITTEN_BY', to: 'author:ada' }],
      }),
    );
    const ok = await t.cli(['import', 'records', 'site.json']);
    expect(ok.code).toBe(0);
    expect(order).toEqual(['author', 'post', 'edges']);

    await writeFile(join(t.dir, 'one.json'), JSON.stringify([{ slug: 'x' }]));
    const single = await t.cli(['import', 'records', 'one.json']);
    expect(single.code).toBe(2);
    expect(single.stderr).toContain("for one type's records pass --type <name>");
  });
});
