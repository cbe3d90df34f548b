import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();

const item = (slug: string, year: number) => ({
  id: `book:${slug}`,
  type: 'book',
  fields: { title: slug, year },
  status: 'draft',
  updatedAt: '2026-05-01T09:00:00.000Z',
});

describe('cms content list', () => {
  it('sends --where, --sort, --limit and --offset, and says which page of how many it shows', async () => {
    const server = await t.serve({
      'GET /api/content/book': () => ({
        body: { items: [item('dune', 1965), item('solaris', 1961)], total: 9, limit: 2, offset: 4 },
      }),
    });
    const result = await t.cli([
      'content',
      'list',
      'book',
      '--where',
      "year < 1970 and tags contains 'sf'",
      '--sort',
      '-year,title',
      '--limit',
      '2',
      '--offset',
      '4',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/book:dune\s+draft\s+dune/);
    expect(result.stdout).toContain('5-6 of 9');
    const url = new URL(server.hits('GET /api/content/book')[0]!.url, 'http://x');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      where: "year < 1970 and tags contains 'sf'",
      sort: '-year,title',
      limit: '2',
      offset: '4',
      withMeta: '1',
    });
  });

  it('pages through every match with --all, keeping the filter', async () => {
    const server = await t.serve({
      'GET /api/content/book': (request) => {
        const offset = Number(new URL(request.url, 'http://x').searchParams.get('offset'));
        const items = offset === 0 ? [item('a', 1), item('b', 2)] : [item('c', 3)];
        return { body: { items, total: 3 } };
      },
    });
    const result = await t.cli(['content', 'list', 'book', '--all', '--where', 'year > 0', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).map((record: { id: string }) => record.id)).toEqual([
      'book:a',
      'book:b',
      'book:c',
    ]);
    for (const hit of server.hits('GET /api/content/book')) {
      expect(new URL(hit.url, 'http://x').searchParams.get('where')).toBe('year > 0');
    }
  });

  it('refuses a --status that is not a workflow status before calling the server', async () => {
    const server = await t.serve({});
    const result = await t.cli(['content', 'list', 'book', '--status', 'archived']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('draft, published');
    expect(server.requests).toHaveLength(0);
  });
});
