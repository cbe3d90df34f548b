import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests('cms-maintenance-');

describe('cms maintenance', () => {
  it('materializes the embeddings of a type', async () => {
    const server = await t.serve({
      'POST /api/maintenance/embeddings/materialize': () => ({
        body: { ok: true, type: 'post', nodeLabel: 'Post', durationMs: 12, note: 'idempotent', embedded: 3 },
      }),
    });
    const result = await t.cli(['maintenance', 'embeddings', 'post']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Embeddings of post (Post): 3 item(s) embedded in 12 ms.');
    expect(server.requests[0]?.url).toBe('/api/maintenance/embeddings/materialize?type=post');
  });

  it('names cms commands, not HTTP calls, in the hints of errors', async () => {
    await t.serve({
      'POST /api/maintenance/embeddings/materialize': () => ({
        status: 404,
        body: {
          error: 'Content type `pots` not found.',
          code: 'not_found',
          hint: 'List the site’s types with GET /api/types.',
        },
      }),
    });
    const result = await t.cli(['maintenance', 'embeddings', 'pots']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Hint: List the site’s types with cms types list.');
    expect(result.stderr).not.toContain('/api/');
  });
});
