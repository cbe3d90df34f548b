import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();

function answer(removed: number, missing: number, errors: { index: number; error: string }[] = []) {
  return {
    ok: errors.length === 0,
    totalEdges: 1,
    removed,
    missing,
    failed: errors.length,
    batches: 1,
    tookMs: 1,
    errors,
  };
}

describe('cms edges rm', () => {
  it('removes one edge through POST /api/import/edges/remove', async () => {
    const server = await t.serve({ 'POST /api/import/edges/remove': () => ({ body: answer(1, 0) }) });
    const result = await t.cli(['edges', 'rm', 'book:1984', 'WRITTEN_BY', 'author:huxley']);
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests[0]?.body).toEqual({
      edges: [{ from: 'book:1984', edge: 'WRITTEN_BY', to: 'author:huxley' }],
    });
    expect(result.stdout).toContain('Removed book:1984 -[WRITTEN_BY]-> author:huxley.');
  });

  it('says so when there is no such edge, and exits 0', async () => {
    await t.serve({ 'POST /api/import/edges/remove': () => ({ body: answer(0, 1) }) });
    const result = await t.cli(['edges', 'rm', 'book:1984', 'WRITTEN_BY', 'author:huxley', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ removed: 0, missing: 1 });
  });

  it('prints why a refused edge stays, and exits 1', async () => {
    await t.serve({
      'POST /api/import/edges/remove': () => ({
        body: answer(0, 0, [{ index: 0, error: '`author` of book:1984 is required' }]),
      }),
    });
    const result = await t.cli(['edges', 'rm', 'book:1984', 'WRITTEN_BY', 'author:orwell']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'Not removed: book:1984 -[WRITTEN_BY]-> author:orwell: `author` of book:1984 is required',
    );
  });

  it('needs the three parts of the edge', async () => {
    const server = await t.serve({});
    const result = await t.cli(['edges', 'rm', 'book:1984', 'WRITTEN_BY']);
    expect(result.code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });
});
